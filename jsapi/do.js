// The Durable Object model as JS sees it. Evaluated once per runtime as a
// function that receives `native` (Go functions, see do.go) and returns the
// classes Go needs. Nothing here touches storage directly.
(function (native) {
  "use strict";

  class DurableObject {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }

  class WorkerEntrypoint {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }

  // An id's hex and namespace are private fields, not WeakMap entries: a
  // WeakMap entry costs goja a Go weak pointer, and getByName makes an id
  // on every request. idHexOf/idNamespaceOf read them (undefined for
  // anything that is not an id).
  let idHexOf, idNamespaceOf;
  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

  class DurableObjectId {
    #hex;
    #ns;
    constructor(hex, name, ns) {
      this.#hex = hex;
      this.#ns = ns;
      this.jurisdiction = undefined;
      this.name = name;
    }
    toString() {
      return idHexOf(this);
    }
    equals(other) {
      return other instanceof DurableObjectId && idHexOf(other) === idHexOf(this);
    }
    static {
      idHexOf = (id) => (isObject(id) && #hex in id ? id.#hex : undefined);
      idNamespaceOf = (id) => (isObject(id) && #hex in id ? id.#ns : undefined);
    }
  }

  function makeId(hex, name, ns) {
    return new DurableObjectId(hex, name, ns);
  }

  // A stub is a Go object (native.makeStub, stub.go): its own properties
  // are id and name; a property its prototype chain has (fetch, Object's)
  // comes from there; any other string property but "then" is an RPC
  // method: stub.m(...args) calls it, awaiting stub.p reads a property
  // (prototype getters). The stub itself is not thenable.
  class DurableObjectStub {
    fetch(input, init) {
      let request;
      try {
        request = input instanceof Request && init === undefined ? input : new Request(input, init);
      } catch (e) {
        return Promise.reject(e);
      }
      if (request.redirect !== "follow") return native.stubFetch(this, request);
      return fetchFollowing(this, request, 0);
    }
  }

  // fetchFollowing sends request to stub and follows the redirects it
  // answers with as fetch() does (redirect: "follow", workerd's default
  // for stub.fetch()): 303, and 301/302 after a POST, become a GET without
  // a body; 307 and 308 resend the method and body; at most 20.
  // A streamed body is not kept (a copy would buffer all of it): a 307 or
  // 308 answered to it is returned as it is.
  const STREAMED = Symbol.for("cellhost.streamedBody");
  function fetchFollowing(stub, request, hops) {
    const streamed = request[STREAMED] === true;
    const keep = request.body !== null && !streamed ? request.clone() : null;
    return native.stubFetch(stub, request).then((response) => {
      const status = response.status;
      const location = response.headers.get("location");
      if (location === null || !(status === 301 || status === 302 || status === 303 || status === 307 || status === 308)) return response;
      let url;
      try {
        url = new URL(location, request.url);
      } catch {
        return response;
      }
      if (hops >= 20) throw new TypeError("Too many redirects.");
      if (streamed && (status === 307 || status === 308)) return response;
      let method = request.method;
      let body = keep === null ? null : keep.body;
      const headers = new Headers(request.headers);
      if ((status === 303 && method !== "HEAD") || ((status === 301 || status === 302) && method === "POST")) {
        method = "GET";
        body = null;
        for (const h of ["content-type", "content-length", "content-encoding", "content-language", "content-location"]) headers.delete(h);
      }
      return fetchFollowing(stub, new Request(url, { method, headers, body, redirect: "follow" }), hops + 1);
    });
  }
  native.stubSetup(DurableObjectStub.prototype, native.doStubMethod);

  class DurableObjectNamespace {
    #ns;
    constructor(ns) {
      this.#ns = ns;
    }
    idFromName(name) {
      name = String(name);
      return makeId(this.#ns.idFromName(name), name, this.#ns);
    }
    idFromString(hex) {
      return makeId(this.#ns.idFromString(String(hex)), undefined, this.#ns);
    }
    newUniqueId(options) {
      return makeId(this.#ns.newUniqueId(), undefined, this.#ns);
    }
    get(id, options) {
      if (!(id instanceof DurableObjectId)) {
        throw new TypeError("Failed to execute 'get' on 'DurableObjectNamespace': parameter 1 is not of type 'DurableObjectId'.");
      }
      if (idNamespaceOf(id) !== this.#ns) {
        throw new TypeError("Durable Object ID is not valid for this namespace.");
      }
      return native.makeStub(this.#ns, id, idHexOf(id), id.name);
    }
    getByName(name, options) {
      return this.get(this.idFromName(name), options);
    }
    jurisdiction() {
      return this;
    }
  }

  // settle calls ok(value) or fail(error) once v (a value or thenable) settles.
  function settle(v, ok, fail) {
    Promise.resolve(v).then(ok, fail);
  }

  // defer runs fn in a promise job of its own; noop is a call into JS
  // whose return runs the pending jobs (bcw.go).
  function defer(fn) {
    Promise.resolve().then(fn);
  }
  function noop() {}

  return {
    defer,
    noop,
    DurableObject,
    WorkerEntrypoint,
    DurableObjectId,
    DurableObjectNamespace,
    makeId,
    settle,
  };
});
