  // ---------------------------------------------------------------- Headers
  // A Headers object is a view of a Go header list (a handle that only the
  // natives read, headers.go): names are checked and values normalized
  // in Go, and the bridge reads the lists of requests and responses
  // directly, without iterating them in JS.
  const BODY_USED = "Body has already been used. It can only be used once. Use tee() first if you need to read it twice.";
  const arrayIter = Array.prototype[Symbol.iterator];
  const arrayIterProto = Object.getPrototypeOf([][Symbol.iterator]());
  const arrayIterNext = arrayIterProto.next;
  // isPlainArray: iterating x is reading its elements (no user iterator).
  function isPlainArray(x) {
    return Array.isArray(x) && x[Symbol.iterator] === arrayIter && arrayIterProto.next === arrayIterNext;
  }
  let wrapHeaders; // (list, guard|null) → Headers; a null guard is read from the list when needed
  let headersList; // (h) → the list of a Headers, or undefined
  class Headers {
    #map; // the Go header list (named #map for the brand-check messages)
    #guard = "none";
    constructor(init) {
      if (init === INTERNAL) return;
      if (init === undefined) {
        this.#map = native.hNew();
        return;
      }
      if (!isObject(init)) {
        this.#map = native.hNew();
        throw new TypeError("Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.");
      }
      if (#map in init) {
        this.#map = native.hCopy(init.#map);
        return;
      }
      this.#map = native.hNew();
      if (typeof init[Symbol.iterator] === "function") {
        if (isPlainArray(init)) {
          for (let i = 0; i < init.length; i++) {
            const pair = init[i];
            let p = null;
            if (isPlainArray(pair)) p = pair;
            else if (isObject(pair) && typeof pair[Symbol.iterator] === "function") p = [...pair];
            if (p === null || p.length !== 2) {
              throw new TypeError("To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.");
            }
            this.append(p[0], p[1]);
          }
          return;
        }
        for (const pair of init) {
          const p = isObject(pair) && typeof pair[Symbol.iterator] === "function" ? (isPlainArray(pair) ? pair : [...pair]) : null;
          if (p === null || p.length !== 2) {
            throw new TypeError("To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.");
          }
          this.append(p[0], p[1]);
        }
      } else {
        const keys = Object.keys(init);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          this.append(k, init[k]);
        }
      }
    }
    static {
      wrapHeaders = (list, guard) => {
        const h = new Headers(INTERNAL);
        h.#map = list;
        h.#guard = guard;
        return h;
      };
      headersList = (h) => (isObject(h) && #map in h ? h.#map : undefined);
    }
    #check() {
      let g = this.#guard;
      if (g === null) g = this.#guard = native.hGuard(this.#map);
      if (g !== "none") throw new TypeError("Can't modify immutable headers.");
    }
    append(name, value) {
      this.#check();
      if (typeof name !== "string") name = String(name);
      if (typeof value !== "string") {
        native.hName(name);
        value = String(value);
      }
      native.hAppend(this.#map, name, value);
    }
    delete(name) {
      this.#check();
      native.hDelete(this.#map, typeof name === "string" ? name : String(name));
    }
    get(name) {
      const m = this.#map;
      return native.hGet(m, typeof name === "string" ? name : String(name));
    }
    getAll(name) {
      if (String(name).toLowerCase() !== "set-cookie") {
        throw new TypeError('getAll() can only be used with the header name "Set-Cookie".');
      }
      return this.getSetCookie();
    }
    getSetCookie() {
      return native.hGetSetCookie(this.#map);
    }
    has(name) {
      const m = this.#map;
      return native.hHas(m, typeof name === "string" ? name : String(name));
    }
    set(name, value) {
      this.#check();
      if (typeof name !== "string") name = String(name);
      if (typeof value !== "string") {
        native.hName(name);
        value = String(value);
      }
      native.hSet(this.#map, name, value);
    }
    // #displayed(mode): sorted by name, set-cookie lines apart. mode 0:
    // [[name, value], ...], 1: names, 2: values, 3: [name, value, ...].
    #displayed(mode) {
      return native.hDisplay(this.#map, mode);
    }
    forEach(callback, thisArg) {
      if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.");
      const d = this.#displayed(3);
      for (let i = 0; i < d.length; i += 2) callback.call(thisArg, d[i + 1], d[i], this);
    }
    entries() {
      return this.#displayed(0)[Symbol.iterator]();
    }
    keys() {
      return this.#displayed(1)[Symbol.iterator]();
    }
    values() {
      return this.#displayed(2)[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  brandHost(Headers, "Headers");
  defineGlobal("Headers", Headers);
  const TEXT_PLAIN = "text/plain;charset=UTF-8";

