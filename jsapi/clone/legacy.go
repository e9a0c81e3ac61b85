package clone

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// cellhost's first structured clone format, before values were written in
// V8's (v8write.go). Storage written by earlier versions of cellhost holds
// it: the first byte is 0x01, never the first byte of V8 data (0xFF, or a
// tag for workerd's old headerless values). It is read, never written.
//
//	blob    = version(1 byte, = 1) value
//	value   = tag(1 byte) payload
//
// All integers are unsigned LEB128 varints unless said so; objects get ids
// in order of first appearance and a later appearance is tagRef id.

const legacyVersion = 1

const (
	ltagUndefined   = 0x00
	ltagNull        = 0x01
	ltagTrue        = 0x02
	ltagFalse       = 0x03
	ltagInt         = 0x04 // zigzag varint
	ltagDouble      = 0x05 // 8 bytes little endian
	ltagStr8        = 0x06 // len, UTF-8 bytes
	ltagStr16       = 0x07 // units, 2*units bytes little endian (strings with lone surrogates)
	ltagBigInt      = 0x08 // sign byte (0 or 1), len, big-endian magnitude
	ltagRef         = 0x10 // id
	ltagObject      = 0x11 // count, count × (key string value, value)
	ltagDenseArray  = 0x12 // length, length × value, count, count × (key, value)
	ltagSparseArray = 0x13 // length, count, count × (key, value)
	ltagDate        = 0x14 // 8 bytes double
	ltagRegExp      = 0x15 // source string value, flags string value
	ltagMap         = 0x16 // count, count × (key, value)
	ltagSet         = 0x17 // count, count × value
	ltagArrayBuffer = 0x18 // len, bytes
	ltagTypedArray  = 0x19 // kind byte, buffer value (ArrayBuffer or ref), byteOffset, length
	ltagDataView    = 0x1a // buffer value, byteOffset, byteLength
	ltagError       = 0x1b // kind byte, flags byte, [message string value], [stack string value], [cause value]
	ltagBoxedString = 0x1c // string value
	ltagBoxedNumber = 0x1d // 8 bytes double
	ltagBoxedBool   = 0x1e // 1 byte
	ltagBoxedBigInt = 0x1f // bigint payload (as ltagBigInt)
)

// ---------------------------------------------------------------------------
// Deserialize

type legacyReader struct {
	decoder
}

func (r *legacyReader) byte1() byte {
	if r.p >= len(r.b) {
		r.fail("truncated at %d", r.p)
	}
	c := r.b[r.p]
	r.p++
	return c
}

// count reads a count of items that each take at least per bytes.
func (r *legacyReader) count(per int) int {
	n := r.varint()
	if n > uint64(len(r.b)-r.p)/uint64(per) {
		r.fail("count %d exceeds input at %d", n, r.p)
	}
	return int(n)
}

func (r *legacyReader) bytes(n int) []byte {
	if n < 0 || n > len(r.b)-r.p {
		r.fail("truncated at %d", r.p)
	}
	b := r.b[r.p : r.p+n]
	r.p += n
	return b
}

func (r *legacyReader) double() float64 {
	return math.Float64frombits(binary.LittleEndian.Uint64(r.bytes(8)))
}

// deserializeLegacy decodes bytes of cellhost's first format into a new JS value on rt.
// Corrupt or truncated input gives a *jserr.Error (DataCloneError) whose
// cause is ErrCorrupt,
// never a panic. Call it on the runtime's goroutine only.
func deserializeLegacy(rt *goja.Runtime, b []byte) (v goja.Value, err error) {
	if len(b) == 0 {
		return nil, corrupt("empty input")
	}
	if b[0] != legacyVersion {
		return nil, &jserr.Error{Name: "DataCloneError", Message: "Unable to deserialize cloned data due to invalid or unsupported version.",
			Err: fmt.Errorf("%w: version %d", ErrCorrupt, b[0])}
	}
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, err
	}
	r := &legacyReader{decoder{rt: rt, ci: ci, b: b, p: 1}}
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

func (r *legacyReader) strValue() goja.Value {
	switch tag := r.byte1(); tag {
	case ltagStr8, ltagStr16:
		return r.str(tag)
	default:
		r.fail("expected a string at %d", r.p-1)
		return nil
	}
}

func (r *legacyReader) str(tag byte) goja.Value {
	if tag == ltagStr8 {
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

func (r *legacyReader) bigint() *big.Int {
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

func (r *legacyReader) value() goja.Value {
	tag := r.byte1()
	switch tag {
	case ltagUndefined:
		return goja.Undefined()
	case ltagNull:
		return goja.Null()
	case ltagTrue:
		return r.rt.ToValue(true)
	case ltagFalse:
		return r.rt.ToValue(false)
	case ltagInt:
		u := r.varint()
		i := int64(u>>1) ^ -int64(u&1)
		if i > 1<<53 || i < -(1<<53) {
			r.fail("integer out of range")
		}
		return r.rt.ToValue(i)
	case ltagDouble:
		return r.rt.ToValue(r.double())
	case ltagStr8, ltagStr16:
		return r.str(tag)
	case ltagBigInt:
		return r.rt.ToValue(r.bigint())
	case ltagRef:
		id := r.varint()
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
	case ltagObject:
		o := r.construct("Object")
		r.objs[id] = o
		n := r.count(2)
		for i := 0; i < n; i++ {
			k := r.strValue().String()
			r.define(o, k, r.value())
		}
		return o
	case ltagDenseArray:
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
	case ltagSparseArray:
		o := r.construct("Array")
		r.objs[id] = o
		length := r.varint()
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
	case ltagDate:
		o := r.construct("Date", r.rt.ToValue(r.double()))
		r.objs[id] = o
		return o
	case ltagRegExp:
		src := r.strValue()
		flags := r.strValue()
		o := r.construct("RegExp", src, flags)
		r.objs[id] = o
		return o
	case ltagMap:
		o := r.construct("Map")
		r.objs[id] = o
		n := r.count(2)
		for i := 0; i < n; i++ {
			k := r.value()
			v := r.value()
			r.call(r.ci.mapSet, o, k, v)
		}
		return o
	case ltagSet:
		o := r.construct("Set")
		r.objs[id] = o
		n := r.count(1)
		for i := 0; i < n; i++ {
			r.call(r.ci.setAdd, o, r.value())
		}
		return o
	case ltagArrayBuffer:
		b := r.bytes(r.count(1))
		v := r.rt.ToValue(r.rt.NewArrayBuffer(append([]byte{}, b...)))
		r.objs[id] = v
		return v
	case ltagTypedArray:
		kind := int(r.byte1())
		if kind >= len(typedArrayKinds) {
			r.fail("bad typed array kind %d", kind)
		}
		buf := r.bufferValue()
		off, n := r.varint(), r.varint()
		if off > 1<<53 || n > 1<<53 {
			r.fail("bad typed array range")
		}
		o := r.construct(typedArrayKinds[kind], buf, r.rt.ToValue(off), r.rt.ToValue(n))
		r.objs[id] = o
		return o
	case ltagDataView:
		buf := r.bufferValue()
		off, n := r.varint(), r.varint()
		if off > 1<<53 || n > 1<<53 {
			r.fail("bad data view range")
		}
		o := r.construct("DataView", buf, r.rt.ToValue(off), r.rt.ToValue(n))
		r.objs[id] = o
		return o
	case ltagError:
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
	case ltagBoxedString:
		o := r.construct("String", r.strValue())
		r.objs[id] = o
		return o
	case ltagBoxedNumber:
		o := r.construct("Number", r.rt.ToValue(r.double()))
		r.objs[id] = o
		return o
	case ltagBoxedBool:
		c := r.byte1()
		if c > 1 {
			r.fail("bad boolean")
		}
		o := r.construct("Boolean", r.rt.ToValue(c == 1))
		r.objs[id] = o
		return o
	case ltagBoxedBigInt:
		o := r.rt.ToValue(r.bigint()).ToObject(r.rt)
		r.objs[id] = o
		return o
	}
	r.fail("unknown tag 0x%02x at %d", tag, r.p-1)
	return nil
}

// bufferValue reads the ArrayBuffer under a view: inline or a reference.
func (r *legacyReader) bufferValue() goja.Value {
	var v goja.Value
	if r.p >= len(r.b) {
		r.fail("truncated at %d", r.p)
	}
	switch r.b[r.p] {
	case ltagArrayBuffer, ltagRef:
		v = r.value()
	default:
		r.fail("expected an ArrayBuffer at %d", r.p)
	}
	if o, ok := v.(*goja.Object); !ok || o.ExportType() != typeArrayBuffer {
		r.fail("view over a non-ArrayBuffer")
	}
	return v
}

func (r *legacyReader) define(o *goja.Object, k string, v goja.Value) {
	if err := o.DefineDataProperty(k, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
		r.fail("define %q: %v", k, err)
	}
}

var typedArrayKinds = []string{
	"Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array",
	"Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array", "Float16Array",
}

var errorKinds = []string{"Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"}
