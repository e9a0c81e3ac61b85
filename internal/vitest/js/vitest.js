// The part of Vitest's API test files import ("vitest"), for `cellhost
// test`: describe/it/test and their modifiers, the hooks, expect with the
// matchers and asymmetric matchers pool examples use, inline snapshots
// (Vitest's pretty-format output for plain values), and a small `vi`.
// Vitest's own runner (@vitest/runner, chai) is not used: it is not on the
// machine of a project's CI unless node_modules is, and cellhost test must
// run vendored cases without npm. What is not here throws naming it.

// ---- Collection -------------------------------------------------------------

function newSuite(name, parent, mode) {
  return { type: "suite", name, parent, mode, children: [], beforeAll: [], afterAll: [], beforeEach: [], afterEach: [] };
}
const root = newSuite("", null, "run");
let current = root;
let hasOnly = false;
const collecting = [];

function addTest(name, fn, mode, timeout, extra) {
  if (mode === "only") hasOnly = true;
  const t = { type: "test", name: String(name), fn, mode, parent: current, timeout, fails: extra?.fails };
  current.children.push(t);
  return t;
}

function addSuite(name, fn, mode) {
  if (mode === "only") hasOnly = true;
  const s = newSuite(String(name), current, mode);
  current.children.push(s);
  if (typeof fn === "function") {
    const prev = current;
    current = s;
    let r;
    try {
      r = fn();
    } finally {
      current = prev;
    }
    if (r && typeof r.then === "function") {
      // An async describe body: its tests register as it runs.
      collecting.push((async () => {
        const prev2 = current;
        current = s;
        try { await r; } finally { current = prev2; }
      })());
    }
  }
  return s;
}

function formatName(name, args, i) {
  let out = String(name);
  let k = 0;
  out = out.replace(/%[sdifjoO#%]/g, (m) => {
    if (m === "%%") return "%";
    if (m === "%#") return String(i);
    const v = args[k++];
    if (m === "%d" || m === "%i") return String(parseInt(v));
    if (m === "%f") return String(Number(v));
    if (m === "%s") return typeof v === "string" ? v : format(v);
    return format(v);
  });
  if (args.length === 1 && args[0] && typeof args[0] === "object") {
    out = out.replace(/\$([A-Za-z_][\w.]*)/g, (m, p) => {
      let v = args[0];
      for (const part of p.split(".")) v = v?.[part];
      return typeof v === "string" ? v : format(v);
    });
  }
  return out;
}

function withEach(register) {
  return (cases) => (name, fn, timeout) => {
    cases.forEach((c, i) => {
      const args = Array.isArray(c) ? c : [c];
      register(formatName(name, args, i), fn && ((...rest) => fn(...args, ...rest)), timeout);
    });
  };
}

function makeTest(mode) {
  const f = (name, fn, timeout) => {
    if (typeof fn === "object" && fn !== null && typeof timeout === "function") [fn, timeout] = [timeout, fn?.timeout];
    return addTest(name, fn, fn === undefined && mode === "run" ? "todo" : mode, typeof timeout === "number" ? timeout : timeout?.timeout);
  };
  return f;
}

export const it = makeTest("run");
it.skip = makeTest("skip");
it.only = makeTest("only");
it.todo = (name) => addTest(name, undefined, "todo");
it.concurrent = it;
it.sequential = it;
it.each = withEach((n, fn, t) => addTest(n, fn, "run", t));
it.skip.each = withEach((n, fn, t) => addTest(n, fn, "skip", t));
it.only.each = withEach((n, fn, t) => addTest(n, fn, "only", t));
it.skipIf = (cond) => (cond ? it.skip : it);
it.runIf = (cond) => (cond ? it : it.skip);
it.fails = (name, fn, timeout) => addTest(name, fn, "run", timeout, { fails: true });
it.for = (cases) => (name, fn, timeout) => cases.forEach((c, i) => addTest(formatName(name, Array.isArray(c) ? c : [c], i), (ctx) => fn(c, ctx), "run", timeout));
it.extend = () => { throw new Error("test.extend() is not supported by cellhost test yet"); };
export const test = it;

export const describe = (name, fn) => addSuite(name, fn, "run");
describe.skip = (name, fn) => addSuite(name, fn, "skip");
describe.only = (name, fn) => addSuite(name, fn, "only");
describe.todo = (name) => addSuite(name, undefined, "todo");
describe.concurrent = describe;
describe.sequential = describe;
describe.shuffle = describe;
describe.each = (cases) => (name, fn) => cases.forEach((c, i) => { const a = Array.isArray(c) ? c : [c]; describe(formatName(name, a, i), () => fn(...a)); });
describe.skipIf = (cond) => (cond ? describe.skip : describe);
describe.runIf = (cond) => (cond ? describe : describe.skip);
export const suite = describe;

export const beforeAll = (fn) => { current.beforeAll.push(fn); };
export const afterAll = (fn) => { current.afterAll.push(fn); };
export const beforeEach = (fn) => { current.beforeEach.push(fn); };
export const afterEach = (fn) => { current.afterEach.push(fn); };
let runningTest = null;
export const onTestFinished = (fn) => { if (!runningTest) throw new Error("onTestFinished() can only be called inside a test"); runningTest.finished.push(fn); };
export const onTestFailed = (fn) => { if (!runningTest) throw new Error("onTestFailed() can only be called inside a test"); runningTest.failed.push(fn); };

// ---- The run (called by the generated entry) -------------------------------

function fullName(node) {
  const parts = [];
  for (let n = node; n && n !== root; n = n.parent) parts.unshift(n.name);
  return parts.join(" > ");
}

// listTests returns the tests in order with the mode each will run in.
function listTests() {
  const out = [];
  const walk = (s, inherited) => {
    for (const c of s.children) {
      let mode = c.mode;
      if (inherited === "skip" || inherited === "todo") mode = inherited;
      if (c.type === "suite") {
        walk(c, mode === "only" ? "run-only" : mode === "run" && inherited === "run-only" ? "run-only" : mode);
      } else {
        let m = mode;
        if (hasOnly && m === "run" && inherited !== "run-only") m = "skip";
        if (m === "only") m = "run";
        out.push({ node: c, name: fullName(c), mode: m });
      }
    }
  };
  walk(root, hasOnly ? "run" : "run");
  return out;
}

export async function __collect(load) {
  await load();
  while (collecting.length) await collecting.shift();
  return listTests();
}

function errorInfo(e) {
  if (e instanceof Error || (e && typeof e === "object" && "message" in e)) {
    return { name: String(e.name ?? "Error"), message: String(e.message), stack: String(e.stack ?? "") };
  }
  return { name: "Error", message: "a non-Error value was thrown: " + format(e), stack: "" };
}

function timeoutRace(p, ms, what) {
  if (!(ms > 0)) return p;
  let timer;
  const t = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(what + " timed out in " + ms + "ms.")), ms); });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

// __run runs the tests whose indexes are in selected (all when null) of
// the collected list; the hooks of the suites on their path run around
// them, as Vitest runs them. It returns one result per collected test.
export async function __run(tests, selected, opts) {
  runOptions = opts;
  const testTimeout = opts.testTimeout ?? 5000;
  const hookTimeout = opts.hookTimeout ?? 10000;
  const want = new Set();
  tests.forEach((t, i) => { if ((selected === null || selected.includes(i)) && t.mode === "run") want.add(t.node); });
  const results = new Map();
  tests.forEach((t) => results.set(t.node, { name: t.name, state: t.mode === "todo" ? "todo" : "skip", duration: 0 }));
  const wanted = (s) => s.children.some((c) => (c.type === "test" ? want.has(c) : wanted(c)));
  const runHooks = async (fns, arg, what) => {
    const cleanups = [];
    for (const fn of fns) {
      const r = await timeoutRace(Promise.resolve().then(() => fn(arg)), hookTimeout, what);
      if (typeof r === "function") cleanups.push(r);
    }
    return cleanups;
  };
  const chain = (s) => { const out = []; for (let n = s; n; n = n.parent) out.unshift(n); return out; };
  const runSuite = async (s) => {
    if (!wanted(s)) return;
    let suiteError = null;
    let cleanups = [];
    try {
      cleanups = await runHooks(s.beforeAll, undefined, "Hook beforeAll");
    } catch (e) {
      suiteError = e;
    }
    for (const c of s.children) {
      if (c.type === "suite") {
        if (suiteError) markFailed(c, suiteError, results, want);
        else await runSuite(c);
        continue;
      }
      if (!want.has(c)) continue;
      const r = results.get(c);
      if (suiteError) { r.state = "fail"; r.error = errorInfo(suiteError); continue; }
      await runTest(c, r, chain(s), testTimeout, runHooks);
    }
    try {
      for (const fn of cleanups.reverse()) await fn();
      await runHooks([...s.afterAll].reverse(), undefined, "Hook afterAll");
    } catch (e) {
      for (const c of s.children) if (c.type === "test" && want.has(c)) { const r = results.get(c); if (r.state === "pass") { r.state = "fail"; r.error = errorInfo(e); } }
    }
  };
  await runSuite(root);
  return tests.map((t) => results.get(t.node));
}

function markFailed(s, e, results, want) {
  for (const c of s.children) {
    if (c.type === "suite") markFailed(c, e, results, want);
    else if (want.has(c)) { const r = results.get(c); r.state = "fail"; r.error = errorInfo(e); }
  }
}

async function runTest(t, r, suites, testTimeout, runHooks) {
  const started = Date.now();
  const ctx = makeContext(t);
  const task = { finished: [], failed: [] };
  let error = null;
  const cleanups = [];
  try {
    for (const s of suites) cleanups.push(...(await runHooks(s.beforeEach, ctx, "Hook beforeEach")));
    runningTest = task;
    assertionState.count = 0;
    assertionState.expected = null;
    assertionState.has = false;
    try {
      await timeoutRace(Promise.resolve().then(() => t.fn(ctx)), t.timeout ?? testTimeout, "Test");
    } finally {
      runningTest = null;
    }
    if (assertionState.expected !== null && assertionState.count !== assertionState.expected) {
      throw new AssertionError(`expected number of assertions to be ${assertionState.expected}, but got ${assertionState.count}`);
    }
    if (assertionState.has && assertionState.count === 0) throw new AssertionError("expected any number of assertion, but got none");
  } catch (e) {
    error = e;
  }
  if (ctx.skipped) { r.state = "skip"; return; }
  try {
    for (const fn of cleanups.reverse()) await fn();
    for (const s of [...suites].reverse()) await runHooks([...s.afterEach].reverse(), ctx, "Hook afterEach");
  } catch (e) {
    error ??= e;
  }
  for (const fn of task.finished) { try { await fn(); } catch (e) { error ??= e; } }
  if (error) for (const fn of task.failed) { try { await fn(); } catch {} }
  if (t.fails) error = error ? null : new AssertionError("Expect test to fail");
  r.duration = Date.now() - started;
  if (error) { r.state = "fail"; r.error = errorInfo(error); } else r.state = "pass";
  if (runOptions.restoreMocks) vi.restoreAllMocks();
}
let runOptions = {};

function makeContext(t) {
  const ctx = {
    expect,
    task: { name: t.name, type: "test" },
    skipped: false,
    skip(cond) { if (cond === undefined || cond) { ctx.skipped = true; throw new SkipSignal(); } },
    onTestFinished,
    onTestFailed,
    signal: new AbortController().signal,
  };
  return ctx;
}
class SkipSignal extends Error {}

// ---- Formatting (Vitest's pretty-format for plain values) -------------------

function isPlainObject(v) {
  const p = Object.getPrototypeOf(v);
  return p === Object.prototype || p === null;
}

function quote(s) {
  return '"' + s.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"';
}

// format renders v as pretty-format does with Vitest's snapshot settings
// (keys sorted, trailing commas, two-space indent, no "Object"/"Array"
// prefix for plain ones).
export function format(v, indent = "", seen = new Set()) {
  const next = indent + "  ";
  if (v === null) return "null";
  switch (typeof v) {
    case "undefined": return "undefined";
    case "string": return quote(v);
    case "number": return Object.is(v, -0) ? "-0" : String(v);
    case "bigint": return v + "n";
    case "boolean": return String(v);
    case "symbol": return v.toString();
    case "function": return "[Function" + (v.name ? " " + v.name : " anonymous") + "]";
  }
  if (seen.has(v)) return "[Circular]";
  if (v instanceof Error) return "[" + (v.name || "Error") + ": " + v.message + "]";
  if (v instanceof Date) return isNaN(v) ? "Date { NaN }" : v.toISOString();
  if (v instanceof RegExp) return String(v);
  seen.add(v);
  try {
    if (Array.isArray(v)) {
      if (v.length === 0) return "[]";
      return "[\n" + v.map((x) => next + format(x, next, seen) + ",\n").join("") + indent + "]";
    }
    if (v instanceof Map) {
      if (v.size === 0) return "Map {}";
      return "Map {\n" + [...v].map(([k, x]) => next + format(k, next, seen) + " => " + format(x, next, seen) + ",\n").join("") + indent + "}";
    }
    if (v instanceof Set) {
      if (v.size === 0) return "Set {}";
      return "Set {\n" + [...v].map((x) => next + format(x, next, seen) + ",\n").join("") + indent + "}";
    }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const name = v.constructor.name;
      if (v.length === 0) return name + " []";
      return name + " [\n" + [...v].map((x) => next + format(x, next, seen) + ",\n").join("") + indent + "]";
    }
    const prefix = isPlainObject(v) ? "" : (v.constructor?.name ?? "Object") + " ";
    const keys = Object.keys(v).sort();
    const syms = Object.getOwnPropertySymbols(v).filter((s) => Object.getOwnPropertyDescriptor(v, s).enumerable);
    if (keys.length + syms.length === 0) return prefix + "{}";
    let out = prefix + "{\n";
    for (const k of keys) out += next + quote(k) + ": " + format(v[k], next, seen) + ",\n";
    for (const s of syms) out += next + s.toString() + ": " + format(v[s], next, seen) + ",\n";
    return out + indent + "}";
  } finally {
    seen.delete(v);
  }
}

// dedent is Vitest's stripSnapshotIndentation: an inline snapshot's
// lines lose the indentation of its first line.
function dedent(s) {
  const lines = s.split("\n");
  if (lines.length <= 2) return s;
  if (lines[0].trim() !== "" || lines[lines.length - 1].trim() !== "") return s;
  const m = lines[1].match(/^[ \t]*/)[0];
  const out = [];
  for (let i = 1; i < lines.length - 1; i++) {
    if (lines[i] !== "" && !lines[i].startsWith(m)) return s;
    out.push(lines[i].slice(m.length));
  }
  return out.join("\n");
}

// ---- Equality (Vitest's equals, iterableEquality) ---------------------------

function isAsymmetric(v) { return v !== null && typeof v === "object" && typeof v.asymmetricMatch === "function"; }

function equals(a, b, strict, seen = []) {
  if (isAsymmetric(a)) return a.asymmetricMatch(b);
  if (isAsymmetric(b)) return b.asymmetricMatch(a);
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return false;
  }
  const ta = Object.prototype.toString.call(a), tb = Object.prototype.toString.call(b);
  if (ta !== tb) return false;
  if (a instanceof Date) return +a === +b;
  if (a instanceof RegExp) return String(a) === String(b);
  if (a instanceof Error) return a.message === b.message && a.name === b.name;
  if (typeof URL !== "undefined" && a instanceof URL) return a.href === b.href;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  for (const [x, y] of seen) if (x === a && y === b) return true;
  seen = [...seen, [a, b]];
  if (a instanceof Map) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !equals(v, b.get(k), strict, seen)) return false;
    return true;
  }
  if (a instanceof Set) {
    if (a.size !== b.size) return false;
    for (const v of a) if (!b.has(v) && ![...b].some((w) => equals(v, w, strict, seen))) return false;
    return true;
  }
  if (ArrayBuffer.isView(a) || a instanceof ArrayBuffer) {
    const x = new Uint8Array(a.buffer ?? a, a.byteOffset ?? 0, a.byteLength), y = new Uint8Array(b.buffer ?? b, b.byteOffset ?? 0, b.byteLength);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  }
  if (Array.isArray(a)) {
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      if (strict && (i in a) !== (i in b)) return false;
      if (!equals(a[i], b[i], strict, seen)) return false;
    }
    return true;
  }
  const ka = Object.keys(a).filter((k) => strict || a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => strict || b[k] !== undefined);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) && !(k in b)) return false;
    if (!equals(a[k], b[k], strict, seen)) return false;
  }
  return true;
}

function subsetEquals(obj, sub, seen = []) {
  if (isAsymmetric(sub)) return sub.asymmetricMatch(obj);
  if (typeof sub !== "object" || sub === null || typeof obj !== "object" || obj === null) return equals(obj, sub, false);
  if (Array.isArray(sub)) {
    return Array.isArray(obj) && obj.length === sub.length && sub.every((v, i) => subsetEquals(obj[i], v, seen));
  }
  if (sub instanceof Date || sub instanceof RegExp || sub instanceof Map || sub instanceof Set) return equals(obj, sub, false);
  return Object.keys(sub).every((k) => k in obj && subsetEquals(obj[k], sub[k], seen));
}

// ---- expect --------------------------------------------------------------------

export class AssertionError extends Error {
  constructor(message, actual, expected) {
    super(message);
    this.name = "AssertionError";
    if (arguments.length > 1) { this.actual = actual; this.expected = expected; }
  }
}

const assertionState = { count: 0, expected: null, has: false };

function short(v) {
  if (typeof v === "string") return "'" + v + "'";
  if (typeof v === "function") return "[Function" + (v.name ? " " + v.name : "") + "]";
  if (v instanceof Error) return v.name + ": " + v.message;
  try {
    const s = format(v).replace(/\s*\n\s*/g, " ");
    return s.length > 200 ? s.slice(0, 200) + "..." : s;
  } catch {
    return String(v);
  }
}

function throwsMatch(err, expected) {
  if (expected === undefined) return true;
  const msg = err && typeof err === "object" && "message" in err ? String(err.message) : String(err);
  if (typeof expected === "string") return msg.includes(expected);
  if (expected instanceof RegExp) return expected.test(msg);
  if (typeof expected === "function") return err instanceof expected;
  if (isAsymmetric(expected)) return expected.asymmetricMatch(err);
  if (expected instanceof Error || typeof expected === "object") return msg === String(expected.message);
  return false;
}

function mockOf(fn) {
  const m = fn && fn.mock;
  if (!m || !Array.isArray(m.calls)) throw new TypeError(short(fn) + " is not a spy or a call to a spy!");
  return m;
}

const matchers = {
  toBe(a, e) { return [Object.is(a, e), `expected ${short(a)} to be ${short(e)} // Object.is equality`, `expected ${short(a)} not to be ${short(e)} // Object.is equality`]; },
  toEqual(a, e) { return [equals(a, e, false), `expected ${short(a)} to deeply equal ${short(e)}`, `expected ${short(a)} to not deeply equal ${short(e)}`]; },
  toStrictEqual(a, e) { return [equals(a, e, true), `expected ${short(a)} to strictly equal ${short(e)}`, `expected ${short(a)} to not strictly equal ${short(e)}`]; },
  toMatchObject(a, e) { return [subsetEquals(a, e), `expected ${short(a)} to match object ${short(e)}`, `expected ${short(a)} to not match object ${short(e)}`]; },
  toBeInstanceOf(a, c) { return [a instanceof c, `expected ${short(a)} to be an instance of ${c?.name}`, `expected ${short(a)} not to be an instance of ${c?.name}`]; },
  toBeDefined(a) { return [a !== undefined, `expected ${short(a)} to be defined`, `expected ${short(a)} to be undefined`]; },
  toBeUndefined(a) { return [a === undefined, `expected ${short(a)} to be undefined`, `expected ${short(a)} to be defined`]; },
  toBeNull(a) { return [a === null, `expected ${short(a)} to be null`, `expected ${short(a)} not to be null`]; },
  toBeNaN(a) { return [Number.isNaN(a), `expected ${short(a)} to be NaN`, `expected ${short(a)} not to be NaN`]; },
  toBeTruthy(a) { return [!!a, `expected ${short(a)} to be truthy`, `expected ${short(a)} to not be truthy`]; },
  toBeFalsy(a) { return [!a, `expected ${short(a)} to be falsy`, `expected ${short(a)} to not be falsy`]; },
  toBeTypeOf(a, t) { return [typeof a === t, `expected ${short(a)} to be type of '${t}'`, `expected ${short(a)} not to be type of '${t}'`]; },
  toBeGreaterThan(a, n) { return [a > n, `expected ${short(a)} to be greater than ${short(n)}`, `expected ${short(a)} to not be greater than ${short(n)}`]; },
  toBeGreaterThanOrEqual(a, n) { return [a >= n, `expected ${short(a)} to be greater than or equal to ${short(n)}`, `expected ${short(a)} to not be greater than or equal to ${short(n)}`]; },
  toBeLessThan(a, n) { return [a < n, `expected ${short(a)} to be less than ${short(n)}`, `expected ${short(a)} to not be less than ${short(n)}`]; },
  toBeLessThanOrEqual(a, n) { return [a <= n, `expected ${short(a)} to be less than or equal to ${short(n)}`, `expected ${short(a)} to not be less than or equal to ${short(n)}`]; },
  toBeCloseTo(a, n, digits = 2) { return [Math.abs(a - n) < Math.pow(10, -digits) / 2, `expected ${short(a)} to be close to ${short(n)}`, `expected ${short(a)} not to be close to ${short(n)}`]; },
  toContain(a, x) {
    const ok = typeof a === "string" ? a.includes(String(x)) : a != null && typeof a[Symbol.iterator] === "function" ? [...a].includes(x) : false;
    return [ok, `expected ${short(a)} to include ${short(x)}`, `expected ${short(a)} not to include ${short(x)}`];
  },
  toContainEqual(a, x) { return [[...a].some((v) => equals(v, x, false)), `expected ${short(a)} to deep equally contain ${short(x)}`, `expected ${short(a)} not to deep equally contain ${short(x)}`]; },
  toHaveLength(a, n) { return [a != null && a.length === n, `expected ${short(a)} to have a length of ${n} but got ${a?.length}`, `expected ${short(a)} to not have a length of ${n}`]; },
  toHaveProperty(a, p, ...v) {
    const path = Array.isArray(p) ? p : String(p).split(".");
    let o = a, ok = true;
    for (const k of path) { if (o != null && k in Object(o)) o = o[k]; else { ok = false; break; } }
    if (ok && v.length) ok = equals(o, v[0], false);
    return [ok, `expected ${short(a)} to have property "${path.join(".")}"`, `expected ${short(a)} to not have property "${path.join(".")}"`];
  },
  toMatch(a, e) { const ok = typeof e === "string" ? String(a).includes(e) : e.test(String(a)); return [ok, `expected ${short(a)} to match ${short(e)}`, `expected ${short(a)} not to match ${short(e)}`]; },
  toSatisfy(a, f) { return [!!f(a), `expected ${short(a)} to satisfy ${short(f)}`, `expected ${short(a)} to not satisfy ${short(f)}`]; },
  toHaveBeenCalled(fn) { const m = mockOf(fn); return [m.calls.length > 0, `expected "${fn.getMockName()}" to be called at least once`, `expected "${fn.getMockName()}" to not be called at all, but actually been called ${m.calls.length} times`]; },
  toHaveBeenCalledTimes(fn, n) { const m = mockOf(fn); return [m.calls.length === n, `expected "${fn.getMockName()}" to be called ${n} times, but got ${m.calls.length} times`, `expected "${fn.getMockName()}" to not be called ${n} times`]; },
  toHaveBeenCalledWith(fn, ...args) { const m = mockOf(fn); return [m.calls.some((c) => equals(c, args, false)), `expected "${fn.getMockName()}" to be called with arguments: ${short(args)}`, `expected "${fn.getMockName()}" to not be called with arguments: ${short(args)}`]; },
  toHaveBeenLastCalledWith(fn, ...args) { const m = mockOf(fn); return [m.calls.length > 0 && equals(m.calls[m.calls.length - 1], args, false), `expected last "${fn.getMockName()}" call to have been called with ${short(args)}`, `expected last "${fn.getMockName()}" call to not have been called with ${short(args)}`]; },
  toHaveReturnedWith(fn, v) { const m = mockOf(fn); return [m.results.some((r) => r.type === "return" && equals(r.value, v, false)), `expected "${fn.getMockName()}" to return with: ${short(v)} at least once`, `expected "${fn.getMockName()}" to not return with: ${short(v)}`]; },
  toMatchInlineSnapshot(a, props, snap) {
    if (typeof props === "string") [props, snap] = [undefined, props];
    if (props !== undefined && !subsetEquals(a, props)) return [false, `expected ${short(a)} to match ${short(props)}`, ""];
    if (snap === undefined) return [false, "cellhost test cannot write a new inline snapshot: run it once with vitest", ""];
    const got = format(a);
    const want = dedent(snap);
    return [got === want, `Snapshot mismatched\n- Expected\n+ Received\n\n- ${want.split("\n").join("\n- ")}\n+ ${got.split("\n").join("\n+ ")}`, ""];
  },
  toMatchSnapshot() { return [false, "toMatchSnapshot() (snapshot files) is not supported by cellhost test yet", ""]; },
};
matchers.toBeCalled = matchers.toHaveBeenCalled;
matchers.toBeCalledTimes = matchers.toHaveBeenCalledTimes;
matchers.toBeCalledWith = matchers.toHaveBeenCalledWith;
matchers.lastCalledWith = matchers.toHaveBeenLastCalledWith;

function thrown(a, fromRejects) {
  if (fromRejects) return { threw: true, error: a.value };
  if (typeof a !== "function") throw new TypeError(short(a) + " is not a function");
  try { a(); } catch (e) { return { threw: true, error: e }; }
  return { threw: false };
}

const throwMatchers = {
  toThrow(a, e, rej) {
    const r = thrown(a, rej);
    if (!r.threw) return [false, "expected [Function] to throw an error", "expected [Function] to not throw an error but it did not"];
    return [throwsMatch(r.error, e), `expected error ${short(r.error)} to match ${short(e)}`, `expected [Function] to not throw an error but '${short(r.error)}' was thrown`];
  },
  toThrowErrorMatchingInlineSnapshot(a, snap, rej) {
    const r = thrown(a, rej);
    if (!r.threw) return [false, "expected [Function] to throw an error", ""];
    return matchers.toMatchInlineSnapshot(r.error, snap);
  },
};
throwMatchers.toThrowError = throwMatchers.toThrow;

function makeAssertion(actual, flags) {
  const a = {};
  const wrap = (name, fn, isThrow) => (...args) => {
    assertionState.count++;
    const run = (value) => {
      const [pass, msg, notMsg] = isThrow ? fn(value.fn, ...args, value.rejected) : fn(value.v, ...args);
      if (pass === !!flags.not) throw new AssertionError(flags.not ? notMsg || "expected not " + name : msg);
    };
    if (flags.resolves || flags.rejects) {
      const p = typeof actual === "function" ? Promise.resolve().then(actual) : actual;
      if (!p || typeof p.then !== "function") throw new TypeError(`${short(actual)} is not a promise`);
      return p.then(
        (v) => {
          if (flags.rejects) throw new AssertionError(`promise resolved "${short(v)}" instead of rejecting`);
          run(isThrow ? { fn: () => v } : { v });
        },
        (e) => {
          if (flags.resolves) throw new AssertionError(`promise rejected "${short(e)}" instead of resolving`);
          run(isThrow ? { fn: { value: e }, rejected: true } : { v: e });
        },
      );
    }
    run(isThrow ? { fn: actual } : { v: actual });
  };
  for (const [k, fn] of Object.entries(matchers)) a[k] = wrap(k, fn, false);
  for (const [k, fn] of Object.entries(throwMatchers)) a[k] = wrap(k, fn, true);
  Object.defineProperty(a, "not", { get: () => makeAssertion(actual, { ...flags, not: !flags.not }) });
  Object.defineProperty(a, "resolves", { get: () => makeAssertion(actual, { ...flags, resolves: true }) });
  Object.defineProperty(a, "rejects", { get: () => makeAssertion(actual, { ...flags, rejects: true }) });
  return a;
}

export function expect(actual, message) {
  return makeAssertion(actual, { message });
}
expect.assertions = (n) => { assertionState.expected = n; };
expect.hasAssertions = () => { assertionState.has = true; };
expect.soft = expect;
expect.poll = (fn, opts) => {
  const interval = opts?.interval ?? 50, timeout = opts?.timeout ?? 1000;
  const target = {};
  for (const k of Object.keys(matchers)) {
    target[k] = async (...args) => {
      const end = Date.now() + timeout;
      for (;;) {
        try { return expect(await fn())[k](...args); } catch (e) {
          if (Date.now() >= end) throw e;
          await new Promise((r) => setTimeout(r, interval));
        }
      }
    };
  }
  return target;
};
const asym = (name, match, text) => ({ asymmetricMatch: match, toString: () => name, toAsymmetricMatcher: () => text ?? name, $$typeof: Symbol.for("jest.asymmetricMatcher") });
expect.anything = () => asym("Anything", (v) => v !== null && v !== undefined);
expect.any = (c) => asym("Any<" + (c?.name ?? c) + ">", (v) => {
  if (c === String) return typeof v === "string" || v instanceof String;
  if (c === Number) return typeof v === "number" || v instanceof Number;
  if (c === Boolean) return typeof v === "boolean" || v instanceof Boolean;
  if (c === Function) return typeof v === "function";
  if (c === BigInt) return typeof v === "bigint";
  if (c === Symbol) return typeof v === "symbol";
  if (c === Object) return typeof v === "object" && v !== null;
  return v instanceof c;
});
expect.objectContaining = (o) => asym("ObjectContaining", (v) => v != null && typeof v === "object" && Object.keys(o).every((k) => k in v && equals(v[k], o[k], false)));
expect.arrayContaining = (arr) => asym("ArrayContaining", (v) => Array.isArray(v) && arr.every((x) => v.some((y) => equals(x, y, false))));
expect.stringContaining = (s) => asym("StringContaining", (v) => typeof v === "string" && v.includes(s));
expect.stringMatching = (re) => asym("StringMatching", (v) => typeof v === "string" && (typeof re === "string" ? v.includes(re) : re.test(v)));
expect.closeTo = (n, d = 2) => asym("NumberCloseTo", (v) => Math.abs(v - n) < Math.pow(10, -d) / 2);
expect.not = {
  objectContaining: (o) => { const m = expect.objectContaining(o); return asym("NotObjectContaining", (v) => !m.asymmetricMatch(v)); },
  arrayContaining: (o) => { const m = expect.arrayContaining(o); return asym("NotArrayContaining", (v) => !m.asymmetricMatch(v)); },
  stringContaining: (o) => { const m = expect.stringContaining(o); return asym("NotStringContaining", (v) => !m.asymmetricMatch(v)); },
};
expect.extend = (ms) => {
  for (const [k, fn] of Object.entries(ms)) {
    matchers[k] = (a, ...args) => {
      const r = fn.call({ isNot: false, equals: (x, y) => equals(x, y, false) }, a, ...args);
      return [r.pass, typeof r.message === "function" ? r.message() : r.message, typeof r.message === "function" ? r.message() : r.message];
    };
  }
};
export const assert = (v, msg) => { if (!v) throw new AssertionError(msg ?? "expected value to be truthy"); };

// ---- vi ---------------------------------------------------------------------------

const spies = new Set();

function makeMock(impl, name = "vi.fn()") {
  let implementation = impl;
  const once = [];
  const mock = { calls: [], results: [], instances: [], contexts: [], lastCall: undefined };
  const f = function (...args) {
    mock.calls.push(args);
    mock.lastCall = args;
    mock.contexts.push(this);
    mock.instances.push(this);
    const fn = once.length ? once.shift() : implementation;
    try {
      const v = fn ? (new.target ? Reflect.construct(fn, args, new.target) : fn.apply(this, args)) : undefined;
      mock.results.push({ type: "return", value: v });
      return v;
    } catch (e) {
      mock.results.push({ type: "throw", value: e });
      throw e;
    }
  };
  f.mock = mock;
  f._isMockFunction = true;
  f.getMockName = () => name;
  f.mockName = (n) => { name = n; return f; };
  f.mockImplementation = (fn) => { implementation = fn; return f; };
  f.mockImplementationOnce = (fn) => { once.push(fn); return f; };
  f.mockReturnValue = (v) => f.mockImplementation(() => v);
  f.mockReturnValueOnce = (v) => f.mockImplementationOnce(() => v);
  f.mockResolvedValue = (v) => f.mockImplementation(() => Promise.resolve(v));
  f.mockResolvedValueOnce = (v) => f.mockImplementationOnce(() => Promise.resolve(v));
  f.mockRejectedValue = (v) => f.mockImplementation(() => Promise.reject(v));
  f.mockRejectedValueOnce = (v) => f.mockImplementationOnce(() => Promise.reject(v));
  f.mockClear = () => { mock.calls.length = 0; mock.results.length = 0; mock.instances.length = 0; mock.contexts.length = 0; mock.lastCall = undefined; return f; };
  f.mockReset = () => { f.mockClear(); implementation = impl; once.length = 0; return f; };
  f.mockRestore = () => { f.mockReset(); f._restore?.(); };
  f.getMockImplementation = () => implementation;
  return f;
}

function unsupported(name) {
  return () => { throw new Error("vi." + name + "() is not supported by cellhost test yet"); };
}

export const vi = {
  fn: (impl) => makeMock(impl),
  spyOn(obj, key) {
    const orig = obj[key];
    const m = makeMock(function (...a) { return orig.apply(this, a); }, key);
    m._restore = () => { obj[key] = orig; spies.delete(m); };
    obj[key] = m;
    spies.add(m);
    return m;
  },
  isMockFunction: (f) => !!(f && f._isMockFunction),
  clearAllMocks() { for (const s of spies) s.mockClear(); },
  resetAllMocks() { for (const s of spies) s.mockReset(); },
  restoreAllMocks() { for (const s of [...spies]) s.mockRestore(); },
  async waitFor(fn, opts) {
    const timeout = typeof opts === "number" ? opts : opts?.timeout ?? 1000, interval = opts?.interval ?? 50;
    const end = Date.now() + timeout;
    for (;;) {
      try { return await fn(); } catch (e) {
        if (Date.now() >= end) throw e;
        await new Promise((r) => setTimeout(r, interval));
      }
    }
  },
  async waitUntil(fn, opts) {
    const timeout = typeof opts === "number" ? opts : opts?.timeout ?? 1000, interval = opts?.interval ?? 50;
    const end = Date.now() + timeout;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() >= end) throw new Error("Timed out in waitUntil!");
      await new Promise((r) => setTimeout(r, interval));
    }
  },
  stubGlobal(k, v) { globalThis[k] = v; return vi; },
  mock: unsupported("mock"),
  doMock: unsupported("doMock"),
  useFakeTimers: unsupported("useFakeTimers"),
  useRealTimers() { return vi; },
  setSystemTime: unsupported("setSystemTime"),
  advanceTimersByTime: unsupported("advanceTimersByTime"),
  runAllTimers: unsupported("runAllTimers"),
};
export default { describe, it, test, expect, vi, beforeAll, afterAll, beforeEach, afterEach, suite, assert };
