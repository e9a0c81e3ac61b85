package clone

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// reader decodes V8's format (versions 13 to 15; older data only as far as
// workerd wrote it) into values of rt.
type reader struct {
	decoder
	version uint64
	rpc     bool // DeserializeRPC
}

// decoder is what V8's format reader and the legacy format's share: the
// input, its position, the objects read so far, and the ways to fail.
type decoder struct {
	rt    *goja.Runtime
	ci    *intrinsics
	b     []byte
	p     int
	objs  []goja.Value // by id; nil = reserved, not yet built
	depth int
}

func (r *decoder) fail(format string, args ...interface{}) {
	panic(abort{corrupt(format, args...)})
}

// Deserialize decodes bytes made by Serialize, by workerd (V8's format,
// with or without the header workerd's first storage values lacked) or by
// earlier versions of cellhost into a new JS value on rt. Corrupt or
// truncated input gives a *jserr.Error (DataCloneError) whose cause is
// ErrCorrupt, never a panic. Call it on the runtime's goroutine only.
func Deserialize(rt *goja.Runtime, b []byte) (v goja.Value, err error) {
	return deserialize(rt, b, false)
}

// DeserializeRPC is Deserialize for an RPC message (SerializeRPC's bytes):
// host codecs may read what only RPC carries.
func DeserializeRPC(rt *goja.Runtime, b []byte) (v goja.Value, err error) {
	return deserialize(rt, b, true)
}

func deserialize(rt *goja.Runtime, b []byte, rpc bool) (v goja.Value, err error) {
	if len(b) == 0 {
		return nil, corrupt("empty input")
	}
	if b[0] == legacyVersion {
		return deserializeLegacy(rt, b)
	}
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, err
	}
	r := &reader{decoder: decoder{rt: rt, ci: ci, b: b}, version: 13, rpc: rpc}
	if b[0] == v8Version {
		x, n := binary.Uvarint(b[1:])
		if n <= 0 || x > v8WriteVersion || x < 13 {
			return nil, &jserr.Error{Name: "DataCloneError", Message: "Unable to deserialize cloned data due to invalid or unsupported version.",
				Err: fmt.Errorf("%w: version %d", ErrCorrupt, x)}
		}
		r.version, r.p = x, 1+n
	}
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
	for r.p < len(r.b) && r.b[r.p] == v8Padding {
		r.p++
	}
	if r.p != len(r.b) {
		return nil, corrupt("%d trailing bytes", len(r.b)-r.p)
	}
	return v, nil
}

// tag reads the next tag, skipping padding.
func (r *reader) tag() byte {
	for {
		if r.p >= len(r.b) {
			r.fail("truncated at %d", r.p)
		}
		c := r.b[r.p]
		r.p++
		if c != v8Padding {
			return c
		}
	}
}

// peek returns the next tag without consuming it (0 at the end).
func (r *reader) peek() byte {
	for p := r.p; p < len(r.b); p++ {
		if r.b[p] != v8Padding {
			return r.b[p]
		}
	}
	return 0
}

func (r *decoder) varint() uint64 {
	x, n := binary.Uvarint(r.b[r.p:])
	if n <= 0 {
		r.fail("bad varint at %d", r.p)
	}
	r.p += n
	return x
}

func (r *reader) uint32() uint32 {
	x := r.varint()
	if x > math.MaxUint32 {
		r.fail("varint out of range at %d", r.p)
	}
	return uint32(x)
}

func (r *reader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)-r.p) {
		r.fail("truncated at %d", r.p)
	}
	b := r.b[r.p : r.p+int(n)]
	r.p += int(n)
	return b
}

func (r *reader) double() float64 {
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8)))
	if math.IsNaN(f) {
		f = math.NaN()
	}
	return f
}

func (r *decoder) call(f goja.Callable, args ...goja.Value) goja.Value {
	v, err := f(goja.Undefined(), args...)
	if err != nil {
		panic(abort{corrupt("%v", err)})
	}
	return v
}

func (r *decoder) construct(name string, args ...goja.Value) *goja.Object {
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

// reserve allocates the next object id.
func (r *decoder) reserve() int {
	r.objs = append(r.objs, nil)
	return len(r.objs) - 1
}

func (r *reader) oneByte(n uint64) goja.Value { return r.oneByteOf(r.bytes(n)) }

// oneByteOf is the string of Latin-1 bytes b.
func (r *reader) oneByteOf(b []byte) goja.Value {
	for _, c := range b {
		if c >= 0x80 {
			units := make([]uint16, len(b))
			for i, c := range b {
				units[i] = uint16(c)
			}
			return goja.StringFromUTF16(units)
		}
	}
	return r.rt.ToValue(string(b))
}

func (r *reader) twoByte(n uint64) goja.Value {
	if n%2 != 0 {
		r.fail("odd two-byte string length at %d", r.p)
	}
	raw := r.bytes(n)
	units := make([]uint16, n/2)
	ascii := true
	for i := range units {
		units[i] = binary.LittleEndian.Uint16(raw[2*i:])
		if units[i] >= 0x80 {
			ascii = false
		}
	}
	if ascii {
		return r.rt.ToValue(string(utf16.Decode(units)))
	}
	return goja.StringFromUTF16(units)
}

func (r *reader) utf8(n uint64) goja.Value {
	b := r.bytes(n)
	if !utf8.Valid(b) {
		r.fail("invalid UTF-8 at %d", r.p)
	}
	return r.rt.ToValue(string(b))
}

// stringValue reads a value that must be a string (a RegExp's source, a
// String object's value, an error's message or stack).
func (r *reader) stringValue() goja.Value {
	if r.version < 12 {
		return r.utf8(r.varint())
	}
	switch tag := r.tag(); tag {
	case v8OneByteString:
		return r.oneByte(r.varint())
	case v8TwoByteString:
		return r.twoByte(r.varint())
	case v8Utf8String:
		return r.utf8(r.varint())
	default:
		r.fail("expected a string at %d", r.p-1)
		return nil
	}
}

func (r *reader) bigint() *big.Int {
	bitfield := r.varint()
	n := bitfield >> 1
	if n%8 != 0 || n > 1<<24 {
		r.fail("bad bigint length %d", n)
	}
	digits := r.bytes(n)
	b := new(big.Int)
	var d big.Int
	for i := int(n/8) - 1; i >= 0; i-- {
		b.Lsh(b, 64)
		b.Or(b, d.SetUint64(binary.LittleEndian.Uint64(digits[8*i:])))
	}
	if bitfield&1 != 0 {
		b.Neg(b)
	}
	return b
}

func (r *reader) value() goja.Value {
	r.depth++
	if r.depth > maxDepth {
		r.fail("nesting deeper than %d", maxDepth)
	}
	defer func() { r.depth-- }()
	v := r.value1()
	if o, ok := v.(*goja.Object); ok && o.ExportType() == typeArrayBuffer && r.peek() == v8ArrayBufferView {
		r.tag()
		return r.view(o)
	}
	return v
}

func (r *reader) value1() goja.Value {
	tag := r.tag()
	switch tag {
	case v8VerifyCount:
		r.varint()
		return r.value1()
	case v8Undefined:
		return goja.Undefined()
	case v8Null:
		return goja.Null()
	case v8True:
		return r.rt.ToValue(true)
	case v8False:
		return r.rt.ToValue(false)
	case v8Int32:
		u := uint32(r.varint())
		return r.rt.ToValue(int64(int32(u>>1) ^ -int32(u&1)))
	case v8Uint32:
		return r.rt.ToValue(int64(r.uint32()))
	case v8Double:
		return r.rt.ToValue(r.double())
	case v8BigInt:
		return r.rt.ToValue(r.bigint())
	case v8Utf8String:
		return r.utf8(r.varint())
	case v8OneByteString:
		return r.oneByte(r.varint())
	case v8TwoByteString:
		return r.twoByte(r.varint())
	case v8ObjectRef:
		id := r.varint()
		if id >= uint64(len(r.objs)) || r.objs[id] == nil {
			r.fail("bad reference %d", id)
		}
		return r.objs[id]
	case v8BeginObject:
		id := r.reserve()
		o := r.construct("Object")
		r.objs[id] = o
		n := r.properties(o, v8EndObject)
		if r.varint() != uint64(n) {
			r.fail("object property count mismatch")
		}
		return o
	case v8BeginSparse:
		length := r.uint32()
		id := r.reserve()
		o := r.construct("Array")
		r.objs[id] = o
		if err := o.Set("length", length); err != nil {
			r.fail("array length: %v", err)
		}
		n := r.properties(o, v8EndSparse)
		if r.varint() != uint64(n) || r.varint() != uint64(length) {
			r.fail("sparse array count mismatch")
		}
		return o
	case v8BeginDense:
		length := r.uint32()
		if uint64(length) > uint64(len(r.b)-r.p) {
			r.fail("dense array length %d exceeds input", length)
		}
		id := r.reserve()
		o := r.construct("Array")
		r.objs[id] = o
		last := false // whether the last element was present
		for i := uint32(0); i < length; i++ {
			last = false
			if r.peek() == v8TheHole {
				r.tag()
				continue
			}
			v := r.value()
			if r.version < 11 && goja.IsUndefined(v) {
				continue
			}
			r.define(o, strconv.FormatUint(uint64(i), 10), v)
			last = true
		}
		if !last && length > 0 { // trailing holes
			if err := o.Set("length", length); err != nil {
				r.fail("array length: %v", err)
			}
		}
		n := r.properties(o, v8EndDense)
		if r.varint() != uint64(n) || r.varint() != uint64(length) {
			r.fail("dense array count mismatch")
		}
		return o
	case v8Date:
		t := r.double()
		id := r.reserve()
		o := r.construct("Date", r.rt.ToValue(t))
		r.objs[id] = o
		return o
	case v8TrueObject, v8FalseObject:
		id := r.reserve()
		o := r.construct("Boolean", r.rt.ToValue(tag == v8TrueObject))
		r.objs[id] = o
		return o
	case v8NumberObject:
		id := r.reserve()
		o := r.construct("Number", r.rt.ToValue(r.double()))
		r.objs[id] = o
		return o
	case v8BigIntObject:
		id := r.reserve()
		o := r.rt.ToValue(r.bigint()).ToObject(r.rt)
		r.objs[id] = o
		return o
	case v8StringObject:
		id := r.reserve()
		o := r.construct("String", r.stringValue())
		r.objs[id] = o
		return o
	case v8RegExp:
		id := r.reserve()
		src := r.stringValue()
		bits := r.uint32()
		var flags []byte
		for _, f := range v8RegExpFlags {
			if bits&f.bit != 0 {
				flags = append(flags, f.c)
				bits &^= f.bit
			}
		}
		if bits != 0 {
			r.fail("bad regexp flags")
		}
		o := r.construct("RegExp", src, r.rt.ToValue(string(flags)))
		r.objs[id] = o
		return o
	case v8BeginMap:
		id := r.reserve()
		o := r.construct("Map")
		r.objs[id] = o
		n := 0
		for r.peek() != v8EndMap {
			k := r.value()
			v := r.value()
			r.call(r.ci.mapSet, o, k, v)
			n += 2
		}
		r.tag()
		if r.varint() != uint64(n) {
			r.fail("map length mismatch")
		}
		return o
	case v8BeginSet:
		id := r.reserve()
		o := r.construct("Set")
		r.objs[id] = o
		n := 0
		for r.peek() != v8EndSet {
			r.call(r.ci.setAdd, o, r.value())
			n++
		}
		r.tag()
		if r.varint() != uint64(n) {
			r.fail("set length mismatch")
		}
		return o
	case v8ArrayBuffer:
		id := r.reserve()
		b := r.bytes(uint64(r.uint32()))
		v := r.rt.ToValue(r.rt.NewArrayBuffer(append([]byte{}, b...)))
		r.objs[id] = v
		return v
	case v8ResizableBuffer:
		id := r.reserve()
		n, max := r.uint32(), r.uint32()
		if n > max {
			r.fail("resizable buffer longer than its maximum")
		}
		v := r.rt.ToValue(r.rt.NewResizableArrayBuffer(append([]byte{}, r.bytes(uint64(n))...), int(max)))
		r.objs[id] = v
		return v
	case v8Error:
		return r.error()
	case v8HostObject:
		return r.hostObject()
	}
	r.fail("unknown tag 0x%02x at %d", tag, r.p-1)
	return nil
}

// view reads an ArrayBufferView over buf (its tag is consumed).
func (r *reader) view(buf *goja.Object) goja.Value {
	sub := r.varint()
	off, n := r.uint32(), r.uint32()
	tracking := false
	if r.version >= 14 {
		// V8's JsArrayBufferViewIsLengthTracking (1) and IsBackedByRab (2):
		// either needs a resizable buffer, tracking needs both.
		flags := r.varint()
		_, rab := buf.Export().(goja.ArrayBuffer).MaxByteLength()
		if flags > 3 || (flags != 0 && !rab) || flags == 1 {
			r.fail("view flags %d over this buffer", flags)
		}
		tracking = flags&1 != 0
	}
	size := uint64(len(buf.Export().(goja.ArrayBuffer).Bytes()))
	if uint64(off) > size || uint64(n) > size-uint64(off) {
		r.fail("view out of bounds")
	}
	id := r.reserve()
	name := ""
	for k, t := range v8ViewTags {
		if uint64(t) == sub {
			name = k
		}
	}
	if name == "" {
		r.fail("bad view tag %d", sub)
	}
	var o *goja.Object
	if name == "DataView" {
		if tracking {
			o = r.construct("DataView", buf, r.rt.ToValue(off))
		} else {
			o = r.construct("DataView", buf, r.rt.ToValue(off), r.rt.ToValue(n))
		}
	} else {
		size := uint32(typedArrayElemSize[name])
		if off%size != 0 || n%size != 0 {
			r.fail("misaligned %s", name)
		}
		if c, ok := r.ci.ctors[name]; !ok || c == nil {
			r.fail("no %s here", name)
		}
		if tracking {
			o = r.construct(name, buf, r.rt.ToValue(off))
		} else {
			o = r.construct(name, buf, r.rt.ToValue(off), r.rt.ToValue(n/size))
		}
	}
	r.objs[id] = o
	return o
}

// properties reads key/value pairs into o until end (consumed) and returns
// how many it read.
func (r *reader) properties(o *goja.Object, end byte) int {
	n := 0
	for r.peek() != end {
		if r.p >= len(r.b) {
			r.fail("truncated at %d", r.p)
		}
		r.define(o, r.key(), r.value())
		n++
	}
	r.tag()
	return n
}

func (r *reader) define(o *goja.Object, k string, v goja.Value) {
	if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
		r.fail("define %q: %v", k, err)
	}
}

func (r *reader) defineHidden(o *goja.Object, k string, v goja.Value) {
	if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		r.fail("define %q: %v", k, err)
	}
}

var v8ErrorCtors = map[byte]string{
	v8ErrEval: "EvalError", v8ErrRange: "RangeError", v8ErrReference: "ReferenceError",
	v8ErrSyntax: "SyntaxError", v8ErrType: "TypeError", v8ErrURI: "URIError",
}

// error reads V8's error form ('r').
func (r *reader) error() goja.Value {
	id := r.reserve()
	ctor := "Error"
	var msg, stack, cause goja.Value
	hasCause := false
	for done := false; !done; {
		switch t := r.varint(); t {
		case v8ErrEval, v8ErrRange, v8ErrReference, v8ErrSyntax, v8ErrType, v8ErrURI:
			ctor = v8ErrorCtors[byte(t)]
		case v8ErrMessage:
			msg = r.stringValue()
		case v8ErrStack:
			stack = r.stringValue()
		case v8ErrCause:
			cause, hasCause = r.value(), true
		case v8ErrEnd:
			done = true
		default:
			r.fail("bad error tag %d", t)
		}
	}
	var o *goja.Object
	if msg != nil {
		o = r.construct(ctor, msg)
	} else {
		o = r.construct(ctor)
	}
	if hasCause {
		r.defineHidden(o, "cause", cause)
	}
	if stack == nil {
		stack = goja.Undefined()
	}
	r.defineHidden(o, "stack", stack)
	r.objs[id] = o
	return o
}

// hostObject reads a workerd host object; only errors
// (enhanced_error_serialization) can be stored, so only they are read.
func (r *reader) hostObject() goja.Value {
	id := r.reserve()
	switch tag := r.varint(); tag {
	case hostTagNativeError:
	case hostTagDOMException, hostTagDOMExceptionV1:
		o := r.domException(tag)
		r.objs[id] = o
		return o
	default:
		c, ok := r.ci.hostTags[uint32(tag)]
		if !ok || tag > 0xFFFFFFFF {
			r.fail("unsupported host object tag %d", tag)
		}
		v, err := c.Read(&HostReader{r})
		if err != nil {
			panic(abort{corrupt("host object %d: %v", tag, err)})
		}
		r.objs[id] = v
		return v
	}
	et := r.varint()
	if et >= uint64(len(hostErrorNames)) {
		r.fail("bad error tag %d", et)
	}
	var name goja.Value
	ctor := hostErrorNames[et]
	if et == 0 {
		name = r.value()
		ctor = "Error"
	}
	if _, ok := r.ci.ctors[ctor]; !ok {
		ctor = "Error"
	}
	msg := r.value()
	if !goja.IsString(msg) {
		r.fail("error message is not a string")
	}
	o := r.construct(ctor, msg)
	r.objs[id] = o
	props := r.value()
	po, ok := props.(*goja.Object)
	if ok && po.Get("stack") != nil {
		r.define(o, "stack", po.Get("stack"))
	} else {
		r.defineHidden(o, "stack", goja.Undefined())
	}
	if name != nil {
		r.define(o, "name", name)
	}
	if ok {
		for _, k := range po.Keys() {
			if k != "stack" {
				r.define(o, k, po.Get(k))
			}
		}
	}
	return o
}

// lengthDelimited reads a host object's string: a length and UTF-8 bytes.
func (r *reader) lengthDelimited() goja.Value {
	return r.utf8(r.varint())
}

// domException reads a DOMException's host object (its tag read).
func (r *reader) domException(tag uint64) *goja.Object {
	var name, msg, stack goja.Value
	if tag == hostTagDOMException {
		name, msg, stack = r.lengthDelimited(), r.lengthDelimited(), r.lengthDelimited()
	} else {
		msg, name = r.lengthDelimited(), r.lengthDelimited()
		stack = goja.Undefined()
		if e, ok := r.value().(*goja.Object); ok {
			if s := e.Get("stack"); s != nil {
				stack = s
			}
		}
	}
	if c, ok := r.ci.ctors["DOMException"]; !ok || c == nil {
		r.fail("no DOMException here")
	}
	o := r.construct("DOMException", msg, name)
	r.define(o, "stack", stack)
	return o
}

// key reads a property key: a string, or an array index as a number. An
// ASCII string key becomes a Go string without a JS value in between.
func (r *reader) key() string {
	if r.peek() == v8OneByteString {
		r.tag()
		b := r.bytes(r.varint())
		for _, c := range b {
			if c >= 0x80 {
				return r.oneByteOf(b).String()
			}
		}
		return string(b)
	}
	k := r.value()
	if !goja.IsString(k) && !goja.IsNumber(k) {
		r.fail("bad property key at %d", r.p)
	}
	return k.String()
}
