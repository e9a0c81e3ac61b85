package clone

import (
	"github.com/cellhost/cellhost/third_party/goja"
)

// Time returns the time value of a Date (ms since the epoch, possibly NaN),
// read with the built-in getter; ok is false when o is not a Date. Call it
// on the runtime's goroutine only.
func Time(rt *goja.Runtime, o *goja.Object) (ms float64, ok bool, err error) {
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return 0, false, err
	}
	t, err := ci.time(goja.Undefined(), o) // throws unless o is a Date
	if err != nil {
		return 0, false, nil
	}
	return t.ToFloat(), true, nil
}

// typedArrayElemSize is the element size of each typed array class.
var typedArrayElemSize = map[string]int64{
	"Int8Array": 1, "Uint8Array": 1, "Uint8ClampedArray": 1,
	"Int16Array": 2, "Uint16Array": 2, "Float16Array": 2,
	"Int32Array": 4, "Uint32Array": 4, "Float32Array": 4,
	"Float64Array": 8, "BigInt64Array": 8, "BigUint64Array": 8,
}

// Bytes returns a copy of the bytes of an ArrayBuffer or of the range an
// ArrayBuffer view (typed array, DataView) covers; ok is false for any
// other object. Call it on the runtime's goroutine only.
func Bytes(rt *goja.Runtime, o *goja.Object) ([]byte, bool) {
	if ab, ok := o.Export().(goja.ArrayBuffer); ok {
		return append([]byte{}, ab.Bytes()...), true
	}
	ci, err := intrinsicsOf(rt)
	if err != nil {
		return nil, false
	}
	var (
		buf    goja.Value
		off, n int64
	)
	if info, err := ci.typedArray(goja.Undefined(), o); err == nil && !goja.IsUndefined(info) {
		io := info.ToObject(rt)
		size, ok := typedArrayElemSize[io.Get("0").String()]
		if !ok {
			return nil, false
		}
		buf, off, n = io.Get("1"), io.Get("2").ToInteger(), io.Get("3").ToInteger()*size
	} else if info, err := ci.dataView(goja.Undefined(), o); err == nil && !goja.IsUndefined(info) {
		io := info.ToObject(rt)
		buf, off, n = io.Get("0"), io.Get("1").ToInteger(), io.Get("2").ToInteger()
	} else {
		return nil, false
	}
	ab, ok := buf.Export().(goja.ArrayBuffer)
	if !ok {
		return nil, false
	}
	all := ab.Bytes()
	if off < 0 || n < 0 || off+n > int64(len(all)) {
		return nil, false
	}
	return append([]byte{}, all[off:off+n]...), true
}
