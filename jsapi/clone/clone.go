// Package clone is the structured clone codec: it carries JS values across
// storage and between runtimes.
package clone

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
)

// Structured clone codec.
//
// Serialize and Deserialize carry JS values across storage (the bytes are
// persisted in SQLite) and between runtimes (RPC arguments, structuredClone).
// They support what V8's ValueSerializer supports and workerd lets through:
// primitives (including -0, NaN, BigInt), Date, RegExp, Map, Set,
// ArrayBuffer, typed arrays, DataView, Error (name, message, stack, cause),
// boxed primitives, arrays (holes and extra properties kept) and plain
// objects (own enumerable string keys; prototypes are dropped, so class
// instances become plain objects). Cycles and shared references are kept.
//
// Encoding (all integers are unsigned LEB128 varints unless said so):
//
//	blob    = version(1 byte, = version) value
//	value   = tag(1 byte) payload
//
// Tags are the clone* constants below; objects get ids in order of first
// appearance and a later appearance is written as tagRef id.

const version = 1

const (
	tagUndefined   = 0x00
	tagNull        = 0x01
	tagTrue        = 0x02
	tagFalse       = 0x03
	tagInt         = 0x04 // zigzag varint
	tagDouble      = 0x05 // 8 bytes little endian
	tagStr8        = 0x06 // len, UTF-8 bytes
	tagStr16       = 0x07 // units, 2*units bytes little endian (strings with lone surrogates)
	tagBigInt      = 0x08 // sign byte (0 or 1), len, big-endian magnitude
	tagRef         = 0x10 // id
	tagObject      = 0x11 // count, count × (key string value, value)
	tagDenseArray  = 0x12 // length, length × value, count, count × (key, value)
	tagSparseArray = 0x13 // length, count, count × (key, value)
	tagDate        = 0x14 // 8 bytes double
	tagRegExp      = 0x15 // source string value, flags string value
	tagMap         = 0x16 // count, count × (key, value)
	tagSet         = 0x17 // count, count × value
	tagArrayBuffer = 0x18 // len, bytes
	tagTypedArray  = 0x19 // kind byte, buffer value (ArrayBuffer or ref), byteOffset, length
	tagDataView    = 0x1a // buffer value, byteOffset, byteLength
	tagError       = 0x1b // kind byte, flags byte, [message string value], [stack string value], [cause value]
	tagBoxedString = 0x1c // string value
	tagBoxedNumber = 0x1d // 8 bytes double
	tagBoxedBool   = 0x1e // 1 byte
	tagBoxedBigInt = 0x1f // bigint payload (as tagBigInt)
)

// maxDepth bounds nesting on both sides so hostile input cannot
// exhaust the stack.
const maxDepth = 5000

var typedArrayKinds = []string{
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
	"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Float16Array",
}

var errorKinds = []string{"Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"}

// ErrCorrupt is the cause of the error Deserialize returns for bytes it
// cannot decode.
var ErrCorrupt = errors.New("corrupt structured clone data")

func corrupt(format string, args ...interface{}) *jserr.Error {
	return &jserr.Error{Name: "DataCloneError", Message: "Unable to deserialize cloned data.",
		Err: fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))}
}

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
	protoKind   goja.Callable
	ctors       map[string]goja.Constructor
	objectProto *goja.Object
	hostBrand   *goja.Symbol
}

const helpersSource = `(function (hostBrand) {
  "use strict";
  const TA = Object.getPrototypeOf(Uint8Array.prototype);
  const g = (o, k) => Object.getOwnPropertyDescriptor(o, k).get;
  const taTag = g(TA, Symbol.toStringTag), taBuffer = g(TA, "buffer"), taOffset = g(TA, "byteOffset"), taLength = g(TA, "length");
  const dvBuffer = g(DataView.prototype, "buffer"), dvOffset = g(DataView.prototype, "byteOffset"), dvLength = g(DataView.prototype, "byteLength");
  const mapForEach = Map.prototype.forEach, setForEach = Set.prototype.forEach, mapSet = Map.prototype.set, setAdd = Set.prototype.add;
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
        const u = uncloneable.get(p);
        if (u !== undefined) return "uncloneable:" + u;
      }
      return "";
    },
    ctors: {
      Object, Array, Map, Set, Date, RegExp, ArrayBuffer, DataView, String, Number, Boolean,
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

func newIntrinsics(rt *goja.Runtime, hostBrand *goja.Symbol) (*intrinsics, error) {
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
	hv, err := fn(goja.Undefined(), hostBrand)
	if err != nil {
		return nil, fmt.Errorf("run clone helpers: %w", err)
	}
	h := hv.ToObject(rt)
	ci := &intrinsics{helpers: h, ctors: map[string]goja.Constructor{}, hostBrand: hostBrand}
	for name, dst := range map[string]*goja.Callable{
		"typedArray": &ci.typedArray, "dataView": &ci.dataView, "mapEntries": &ci.mapEntries, "setValues": &ci.setValues,
		"mapSet": &ci.mapSet, "setAdd": &ci.setAdd, "time": &ci.time, "regexp": &ci.regexp, "prim": &ci.prim,
		"describe": &ci.describe, "errorInfo": &ci.errorInfo, "protoKind": &ci.protoKind,
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
	ci, err := newIntrinsics(rt, hostBrand)
	if err != nil {
		return err
	}
	return intrinsicsKey.Set(rt, ci)
}

func intrinsicsOf(rt *goja.Runtime) (*intrinsics, error) {
	if ci := intrinsicsKey.Get(rt); ci != nil {
		return ci, nil
	}
	return newIntrinsics(rt, nil)
}

// ---------------------------------------------------------------------------
// Serialize

type writer struct {
	rt    *goja.Runtime
	ci    *intrinsics
	buf   []byte
	ids   map[*goja.Object]uint64
	next  uint64
	depth int
}

type abort struct{ err error }

func (w *writer) fail(name, msg string) {
	panic(abort{jserr.New(name, msg)})
}

func (w *writer) call(f goja.Callable, args ...goja.Value) goja.Value {
	v, err := f(goja.Undefined(), args...)
	if err != nil {
		panic(abort{err})
	}
	return v
}

func (w *writer) uvarint(x uint64) { w.buf = binary.AppendUvarint(w.buf, x) }

func (w *writer) double(f float64) {
	w.buf = binary.LittleEndian.AppendUint64(w.buf, math.Float64bits(f))
}

func (w *writer) uncloneable(v goja.Value) {
	desc := w.call(w.ci.describe, v).String()
	w.fail("DataCloneError", desc+" could not be cloned.")
}

// Serialize encodes v with the structured clone algorithm. Errors are
// *jserr.Error (DataCloneError for uncloneable values, with workerd's
// messages) or *goja.Exception (a getter threw). Call it on the runtime's
// goroutine only.
func Serialize(rt *goja.Runtime, v goja.Value) (out []byte, err error) {
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, err
	}
	w := &writer{rt: rt, ci: ci, buf: []byte{version}, ids: map[*goja.Object]uint64{}}
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				out, err = nil, a.err
				return
			}
			panic(r)
		}
	}()
	if ex := rt.Try(func() { w.value(v) }); ex != nil {
		return nil, ex
	}
	return w.buf, nil
}

func (w *writer) str(v goja.Value) {
	s := v.String()
	gs, ok := v.(goja.String)
	if !ok || len(s) == gs.Length() || !strings.ContainsRune(s, utf8.RuneError) {
		w.buf = append(w.buf, tagStr8)
		w.uvarint(uint64(len(s)))
		w.buf = append(w.buf, s...)
		return
	}
	n := gs.Length()
	lone := false
	for i := 0; i < n; i++ {
		c := gs.CharAt(i)
		if c >= 0xd800 && c <= 0xdbff {
			if i+1 < n && gs.CharAt(i+1) >= 0xdc00 && gs.CharAt(i+1) <= 0xdfff {
				i++
				continue
			}
			lone = true
			break
		}
		if c >= 0xdc00 && c <= 0xdfff {
			lone = true
			break
		}
	}
	if !lone {
		w.buf = append(w.buf, tagStr8)
		w.uvarint(uint64(len(s)))
		w.buf = append(w.buf, s...)
		return
	}
	w.buf = append(w.buf, tagStr16)
	w.uvarint(uint64(n))
	for i := 0; i < n; i++ {
		w.buf = binary.LittleEndian.AppendUint16(w.buf, gs.CharAt(i))
	}
}

func (w *writer) bigint(b *big.Int) {
	if b.Sign() < 0 {
		w.buf = append(w.buf, 1)
	} else {
		w.buf = append(w.buf, 0)
	}
	mag := new(big.Int).Abs(b).Bytes()
	w.uvarint(uint64(len(mag)))
	w.buf = append(w.buf, mag...)
}

func (w *writer) number(f float64) {
	if f == math.Trunc(f) && math.Abs(f) <= 1<<53 && !(f == 0 && math.Signbit(f)) {
		i := int64(f)
		w.buf = append(w.buf, tagInt)
		w.uvarint(uint64((i << 1) ^ (i >> 63)))
		return
	}
	w.buf = append(w.buf, tagDouble)
	w.double(f)
}

var (
	typeBigInt      = reflect.TypeOf((*big.Int)(nil))
	typeArrayBuffer = reflect.TypeOf(goja.ArrayBuffer{})
)

func (w *writer) value(v goja.Value) {
	switch {
	case v == nil || goja.IsUndefined(v):
		w.buf = append(w.buf, tagUndefined)
		return
	case goja.IsNull(v):
		w.buf = append(w.buf, tagNull)
		return
	case goja.IsString(v):
		w.str(v)
		return
	case goja.IsNumber(v):
		w.number(v.ToFloat())
		return
	case goja.IsBigInt(v):
		b, _ := v.Export().(*big.Int)
		if b == nil {
			b = new(big.Int)
		}
		w.buf = append(w.buf, tagBigInt)
		w.bigint(b)
		return
	}
	if _, ok := v.(*goja.Symbol); ok {
		w.uncloneable(v)
	}
	o, ok := v.(*goja.Object)
	if !ok {
		// booleans are the only primitives left
		if v.ToBoolean() {
			w.buf = append(w.buf, tagTrue)
		} else {
			w.buf = append(w.buf, tagFalse)
		}
		return
	}
	if id, seen := w.ids[o]; seen {
		w.buf = append(w.buf, tagRef)
		w.uvarint(id)
		return
	}
	if _, isFn := goja.AssertFunction(o); isFn {
		w.uncloneable(o)
	}
	w.depth++
	if w.depth > maxDepth {
		w.fail("RangeError", "Maximum call stack size exceeded")
	}
	defer func() { w.depth-- }()
	w.ids[o] = w.next
	w.next++
	switch o.ClassName() {
	case "Array":
		w.array(o)
		return
	case "Date":
		w.buf = append(w.buf, tagDate)
		w.double(w.call(w.ci.time, o).ToFloat())
		return
	case "RegExp":
		r := w.call(w.ci.regexp, o).ToObject(w.rt)
		w.buf = append(w.buf, tagRegExp)
		w.str(r.Get("0"))
		w.str(r.Get("1"))
		return
	case "Error":
		w.error(o)
		return
	case "String":
		w.buf = append(w.buf, tagBoxedString)
		w.str(w.call(w.ci.prim, o, w.rt.ToValue(0)))
		return
	case "Number":
		w.buf = append(w.buf, tagBoxedNumber)
		w.double(w.call(w.ci.prim, o, w.rt.ToValue(1)).ToFloat())
		return
	case "Boolean":
		w.buf = append(w.buf, tagBoxedBool)
		if w.call(w.ci.prim, o, w.rt.ToValue(2)).ToBoolean() {
			w.buf = append(w.buf, 1)
		} else {
			w.buf = append(w.buf, 0)
		}
		return
	}
	et := o.ExportType()
	switch {
	case et == typeArrayBuffer:
		ab := o.Export().(goja.ArrayBuffer)
		if ab.Detached() {
			w.fail("DataCloneError", "An ArrayBuffer is detached and could not be cloned.")
		}
		b := ab.Bytes()
		w.buf = append(w.buf, tagArrayBuffer)
		w.uvarint(uint64(len(b)))
		w.buf = append(w.buf, b...)
		return
	case et == typeBigInt:
		w.buf = append(w.buf, tagBoxedBigInt)
		b, _ := w.call(w.ci.prim, o, w.rt.ToValue(3)).Export().(*big.Int)
		if b == nil {
			b = new(big.Int)
		}
		w.bigint(b)
		return
	case et == reflect.TypeOf(goja.Proxy{}), et == reflect.TypeOf((*goja.Promise)(nil)):
		w.uncloneable(o)
	case et == reflect.TypeOf([][2]interface{}{}):
		if m := w.call(w.ci.mapEntries, o); m != nil {
			w.mapOrSet(tagMap, m.ToObject(w.rt))
			return
		}
	case et == reflect.TypeOf([]interface{}{}):
		// a Set (arrays were handled above)
		w.mapOrSet(tagSet, w.call(w.ci.setValues, o).ToObject(w.rt))
		return
	case et.Kind() == reflect.Slice:
		if ta := w.call(w.ci.typedArray, o); !goja.IsUndefined(ta) {
			w.typedArray(ta.ToObject(w.rt))
			return
		}
	}
	if o.Prototype() != nil && o.Prototype() != w.ci.objectProto {
		kind := w.call(w.ci.protoKind, o).String()
		switch {
		case kind == "DataView":
			if dv := w.call(w.ci.dataView, o); !goja.IsUndefined(dv) {
				d := dv.ToObject(w.rt)
				w.buf = append(w.buf, tagDataView)
				w.value(d.Get("0"))
				w.uvarint(uint64(d.Get("1").ToInteger()))
				w.uvarint(uint64(d.Get("2").ToInteger()))
				return
			}
		case strings.HasPrefix(kind, "host:"):
			w.fail("DataCloneError", `Could not serialize object of type "`+kind[5:]+`". This type does not support serialization.`)
		case strings.HasPrefix(kind, "uncloneable:"):
			w.uncloneable(o)
		}
	}
	switch o.ClassName() {
	case "Object", "Arguments":
	default:
		w.uncloneable(o)
	}
	w.object(o)
}

func (w *writer) object(o *goja.Object) {
	keys := o.Keys()
	w.buf = append(w.buf, tagObject)
	w.uvarint(uint64(len(keys)))
	for _, k := range keys {
		kv := w.rt.ToValue(k)
		w.str(kv)
		w.value(o.Get(k))
	}
}

func (w *writer) array(o *goja.Object) {
	length := uint64(o.Get("length").ToInteger())
	keys := o.Keys()
	var extra []string
	indices := 0
	for _, k := range keys {
		if isIndex(k) {
			indices++
		} else {
			extra = append(extra, k)
		}
	}
	if uint64(indices) == length {
		w.buf = append(w.buf, tagDenseArray)
		w.uvarint(length)
		for i := uint64(0); i < length; i++ {
			w.value(o.Get(strconv.FormatUint(i, 10)))
		}
		w.uvarint(uint64(len(extra)))
		for _, k := range extra {
			w.str(w.rt.ToValue(k))
			w.value(o.Get(k))
		}
		return
	}
	w.buf = append(w.buf, tagSparseArray)
	w.uvarint(length)
	w.uvarint(uint64(len(keys)))
	for _, k := range keys {
		w.str(w.rt.ToValue(k))
		w.value(o.Get(k))
	}
}

func isIndex(k string) bool {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	return err == nil && n < 1<<32-1
}

func (w *writer) mapOrSet(tag byte, flat *goja.Object) {
	n := int(flat.Get("length").ToInteger())
	w.buf = append(w.buf, tag)
	if tag == tagMap {
		w.uvarint(uint64(n / 2))
	} else {
		w.uvarint(uint64(n))
	}
	for i := 0; i < n; i++ {
		w.value(flat.Get(strconv.Itoa(i)))
	}
}

func (w *writer) typedArray(info *goja.Object) {
	name := info.Get("0").String()
	kind := -1
	for i, k := range typedArrayKinds {
		if k == name {
			kind = i
		}
	}
	if kind < 0 {
		w.fail("DataCloneError", "#<"+name+"> could not be cloned.")
	}
	w.buf = append(w.buf, tagTypedArray, byte(kind))
	w.value(info.Get("1"))
	w.uvarint(uint64(info.Get("2").ToInteger()))
	w.uvarint(uint64(info.Get("3").ToInteger()))
}

func (w *writer) error(o *goja.Object) {
	info := w.call(w.ci.errorInfo, o).ToObject(w.rt)
	name := info.Get("0").String()
	kind := 0
	for i, k := range errorKinds {
		if k == name {
			kind = i
		}
	}
	var flags byte
	msg, stack := info.Get("1"), info.Get("2")
	hasCause := info.Get("3").ToBoolean()
	if !goja.IsUndefined(msg) {
		flags |= 1
	}
	if !goja.IsUndefined(stack) {
		flags |= 2
	}
	if hasCause {
		flags |= 4
	}
	w.buf = append(w.buf, tagError, byte(kind), flags)
	if flags&1 != 0 {
		w.str(msg)
	}
	if flags&2 != 0 {
		w.str(stack)
	}
	if hasCause {
		w.value(info.Get("4"))
	}
}

// ---------------------------------------------------------------------------
// Deserialize

type reader struct {
	rt    *goja.Runtime
	ci    *intrinsics
	b     []byte
	p     int
	objs  []goja.Value // nil = reserved, not yet built
	depth int
}

func (r *reader) fail(format string, args ...interface{}) {
	panic(abort{corrupt(format, args...)})
}

func (r *reader) byte1() byte {
	if r.p >= len(r.b) {
		r.fail("truncated at %d", r.p)
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *reader) uvarint() uint64 {
	x, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.fail("bad varint at %d", r.p)
	}
	r.p += n
	return x
}

// count reads a count of items that each take at least per bytes.
func (r *reader) count(per int) int {
	n := r.uvarint()
	if n > uint64(len(r.b)-r.p)/uint64(per) {
		r.fail("count %d exceeds input at %d", n, r.p)
	}
	return int(n)
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.p {
		r.fail("truncated at %d", r.p)
	}
	b := r.b[r.p : r.p+n]
	r.p += n
	return b
}

func (r *reader) double() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8)))
}

func (r *reader) call(f goja.Callable, args ...goja.Value) goja.Value {
	v, err := f(goja.Undefined(), args...)
	if err != nil {
		panic(abort{corrupt("%v", err)})
	}
	return v
}

func (r *reader) construct(name string, args ...goja.Value) *goja.Object {
	c, ok := r.ci.ctors[name]
	if !ok {
		r.fail("no constructor %s", name)
	}
	o, err := c(nil, args...)
	if err != nil {
		panic(abort{corrupt("new %s: %v", name, err)})
	}
	return o
}

// Deserialize decodes bytes made by Serialize into a new JS value on rt.
// Corrupt or truncated input gives a *jserr.Error (DataCloneError) whose
// cause is ErrCorrupt,
// never a panic. Call it on the runtime's goroutine only.
func Deserialize(rt *goja.Runtime, b []byte) (v goja.Value, err error) {
	if len(b) == 0 {
		return nil, corrupt("empty input")
	}
	if b[0] != version {
		return nil, &jserr.Error{Name: "DataCloneError", Message: "Unable to deserialize cloned data due to invalid or unsupported version.",
			Err: fmt.Errorf("%w: version %d", ErrCorrupt, b[0])}
	}
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, err
	}
	r := &reader{rt: rt, ci: ci, b: b, p: 1}
	defer func() {
		if x := recover(); x != nil {
			if a, ok := x.(abort); ok {
				v, err = nil, a.err
				return
			}
			panic(x)
		}
	}()
	if ex := rt.Try(func() { v = r.value() }); ex != nil {
		return nil, corrupt("%v", ex)
	}
	if r.p != len(r.b) {
		return nil, corrupt("%d trailing bytes", len(r.b)-r.p)
	}
	return v, nil
}

func (r *reader) strValue() goja.Value {
	switch tag := r.byte1(); tag {
	case tagStr8, tagStr16:
		return r.str(tag)
	default:
		r.fail("expected a string at %d", r.p-1)
		return nil
	}
}

func (r *reader) str(tag byte) goja.Value {
	if tag == tagStr8 {
		b := r.bytes(r.count(1))
		if !utf8.Valid(b) {
			r.fail("invalid UTF-8 at %d", r.p)
		}
		return r.rt.ToValue(string(b))
	}
	n := r.count(2)
	raw := r.bytes(2 * n)
	units := make([]uint16, n)
	for i := range units {
		units[i] = binary.LittleEndian.Uint16(raw[2*i:])
	}
	return goja.StringFromUTF16(units)
}

func (r *reader) bigint() *big.Int {
	sign := r.byte1()
	if sign > 1 {
		r.fail("bad bigint sign")
	}
	b := new(big.Int).SetBytes(r.bytes(r.count(1)))
	if sign == 1 {
		b.Neg(b)
	}
	return b
}

// reserve allocates the next object id.
func (r *reader) reserve() int {
	r.objs = append(r.objs, nil)
	return len(r.objs) - 1
}

func (r *reader) value() goja.Value {
	tag := r.byte1()
	switch tag {
	case tagUndefined:
		return goja.Undefined()
	case tagNull:
		return goja.Null()
	case tagTrue:
		return r.rt.ToValue(true)
	case tagFalse:
		return r.rt.ToValue(false)
	case tagInt:
		u := r.uvarint()
		i := int64(u>>1) ^ -int64(u&1)
		if i > 1<<53 || i < -(1<<53) {
			r.fail("integer out of range")
		}
		return r.rt.ToValue(i)
	case tagDouble:
		return r.rt.ToValue(r.double())
	case tagStr8, tagStr16:
		return r.str(tag)
	case tagBigInt:
		return r.rt.ToValue(r.bigint())
	case tagRef:
		id := r.uvarint()
		if id >= uint64(len(r.objs)) || r.objs[id] == nil {
			r.fail("bad reference %d", id)
		}
		return r.objs[id]
	}
	r.depth++
	if r.depth > maxDepth {
		r.fail("nesting deeper than %d", maxDepth)
	}
	defer func() { r.depth-- }()
	id := r.reserve()
	switch tag {
	case tagObject:
		o := r.construct("Object")
		r.objs[id] = o
		n := r.count(2)
		for i := 0; i < n; i++ {
			k := r.strValue().String()
			r.define(o, k, r.value())
		}
		return o
	case tagDenseArray:
		o := r.construct("Array")
		r.objs[id] = o
		n := r.count(1)
		for i := 0; i < n; i++ {
			r.define(o, strconv.Itoa(i), r.value())
		}
		m := r.count(2)
		for i := 0; i < m; i++ {
			k := r.strValue().String()
			r.define(o, k, r.value())
		}
		return o
	case tagSparseArray:
		o := r.construct("Array")
		r.objs[id] = o
		length := r.uvarint()
		if length > 1<<32-1 {
			r.fail("array length %d", length)
		}
		if err := o.Set("length", length); err != nil {
			r.fail("array length: %v", err)
		}
		m := r.count(2)
		for i := 0; i < m; i++ {
			k := r.strValue().String()
			r.define(o, k, r.value())
		}
		return o
	case tagDate:
		o := r.construct("Date", r.rt.ToValue(r.double()))
		r.objs[id] = o
		return o
	case tagRegExp:
		src := r.strValue()
		flags := r.strValue()
		o := r.construct("RegExp", src, flags)
		r.objs[id] = o
		return o
	case tagMap:
		o := r.construct("Map")
		r.objs[id] = o
		n := r.count(2)
		for i := 0; i < n; i++ {
			k := r.value()
			v := r.value()
			r.call(r.ci.mapSet, o, k, v)
		}
		return o
	case tagSet:
		o := r.construct("Set")
		r.objs[id] = o
		n := r.count(1)
		for i := 0; i < n; i++ {
			r.call(r.ci.setAdd, o, r.value())
		}
		return o
	case tagArrayBuffer:
		b := r.bytes(r.count(1))
		v := r.rt.ToValue(r.rt.NewArrayBuffer(append([]byte{}, b...)))
		r.objs[id] = v
		return v
	case tagTypedArray:
		kind := int(r.byte1())
		if kind >= len(typedArrayKinds) {
			r.fail("bad typed array kind %d", kind)
		}
		buf := r.bufferValue()
		off, n := r.uvarint(), r.uvarint()
		if off > 1<<53 || n > 1<<53 {
			r.fail("bad typed array range")
		}
		o := r.construct(typedArrayKinds[kind], buf, r.rt.ToValue(off), r.rt.ToValue(n))
		r.objs[id] = o
		return o
	case tagDataView:
		buf := r.bufferValue()
		off, n := r.uvarint(), r.uvarint()
		if off > 1<<53 || n > 1<<53 {
			r.fail("bad data view range")
		}
		o := r.construct("DataView", buf, r.rt.ToValue(off), r.rt.ToValue(n))
		r.objs[id] = o
		return o
	case tagError:
		kind := int(r.byte1())
		flags := r.byte1()
		if kind >= len(errorKinds) || flags > 7 {
			r.fail("bad error header")
		}
		var args []goja.Value
		if flags&1 != 0 {
			args = append(args, r.strValue())
		}
		o := r.construct(errorKinds[kind], args...)
		if flags&2 != 0 {
			if err := o.DefineDataProperty("stack", r.strValue(), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
				r.fail("error stack: %v", err)
			}
		}
		r.objs[id] = o
		if flags&4 != 0 {
			if err := o.DefineDataProperty("cause", r.value(), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
				r.fail("error cause: %v", err)
			}
		}
		return o
	case tagBoxedString:
		o := r.construct("String", r.strValue())
		r.objs[id] = o
		return o
	case tagBoxedNumber:
		o := r.construct("Number", r.rt.ToValue(r.double()))
		r.objs[id] = o
		return o
	case tagBoxedBool:
		c := r.byte1()
		if c > 1 {
			r.fail("bad boolean")
		}
		o := r.construct("Boolean", r.rt.ToValue(c == 1))
		r.objs[id] = o
		return o
	case tagBoxedBigInt:
		o := r.rt.ToValue(r.bigint()).ToObject(r.rt)
		r.objs[id] = o
		return o
	}
	r.fail("unknown tag 0x%02x at %d", tag, r.p-1)
	return nil
}

// bufferValue reads the ArrayBuffer under a view: inline or a reference.
func (r *reader) bufferValue() goja.Value {
	var v goja.Value
	if r.p >= len(r.b) {
		r.fail("truncated at %d", r.p)
	}
	switch r.b[r.p] {
	case tagArrayBuffer, tagRef:
		v = r.value()
	default:
		r.fail("expected an ArrayBuffer at %d", r.p)
	}
	if o, ok := v.(*goja.Object); !ok || o.ExportType() != typeArrayBuffer {
		r.fail("view over a non-ArrayBuffer")
	}
	return v
}

func (r *reader) define(o *goja.Object, k string, v goja.Value) {
	if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
		r.fail("define %q: %v", k, err)
	}
}
