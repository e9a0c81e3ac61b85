// The parts of cloudflare:workers that are not the object model: env and
// exports as proxies (withEnv/withExports), and the names workerd exports
// that cellhost has no runtime for. Evaluated once per runtime; returns
// {module, setExports}.
//
// withEnv/withExports: workerd keys the override on the async context, so
// it follows fn's own continuations only. goja has no async context: here
// the override holds from the call until fn's promise settles, for every
// handler of the runtime that runs meanwhile.
(function (base, waitUntil) {
  "use strict";
  let curEnv = base.env;
  let baseExports;
  let curExports;

  const view = (current, writable) => {
    const h = {
      get: (_, p) => (current() ? Reflect.get(current(), p) : undefined),
      has: (_, p) => (current() ? Reflect.has(current(), p) : false),
      ownKeys: () => (current() ? Reflect.ownKeys(current()) : []),
      getOwnPropertyDescriptor: (_, p) => {
        if (!current()) return undefined;
        const d = Reflect.getOwnPropertyDescriptor(current(), p);
        if (d) d.configurable = true;
        return d;
      },
    };
    if (writable) {
      h.set = (_, p, v) => (current() ? Reflect.set(current(), p, v) : true);
      h.deleteProperty = (_, p) => (current() ? Reflect.deleteProperty(current(), p) : true);
      h.defineProperty = (_, p, d) => (current() ? Reflect.defineProperty(current(), p, d) : true);
    }
    return new Proxy({}, h);
  };

  const isObject = (v) => (typeof v === "object" && v !== null) || typeof v === "function";

  // within runs fn with the current env/exports set by set(), restoring
  // them when fn returns or its promise settles.
  function within(set, fn) {
    const prevEnv = curEnv, prevExports = curExports;
    set();
    let r;
    try {
      r = fn();
    } catch (e) {
      curEnv = prevEnv;
      curExports = prevExports;
      throw e;
    }
    if (isObject(r) && typeof r.then === "function") {
      return Promise.resolve(r).finally(() => {
        curEnv = prevEnv;
        curExports = prevExports;
      });
    }
    curEnv = prevEnv;
    curExports = prevExports;
    return r;
  }
  const pick = (v, fallback) => (isObject(v) ? v : fallback);

  function withEnv(newEnv, fn) {
    return within(() => { curEnv = pick(newEnv, base.env); }, fn);
  }
  function withExports(newExports, fn) {
    return within(() => { curExports = pick(newExports, baseExports); }, fn);
  }
  function withEnvAndExports(newEnv, newExports, fn) {
    return within(() => {
      curEnv = pick(newEnv, base.env);
      curExports = pick(newExports, baseExports);
    }, fn);
  }

  class WorkflowEntrypoint {
    constructor(ctx, env) {
      this.ctx = ctx;
      this.env = env;
    }
  }
  class ServiceStub {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
  }
  const unsupported = (what) => () => {
    throw new Error(`${what} is not supported by cellhost.`);
  };

  const module = Object.assign(Object.create(null), base, {
    env: view(() => curEnv, true),
    exports: view(() => curExports, false),
    withEnv,
    withExports,
    withEnvAndExports,
    waitUntil,
    WorkflowEntrypoint,
    ServiceStub,
    restore: unsupported("restore()"),
    abortIsolate: unsupported("abortIsolate()"),
    cache: view(() => undefined, false),
    tracing: Object.freeze({}),
  });

  return {
    module,
    // setExports gives the worker's exports once the bundle ran: Durable
    // Object classes appear as their namespaces (ctx.exports).
    setExports(ex) {
      baseExports = ex;
      curExports = ex;
    },
  };
});
