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

  class RpcTarget {}

  const idHex = new WeakMap();
  const idNamespace = new WeakMap();

  class DurableObjectId {
    constructor(hex, name, ns) {
      idHex.set(this, hex);
      idNamespace.set(this, ns);
      this.jurisdiction = undefined;
      this.name = name;
    }
    toString() {
      return idHex.get(this);
    }
    equals(other) {
      return other instanceof DurableObjectId && idHex.get(other) === idHex.get(this);
    }
  }

  function makeId(hex, name, ns) {
    return new DurableObjectId(hex, name, ns);
  }

  const stubTarget = new WeakMap();

  class DurableObjectStub {
    constructor(ns, id) {
      stubTarget.set(this, { ns, id });
      Object.defineProperty(this, "id", { value: id, enumerable: true });
      Object.defineProperty(this, "name", { value: id.name, enumerable: true });
    }
    fetch(input, init) {
      const { ns, id } = stubTarget.get(this);
      let request;
      try {
        request = input instanceof Request && init === undefined ? input : new Request(input, init);
      } catch (e) {
        return Promise.reject(e);
      }
      return native.stubFetch(ns, idHex.get(id), id.name, request);
    }
  }

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
      if (idNamespace.get(id) !== this.#ns) {
        throw new TypeError("Durable Object ID is not valid for this namespace.");
      }
      return new DurableObjectStub(this.#ns, id);
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

  return {
    DurableObject,
    WorkerEntrypoint,
    RpcTarget,
    DurableObjectId,
    DurableObjectNamespace,
    makeId,
    settle,
  };
});
