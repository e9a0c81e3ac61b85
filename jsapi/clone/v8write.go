package clone

import (
	"encoding/binary"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// V8's serialization tags (value-serializer.cc, SerializationTag).
const (
	v8Version         = 0xFF
	v8WriteVersion    = 15
	v8Padding         = 0x00
	v8VerifyCount     = '?'
	v8TheHole         = '-'
	v8Undefined       = '_'
	v8Null            = '0'
	v8True            = 'T'
	v8False           = 'F'
	v8Int32           = 'I'
	v8Uint32          = 'U'
	v8Double          = 'N'
	v8BigInt          = 'Z'
	v8Utf8String      = 'S'
	v8OneByteString   = '"'
	v8TwoByteString   = 'c'
	v8ObjectRef       = '^'
	v8BeginObject     = 'o'
	v8EndObject       = '{'
	v8BeginSparse     = 'a'
	v8EndSparse       = '@'
	v8BeginDense      = 'A'
	v8EndDense        = '$'
	v8Date            = 'D'
	v8TrueObject      = 'y'
	v8FalseObject     = 'x'
	v8NumberObject    = 'n'
	v8BigIntObject    = 'z'
	v8StringObject    = 's'
	v8RegExp          = 'R'
	v8BeginMap        = ';'
	v8EndMap          = ':'
	v8BeginSet        = '\''
	v8EndSet          = ','
	v8ArrayBuffer     = 'B'
	v8ResizableBuffer = '~'
	v8ArrayBufferView = 'V'
	v8HostObject      = '\\'
	v8Error           = 'r'
)

// Sub-tags of an error ('r').
const (
	v8ErrEval      = 'E'
	v8ErrRange     = 'R'
	v8ErrReference = 'F'
	v8ErrSyntax    = 'S'
	v8ErrType      = 'T'
	v8ErrURI       = 'U'
	v8ErrMessage   = 'm'
	v8ErrCause     = 'c'
	v8ErrStack     = 's'
	v8ErrEnd       = '.'
)

// v8ErrorProto maps an error's name to its prototype sub-tag; Error (and
// any other name) has none.
var v8ErrorProto = map[string]byte{
	"EvalError": v8ErrEval, "RangeError": v8ErrRange, "ReferenceError": v8ErrReference,
	"SyntaxError": v8ErrSyntax, "TypeError": v8ErrType, "URIError": v8ErrURI,
}

// Sub-tags of an ArrayBufferView ('V').
var v8ViewTags = map[string]byte{
	"Int8Array": 'b', "Uint8Array": 'B', "Uint8ClampedArray": 'C', "Int16Array": 'w', "Uint16Array": 'W',
	"Int32Array": 'd', "Uint32Array": 'D', "Float16Array": 'h', "Float32Array": 'f', "Float64Array": 'F',
	"BigInt64Array": 'q', "BigUint64Array": 'Q', "DataView": '?',
}

// workerd's host-object tag for a native error (jsg/ser.c++) and its error
// tags, in order from 0 (UNKNOWN: the name is written).
const (
	hostTagDOMExceptionV1 = 7 // message, name, an error holding the stack
	hostTagDOMException   = 8 // name, message, stack
	hostTagNativeError    = 10
)

var hostErrorNames = []string{"", "Error", "TypeError", "RangeError", "ReferenceError", "SyntaxError",
	"WasmCompileError", "WasmLinkError", "WasmRuntimeError", "WasmSuspendError", "EvalError", "URIError",
	"AggregateError", "SuppressedError"}

// RegExp flags as V8 numbers them (JSRegExp::Flags).
var v8RegExpFlags = []struct {
	c   byte
	bit uint32
}{{'g', 1}, {'i', 2}, {'m', 4}, {'y', 8}, {'u', 16}, {'s', 32}, {'l', 64}, {'d', 128}, {'v', 256}}

// Smi bounds: V8 with pointer compression keeps 31-bit small integers.
const (
	smiMin = -(1 << 30)
	smiMax = 1<<30 - 1
)

type writer struct {
	rt    *goja.Runtime
	ci    *intrinsics
	buf   []byte
	ids   map[*goja.Object]uint32
	next  uint32
	depth int
	// rpc: the value goes to another runtime of this process in an RPC
	// message (SerializeRPC); refs are the process-local references host
	// codecs wrote (HostWriter.Ref).
	rpc  bool
	refs []uint64
}

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

func (w *writer) varint(x uint64) { w.buf = binary.AppendUvarint(w.buf, x) }

// canonicalNaN is the NaN V8 writes (Go's math.NaN has another payload).
const canonicalNaN = 0x7FF8000000000000

func (w *writer) double(f float64) {
	bits := math.Float64bits(f)
	if f != f {
		bits = canonicalNaN
	}
	w.buf = binary.LittleEndian.AppendUint64(w.buf, bits)
}

func (w *writer) uncloneable(v goja.Value) {
	desc := w.call(w.ci.describe, v).String()
	w.fail("DataCloneError", desc+" could not be cloned.")
}

// Serialize encodes v with the structured clone algorithm in V8's format.
// Errors are *jserr.Error (DataCloneError for uncloneable values, with
// workerd's messages) or *goja.Exception (a getter threw). Call it on the
// runtime's goroutine only.
func Serialize(rt *goja.Runtime, v goja.Value) (out []byte, err error) {
	out, _, err = serialize(rt, v, false)
	return out, err
}

// SerializeRPC is Serialize for an RPC message, which stays in this
// process: host codecs may write what only RPC carries (a Request's or
// Response's body stream, as a reference); refs are those references, for
// the caller to release if the message is dropped.
func SerializeRPC(rt *goja.Runtime, v goja.Value) (out []byte, refs []uint64, err error) {
	return serialize(rt, v, true)
}

func serialize(rt *goja.Runtime, v goja.Value, rpc bool) (out []byte, refs []uint64, err error) {
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, nil, err
	}
	w := &writer{rt: rt, ci: ci, buf: make([]byte, 0, 64), ids: map[*goja.Object]uint32{}, rpc: rpc}
	w.buf = append(w.buf, v8Version, v8WriteVersion)
	defer func() {
		if r := recover(); r != nil {
			if a, ok := r.(abort); ok {
				out, refs, err = nil, w.refs, a.err
				return
			}
			panic(r)
		}
	}()
	if ex := rt.Try(func() { w.value(v) }); ex != nil {
		return nil, w.refs, ex
	}
	return w.buf, w.refs, nil
}

// isOneByte reports whether every UTF-16 unit of s is at most 0xFF, and
// returns its Latin-1 bytes when so.
func latin1(s string) ([]byte, bool) {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return nil, true
	}
	out := make([]byte, 0, len(s))
	for _, r := range s {
		if r > 0xFF {
			return nil, false
		}
		out = append(out, byte(r))
	}
	return out, true
}

// str writes a string value: one-byte when it can be, else two-byte,
// aligned as V8 aligns it (the units start at an even offset).
func (w *writer) str(v goja.Value) {
	s := v.String()
	gs, isStr := v.(goja.String)
	if !isStr || len(s) == gs.Length() { // ASCII
		w.buf = append(w.buf, v8OneByteString)
		w.varint(uint64(len(s)))
		w.buf = append(w.buf, s...)
		return
	}
	if !strings.ContainsRune(s, 0xFFFD) {
		if b, ok := latin1(s); ok {
			w.buf = append(w.buf, v8OneByteString)
			w.varint(uint64(len(b)))
			w.buf = append(w.buf, b...)
			return
		}
	}
	n := gs.Length()
	oneByte := true
	for i := 0; i < n; i++ {
		if gs.CharAt(i) > 0xFF {
			oneByte = false
			break
		}
	}
	if oneByte {
		w.buf = append(w.buf, v8OneByteString)
		w.varint(uint64(n))
		for i := 0; i < n; i++ {
			w.buf = append(w.buf, byte(gs.CharAt(i)))
		}
		return
	}
	byteLen := uint64(2 * n)
	if (len(w.buf)+1+varintLen(byteLen))&1 != 0 {
		w.buf = append(w.buf, v8Padding)
	}
	w.buf = append(w.buf, v8TwoByteString)
	w.varint(byteLen)
	for i := 0; i < n; i++ {
		w.buf = binary.LittleEndian.AppendUint16(w.buf, gs.CharAt(i))
	}
}

// key writes a property key as V8 does: an array index as a number, any
// other key as a string.
func (w *writer) key(k string) {
	if n, ok := arrayIndex(k); ok {
		w.number(float64(n))
		return
	}
	w.str(w.rt.ToValue(k))
}

// keyString writes a string key, without making a JS value of it when it
// is ASCII.
func (w *writer) keyString(k string) {
	for i := 0; i < len(k); i++ {
		if k[i] >= 0x80 {
			w.str(w.rt.ToValue(k))
			return
		}
	}
	w.buf = append(w.buf, v8OneByteString)
	w.varint(uint64(len(k)))
	w.buf = append(w.buf, k...)
}

func varintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// bigintContents writes V8's bigint payload: a bitfield (sign bit, then
// the byte length of the digits) and the 64-bit digits, little endian.
func (w *writer) bigintContents(b *big.Int) {
	mag := new(big.Int).Abs(b)
	words := (mag.BitLen() + 63) / 64
	bitfield := uint64(words*8) << 1
	if b.Sign() < 0 {
		bitfield |= 1
	}
	w.varint(bitfield)
	var digit big.Int
	mask := new(big.Int).SetUint64(math.MaxUint64)
	for i := 0; i < words; i++ {
		digit.Rsh(mag, uint(64*i)).And(&digit, mask)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, digit.Uint64())
	}
}

func isSmi(f float64) bool {
	return f == math.Trunc(f) && f >= smiMin && f <= smiMax && !(f == 0 && math.Signbit(f))
}

func (w *writer) number(f float64) {
	if isSmi(f) {
		i := int32(f)
		w.buf = append(w.buf, v8Int32)
		w.varint(uint64(uint32((i << 1) ^ (i >> 31))))
		return
	}
	w.buf = append(w.buf, v8Double)
	w.double(f)
}

var (
	typeBigInt      = reflect.TypeOf((*big.Int)(nil))
	typeArrayBuffer = reflect.TypeOf(goja.ArrayBuffer{})
)

func (w *writer) value(v goja.Value) {
	switch {
	case v == nil || goja.IsUndefined(v):
		w.buf = append(w.buf, v8Undefined)
		return
	case goja.IsNull(v):
		w.buf = append(w.buf, v8Null)
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
		w.buf = append(w.buf, v8BigInt)
		w.bigintContents(b)
		return
	}
	if _, ok := v.(*goja.Symbol); ok {
		w.uncloneable(v)
	}
	o, ok := v.(*goja.Object)
	if !ok {
		// booleans are the only primitives left
		if v.ToBoolean() {
			w.buf = append(w.buf, v8True)
		} else {
			w.buf = append(w.buf, v8False)
		}
		return
	}
	if id, seen := w.ids[o]; seen {
		w.buf = append(w.buf, v8ObjectRef)
		w.varint(uint64(id))
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

	// A view writes its buffer first, which takes the id before the view's.
	et := o.ExportType()
	kind, kindAsked := "", false
	if view := w.viewInfo(o, et, &kind); view != nil {
		w.value(view.buffer)
		w.assign(o)
		w.buf = append(w.buf, v8ArrayBufferView, view.tag)
		// flags: V8's JsArrayBufferViewIsLengthTracking (1) and
		// JsArrayBufferViewIsBackedByRab (2); a length-tracking view's
		// length is written as 0 (workerd's bytes).
		var flags uint64
		if b, ok := view.buffer.(*goja.Object); ok {
			if ab, ok := b.Export().(goja.ArrayBuffer); ok {
				if _, rab := ab.MaxByteLength(); rab {
					flags |= 2
					if goja.TracksLength(o) {
						flags |= 1
					}
				}
			}
		}
		w.varint(uint64(view.offset))
		if flags&1 != 0 {
			w.varint(0)
		} else {
			w.varint(uint64(view.length))
		}
		w.varint(flags)
		return
	}
	w.assign(o)
	switch o.ClassName() {
	case "Array":
		w.array(o)
		return
	case "Date":
		w.buf = append(w.buf, v8Date)
		w.double(w.call(w.ci.time, o).ToFloat())
		return
	case "RegExp":
		r := w.call(w.ci.regexp, o).ToObject(w.rt)
		w.buf = append(w.buf, v8RegExp)
		w.str(r.Get("0"))
		var flags uint32
		for _, c := range []byte(r.Get("1").String()) {
			for _, f := range v8RegExpFlags {
				if f.c == c {
					flags |= f.bit
				}
			}
		}
		w.varint(uint64(flags))
		return
	case "Error":
		if d := w.call(w.ci.domExc, o); !goja.IsUndefined(d) {
			w.domException(d.ToObject(w.rt))
			return
		}
		if w.ci.errorsAsHost {
			w.hostError(o)
		} else {
			w.error(o)
		}
		return
	case "String":
		w.buf = append(w.buf, v8StringObject)
		w.str(w.call(w.ci.prim, o, w.rt.ToValue(0)))
		return
	case "Number":
		w.buf = append(w.buf, v8NumberObject)
		w.double(w.call(w.ci.prim, o, w.rt.ToValue(1)).ToFloat())
		return
	case "Boolean":
		if w.call(w.ci.prim, o, w.rt.ToValue(2)).ToBoolean() {
			w.buf = append(w.buf, v8TrueObject)
		} else {
			w.buf = append(w.buf, v8FalseObject)
		}
		return
	}
	kindAsked = kind != ""
	switch {
	case et == typeArrayBuffer:
		ab := o.Export().(goja.ArrayBuffer)
		if ab.Detached() {
			w.fail("DataCloneError", "An ArrayBuffer is detached and could not be cloned.")
		}
		b := ab.Bytes()
		if max, ok := ab.MaxByteLength(); ok {
			w.buf = append(w.buf, v8ResizableBuffer)
			w.varint(uint64(len(b)))
			w.varint(uint64(max))
		} else {
			w.buf = append(w.buf, v8ArrayBuffer)
			w.varint(uint64(len(b)))
		}
		w.buf = append(w.buf, b...)
		return
	case et == typeBigInt:
		w.buf = append(w.buf, v8BigIntObject)
		b, _ := w.call(w.ci.prim, o, w.rt.ToValue(3)).Export().(*big.Int)
		if b == nil {
			b = new(big.Int)
		}
		w.bigintContents(b)
		return
	case et == reflect.TypeOf(goja.Proxy{}), et == reflect.TypeOf((*goja.Promise)(nil)):
		w.uncloneable(o)
	case et == reflect.TypeOf([][2]interface{}{}):
		if m := w.call(w.ci.mapEntries, o); m != nil {
			w.mapOrSet(v8BeginMap, v8EndMap, m.ToObject(w.rt))
			return
		}
	case et == reflect.TypeOf([]interface{}{}):
		// a Set (arrays were handled above)
		w.mapOrSet(v8BeginSet, v8EndSet, w.call(w.ci.setValues, o).ToObject(w.rt))
		return
	}
	if o.Prototype() != nil && o.Prototype() != w.ci.objectProto {
		if !kindAsked {
			kind = w.call(w.ci.protoKind, o).String()
		}
		switch {
		case strings.HasPrefix(kind, "host:"):
			if c, ok := w.ci.hosts[kind[5:]]; ok {
				w.buf = append(w.buf, v8HostObject)
				w.varint(uint64(c.Tag))
				if err := c.Write(&HostWriter{w}, o); err != nil {
					panic(abort{err})
				}
				return
			}
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

func (w *writer) assign(o *goja.Object) {
	w.ids[o] = w.next
	w.next++
}

type viewInfo struct {
	tag            byte
	buffer         goja.Value
	offset, length int64
}

var typeMapOfAny = reflect.TypeOf(map[string]interface{}{})

// viewInfo describes o when it is a typed array or a DataView. kind is the
// protoKind of o once asked (a DataView is told by its prototype), so that
// value does not ask again.
func (w *writer) viewInfo(o *goja.Object, et reflect.Type, kind *string) *viewInfo {
	if et != nil && et.Kind() == reflect.Slice && et != reflect.TypeOf([]interface{}{}) && et != reflect.TypeOf([][2]interface{}{}) {
		if ta := w.call(w.ci.typedArray, o); !goja.IsUndefined(ta) {
			info := ta.ToObject(w.rt)
			name := info.Get("0").String()
			tag, ok := v8ViewTags[name]
			size, known := typedArrayElemSize[name]
			if !ok || !known {
				w.fail("DataCloneError", "#<"+name+"> could not be cloned.")
			}
			return &viewInfo{tag: tag, buffer: info.Get("1"), offset: info.Get("2").ToInteger(), length: info.Get("3").ToInteger() * size}
		}
	}
	// a DataView exports as a plain object does
	if et != typeMapOfAny || o.Prototype() == nil || o.Prototype() == w.ci.objectProto || o.ClassName() != "Object" {
		return nil
	}
	*kind = w.call(w.ci.protoKind, o).String()
	if *kind != "DataView" {
		return nil
	}
	dv := w.call(w.ci.dataView, o)
	if goja.IsUndefined(dv) {
		return nil
	}
	d := dv.ToObject(w.rt)
	return &viewInfo{tag: '?', buffer: d.Get("0"), offset: d.Get("1").ToInteger(), length: d.Get("2").ToInteger()}
}

// ownKeys are o's own enumerable string keys in V8's order: array
// indices ascending, then the others in creation order.
func ownKeys(o *goja.Object) (indices []uint32, names []string) {
	keys := o.Keys()
	first := -1
	for i, k := range keys {
		if _, ok := arrayIndex(k); ok {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, keys
	}
	names = keys[:first:first]
	for _, k := range keys[first:] {
		if n, ok := arrayIndex(k); ok {
			indices = append(indices, n)
		} else {
			names = append(names, k)
		}
	}
	if !sort.SliceIsSorted(indices, func(i, j int) bool { return indices[i] < indices[j] }) {
		sort.Slice(indices, func(i, j int) bool { return indices[i] < indices[j] })
	}
	return indices, names
}

func (w *writer) object(o *goja.Object) {
	indices, names := ownKeys(o)
	w.buf = append(w.buf, v8BeginObject)
	n := w.properties(o, indices, names)
	w.buf = append(w.buf, v8EndObject)
	w.varint(uint64(n))
}

// properties writes key/value pairs; a key a getter deleted meanwhile is
// skipped, as V8 skips it.
func (w *writer) properties(o *goja.Object, indices []uint32, names []string) int {
	n := 0
	for _, i := range indices {
		k := strconv.FormatUint(uint64(i), 10)
		v := o.Get(k)
		if v == nil {
			continue
		}
		w.number(float64(i))
		w.value(v)
		n++
	}
	for _, k := range names {
		v := o.Get(k)
		if v == nil {
			continue
		}
		w.keyString(k)
		w.value(v)
		n++
	}
	return n
}

func (w *writer) array(o *goja.Object) {
	length := uint64(o.Get("length").ToInteger())
	indices, names := ownKeys(o)
	if uint64(len(indices)) != length {
		w.buf = append(w.buf, v8BeginSparse)
		w.varint(length)
		n := w.properties(o, indices, names)
		w.buf = append(w.buf, v8EndSparse)
		w.varint(uint64(n))
		w.varint(length)
		return
	}
	w.buf = append(w.buf, v8BeginDense)
	w.varint(length)
	elems := make([]goja.Value, length)
	doubles := length > 0
	heapNumber := false
	for i := range elems {
		elems[i] = o.Get(strconv.Itoa(i))
		if doubles {
			if elems[i] == nil || !goja.IsNumber(elems[i]) {
				doubles = false
			} else if !isSmi(elems[i].ToFloat()) {
				heapNumber = true
			}
		}
	}
	for _, e := range elems {
		switch {
		case e == nil:
			w.buf = append(w.buf, v8TheHole)
		case doubles && heapNumber: // V8's double elements
			w.buf = append(w.buf, v8Double)
			w.double(e.ToFloat())
		default:
			w.value(e)
		}
	}
	n := w.properties(o, nil, names)
	w.buf = append(w.buf, v8EndDense)
	w.varint(uint64(n))
	w.varint(length)
}

func (w *writer) mapOrSet(begin, end byte, flat *goja.Object) {
	n := int(flat.Get("length").ToInteger())
	w.buf = append(w.buf, begin)
	for i := 0; i < n; i++ {
		w.value(flat.Get(strconv.Itoa(i)))
	}
	w.buf = append(w.buf, end)
	w.varint(uint64(n))
}

// error writes V8's error form: the prototype (by name), the message (an
// own data property), the stack (when a string), the cause (an own data
// property).
func (w *writer) error(o *goja.Object) {
	info := w.call(w.ci.errorInfo, o).ToObject(w.rt)
	w.buf = append(w.buf, v8Error)
	if tag, ok := v8ErrorProto[info.Get("0").String()]; ok {
		w.buf = append(w.buf, tag)
	}
	if msg := info.Get("1"); !goja.IsUndefined(msg) {
		w.buf = append(w.buf, v8ErrMessage)
		w.str(msg)
	}
	if stack := info.Get("2"); !goja.IsUndefined(stack) {
		w.buf = append(w.buf, v8ErrStack)
		w.str(stack)
	}
	if info.Get("3").ToBoolean() {
		w.buf = append(w.buf, v8ErrCause)
		w.value(info.Get("4"))
	}
	w.buf = append(w.buf, v8ErrEnd)
}

// hostError writes workerd's host-object form of an error
// (enhanced_error_serialization): the native-error tag, the error tag
// (with the name when it is not a built-in one), the message, then a plain
// object of the error's own properties.
func (w *writer) hostError(o *goja.Object) {
	info := w.call(w.ci.errorHost, o).ToObject(w.rt)
	w.buf = append(w.buf, v8HostObject)
	w.varint(hostTagNativeError)
	name := info.Get("0")
	tag := 0
	for i, n := range hostErrorNames {
		if i > 0 && n == name.String() {
			tag = i
		}
	}
	w.varint(uint64(tag))
	if tag == 0 {
		w.value(name)
	}
	w.value(info.Get("1"))
	keys := info.Get("2").ToObject(w.rt)
	n := int(keys.Get("length").ToInteger())
	w.next++ // the plain object workerd builds takes an id
	w.buf = append(w.buf, v8BeginObject)
	for i := 0; i < n; i++ {
		k := keys.Get(strconv.Itoa(i)).String()
		w.key(k)
		w.value(o.Get(k))
	}
	w.buf = append(w.buf, v8EndObject)
	w.varint(uint64(n))
}

// domException writes workerd's host object of a DOMException: its tag
// and the name, message and stack, each as a length and UTF-8 bytes.
func (w *writer) domException(d *goja.Object) {
	w.buf = append(w.buf, v8HostObject)
	w.varint(hostTagDOMException)
	for i := 0; i < 3; i++ {
		s := d.Get(strconv.Itoa(i)).String()
		w.varint(uint64(len(s)))
		w.buf = append(w.buf, s...)
	}
}

// arrayIndex reports whether k is an array index (a canonical decimal
// below 2^32-1).
func arrayIndex(k string) (uint32, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n >= 1<<32-1 {
		return 0, false
	}
	return uint32(n), true
}
