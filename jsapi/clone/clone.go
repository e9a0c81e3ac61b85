// Package clone is the structured clone codec: it carries JS values across
// storage and between runtimes.
package clone

import (
	"errors"
	"fmt"
	"sync"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
)

// Structured clone codec.
//
// Serialize and Deserialize carry JS values across storage (the bytes are
// persisted in SQLite) and between runtimes (RPC arguments, structuredClone,
// WebSocket attachments) in V8's ValueSerializer format, version 15, as
// workerd writes it: the header 0xFF 0x0F, then the value (v8write.go,
// v8read.go). There is no Go implementation of the format to build on, so
// it is written here from V8's src/objects/value-serializer.cc and
// workerd's src/workerd/jsg/ser.c++ (errors as host objects under
// enhanced_error_serialization), and pinned byte for byte against values
// workerd 1.20261117.1 stored (testdata/workerd, recorded by its record.sh).
//
// They support what V8's ValueSerializer supports and workerd lets through:
// primitives (including -0, NaN, BigInt), Date, RegExp, Map, Set,
// ArrayBuffer, typed arrays, DataView, Error (name, message, stack, cause),
// boxed primitives, arrays (holes and extra properties kept) and plain
// objects (own enumerable string keys; prototypes are dropped, so class
// instances become plain objects). Cycles and shared references are kept.
//
// Where V8's bytes depend on its heap rather than on the value, the writer
// takes V8's usual choice: a number is a small integer ('I') when it is an
// integer in [-2^30, 2^30) and not -0, else a double ('N') (V8 also writes
// a double for an integer it happens to hold boxed); an array is dense
// ('A') when every index below its length is present, else sparse ('a');
// a dense array of numbers holding a non-small-integer is written as
// doubles throughout (V8's double elements); a string is one-byte ('"')
// when every UTF-16 unit is at most 0xFF.

// maxDepth bounds nesting on both sides so hostile input cannot
// exhaust the stack.
const maxDepth = 5000

// ErrCorrupt is the cause of the error Deserialize returns for bytes it
// cannot decode.
var ErrCorrupt = errors.New("corrupt structured clone data")

func corrupt(format string, args ...interface{}) *jserr.Error {
	return &jserr.Error{Name: "DataCloneError", Message: "Unable to deserialize cloned data.",
		Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

// abort carries an error out of the recursive writer and reader.
type abort struct{ err error }

// intrinsics are the built-ins the codec uses, captured before user
// code can replace them.
type intrinsics struct {
	helpers     *goja.Object
	typedArray  goja.Callable
	dataView    goja.Callable
	mapEntries  goja.Callable
	setValues   goja.Callable
	mapSet      goja.Callable
	setAdd      goja.Callable
	time        goja.Callable
	regexp      goja.Callable
	prim        goja.Callable
	describe    goja.Callable
	errorInfo   goja.Callable
	errorHost   goja.Callable
	domExc      goja.Callable
	protoKind   goja.Callable
	ctors       map[string]goja.Constructor
	objectProto *goja.Object
	hostBrand   *goja.Symbol
	// errorsAsHost: write errors as workerd's host objects (the
	// enhanced_error_serialization compatibility flag).
	errorsAsHost bool
	// host codecs by brand and by tag (RegisterHost)
	hosts    map[string]*HostCodec
	hostTags map[uint32]*HostCodec
}

const helpersSource = `(function (hostBrand, hostTypes) {
  "use strict";
  const TA = Object.getPrototypeOf(Uint8Array.prototype);
  const g = (o, k) => Object.getOwnPropertyDescriptor(o, k).get;
  const taTag = g(TA, Symbol.toStringTag), taBuffer = g(TA, "buffer"), taOffset = g(TA, "byteOffset"), taLength = g(TA, "length");
  const dvBuffer = g(DataView.prototype, "buffer"), dvOffset = g(DataView.prototype, "byteOffset"), dvLength = g(DataView.prototype, "byteLength");
  const mapGet = Map.prototype.get, mapForEach = Map.prototype.forEach, setForEach = Set.prototype.forEach, mapSet = Map.prototype.set, setAdd = Set.prototype.add;
  const getTime = Date.prototype.getTime, reSource = g(RegExp.prototype, "source"), reFlags = g(RegExp.prototype, "flags");
  const valueOfs = [String.prototype.valueOf, Number.prototype.valueOf, Boolean.prototype.valueOf, BigInt.prototype.valueOf];
  const fnToString = Function.prototype.toString;
  const getProto = Object.getPrototypeOf, getOwnDesc = Object.getOwnPropertyDescriptor;
  const iterProto = (it) => getProto(it);
  const uncloneable = new Map([
    [WeakMap.prototype, "WeakMap"], [WeakSet.prototype, "WeakSet"], [Promise.prototype, "Promise"],
    [iterProto([][Symbol.iterator]()), "Array Iterator"], [iterProto(new Map()[Symbol.iterator]()), "Map Iterator"],
    [iterProto(new Set()[Symbol.iterator]()), "Set Iterator"], [iterProto(""[Symbol.iterator]()), "String Iterator"],
    [getProto(function* () {}).prototype, "Generator"],
  ]);
  if (typeof WeakRef === "function") uncloneable.set(WeakRef.prototype, "WeakRef");
  const DOMExc = typeof DOMException === "function" ? DOMException : undefined;
  const domProto = DOMExc && DOMExc.prototype, isProto = Object.prototype.isPrototypeOf;
  const domName = domProto && g(domProto, "name"), domMessage = domProto && getOwnDesc(domProto, "message") && g(domProto, "message");
  const ctorNameOf = (o) => {
    try {
      const p = getProto(o);
      if (p === null) return "Object";
      const c = getOwnDesc(p, "constructor");
      const f = c && c.value;
      return typeof f === "function" && typeof f.name === "string" && f.name !== "" ? f.name : "Object";
    } catch { return "Object"; }
  };
  return {
    typedArray(v) {
      let tag;
      try { tag = taTag.call(v); } catch { return undefined; }
      if (tag === undefined) return undefined;
      return [tag, taBuffer.call(v), taOffset.call(v), taLength.call(v)];
    },
    dataView(v) {
      try { return [dvBuffer.call(v), dvOffset.call(v), dvLength.call(v)]; } catch { return undefined; }
    },
    mapEntries(m) { const out = []; mapForEach.call(m, (v, k) => { out.push(k, v); }); return out; },
    setValues(s) { const out = []; setForEach.call(s, (v) => { out.push(v); }); return out; },
    mapSet(m, k, v) { mapSet.call(m, k, v); },
    setAdd(s, v) { setAdd.call(s, v); },
    time(d) { return getTime.call(d); },
    regexp(r) { return [reSource.call(r), reFlags.call(r)]; },
    prim(o, k) { return valueOfs[k].call(o); },
    describe(v) {
      if (typeof v === "function") return fnToString.call(v);
      if (typeof v === "symbol") return v.toString();
      return "#<" + ctorNameOf(v) + ">";
    },
    // errorHost: what workerd's host-object error form carries: the name, the
    // message (as read, prototype included) and the own string keys other
    // than name, message and indices, "stack" first as V8 has it.
    errorHost(e) {
      const keys = Reflect.ownKeys(e).filter((k) => typeof k === "string" && k !== "name" && k !== "message" && k !== "stack" && !/^(0|[1-9][0-9]*)$/.test(k));
      return [e.name, e.message, ["stack", ...keys]];
    },
    // domException: [name, message, stack] of a DOMException, else undefined
    domException(e) {
      if (!domProto || !domMessage || !isProto.call(domProto, e)) return undefined;
      try {
        const s = e.stack;
        return [domName.call(e), domMessage.call(e), typeof s === "string" ? s : ""];
      } catch { return undefined; }
    },
    errorInfo(e) {
      const out = [String(e.name), undefined, undefined, false, undefined];
      const m = getOwnDesc(e, "message");
      if (m && "value" in m) out[1] = String(m.value);
      const s = e.stack;
      if (typeof s === "string") out[2] = s;
      const c = getOwnDesc(e, "cause");
      if (c && "value" in c) { out[3] = true; out[4] = c.value; }
      return out;
    },
    // protoKind: "" plain object, "DataView", a host type name, or an uncloneable built-in name
    protoKind(o) {
      const brand = o[hostBrand];
      if (typeof brand === "string") return "host:" + brand;
      for (let p = getProto(o); p !== null && p !== Object.prototype; p = getProto(p)) {
        if (p === DataView.prototype) return "DataView";
        const h = hostTypes === undefined ? undefined : mapGet.call(hostTypes, p);
        if (h !== undefined) return "host:" + h;
        const u = uncloneable.get(p);
        if (u !== undefined) return "uncloneable:" + u;
      }
      return "";
    },
    ctors: {
      Object, Array, Map, Set, Date, RegExp, ArrayBuffer, DataView, String, Number, Boolean,
      DOMException: DOMExc,
      Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError,
      Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
      Float32Array, Float64Array, BigInt64Array, BigUint64Array,
      Float16Array: typeof Float16Array === "function" ? Float16Array : undefined,
    },
  };
})`

var (
	helpersOnce sync.Once
	helpersProg *goja.Program
	helpersErr  error
)

func newIntrinsics(rt *goja.Runtime, hostBrand *goja.Symbol, hostTypes goja.Value) (*intrinsics, error) {
	helpersOnce.Do(func() {
		helpersProg, helpersErr = goja.Compile("cellhost:clone.js", helpersSource, true)
	})
	if helpersErr != nil {
		return nil, fmt.Errorf("compile clone helpers: %w", helpersErr)
	}
	fv, err := rt.RunProgram(helpersProg)
	if err != nil {
		return nil, fmt.Errorf("run clone helpers: %w", err)
	}
	fn, _ := goja.AssertFunction(fv)
	if hostBrand == nil {
		hostBrand = goja.NewSymbol("cellhost.host")
	}
	if hostTypes == nil {
		hostTypes = goja.Undefined()
	}
	hv, err := fn(goja.Undefined(), hostBrand, hostTypes)
	if err != nil {
		return nil, fmt.Errorf("run clone helpers: %w", err)
	}
	h := hv.ToObject(rt)
	ci := &intrinsics{helpers: h, ctors: map[string]goja.Constructor{}, hostBrand: hostBrand}
	for name, dst := range map[string]*goja.Callable{
		"typedArray": &ci.typedArray, "dataView": &ci.dataView, "mapEntries": &ci.mapEntries, "setValues": &ci.setValues,
		"mapSet": &ci.mapSet, "setAdd": &ci.setAdd, "time": &ci.time, "regexp": &ci.regexp, "prim": &ci.prim,
		"describe": &ci.describe, "errorInfo": &ci.errorInfo, "errorHost": &ci.errorHost, "domException": &ci.domExc, "protoKind": &ci.protoKind,
	} {
		f, ok := goja.AssertFunction(h.Get(name))
		if !ok {
			return nil, fmt.Errorf("clone helpers: missing %s", name)
		}
		*dst = f
	}
	ctors := h.Get("ctors").ToObject(rt)
	for _, k := range ctors.Keys() {
		if c, ok := goja.AssertConstructor(ctors.Get(k)); ok {
			ci.ctors[k] = c
		}
	}
	ci.objectProto = ctors.Get("Object").ToObject(rt).Get("prototype").ToObject(rt)
	return ci, nil
}

var intrinsicsKey = rtstate.NewKey[intrinsics]("cellhost.clone")

// Install captures, on a fresh runtime, the built-ins the codec uses, so
// that user code replacing them later does not change what it does.
// hostBrand is the symbol whose string value on an object names its host
// type (such objects cannot be cloned). Call it once, on the runtime's
// goroutine, before user code runs; without it every call captures the
// built-ins as they are then.
func Install(rt *goja.Runtime, hostBrand *goja.Symbol) error {
	return InstallWith(rt, hostBrand, nil)
}

// InstallWith is Install with a Map from the prototypes of host types
// that carry no brand to their names (hostTypes may be nil).
func InstallWith(rt *goja.Runtime, hostBrand *goja.Symbol, hostTypes *goja.Object) error {
	var ht goja.Value
	if hostTypes != nil {
		ht = hostTypes
	}
	ci, err := newIntrinsics(rt, hostBrand, ht)
	if err != nil {
		return err
	}
	return intrinsicsKey.Set(rt, ci)
}

func intrinsicsOf(rt *goja.Runtime) (*intrinsics, error) {
	if ci := intrinsicsKey.Get(rt); ci != nil {
		return ci, nil
	}
	return newIntrinsics(rt, nil, nil)
}

// EnhancedErrors reports whether a worker with this compatibility date and
// these flags has workerd's enhanced_error_serialization (on by default from
// 2026-04-21): errors are then written as host objects carrying their own
// properties.
func EnhancedErrors(date string, flags []string) bool {
	for _, f := range flags {
		switch f {
		case "enhanced_error_serialization":
			return true
		case "legacy_error_serialization":
			return false
		}
	}
	return date >= "2026-04-21"
}

func init() {
	jserr.DecodeValue = Deserialize
}

// Enhanced reports whether rt writes errors as workerd's host objects
// (SetEnhancedErrors).
func Enhanced(rt *goja.Runtime) bool {
	ci := intrinsicsKey.Get(rt)
	return ci != nil && ci.errorsAsHost
}

// SetEnhancedErrors chooses how Serialize writes errors on rt: as workerd's
// host objects (on) or as V8's error tag (off, the default). Reading takes
// both. Call it on the runtime's goroutine.
func SetEnhancedErrors(rt *goja.Runtime, on bool) error {
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return err
	}
	if intrinsicsKey.Get(rt) == nil {
		if err := intrinsicsKey.Set(rt, ci); err != nil {
			return err
		}
	}
	ci.errorsAsHost = on
	return nil
}
