package goja

// cellhost patch: ArrayBuffer.prototype.transfer, transferToFixedLength and
// the detached getter (ES2024). Upstream has none of them. goja has no
// resizable buffers, so both transfer methods return a fixed-length buffer.

func (r *Runtime) arrayBufferThis(call FunctionCall, method string) *arrayBufferObject {
	if o, ok := call.This.(*Object); ok {
		if b, ok := o.self.(*arrayBufferObject); ok {
			return b
		}
	}
	panic(r.NewTypeError("Method ArrayBuffer.prototype.%s called on incompatible receiver %s", method, receiverString(call.This)))
}

func (r *Runtime) arrayBufferProto_getDetached(call FunctionCall) Value {
	b := r.arrayBufferThis(call, "detached")
	return r.toBoolean(b.detached)
}

// ArrayBufferCopyAndDetach (ES2024 25.1.3.3) for a fixed-length buffer.
func (r *Runtime) arrayBufferCopyAndDetach(call FunctionCall, method string) Value {
	b := r.arrayBufferThis(call, method)
	keepResizable := method == "transfer" && b.resizable
	var newLen int
	if arg := call.Argument(0); arg == _undefined {
		newLen = len(b.data)
	} else {
		n := arg.ToInteger()
		if n < 0 || n > maxInt-1 {
			panic(r.newError(r.getRangeError(), "Invalid array buffer length"))
		}
		newLen = int(n)
	}
	if b.detached {
		panic(r.NewTypeError("Cannot perform ArrayBuffer.prototype.%s on a detached ArrayBuffer", method))
	}
	if keepResizable && newLen > b.maxByteLength {
		panic(r.newError(r.getRangeError(), "ArrayBuffer.prototype.transfer: Invalid length parameter"))
	}
	ret := r._newArrayBuffer(r.getArrayBufferPrototype(), nil)
	if keepResizable {
		ret.resizable, ret.maxByteLength = true, b.maxByteLength
	}
	if newLen == len(b.data) {
		// Same length: the new buffer takes over the memory, as V8 does.
		ret.data = b.data
		if ret.data == nil {
			ret.data = []byte{}
		}
	} else {
		ret.data = r.allocBytes(newLen) // cellhost patch: alloc_hook.go
		copy(ret.data, b.data)
	}
	b.detach()
	return ret.val
}

func (r *Runtime) arrayBufferProto_transfer(call FunctionCall) Value {
	return r.arrayBufferCopyAndDetach(call, "transfer")
}

func (r *Runtime) arrayBufferProto_transferToFixedLength(call FunctionCall) Value {
	return r.arrayBufferCopyAndDetach(call, "transferToFixedLength")
}

// receiverString is V8's NoSideEffectsToString for an incompatible receiver:
// #<Ctor> for objects, the value itself for primitives.
func receiverString(v Value) string {
	if o, ok := v.(*Object); ok {
		return "#<" + o.self.className() + ">"
	}
	return v.String()
}
