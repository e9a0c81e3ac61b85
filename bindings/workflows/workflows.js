(function (native) {
  "use strict";
  const UNITS = { millisecond: 1, second: 1000, minute: 60000, hour: 3600000, day: 86400000, week: 604800000, month: 2592000000, year: 31536000000 };
  function ms(d) {
    if (typeof d === "number") return d;
    const m = /^\s*(\d+(?:\.\d+)?)\s*(millisecond|second|minute|hour|day|week|month|year)s?\s*$/.exec(String(d));
    if (!m) throw new TypeError(`Invalid duration "${d}": want a number of milliseconds or "<n> <unit>"`);
    return Number(m[1]) * UNITS[m[2]];
  }
  const idPattern = /^[a-zA-Z0-9_][a-zA-Z0-9-_]*$/;

  // Introspection (cloudflare:test's introspectWorkflow): the hooks that
  // create() runs first, and the waiters woken whenever a request of this
  // runtime reached an instance's cell. A run in another runtime (another
  // shard) wakes nobody here, so a waiter also looks again every 250 ms.
  const INTROSPECT = Symbol.for("cellhost.workflows.introspect");
  const createHooks = new Map(); // workflow -> Set(fn(id))
  const waiters = new Map(); // "wf/id" -> [resolve]
  function notify(wf, id) {
    const k = wf + "/" + id, list = waiters.get(k);
    if (!list) return;
    waiters.delete(k);
    for (const r of list) r();
  }
  function changed(wf, id) {
    const k = wf + "/" + id;
    return new Promise((resolve) => {
      let timer;
      const done = () => { clearTimeout(timer); resolve(); };
      timer = setTimeout(() => {
        const list = waiters.get(k);
        if (list) list.splice(list.indexOf(done) >>> 0, 1);
        resolve();
      }, 250);
      if (!waiters.has(k)) waiters.set(k, []);
      waiters.get(k).push(done);
    });
  }
  async function cellCall(wf, id, req) {
    try {
      return await native.call(wf, id, req);
    } finally {
      notify(wf, id);
    }
  }

  class WorkflowInstance {
    #wf; #id;
    constructor(wf, id) { this.#wf = wf; this.#id = id; }
    get id() { return this.#id; }
    async status() {
      // As wrangler dev reports it: a sleeping or waiting instance is
      // "running"; output is null until the instance completes.
      const a = await cellCall(this.#wf, this.#id, { op: "status" });
      const out = { status: a.status === "waiting" ? "running" : a.status, output: a.output ?? null };
      if (a.error) out.error = a.error;
      return out;
    }
    async pause() { await cellCall(this.#wf, this.#id, { op: "pause" }); }
    async resume() { await cellCall(this.#wf, this.#id, { op: "resume" }); }
    async terminate() { await cellCall(this.#wf, this.#id, { op: "terminate" }); }
    async restart() { await cellCall(this.#wf, this.#id, { op: "restart" }); }
    async sendEvent({ type, payload } = {}) {
      if (typeof type !== "string" || type === "") throw new TypeError("sendEvent() needs a type");
      await cellCall(this.#wf, this.#id, { op: "event", type, payload });
    }
  }

  function checkId(id) {
    if (typeof id !== "string" || id.length > 100 || !idPattern.test(id)) {
      throw new TypeError(`Workflow instance id "${id}" is invalid: use up to 100 letters, digits, '-' and '_'`);
    }
  }

  class Workflow {
    #wf;
    constructor(wf) { this.#wf = wf; }
    async create(options = {}) {
      const id = options.id ?? crypto.randomUUID();
      checkId(id);
      for (const hook of createHooks.get(this.#wf) ?? []) await hook(id);
      await cellCall(this.#wf, id, { op: "create", params: options.params });
      return new WorkflowInstance(this.#wf, id);
    }
    async createBatch(list) {
      if (!Array.isArray(list) || list.length === 0) throw new TypeError("createBatch() needs a non-empty array of options");
      const out = [];
      for (const o of list) out.push(await this.create(o));
      return out;
    }
    async get(id) {
      checkId(id);
      await native.call(this.#wf, id, { op: "status" });
      return new WorkflowInstance(this.#wf, id);
    }
    // The instance cells' introspection, for cloudflare:test.
    [INTROSPECT]() {
      const wf = this.#wf;
      const checked = (id) => { checkId(id); return id; };
      return {
        name: wf,
        mock: (id, req) => cellCall(wf, checked(id), { ...req, op: "mock" }),
        inspect: (id, key) => native.call(wf, checked(id), { op: "inspect", key }),
        dispose: (id) => cellCall(wf, checked(id), { op: "dispose" }),
        changed: (id) => changed(wf, id),
        onCreate(fn) {
          if (!createHooks.has(wf)) createHooks.set(wf, new Set());
          createHooks.get(wf).add(fn);
          return () => createHooks.get(wf).delete(fn);
        },
      };
    }
  }

  // run runs an instance's run(event, step) once, replaying the steps the
  // snapshot holds; it settles when the run ends or suspends (a sleep, a
  // wait for an event, a pause).
  function run(Cls, env, ctx, snap, callCell) {
    const call = async (req) => {
      try {
        return await callCell(req);
      } finally {
        notify(snap.workflow, snap.id);
      }
    };
    // The instance's mocks (introspection): see introspect.go.
    const M = snap.mocks ?? {};
    const mocked = (k) => Object.prototype.hasOwnProperty.call(M, k);
    let suspended;
    const suspendP = new Promise((r) => (suspended = r));
    const counts = new Map();
    const keyOf = (name) => {
      if (typeof name !== "string") throw new TypeError("a step needs a name");
      const n = (counts.get(name) ?? 0) + 1;
      counts.set(name, n);
      return name + "#" + n;
    };
    const stop = () => { suspended(); return new Promise(() => {}); };
    const record = async (req) => { const a = await call(req); if (a.stop) await stop(); return a; };
    // A failed step rethrows as wrangler dev does: an Error whose message
    // starts with the original's name.
    const errorOf = (e) => new Error(e.name + ": " + e.message);
    const sleepMs = (t) => new Promise((r) => setTimeout(r, t));
    const step = {
      async do(name, a, b) {
        const cb = typeof a === "function" ? a : b;
        const cfg = typeof a === "function" ? {} : a ?? {};
        if (typeof cb !== "function") throw new TypeError("step.do() needs a callback");
        const key = keyOf(name);
        const rec = snap.steps[key];
        if (rec && rec.done) return rec.value;
        if (rec && rec.error) throw errorOf(rec.error);
        const limit = cfg.retries?.limit ?? 5, delay = ms(cfg.retries?.delay ?? 10000);
        const backoff = cfg.retries?.backoff ?? "exponential", timeout = ms(cfg.timeout ?? "10 minutes");
        for (let attempt = 1; ; attempt++) {
          let value, failure, mockedFailure = false;
          const mErr = M["error:" + key] ?? M["error:" + key + ":" + attempt];
          const mTimeout = M["timeout:" + key] ?? M["timeout:" + key + ":" + attempt];
          if (mErr) {
            failure = Object.assign(new Error(mErr.message), { name: mErr.name });
            mockedFailure = true;
          } else if (mTimeout) {
            failure = Object.assign(new Error("Execution timed out after 0ms"), { name: "WorkflowTimeoutError" });
            mockedFailure = true;
          } else if (mocked("result:" + key)) {
            value = M["result:" + key];
          } else try {
            let timer;
            value = await Promise.race([
              Promise.resolve().then(cb),
              new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`step "${name}" timed out after ${timeout} ms`)), timeout); }),
            ]).finally(() => clearTimeout(timer));
          } catch (e) {
            failure = e;
          }
          if (failure === undefined) {
            await record({ op: "step", key, value });
            return value;
          }
          if (failure?.name === "NonRetryableError" || failure?.constructor?.name === "NonRetryableError" || attempt > limit) {
            const error = { name: failure?.name ?? "Error", message: String(failure?.message ?? failure) };
            await record({ op: "step", key, error });
            throw errorOf(error);
          }
          // A mocked failure is retried at once: the pool waits its retry
          // delay (miniflare's 1 s default, doubling), which cellhost's
          // production default (10 s) would make outlast a test's timeout.
          if (mockedFailure || M.retrydelays || M["retrydelay:" + key]) continue;
          const factor = backoff === "constant" ? 1 : backoff === "linear" ? attempt : 2 ** (attempt - 1);
          await sleepMs(delay * factor);
        }
      },
      async sleep(name, duration) { return this.sleepUntil(name, Date.now() + ms(duration), true); },
      async sleepUntil(name, when, relative) {
        const key = keyOf(name);
        const rec = snap.steps[key];
        if (rec && rec.done) return;
        if (M.sleeps || M["sleep:" + key]) { await record({ op: "step", key, value: undefined }); return; }
        const until = rec && rec.until ? rec.until : when instanceof Date ? when.getTime() : Number(when);
        if (Date.now() >= until) { await record({ op: "step", key, value: undefined }); return; }
        await call({ op: "suspend", key, until });
        return stop();
      },
      async waitForEvent(name, options = {}) {
        const key = keyOf(name);
        const rec = snap.steps[key];
        if (rec && rec.done) return rec.value;
        if (rec && rec.error) throw errorOf(rec.error);
        const type = options.type;
        const i = snap.events.findIndex((e) => e.type === type && !e.used);
        if (i >= 0) {
          const e = snap.events[i];
          e.used = true;
          const value = { type: e.type, payload: e.payload, timestamp: new Date(e.ts) };
          await record({ op: "step", key, value, consume: e.seq });
          return value;
        }
        const until = rec && rec.until ? rec.until : Date.now() + ms(options.timeout ?? "24 hours");
        if (M["eventtimeout:" + key]) {
          const err = { name: "WorkflowTimeoutError", message: `Execution timed out after ${ms(options.timeout ?? "24 hours")}ms` };
          await record({ op: "step", key, error: err });
          throw errorOf(err);
        }
        if (Date.now() >= until) {
          const err = { name: "Error", message: `waitForEvent("${name}") timed out waiting for an event of type "${type}"` };
          await record({ op: "step", key, error: err });
          throw errorOf(err);
        }
        await call({ op: "suspend", key, until, wait: type });
        return stop();
      },
    };
    const inst = new Cls(ctx, env);
    const event = { payload: snap.params, timestamp: new Date(snap.created), instanceId: snap.id };
    const done = Promise.resolve()
      .then(() => inst.run(event, step))
      .then(
        (output) => call({ op: "finish", output }),
        (e) => call({ op: "finish", error: { name: e?.name ?? "Error", message: String(e?.message ?? e) } }),
      );
    return Promise.race([done, suspendP]);
  }

  return { binding: (wf) => new Workflow(wf), run };
})
