package goja

import "weak"

// cellhost patch: resizable ArrayBuffer (ES2024): new ArrayBuffer(n,
// {maxByteLength}), resizable, maxByteLength, resize(); TypedArrays and
// DataViews on such a buffer track its length when constructed without
// one, and are out of bounds (length 0, operations throw a TypeError) when
// a resize leaves their window. Upstream has fixed-length buffers only.
//
// A view keeps its length and offset fields (what the rest of goja reads)
// current: the buffer tells its views (held weakly) when it resizes. The
// bytes never shrink under a view's feet: a shrink only reslices (the
// capacity stays, so code that read the length before a callback resized
// the buffer cannot reach past the allocation), and a grow zeroes what it
// exposes.

// viewBounds is what a view of a resizable buffer needs to recompute its
// bounds.
type viewBounds struct {
	tracking    bool // constructed without a length: follows the buffer
	fixedLength int  // elements (TypedArray) or bytes (DataView) when not tracking
	oob         bool // out of bounds of the buffer since its last resize
}

// maxResizableByteLength is V8's limit on maxByteLength (64-bit, with the
// sandbox: 32 GiB - 1).
const maxResizableByteLength = 32<<30 - 1

type resizableViews struct {
	typed []weak.Pointer[typedArrayObject]
	data  []weak.Pointer[dataViewObject]
}

func (r *Runtime) arrayBufferMaxByteLengthOption(opts Value) (int, bool) {
	o, ok := opts.(*Object)
	if !ok {
		return 0, false
	}
	v := o.self.getStr("maxByteLength", nil)
	if v == nil || v == _undefined {
		return 0, false
	}
	return r.toIndex(v), true
}

// newArrayBufferResizable is the constructor's path with options.
func (r *Runtime) newArrayBufferWithOptions(args []Value, newTarget *Object) *Object {
	var length int
	if len(args) > 0 {
		length = r.toIndex(args[0])
	}
	var maxLen int
	var resizable bool
	if len(args) > 1 {
		maxLen, resizable = r.arrayBufferMaxByteLengthOption(args[1])
	}
	if resizable && length > maxLen {
		panic(r.newError(r.getRangeError(), "Invalid array buffer length"))
	}
	if resizable && maxLen > maxResizableByteLength {
		panic(r.newError(r.getRangeError(), "Invalid array buffer max length"))
	}
	proto := r.getPrototypeFromCtor(newTarget, r.getArrayBuffer(), r.getArrayBufferPrototype())
	b := r._newArrayBuffer(proto, nil)
	b.data = r.allocBytes(length) // cellhost patch: alloc_hook.go
	b.resizable, b.maxByteLength = resizable, maxLen
	return b.val
}

func (r *Runtime) arrayBufferProto_getResizable(call FunctionCall) Value {
	b := r.arrayBufferThis(call, "resizable")
	return r.toBoolean(b.resizable)
}

func (r *Runtime) arrayBufferProto_getMaxByteLength(call FunctionCall) Value {
	b := r.arrayBufferThis(call, "maxByteLength")
	switch {
	case b.detached:
		return intToValue(0)
	case b.resizable:
		return intToValue(int64(b.maxByteLength))
	}
	return intToValue(int64(len(b.data)))
}

func (r *Runtime) arrayBufferProto_resize(call FunctionCall) Value {
	b := r.arrayBufferThis(call, "resize")
	if !b.resizable {
		panic(r.NewTypeError("Method ArrayBuffer.prototype.resize called on incompatible receiver %s", receiverString(call.This)))
	}
	n := r.toIndex(call.Argument(0))
	if b.detached {
		panic(r.NewTypeError("Cannot perform ArrayBuffer.prototype.resize on a detached ArrayBuffer"))
	}
	if n > b.maxByteLength {
		panic(r.newError(r.getRangeError(), "ArrayBuffer.prototype.resize: Invalid length parameter"))
	}
	b.resize(n)
	return _undefined
}

// resize sets the buffer's length to n (at most maxByteLength) and updates
// its views.
func (b *arrayBufferObject) resize(n int) {
	old := len(b.data)
	switch {
	case n <= old:
		b.data = b.data[:n]
	case n <= cap(b.data):
		b.data = b.data[:n]
		clear(b.data[old:])
	default:
		c := max(n, min(2*cap(b.data), b.maxByteLength))
		d := b.val.runtime.allocBytes(c)[:n] // cellhost patch: alloc_hook.go
		copy(d, b.data)
		b.data = d
	}
	b.updateViews()
}

// addTypedView registers ta, a view of a resizable buffer.
func (b *arrayBufferObject) addTypedView(ta *typedArrayObject) {
	b.views.typed = append(b.views.typed, weak.Make(ta))
}

func (b *arrayBufferObject) addDataView(dv *dataViewObject) {
	b.views.data = append(b.views.data, weak.Make(dv))
}

func (b *arrayBufferObject) updateViews() {
	typed := b.views.typed[:0]
	for _, p := range b.views.typed {
		if ta := p.Value(); ta != nil {
			ta.updateBounds()
			typed = append(typed, p)
		}
	}
	clear(b.views.typed[len(typed):])
	b.views.typed = typed
	data := b.views.data[:0]
	for _, p := range b.views.data {
		if dv := p.Value(); dv != nil {
			dv.updateBounds()
			data = append(data, p)
		}
	}
	clear(b.views.data[len(data):])
	b.views.data = data
}

// updateBounds recomputes length (0 when out of bounds) from the buffer's
// current length (IsTypedArrayOutOfBounds, TypedArrayLength).
func (a *typedArrayObject) updateBounds() {
	bufLen := len(a.viewedArrayBuf.data)
	byteOffset := a.offset * a.elemSize
	switch {
	case byteOffset > bufLen:
		a.oob, a.length = true, 0
	case a.tracking:
		a.oob, a.length = false, (bufLen-byteOffset)/a.elemSize
	case byteOffset+a.fixedLength*a.elemSize > bufLen:
		a.oob, a.length = true, 0
	default:
		a.oob, a.length = false, a.fixedLength
	}
}

// ensureValid is ValidateTypedArray's check: a TypeError when the buffer is
// detached or the array out of its bounds.
func (a *typedArrayObject) ensureValid(throw bool) bool {
	if !a.viewedArrayBuf.ensureNotDetached(throw) {
		return false
	}
	if a.oob {
		a.val.runtime.typeErrorResult(throw, "TypedArray is out of bounds")
		return false
	}
	return true
}

func (o *dataViewObject) updateBounds() {
	bufLen := len(o.viewedArrayBuf.data)
	switch {
	case o.byteOffset > bufLen:
		o.oob, o.byteLen = true, 0
	case o.tracking:
		o.oob, o.byteLen = false, bufLen-o.byteOffset
	case o.byteOffset+o.fixedLength > bufLen:
		o.oob, o.byteLen = true, 0
	default:
		o.oob, o.byteLen = false, o.fixedLength
	}
}

// ensureValid throws a TypeError when the buffer is detached or the view
// out of its bounds (IsViewOutOfBounds).
func (o *dataViewObject) ensureValid() {
	o.viewedArrayBuf.ensureNotDetached(true)
	if o.oob {
		panic(o.val.runtime.NewTypeError("DataView is out of bounds"))
	}
}

// cellhost patch (10, for serializers): what V8's ValueSerializer writes of
// a resizable buffer and of a view that tracks its length.

// MaxByteLength returns a resizable buffer's maximum length; ok is false
// for a fixed-length (or nil) buffer.
func (a ArrayBuffer) MaxByteLength() (max int, ok bool) {
	if a.buf == nil || !a.buf.resizable {
		return 0, false
	}
	return a.buf.maxByteLength, true
}

// NewResizableArrayBuffer returns a resizable ArrayBuffer holding data (not
// copied) that can grow to maxByteLength; it panics when data is longer.
func (r *Runtime) NewResizableArrayBuffer(data []byte, maxByteLength int) ArrayBuffer {
	if len(data) > maxByteLength || maxByteLength > maxResizableByteLength {
		panic(r.newError(r.getRangeError(), "Invalid array buffer max length"))
	}
	buf := r._newArrayBuffer(r.getArrayBufferPrototype(), nil)
	buf.data = data
	buf.resizable, buf.maxByteLength = true, maxByteLength
	return ArrayBuffer{buf: buf}
}

// TracksLength reports whether o is a TypedArray or a DataView constructed
// without a length over a resizable buffer (its length follows the buffer).
func TracksLength(o *Object) bool {
	if o == nil {
		return false
	}
	switch v := o.self.(type) {
	case *typedArrayObject:
		return v.tracking
	case *dataViewObject:
		return v.tracking
	}
	return false
}
