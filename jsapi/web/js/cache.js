  // ---------------------------------------------------------------- Cache API
  // caches.default and caches.open(name): workerd's checks and messages,
  // over a working local store (cache.go says which responses it keeps).
  // (built on a runtime's first use)
  function makeCaches() {
    const cacheNames = new WeakMap(); // Cache → name (undefined for caches.default)
    function cacheNameOf(x) {
      if (!cacheNames.has(x)) throw illegalInvocation();
      return cacheNames.get(x);
    }
    function Cache() {
      throw new TypeError("Illegal constructor");
    }
    function newCache(name) {
      const c = Object.create(Cache.prototype);
      cacheNames.set(c, name);
      return c;
    }
    function cacheRequest(method, input) {
      if (input === undefined || !(isRequest(input) || typeof input === "string" || isObject(input))) {
        throw new TypeError(`Failed to execute '${method}' on 'Cache': parameter 1 is not of type 'Request or string'.`);
      }
      return isRequest(input) ? input : new Request(typeof input === "string" ? input : String(input));
    }
    function notImplemented(cls, method) {
      return function () {
        return Promise.reject(new Error(`Failed to execute '${method}' on '${cls}': the method is not implemented.`));
      };
    }
    const nullBodyStatuses = new Set([101, 204, 205, 304]);
    const cacheMethods = {
      match(request, options) {
        try {
          const name = cacheNameOf(this);
          const req = cacheRequest("match", request);
          if (req.method !== "GET" && !(isObject(options) && options.ignoreMethod)) return Promise.resolve(undefined);
          const hit = native.cacheMatch(name, req.url);
          if (hit === null) return Promise.resolve(undefined);
          const headers = new Headers();
          const flat = hit[2];
          for (let i = 0; i < flat.length; i += 2) headers.append(flat[i], flat[i + 1]);
          headers.set("CF-Cache-Status", "HIT");
          const body = nullBodyStatuses.has(hit[0]) ? null : new Uint8Array(hit[3]);
          return Promise.resolve(new Response(body, { status: hit[0], statusText: hit[1], headers }));
        } catch (e) {
          return Promise.reject(e);
        }
      },
      put(request, response) {
        try {
          const name = cacheNameOf(this);
          if (request === undefined) throw new TypeError("Failed to execute 'put' on 'Cache': parameter 1 is not of type 'Request or string'.");
          if (!(response instanceof Response)) throw new TypeError("Failed to execute 'put' on 'Cache': parameter 2 is not of type 'Response'.");
          if (response.type === "error") throw new TypeError("Cache is unable to store an error response");
          const req = cacheRequest("put", request);
          if (req.method !== "GET") throw new TypeError("Cannot cache response to non-GET request.");
          const status = response.status;
          if (status === 206) throw new TypeError("Cannot cache response to a range request (206 Partial Content).");
          const vary = response.headers.get("vary");
          if (vary !== null && vary.includes("*")) throw new TypeError("Cannot cache response with 'Vary: *' header.");
          if (status === 304) return Promise.resolve(undefined);
          if (response.webSocket !== null && response.webSocket !== undefined) throw new TypeError("Cannot cache WebSocket upgrade response.");
          const flat = [];
          for (const [k, v] of response.headers) flat.push(k, v);
          const statusText = response.statusText;
          const url = req.url;
          // bytes() marks the body used before put() returns, as workerd
          return response.bytes().then((bytes) => {
            native.cachePut(name, url, status, statusText, flat, bytes);
          });
        } catch (e) {
          return Promise.reject(e);
        }
      },
      delete(request, options) {
        try {
          const name = cacheNameOf(this);
          const req = cacheRequest("delete", request);
          if (req.method !== "GET" && !(isObject(options) && options.ignoreMethod)) return Promise.resolve(false);
          return Promise.resolve(native.cacheDelete(name, req.url));
        } catch (e) {
          return Promise.reject(e);
        }
      },
      add: notImplemented("Cache", "add"),
      addAll: notImplemented("Cache", "addAll"),
      matchAll: notImplemented("Cache", "matchAll"),
      keys: notImplemented("Cache", "keys"),
    };
    for (const k of Object.keys(cacheMethods)) {
      Object.defineProperty(Cache.prototype, k, { value: cacheMethods[k], writable: true, configurable: true, enumerable: true });
    }
    Object.defineProperty(Cache.prototype, Symbol.toStringTag, { value: "Cache", configurable: true });
    constructorLast(Cache);

    function CacheStorage() {
      throw new TypeError("Illegal constructor");
    }
    const defaultCache = newCache(undefined);
    const cacheStorageMethods = {
      open(cacheName) {
        try {
          const name = String(cacheName);
          if (name.length >= 1024) throw new TypeError("Cache name is too long.");
          return Promise.resolve(newCache(name));
        } catch (e) {
          return Promise.reject(e);
        }
      },
      delete: notImplemented("CacheStorage", "delete"),
      match: notImplemented("CacheStorage", "match"),
      has: notImplemented("CacheStorage", "has"),
      keys: notImplemented("CacheStorage", "keys"),
    };
    for (const k of Object.keys(cacheStorageMethods)) {
      Object.defineProperty(CacheStorage.prototype, k, { value: cacheStorageMethods[k], writable: true, configurable: true, enumerable: true });
    }
    Object.defineProperty(CacheStorage.prototype, Symbol.toStringTag, { value: "CacheStorage", configurable: true });
    constructorLast(CacheStorage);
    const caches = Object.create(CacheStorage.prototype);
    Object.defineProperty(caches, "default", { value: defaultCache, enumerable: true });
    return { Cache, CacheStorage, caches };
  }
  let cachesAPI;
  const cachesOnce = () => {
    if (cachesAPI === undefined) {
      cachesAPI = makeCaches();
      // not serializable, as on workerd
      hostType(cachesAPI.Cache, "Cache");
      hostType(cachesAPI.CacheStorage, "CacheStorage");
    }
    return cachesAPI;
  };
  lazyGlobal("Cache", () => cachesOnce().Cache);
  lazyGlobal("CacheStorage", () => cachesOnce().CacheStorage);
  lazyGlobal("caches", () => cachesOnce().caches);
