// cloudflare:test as @cloudflare/vitest-pool-workers documents it, for
// `cellhost test`. This module is bundled with the project's worker and one
// test file into a single worker (the generated entry, entry.go), so test
// code runs in the shard's runtime beside the objects: `env` is the worker's
// env, SELF its default export, and runInDurableObject runs a callback in
// the object's own event, with the real instance and its state.
import { env as workersEnv, RpcStub, RpcTarget, WorkerEntrypoint } from "cloudflare:workers";

export const env = workersEnv;

// SELF is the worker's default export as a service binding (a handler's
// ctx.exports.default: fetch, scheduled and RPC methods through cellhost's
// loopback stub). The control request's ctx gives it (setExports), so SELF
// forwards each access to it.
let ctxExports = null;
function selfStub() {
  if (!ctxExports) throw new Error("SELF is used before the test worker started");
  return ctxExports.default;
}
// SELF.queue(name, messages) (workerd's Fetcher.queue, behind
// service_binding_extra_handlers): the default export's queue() with a
// batch of those messages; it answers the batch's outcome.
async function selfQueue(queueName, messages) {
  const batch = createMessageBatch(String(queueName), messages.map((m) => ({ ...m, body: structuredClone(m.body) })));
  const ctx = createExecutionContext();
  const handler = workerDefault;
  if (!handler || typeof handler.queue !== "function") {
    throw new Error('SELF: the entrypoint "default" has no queue() handler');
  }
  let outcome = "ok";
  try {
    await handler.queue(batch, workersEnv, ctx);
  } catch (e) {
    outcome = "exception";
    console.error("Uncaught", e);
  }
  const r = await getQueueResult(batch, ctx);
  r.outcome = outcome;
  return r;
}
let workerDefault = null;

// rpcTargetOf is an RpcTarget that forwards the members an entrypoint's
// prototype chain defines (methods and getters, up to WorkerEntrypoint's
// own) to the instance: cloudflare:workers' RpcStub serves RpcTargets, and
// RPC reaches only prototype members, not the instance's own fields.
function rpcTargetOf(instance) {
  const T = class extends RpcTarget {};
  const stop = [Object.prototype, WorkerEntrypoint.prototype];
  for (let p = Object.getPrototypeOf(instance); p && !stop.includes(p); p = Object.getPrototypeOf(p)) {
    for (const k of Reflect.ownKeys(p)) {
      if (k === "constructor" || Object.prototype.hasOwnProperty.call(T.prototype, k)) continue;
      const d = Object.getOwnPropertyDescriptor(p, k);
      if (d.get) Object.defineProperty(T.prototype, k, { get: () => instance[k], configurable: true });
      else if (typeof d.value === "function") Object.defineProperty(T.prototype, k, { value: (...args) => instance[k](...args), configurable: true, writable: true });
    }
  }
  return new T();
}
export const SELF = new Proxy({}, {
  // The stub's members need no receiver: its fetch is a closure and an
  // RPC member a callable, thenable stand-in that binding would break.
  get(_, key) {
    if (key === "queue") return selfQueue;
    if (key === "fetch" || key === "scheduled" || typeof key === "symbol" || typeof workerDefault !== "function") return selfStub()[key];
    // RPC to a WorkerEntrypoint default export: a stub of a new instance,
    // with RPC's property reads, pipelining and errors (cloudflare:workers'
    // RpcStub), as workerd's service binding gives.
    if (!Reflect.has(workerDefault.prototype, key)) {
      const instance = new workerDefault(createExecutionContext(), workersEnv);
      const p = Promise.reject(poolRPCError(key, Reflect.has(instance, key)));
      p.catch(() => {});
      const fn = async () => p;
      fn.then = (a, b) => p.then(a, b);
      fn.catch = (b) => p.catch(b);
      fn.finally = (f) => p.finally(f);
      return fn;
    }
    return new RpcStub(rpcTargetOf(new workerDefault(createExecutionContext(), workersEnv)))[key];
  },
  has(_, key) { return key in selfStub(); },
});

// ---- Durable Objects -----------------------------------------------------

// The harness's state (one runtime per host: cellhost test runs with one
// shard, so every object of the worker lives in this runtime).
const instances = new Map(); // class name -> Map(id hex -> instance)
const stateOf = new WeakMap(); // instance -> DurableObjectState
const pending = new Map(); // run key -> callback
const results = new Map(); // run key -> {value} | {error}
let nextKey = 1;
const RUN_HEADER = "cf-cellhost-test-run";

// register is called by the generated subclass of every bound Durable
// Object class when the host constructs an instance.
function register(className, instance, state) {
  stateOf.set(instance, state);
  let m = instances.get(className);
  if (!m) instances.set(className, (m = new Map()));
  m.set(state.id.toString(), instance);
}

// objectFetch answers runInDurableObject's request inside the object's
// event; null for every other request (the class's own fetch answers).
function objectFetch(instance, request) {
  const key = request.headers.get(RUN_HEADER);
  if (key === null) return null;
  const cb = pending.get(key);
  pending.delete(key);
  if (!cb) return new Response("no such runInDurableObject call", { status: 500 });
  return (async () => {
    try {
      results.set(key, { value: await cb(instance, stateOf.get(instance)) });
    } catch (error) {
      results.set(key, { error });
    }
    return new Response(null, { status: 204 });
  })();
}

function isStub(stub) {
  return stub !== null && typeof stub === "object" && typeof stub.fetch === "function" && stub.id !== undefined;
}

export async function runInDurableObject(stub, callback) {
  if (!isStub(stub)) {
    throw new TypeError("Failed to execute 'runInDurableObject': parameter 1 is not of type 'DurableObjectStub'.");
  }
  if (typeof callback !== "function") {
    throw new TypeError("Failed to execute 'runInDurableObject': parameter 2 is not of type 'function'.");
  }
  const key = String(nextKey++);
  pending.set(key, callback);
  const res = await stub.fetch("http://cellhost-test.invalid/runInDurableObject", { headers: { [RUN_HEADER]: key } });
  pending.delete(key);
  const r = results.get(key);
  results.delete(key);
  if (!r) {
    throw new Error("runInDurableObject: the object did not run the callback (" + res.status + " " + (await res.text()) + "): is its class bound in the wrangler config?");
  }
  if ("error" in r) throw r.error;
  return r.value;
}

// runDurableObjectAlarm runs the object's alarm now if one is scheduled
// (deleting it first, as the pool does) and says whether it ran.
export async function runDurableObjectAlarm(stub) {
  return runInDurableObject(stub, async (instance, state) => {
    const alarm = await state.storage.getAlarm();
    if (alarm === null) return false;
    await state.storage.deleteAlarm();
    await instance.alarm?.({ retryCount: 0, isRetry: false });
    return true;
  });
}

// listDurableObjectIds lists the objects of a namespace made in this test's
// storage (ids of every instance constructed since the storage began).
export async function listDurableObjectIds(namespace) {
  let className;
  for (const [k, v] of Object.entries(CLASS_OF_BINDING)) {
    if (workersEnv[k] === namespace) className = v;
  }
  if (className === undefined) {
    throw new TypeError("Failed to execute 'listDurableObjectIds': parameter 1 is not a Durable Object namespace bound in this worker's config.");
  }
  const m = instances.get(className) ?? new Map();
  return [...m.keys()].sort().map((hex) => namespace.idFromString(hex));
}

// ---- Execution contexts, events -----------------------------------------

const waits = new WeakMap();

export function createExecutionContext() {
  const list = [];
  const ctx = {
    waitUntil(p) { list.push(Promise.resolve(p)); },
    passThroughOnException() {},
    props: {},
    get exports() { return ctxExports; },
  };
  waits.set(ctx, list);
  return ctx;
}

export async function waitOnExecutionContext(ctx) {
  const list = waits.get(ctx);
  if (!list) {
    throw new TypeError("Failed to execute 'waitOnExecutionContext': parameter 1 is not of type 'ExecutionContext'.\nYou must call 'createExecutionContext()' or 'createPagesEventContext()' to get an 'ExecutionContext' instance.");
  }
  // waitUntil may be called while the promises settle: wait for those too.
  while (list.length > 0) {
    const now = list.splice(0);
    await Promise.allSettled(now);
  }
}

export function createScheduledController(options) {
  const scheduledTime = options?.scheduledTime ?? Date.now();
  return {
    scheduledTime: scheduledTime instanceof Date ? scheduledTime.getTime() : Number(scheduledTime),
    cron: options?.cron ?? "",
    noRetry() {},
  };
}

const batches = new WeakMap();

export function createMessageBatch(queueName, messages) {
  const state = { ackAll: false, retryBatch: { retry: false }, explicitAcks: new Set(), retryMessages: new Map() };
  const batch = {
    queue: queueName,
    messages: messages.map((m) => ({
      id: m.id,
      timestamp: m.timestamp,
      body: m.body,
      attempts: m.attempts ?? 1,
      ack() { state.explicitAcks.add(m.id); state.retryMessages.delete(m.id); },
      retry(opts) { state.retryMessages.set(m.id, opts?.delaySeconds); state.explicitAcks.delete(m.id); },
    })),
    ackAll() { state.ackAll = true; },
    retryAll(opts) { state.retryBatch = { retry: true, delaySeconds: opts?.delaySeconds }; },
  };
  batches.set(batch, state);
  return batch;
}

export async function getQueueResult(batch, ctx) {
  const state = batches.get(batch);
  if (!state) {
    throw new TypeError("Failed to execute 'getQueueResult': parameter 1 is not of type 'MessageBatch'.\nYou must call 'createMessageBatch()' to get a 'MessageBatch' instance.");
  }
  await waitOnExecutionContext(ctx);
  const retryBatch = { retry: state.retryBatch.retry };
  if (state.retryBatch.delaySeconds !== undefined) retryBatch.delaySeconds = state.retryBatch.delaySeconds;
  return {
    outcome: "ok",
    ackAll: state.ackAll,
    retryBatch,
    explicitAcks: [...state.explicitAcks],
    retryMessages: [...state.retryMessages].map(([msgId, delaySeconds]) => (delaySeconds === undefined ? { msgId } : { msgId, delaySeconds })),
  };
}

// ---- D1 migrations --------------------------------------------------------

export async function applyD1Migrations(db, migrations, migrationsTableName = "d1_migrations") {
  const table = JSON.stringify(migrationsTableName);
  await db.prepare(`CREATE TABLE IF NOT EXISTS ${table} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT UNIQUE,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`).run();
  const applied = await db.prepare(`SELECT name FROM ${table}`).all();
  const done = new Set(applied.results.map((r) => r.name));
  for (const m of migrations) {
    if (done.has(m.name)) continue;
    const stmts = m.queries.map((q) => db.prepare(q));
    stmts.push(db.prepare(`INSERT INTO ${table} (name) VALUES (?)`).bind(m.name));
    await db.batch(stmts);
  }
}

// ---- Not provided ---------------------------------------------------------

function missing(what) {
  return () => { throw new Error(what + " is not supported by cellhost test yet"); };
}

// ---- fetchMock ---------------------------------------------------------------

// fetchMock is the part of undici's MockAgent the pool documents: once
// activated, every fetch() of the runtime (the worker's, the objects', the
// test's: one runtime) goes through the interceptors; an unmatched request
// goes out unless disableNetConnect() was called, when it throws
// MockNotMatchedError as undici does. Hand-written: undici's MockAgent is a
// Node dispatcher, not a fetch; this matches its interceptor options
// (path, method, body, headers, query: string, RegExp or function) and
// replies (status, body, headers; a callback; an error).
class MockNotMatchedError extends Error {
  constructor(message) {
    super(message);
    this.name = "MockNotMatchedError";
    this.code = "UND_MOCK_ERR_MOCK_NOT_MATCHED";
  }
}
const interceptors = [];
let mockActive = false;
let netConnect = true; // true, false, or a list of host matchers
let realFetch = null;

function matches(m, v) {
  if (m === undefined) return true;
  if (typeof m === "string") return m === v;
  if (m instanceof RegExp) return m.test(v);
  if (typeof m === "function") return !!m(v);
  return false;
}

function queryString(q) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) p.append(k, String(v));
  const s = p.toString();
  return s ? "?" + s : "";
}

function replyBody(data) {
  if (data === undefined || data === null) return null;
  if (typeof data === "string" || data instanceof ArrayBuffer || ArrayBuffer.isView(data) || data instanceof ReadableStream || data instanceof Blob) return data;
  return JSON.stringify(data);
}

async function mockedFetch(input, init) {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const path = url.pathname + url.search;
  const body = request.body === null ? undefined : await request.clone().text();
  for (const ic of interceptors) {
    if (!ic.persist && ic.used >= ic.times) continue;
    if (!matches(ic.origin, url.origin)) continue;
    const want = typeof ic.path === "string" && ic.query ? ic.path + queryString(ic.query) : ic.path;
    if (!matches(want, path)) continue;
    if (!matches(typeof ic.method === "string" ? ic.method.toUpperCase() : ic.method ?? "GET", request.method)) continue;
    if (!matches(ic.body, body)) continue;
    if (ic.headers && !Object.entries(ic.headers).every(([k, m]) => matches(m, request.headers.get(k) ?? undefined))) continue;
    ic.used++;
    if (ic.error) throw ic.error;
    let { status, data, headers } = ic.reply;
    if (typeof ic.reply === "function") {
      const r = await ic.reply({ path, method: request.method, body, headers: Object.fromEntries(request.headers), origin: url.origin });
      status = r.statusCode;
      data = r.data;
      headers = r.responseOptions?.headers;
    } else if (typeof data === "function") {
      data = await data({ path, method: request.method, body, headers: Object.fromEntries(request.headers), origin: url.origin });
    }
    if (ic.delay > 0) await new Promise((r) => setTimeout(r, ic.delay));
    return new Response(replyBody(data), { status, headers });
  }
  const allowed = netConnect === true || (Array.isArray(netConnect) && netConnect.some((m) => matches(m, url.host)));
  if (!allowed) {
    throw new MockNotMatchedError(`Mock dispatch not matched for path '${path}': subsequent request to origin ${url.origin} was not allowed (net.connect ${netConnect === false ? "disabled" : "is not enabled for this origin"})`);
  }
  return realFetch(request);
}

function interceptor(origin, opts) {
  const ic = { origin, path: opts.path, method: opts.method, body: opts.body, headers: opts.headers, query: opts.query, used: 0, times: 1, persist: false, delay: 0 };
  const scope = {
    persist() { ic.persist = true; return scope; },
    times(n) { ic.times = n; return scope; },
    delay(ms) { ic.delay = ms; return scope; },
  };
  return {
    reply(status, data, options) {
      ic.reply = typeof status === "function" ? status : { status, data, headers: options?.headers };
      interceptors.push(ic);
      return scope;
    },
    replyWithError(error) {
      ic.error = error;
      interceptors.push(ic);
      return scope;
    },
    defaultReplyHeaders() { return this; },
  };
}

function pendingInterceptors() {
  return interceptors.filter((ic) => (ic.persist ? ic.used === 0 : ic.used < ic.times));
}

export const fetchMock = {
  activate() {
    if (!mockActive) {
      realFetch = globalThis.fetch;
      globalThis.fetch = mockedFetch;
      mockActive = true;
    }
  },
  deactivate() {
    if (mockActive) {
      globalThis.fetch = realFetch;
      mockActive = false;
    }
  },
  isMockActive() { return mockActive; },
  disableNetConnect() { netConnect = false; },
  enableNetConnect(host) {
    if (host === undefined) netConnect = true;
    else netConnect = [...(Array.isArray(netConnect) ? netConnect : []), host];
  },
  get(origin) {
    return { intercept: (opts) => interceptor(origin, opts ?? {}) };
  },
  pendingInterceptors() {
    return pendingInterceptors().map((ic) => ({ origin: ic.origin, path: ic.path, method: ic.method ?? "GET", persist: ic.persist, times: ic.times, timesInvoked: ic.used }));
  },
  assertNoPendingInterceptors() {
    const p = pendingInterceptors();
    if (p.length === 0) return;
    const lines = p.map((ic) => `${ic.method ?? "GET"} ${String(ic.origin)}${String(ic.path)} (invoked ${ic.used} times, ${ic.persist ? "persistent" : ic.times + " expected"})`);
    throw new Error(`${p.length} interceptor${p.length === 1 ? " is" : "s are"} pending:\n\n${lines.join("\n")}`);
  },
  close() { interceptors.length = 0; this.deactivate(); },
};
export const createPagesEventContext = missing("createPagesEventContext()");

// ---- Workflows -------------------------------------------------------------

// introspectWorkflowInstance and introspectWorkflow as the pool's
// worker/workflows.ts has them (0.12.21), on the instance cells of
// bindings/workflows: a modifier's calls store mocks in the instance's
// cell (set before create or while it runs) that its runs apply, and the
// waits look at the cell again whenever a request reached it.
const WF_INTROSPECT = Symbol.for("cellhost.workflows.introspect");
function workflowControl(workflow) {
  const f = workflow?.[WF_INTROSPECT];
  return typeof f === "function" ? f.call(workflow) : null;
}
function stepKey(step) {
  if (step === null || typeof step !== "object" || typeof step.name !== "string") {
    throw new TypeError("[WorkflowIntrospector] A step selector is { name: string, index?: number }.");
  }
  return step.name + "#" + (step.index || 1);
}
const userStatus = (s) => (s === "waiting" ? "running" : s);

class WorkflowInstanceModifier {
  #c; #id;
  constructor(c, id) { this.#c = c; this.#id = id; }
  #mock(req) { return this.#c.mock(this.#id, req).then(() => {}); }
  async disableSleeps(steps) {
    if (!steps) return this.#mock({ mock: "set", key: "sleeps", value: true });
    for (const s of steps) await this.#mock({ mock: "set", key: "sleep:" + stepKey(s), value: true });
  }
  async disableRetryDelays(steps) {
    if (!steps) return this.#mock({ mock: "set", key: "retrydelays", value: true });
    for (const s of steps) await this.#mock({ mock: "set", key: "retrydelay:" + stepKey(s), value: true });
  }
  async mockStepResult(step, stepResult) {
    await this.#mock({ mock: "result", key: stepKey(step), name: step.name, value: stepResult });
  }
  async mockStepError(step, error, times) {
    await this.#mock({ mock: "error", key: stepKey(step), name: step.name, value: { name: error?.name ?? "Error", message: String(error?.message ?? error) }, times });
  }
  async forceStepTimeout(step, times) {
    await this.#mock({ mock: "timeout", key: stepKey(step), name: step.name, value: true, times });
  }
  async mockEvent(event) {
    await this.#mock({ mock: "event", type: event?.type, payload: event?.payload });
  }
  async forceEventTimeout(step) {
    await this.#mock({ mock: "set", key: "eventtimeout:" + stepKey(step), value: true });
  }
}

class WorkflowInstanceIntrospectorHandle {
  #c; #id;
  constructor(c, id) { this.#c = c; this.#id = id; }
  async modify(fn) {
    await fn(new WorkflowInstanceModifier(this.#c, this.#id));
    return this;
  }
  // #until looks at the instance (and step key) until check answers.
  async #until(key, check) {
    for (;;) {
      const a = await this.#c.inspect(this.#id, key);
      const r = check(a);
      if (r) return r.value;
      await this.#c.changed(this.#id);
    }
  }
  async waitForStepResult(step) {
    const key = stepKey(step);
    return this.#until(key, (a) => {
      if (!a.step) return null;
      if (a.step.error) throw a.step.error;
      return { value: a.step.value };
    });
  }
  async waitForStatus(status) {
    if (status === "terminated" || status === "paused") {
      throw new Error(`[WorkflowIntrospector] InstanceStatus '${status}' is not implemented yet and cannot be waited.`);
    }
    if (status === "queued") return;
    const finite = ["complete", "errored", "terminated"];
    await this.#until("", (a) => {
      if (a.status === status || userStatus(a.status) === status) return { value: undefined };
      if (finite.includes(a.status) && finite.includes(status)) {
        throw new Error(`[WorkflowIntrospector] The Workflow instance ${this.#id} has reached status '${a.status}'. This is a finite status that prevents it from ever reaching the expected status of '${status}'.`);
      }
      return null;
    });
  }
  async getOutput() {
    const a = await this.#c.inspect(this.#id, "");
    if (a.status !== "complete") {
      throw new Error(`Cannot retrieve output: Workflow instance is in status "${userStatus(a.status) || "unknown"}" but must be "complete" to have an output available`);
    }
    return a.output;
  }
  async getError() {
    const a = await this.#c.inspect(this.#id, "");
    if (a.status !== "errored") {
      throw new Error(`Cannot retrieve error: Workflow instance is in status "${userStatus(a.status) || "unknown"}" but must be "errored" to have error information available`);
    }
    return a.error;
  }
  async dispose() {
    try {
      await this.#c.dispose(this.#id);
    } catch {
      // as the pool: disposing of an instance never fails the test
    }
  }
  async [Symbol.asyncDispose]() { await this.dispose(); }
}

export async function introspectWorkflowInstance(workflow, instanceId) {
  if (!workflow || !instanceId) {
    throw new Error("[WorkflowIntrospector] Workflow binding and instance id are required.");
  }
  const c = workflowControl(workflow);
  if (!c) throw new TypeError("[WorkflowIntrospector] introspectWorkflowInstance() needs a Workflow binding (env.<BINDING>).");
  return new WorkflowInstanceIntrospectorHandle(c, String(instanceId));
}

class WorkflowIntrospectorHandle {
  #callbacks = []; #instances = []; #off;
  constructor(c) {
    this.workflow = c.name;
    // create() and createBatch() of the binding, wherever they are called
    // (the test, SELF's handler, an object), introspect each new instance
    // and apply modifyAll's callbacks before the instance starts.
    this.#off = c.onCreate(async (id) => {
      const introspector = new WorkflowInstanceIntrospectorHandle(c, id);
      this.#instances.push(introspector);
      for (const fn of this.#callbacks) await introspector.modify(fn);
    });
  }
  async modifyAll(fn) { this.#callbacks.push(fn); }
  get() { return this.#instances; }
  async dispose() {
    this.#off();
    await Promise.all(this.#instances.map((i) => i.dispose()));
    this.#callbacks = [];
    this.#instances = [];
  }
  async [Symbol.asyncDispose]() { await this.dispose(); }
}

export async function introspectWorkflow(workflow) {
  if (!workflow) throw new Error("[WorkflowIntrospector] Workflow binding is required.");
  const c = workflowControl(workflow);
  if (!c) throw new TypeError("[WorkflowIntrospector] introspectWorkflow() needs a Workflow binding (env.<BINDING>).");
  return new WorkflowIntrospectorHandle(c);
}
export const reset = missing("reset()");

// ---- The harness the generated entry uses ---------------------------------

// CLASS_OF_BINDING is set by the generated entry before any test runs.
let CLASS_OF_BINDING = {};

// The pool wraps each Durable Object class and entrypoint so that RPC to a
// member the class's prototype lacks fails with its own TypeError (its
// worker/lib/cloudflare/test-internal getRPCProperty), which differs from
// workerd's; tests written for the pool see these texts.
const DO_KEYS = ["fetch", "alarm", "webSocketMessage", "webSocketClose", "webSocketError", "constructor", "then"];
function poolRPCError(key, instanceHasKey) {
  const q = JSON.stringify(key);
  if (!instanceHasKey) return new TypeError(`The RPC receiver does not implement ${q}.`);
  return new TypeError([
    `The RPC receiver's prototype does not implement ${q}, but the receiver instance does.`,
    "Only properties and methods defined on the prototype can be accessed over RPC.",
    `Ensure properties are declared like \`get ${key}() { ... }\` instead of \`${key} = ...\`,`,
    `and methods are declared like \`${key}() { ... }\` instead of \`${key} = () => { ... }\`.`,
  ].join("\n"));
}

// rpcPrototype returns the prototype an instance of a generated subclass
// gets in place of the subclass's (proto): a stand-in whose own-descriptor
// reads, which RPC's member lookup makes, throw the pool's error for a
// name the class does not have; everything else reads through to proto,
// so the chain (and instanceof) is the class's.
function rpcPrototype(instance, proto) {
  return new Proxy(proto, {
    getOwnPropertyDescriptor(t, key) {
      if (typeof key === "string" && !DO_KEYS.includes(key) && !Reflect.has(t, key)) {
        throw poolRPCError(key, Object.prototype.hasOwnProperty.call(instance, key));
      }
      return Reflect.getOwnPropertyDescriptor(t, key);
    },
  });
}

export const __cellhostTestHarness = {
  rpcPrototype,
  register,
  objectFetch,
  setClasses(m) { CLASS_OF_BINDING = m; },
  setExports(x) { ctxExports = x; },
  setDefault(d) { workerDefault = d; },
};
