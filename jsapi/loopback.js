// Loopback service stubs: a service binding to one of the worker's own
// entrypoints, and the entries of ctx.exports. native is loopback.go's.
(function (native) {
  "use strict";
  // ScheduledController as workerd gives it to a scheduled() handler
  // called over a service binding: own cron and scheduledTime, noRetry()
  // on the prototype.
  class ScheduledController {
    #state;
    constructor(cron, scheduledTime, state) {
      this.cron = cron;
      this.scheduledTime = scheduledTime;
      this.#state = state;
    }
    noRetry() { this.#state.noRetry = true; }
  }
  function service(binding, entrypoint) {
    const label = entrypoint === "" ? "default" : entrypoint;
    function target() {
      const ex = native.exports();
      const t = entrypoint === "" ? ex.default : ex[entrypoint];
      if (t === undefined || t === null) {
        throw new Error(binding + ': the worker exports no entrypoint named "' + label + '"');
      }
      const ctx = native.newCtx();
      return typeof t === "function" ? { obj: new t(ctx, native.env), ctx, cls: true } : { obj: t, ctx, cls: false };
    }
    return new Proxy({}, {
      get(_, prop) {
        if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
        if (prop === "fetch") {
          return async (input, init) => {
            const req = new Request(input, init);
            const t = target();
            if (typeof t.obj.fetch !== "function") {
              throw new Error(binding + ': the entrypoint "' + label + '" has no fetch() handler');
            }
            return t.cls ? t.obj.fetch(req) : t.obj.fetch(req, native.env, t.ctx);
          };
        }
        if (prop === "scheduled") {
          // workerd's Fetcher.scheduled(): runs the handler, and answers
          // with its outcome instead of throwing.
          return async (options) => {
            options = options || {};
            const at = options.scheduledTime === undefined ? Date.now() : Number(options.scheduledTime instanceof Date ? options.scheduledTime.getTime() : options.scheduledTime);
            const state = { noRetry: false };
            const ctl = new ScheduledController(options.cron === undefined ? "" : String(options.cron), at, state);
            let outcome = "ok";
            try {
              const t = target();
              if (typeof t.obj.scheduled !== "function") {
                throw new Error(binding + ': the entrypoint "' + label + '" has no scheduled() handler');
              }
              await (t.cls ? t.obj.scheduled(ctl) : t.obj.scheduled(ctl, native.env, t.ctx));
            } catch (e) {
              // As workerd: the caller gets the outcome, the log the error.
              outcome = "exception";
              console.error("Uncaught", e);
            }
            return { outcome, noRetry: state.noRetry };
          };
        }
        // RPC: the arguments and the result travel through RPC's encoding,
        // as over workerd's service bindings: the callee gets copies,
        // functions and RpcTargets become stubs, and what RPC cannot carry
        // throws DataCloneError.
        return async (...args) => {
          const sent = native.rpcCopy(args);
          const t = target();
          const f = t.obj[prop];
          if (typeof f !== "function") {
            throw new TypeError('The RPC receiver does not implement the method "' + prop + '".');
          }
          return native.rpcCopy(await f.apply(t.obj, sent));
        };
      },
    });
  }
  // controller is the ScheduledController of a scheduled() handler that a
  // cron trigger runs.
  function controller(cron, scheduledTime) {
    return new ScheduledController(cron, scheduledTime, { noRetry: false });
  }
  return { service, controller };
})
