// The WebAssembly namespace (V8's shape, as workerd exposes it): classes and
// argument checks here, the work in Go (wasm.go), reached through N.
(function (N) {
  "use strict";
  // methods defines accessors and methods on C.prototype as WebIDL does
  // (enumerable, unlike a class body's).
  const methods = (C, body) => {
    for (const k of Reflect.ownKeys(body)) {
      const d = Object.getOwnPropertyDescriptor(body, k);
      d.enumerable = true;
      Object.defineProperty(C.prototype, k, d);
    }
  };
  const errorClass = (name) => {
    const C = class extends Error {};
    Object.defineProperty(C, "name", { value: name });
    Object.defineProperty(C.prototype, "name", { value: name, writable: true, configurable: true, enumerable: false });
    return C;
  };
  const CompileError = errorClass("CompileError");
  const LinkError = errorClass("LinkError");
  const RuntimeError = errorClass("RuntimeError");
  // slot is a private field stamped on the object (a class constructor
  // that returns the object it is given), invisible to reflection: held by
  // the object, not by a map. goja's WeakMap holds its values strongly, so
  // a value that reaches back to its key (an instance's exports whose JS
  // imports read the instance, a memory's handle that names its object)
  // kept both for ever.
  const slot = () => {
    const Stamp = class extends class { constructor(o) { return o; } } {
      #v;
      constructor(o, v) { super(o); this.#v = v; }
      static get(o) { return #v in o ? o.#v : undefined; }
      static set(o, v) { if (#v in o) o.#v = v; else new Stamp(o, v); }
    };
    return {
      get: (o) => (typeof o === "object" && o !== null) || typeof o === "function" ? Stamp.get(o) : undefined,
      set: (o, v) => Stamp.set(o, v),
    };
  };
  const handles = slot(); // Module, Instance, Memory, Global, Table -> Go handle
  const handleOf = (o, C, what) => {
    const h = typeof o === "object" && o !== null && o instanceof C ? handles.get(o) : undefined;
    if (h === undefined) throw new TypeError(what);
    return h;
  };
  const isBufferSource = (b) => b instanceof ArrayBuffer || ArrayBuffer.isView(b);
  // bytesOf is a buffer source as a Uint8Array over the same bytes.
  const bytesOf = (b) => b instanceof ArrayBuffer ? new Uint8Array(b) : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

  const needNew = (name) => new TypeError("WebAssembly." + name + "(): WebAssembly." + name + " must be invoked with 'new'");
  // Constructors are functions, not classes, for V8's message when called
  // without new.
  function Module(bytes) {
    if (new.target === undefined) throw needNew("Module");
    if (!isBufferSource(bytes)) throw new TypeError("WebAssembly.Module(): Argument 0 must be a buffer source");
    // workerd compiles bytes only where it allows eval (N.compile says
    // which): otherwise only the modules the bundle carries exist.
    handles.set(this, N.compile(bytesOf(bytes), "WebAssembly.Module()"));
  }
  Object.assign(Module, {
    exports(m) { return N.moduleExports(handleOf(m, Module, "WebAssembly.Module.exports(): Argument 0 must be a WebAssembly.Module")); },
    imports(m) { return N.moduleImports(handleOf(m, Module, "WebAssembly.Module.imports(): Argument 0 must be a WebAssembly.Module")); },
    customSections(m, name) {
      const h = handleOf(m, Module, "WebAssembly.Module.customSections(): Argument 0 must be a WebAssembly.Module");
      if (name === undefined) throw new TypeError("WebAssembly.Module.customSections(): Argument 1 is required");
      return N.moduleCustomSections(h, String(name));
    },
  });
  const exportsOf = slot();
  function Instance(module, importObject = undefined) {
    if (new.target === undefined) throw needNew("Instance");
    const h = handleOf(module, Module, "WebAssembly.Instance(): Argument 0 must be a WebAssembly.Module");
    if (importObject !== undefined && ((typeof importObject !== "object" && typeof importObject !== "function") || importObject === null)) {
      throw new TypeError("WebAssembly.Instance(): Argument 1 must be an object");
    }
    exportsOf.set(this, N.instantiate(h, importObject, "WebAssembly.Instance()"));
  }
  methods(Instance, {
    get exports() {
      const e = exportsOf.get(this);
      if (e === undefined) throw new TypeError("Receiver is not a WebAssembly.Instance");
      return e;
    },
  });
  function Memory(desc) {
      if (new.target === undefined) throw needNew("Memory");
      if (typeof desc !== "object" || desc === null) throw new TypeError("WebAssembly.Memory(): Argument 0 must be a memory descriptor");
      const initial = limit(desc.initial, "WebAssembly.Memory()", "initial", 65536);
      const maximum = desc.maximum === undefined ? undefined : limit(desc.maximum, "WebAssembly.Memory()", "maximum", 65536);
      if (maximum !== undefined && maximum < initial) throw new RangeError("WebAssembly.Memory(): Property 'maximum': value " + maximum + " is below the lower bound " + initial);
      const h = N.newMemory(initial, maximum);
      handles.set(this, h);
      N.bind(h, this);
  }
  methods(Memory, {
    get buffer() { return N.memoryBuffer(handleOf(this, Memory, "Receiver is not a WebAssembly.Memory")); },
    grow(delta) {
      const h = handleOf(this, Memory, "Receiver is not a WebAssembly.Memory");
      return N.memoryGrow(h, limit(delta, "WebAssembly.Memory.grow()", "Argument 0", 65536));
    },
  });
  // enforceU32 is WebIDL's [EnforceRange] unsigned long, with V8's texts
  // (its EnforceUint32): what names an argument ("Argument 0") or a
  // descriptor property ("initial").
  const enforceU32 = (v, fn, what) => {
    const name = what.startsWith("Argument") ? what : "Property '" + what + "'";
    const n = Math.trunc(Number(v));
    if (!Number.isFinite(n)) throw new TypeError(fn + ": " + name + " must be convertible to a valid number");
    if (n < 0) throw new TypeError(fn + ": " + name + " must be non-negative");
    if (n > 0xffffffff) throw new TypeError(fn + ": " + name + " must be in the unsigned long range");
    return n + 0;
  };
  const limit = (v, fn, what, max) => {
    if (v === undefined) throw new TypeError(fn + ": Property '" + what + "' is required");
    const i = enforceU32(v, fn, what);
    if (i > max) throw new RangeError(fn + ": " + (what.startsWith("Argument") ? what : "Property '" + what + "'") + ": value " + i + " is above the upper bound " + max);
    return i;
  };
  const valueTypes = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, externref: 0x6f, anyfunc: 0x70, funcref: 0x70 };
  function Global(desc, value = undefined) {
      if (new.target === undefined) throw needNew("Global");
      if (typeof desc !== "object" || desc === null) throw new TypeError("WebAssembly.Global(): Argument 0 must be a global descriptor");
      const t = valueTypes[desc.value];
      if (t === undefined) throw new TypeError("WebAssembly.Global(): Descriptor property 'value' must be a WebAssembly type");
      const h = N.newGlobal(t, !!desc.mutable, value);
      handles.set(this, h);
      N.bind(h, this);
  }
  methods(Global, {
    get value() { return N.globalGet(handleOf(this, Global, "Receiver is not a WebAssembly.Global")); },
    set value(v) { N.globalSet(handleOf(this, Global, "Receiver is not a WebAssembly.Global"), v); },
    valueOf() { return N.globalGet(handleOf(this, Global, "Receiver is not a WebAssembly.Global")); },
  });
  function Table(desc, value = undefined) {
      if (new.target === undefined) throw needNew("Table");
      if (typeof desc !== "object" || desc === null) throw new TypeError("WebAssembly.Table(): Argument 0 must be a table descriptor");
      const elem = valueTypes[desc.element];
      if (elem !== 0x6f && elem !== 0x70) throw new TypeError("WebAssembly.Table(): Descriptor property 'element' must be a WebAssembly reference type");
      const initial = limit(desc.initial, "WebAssembly.Table()", "initial", 10000000);
      const maximum = desc.maximum === undefined ? undefined : limit(desc.maximum, "WebAssembly.Table()", "maximum", 0xffffffff);
      if (maximum !== undefined && maximum < initial) throw new RangeError("WebAssembly.Table(): Property 'maximum': value " + maximum + " is below the lower bound " + initial);
      // A table of a module made for it (wasm.go newTable): modules import
      // it like an exported one.
      handles.set(this, N.newTable(elem, initial, maximum, arguments.length > 1, value));
  }
  methods(Table, {
    get length() { return N.tableLength(handleOf(this, Table, "Receiver is not a WebAssembly.Table")); },
    get(i) {
      const h = handleOf(this, Table, "Receiver is not a WebAssembly.Table");
      return N.tableGet(h, enforceU32(i, "WebAssembly.Table.get()", "Argument 0"));
    },
    // A missing value is the element type's default: undefined for
    // externref, null for funcref (Go's side).
    // (an explicit undefined is a value: refused for funcref).
    set(i, v = undefined) {
      const h = handleOf(this, Table, "Receiver is not a WebAssembly.Table");
      N.tableSet(h, enforceU32(i, "WebAssembly.Table.set()", "Argument 0"), v, arguments.length > 1);
    },
    grow(n, v = undefined) {
      const h = handleOf(this, Table, "Receiver is not a WebAssembly.Table");
      return N.tableGrow(h, enforceU32(n, "WebAssembly.Table.grow()", "Argument 0"), v, arguments.length > 1);
    },
  });
  const validate = (bytes) => {
    if (!isBufferSource(bytes)) throw new TypeError("WebAssembly.validate(): Argument 0 must be a buffer source");
    return N.validate(bytesOf(bytes));
  };
  const compile = (bytes) => {
    if (!isBufferSource(bytes)) return Promise.reject(new TypeError("WebAssembly.compile(): Argument 0 must be a buffer source"));
    try {
      const h = N.compile(bytesOf(bytes), "WebAssembly.compile()");
      return Promise.resolve(wrap(Module)(h));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const instantiate = (source, importObject = undefined) => {
    if (source instanceof Module) {
      try {
        if (importObject !== undefined && (typeof importObject !== "object" || importObject === null)) {
          throw new TypeError("WebAssembly.instantiate(): Argument 1 must be an object");
        }
        const h = handles.get(source);
        const inst = Object.create(Instance.prototype);
        exportsOf.set(inst, N.instantiate(h, importObject, "WebAssembly.instantiate()"));
        return Promise.resolve(inst);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    if (!isBufferSource(source)) return Promise.reject(new TypeError("WebAssembly.instantiate(): Argument 0 must be a buffer source or a WebAssembly.Module object"));
    try {
      if (importObject !== undefined && (typeof importObject !== "object" || importObject === null)) {
        throw new TypeError("WebAssembly.instantiate(): Argument 1 must be an object");
      }
      const module = wrap(Module)(N.compile(bytesOf(source), "WebAssembly.instantiate()"));
      const instance = Object.create(Instance.prototype);
      exportsOf.set(instance, N.instantiate(handles.get(module), importObject, "WebAssembly.instantiate()"));
      return Promise.resolve({ module, instance });
    } catch (e) {
      return Promise.reject(e);
    }
  };
  const WebAssembly = {};
  const def = (k, v) => Object.defineProperty(WebAssembly, k, { value: v, writable: true, configurable: true, enumerable: false });
  // Namespace operations are enumerable (WebIDL), interfaces are not.
  for (const [k, f] of [["compile", compile], ["validate", validate], ["instantiate", instantiate]]) {
    Object.defineProperty(WebAssembly, k, { value: f, writable: true, configurable: true, enumerable: true });
  }
  def("Module", Module);
  def("Instance", Instance);
  def("Table", Table);
  def("Memory", Memory);
  def("Global", Global);
  def("CompileError", CompileError);
  def("LinkError", LinkError);
  def("RuntimeError", RuntimeError);
  Object.defineProperty(WebAssembly, Symbol.toStringTag, { value: "WebAssembly", configurable: true });
  for (const C of [Module, Instance, Memory, Global, Table]) {
    Object.defineProperty(C, "prototype", { writable: false, enumerable: false, configurable: false });
  }
  for (const [C, tag] of [[Module, "WebAssembly.Module"], [Instance, "WebAssembly.Instance"], [Memory, "WebAssembly.Memory"], [Global, "WebAssembly.Global"], [Table, "WebAssembly.Table"]]) {
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: tag, configurable: true });
  }
  const wrap = (C) => (h) => { const o = Object.create(C.prototype); handles.set(o, h); return o; };
  N.setup({
    CompileError, LinkError, RuntimeError,
    module: wrap(Module), memory: wrap(Memory), global: wrap(Global), table: wrap(Table),
    handleOf: (o) => handles.get(o),
    isMemory: (o) => o instanceof Memory, isGlobal: (o) => o instanceof Global, isTable: (o) => o instanceof Table,
    asIntN: (v) => BigInt.asIntN(64, v),
    stamp: (o, h) => handles.set(o, h),
    freeze: Object.freeze,
  });
  Object.defineProperty(globalThis, "WebAssembly", { value: WebAssembly, writable: true, configurable: true, enumerable: false });
});
