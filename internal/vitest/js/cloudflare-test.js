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
export const introspectWorkflow = missing("introspectWorkflow()");
export const introspectWorkflowInstance = missing("introspectWorkflowInstance()");
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
