// The WebAssembly JS API as workerd has it: modules imported as wrangler
// builds them (CompiledWasm, also under ?module), instances, every value
// type across the boundary (i64 as BigInt), traps and their messages,
// memory growth (buffer detaching), globals, JS-made memories and globals
// imported by a module, link errors, and the refusal to compile bytes made
// at run time.
import { DurableObject } from "cloudflare:workers";
import calcModule from "./calc.wasm";
import impModule from "./imp.wasm?module";

const show = (v) => {
  if (typeof v === "bigint") return v.toString() + "n";
  if (typeof v === "number" && Object.is(v, -0)) return "-0";
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  if (Array.isArray(v)) return v.map(show);
  if (v instanceof ArrayBuffer) return "ArrayBuffer(" + v.byteLength + ")";
  if (typeof v === "function") return "function " + v.name + "/" + v.length;
  return v;
};
const t = (f) => {
  try {
    return show(f());
  } catch (e) {
    return { error: e.name, message: e.message, tag: Object.prototype.toString.call(e), wasm: e instanceof WebAssembly.RuntimeError || e instanceof WebAssembly.LinkError || e instanceof WebAssembly.CompileError };
  }
};
const ta = async (f) => {
  try {
    return show(await f());
  } catch (e) {
    return { error: e.name, message: e.message };
  }
};

let calls = [];
const calcImports = {
  env: {
    cb: (x) => { calls.push(x); if (x === 13) throw new Error("thirteen"); return x * 2; },
    big: (x) => { calls.push(typeof x); return x * 3n; },
  },
};

function basics() {
  const o = {};
  o.names = Object.getOwnPropertyNames(WebAssembly).filter((n) => ["compile", "validate", "instantiate", "Module", "Instance", "Memory", "Table", "Global", "CompileError", "LinkError", "RuntimeError"].includes(n));
  o.tag = Object.prototype.toString.call(WebAssembly);
  o.module = [Object.prototype.toString.call(calcModule), calcModule instanceof WebAssembly.Module, impModule instanceof WebAssembly.Module];
  o.exports = WebAssembly.Module.exports(calcModule);
  o.imports = WebAssembly.Module.imports(impModule);
  o.custom = WebAssembly.Module.customSections(calcModule, "meta").map((b) => new TextDecoder().decode(b));
  o.customNone = WebAssembly.Module.customSections(calcModule, "nope").length;
  const inst = new WebAssembly.Instance(calcModule, calcImports);
  const x = inst.exports;
  o.instTag = Object.prototype.toString.call(inst);
  o.keys = Object.keys(x);
  o.frozen = [Object.isFrozen(x), Object.getPrototypeOf(x)];
  o.fn = [show(x.add), typeof x.add];
  o.add = [x.add(2, 3), x.add(0x7fffffff, 1), x.add("4", 5.9), x.add(2 ** 32 + 1, 0), x.add(), x.add(NaN, -1)];
  o.add64 = [t(() => x.add64(1n, 2n)), t(() => x.add64(2n ** 63n - 1n, 1n)), t(() => x.add64(1, 2)), t(() => x.add64(true, "5"))];
  o.f32 = [x.mulf32(1.1, 3), x.mulf32(1e39, 1)];
  o.f64 = [x.divf64(1, 3), x.divf64(1, 0), x.divf64(-1, Infinity), x.divf64(0, 0)];
  o.multi = t(() => x.swap(1, 2.5));
  o.cb = [x.callcb(5), calls.splice(0)];
  o.cbThrow = [t(() => x.callcb(13)), calls.splice(0)];
  o.big = [t(() => x.callbig(7n)), calls.splice(0)];
  o.indirect = [t(() => x.indirect(20, 22, 0)), t(() => x.indirect(1, 2, 5))];
  o.globals = [Object.prototype.toString.call(x.counter), x.counter.value, x.bump(), x.bump(), x.counter.value, show(x.big.value)];
  x.counter.value = 100;
  o.globalSet = [x.bump(), t(() => { x.big.value = 1n; })];
  return o;
}

function traps() {
  const x = new WebAssembly.Instance(calcModule, calcImports).exports;
  return {
    div0: t(() => x.div(1, 0)),
    overflow: t(() => x.div(-2147483648, -1)),
    truncNaN: t(() => x.trunc(NaN)),
    unreachable: t(() => x.boom()),
    oob: t(() => x.load(65536)),
    oobEdge: t(() => x.load(65533)),
    stack: t(() => x.recurse(1)),
    afterTraps: x.add(1, 1),
  };
}

// Traps whose V8 message wazero's error does not tell apart from another's
// (the same wazero error for both): a remainder by zero (as a division by
// zero), a float truncation out of range (as the division overflow), a
// call_indirect of a null entry (as an index out of bounds).
function trapsAmbiguous() {
  const x = new WebAssembly.Instance(calcModule, calcImports).exports;
  return {
    rem0: t(() => x.rem(1, 0)),
    trunc: t(() => x.trunc(1e20)),
    nullEntry: t(() => x.indirect(1, 2, 1)),
  };
}

function memory() {
  const x = new WebAssembly.Instance(calcModule, calcImports).exports;
  const o = {};
  const m = x.memory;
  const b1 = m.buffer;
  o.kind = [Object.prototype.toString.call(m), m instanceof WebAssembly.Memory, b1.byteLength, m.buffer === b1];
  new Uint8Array(b1).set([1, 2, 3, 250], 10);
  o.shared = [x.sum(10, 14), x.load(10)];
  x.store(100, 0x01020304);
  o.seen = Array.from(new Uint8Array(m.buffer, 100, 4));
  o.wasmGrow = [x.grow(2), x.size(), b1.byteLength, b1.detached, m.buffer.byteLength, m.buffer === b1];
  const b2 = m.buffer;
  o.jsGrow = [m.grow(1), b2.byteLength, m.buffer.byteLength, x.size()];
  const b3 = m.buffer;
  o.grow0 = [m.grow(0), b3.byteLength, m.buffer === b3];
  o.tooMuch = [t(() => m.grow(200)), x.grow(200), x.size()];
  o.kept = [x.load(10), new Uint8Array(m.buffer)[13]];
  const mem = new WebAssembly.Memory({ initial: 1, maximum: 4 });
  o.ctor = [mem.buffer.byteLength, mem.grow(1), mem.buffer.byteLength, t(() => mem.grow(3))];
  o.ctorErrors = [t(() => new WebAssembly.Memory()), t(() => new WebAssembly.Memory({})), t(() => new WebAssembly.Memory({ initial: 2, maximum: 1 })), t(() => WebAssembly.Memory({ initial: 1 }))];
  return o;
}

function imports() {
  const o = {};
  const memory = new WebAssembly.Memory({ initial: 1 });
  new DataView(memory.buffer).setInt32(16, 4242, true);
  const g = new WebAssembly.Global({ value: "i64", mutable: true }, 40n);
  const seen = [];
  const inst = new WebAssembly.Instance(impModule, { env: { memory, base: 8, g }, js: { f: (v) => { seen.push(v); return v * 10; } } });
  o.read = inst.exports.read(8);
  inst.exports.incg();
  inst.exports.incg();
  o.global = [show(g.value), show(g.valueOf()), Object.prototype.toString.call(g)];
  o.twice = [inst.exports.twice(1.5), seen];
  const g2 = new WebAssembly.Global({ value: "i32" }, 5);
  o.globalCtor = [g2.value, t(() => { g2.value = 6; }), new WebAssembly.Global({ value: "f32", mutable: true }, 1.1).value, t(() => new WebAssembly.Global({ value: "i8" }))];
  const env = { memory, base: 0, g };
  o.link = {
    noImports: t(() => new WebAssembly.Instance(impModule)),
    noModule: t(() => new WebAssembly.Instance(impModule, { env })),
    notCallable: t(() => new WebAssembly.Instance(impModule, { env, js: { f: 1 } })),
    missingFn: t(() => new WebAssembly.Instance(impModule, { env, js: {} })),
    badMemory: t(() => new WebAssembly.Instance(impModule, { env: { ...env, memory: new ArrayBuffer(65536) }, js: { f: Math.abs } })),
    badGlobal: t(() => new WebAssembly.Instance(impModule, { env: { ...env, base: "x" }, js: { f: Math.abs } })),
    mutableNumber: t(() => new WebAssembly.Instance(impModule, { env: { ...env, g: 1n }, js: { f: Math.abs } })),
    calcMissing: t(() => new WebAssembly.Instance(calcModule, { env: { cb: () => 0 } })),
    notModule: t(() => new WebAssembly.Instance({})),
  };
  return o;
}

function tables() {
  const x = new WebAssembly.Instance(calcModule, calcImports).exports;
  const o = {};
  const tb = x.table;
  o.funcref = [Object.prototype.toString.call(tb), tb instanceof WebAssembly.Table, tb.length, show(tb.get(0)), tb.get(0)(20, 22), tb.get(1), tb.grow(2), tb.length, tb.get(3)];
  o.funcrefErrors = [t(() => tb.get(7)), t(() => tb.set(9, null)), t(() => tb.grow(2 ** 31))];
  const r = x.refs;
  const obj = { a: 1 };
  o.externref = [r.length, r.get(0), r.grow(2, obj), r.length, r.get(1) === obj, r.get(2) === obj];
  r.set(0, "s");
  o.fromWasm = [x.fetchRef(0), x.fetchRef(1) === obj, x.keep(obj), r.length, x.fetchRef(3) === obj, x.isNull(null), x.isNull(undefined), x.isNull(0)];
  r.set(1);
  o.setUndefined = [r.get(1), x.isNull(r.get(1))];
  o.externrefErrors = [t(() => r.get(4)), t(() => r.set(4, 1))];
  const js = new WebAssembly.Table({ element: "anyfunc", initial: 2 });
  o.jsTable = [js.length, js.get(0), js.grow(1), js.length, t(() => js.get(5))];
  return o;
}

async function disallowed() {
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  return {
    validate: [WebAssembly.validate(bytes), WebAssembly.validate(new Uint8Array([1, 2, 3])), WebAssembly.validate(bytes.buffer), t(() => WebAssembly.validate("x"))],
    newModule: t(() => new WebAssembly.Module(bytes)),
    compile: await ta(() => WebAssembly.compile(bytes)),
    compileBad: await ta(() => WebAssembly.compile(new Uint8Array([9]))),
    instantiateBytes: await ta(() => WebAssembly.instantiate(bytes)),
    instantiateModule: await ta(async () => {
      const i = await WebAssembly.instantiate(calcModule, calcImports);
      return [Object.prototype.toString.call(i), i instanceof WebAssembly.Instance, i.exports.add(40, 2)];
    }),
    instantiateBadImports: await ta(() => WebAssembly.instantiate(impModule, {})),
    instantiateNothing: await ta(() => WebAssembly.instantiate(5)),
    errors: [new WebAssembly.RuntimeError("x").name, String(new WebAssembly.LinkError("y")), new WebAssembly.CompileError("z") instanceof Error, WebAssembly.RuntimeError.name],
  };
}

// An instance kept by the object across requests: its memory and globals
// persist with the object.
export class Wasm extends DurableObject {
  x = new WebAssembly.Instance(calcModule, calcImports).exports;
  async fetch(req) {
    const p = new URL(req.url).pathname;
    if (p === "/do/bump") return Response.json([this.x.bump(), this.x.grow(1), this.x.size()]);
    return Response.json(await route(p.slice(3)));
  }
}

async function route(p) {
  switch (p) {
    case "/basics": return basics();
    case "/traps": return traps();
    case "/traps-ambiguous": return trapsAmbiguous();
    case "/memory": return memory();
    case "/imports": return imports();
    case "/disallowed": return disallowed();
    case "/tables": return tables();
  }
  return { notFound: p };
}

export default {
  async fetch(req, env) {
    const p = new URL(req.url).pathname;
    if (p.startsWith("/do/")) return env.W.get(env.W.idFromName("one")).fetch(req);
    return Response.json(await route(p));
  },
};
