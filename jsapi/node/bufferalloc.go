package node

import (
	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// boundBufferAllocations makes Buffer's allocating statics ask the
// runtime's allocation hook (the goja fork's, set by host to the object's
// memory limit) before goja_nodejs allocates: its Buffer.alloc(n),
// Buffer.from(arrayLike) and Buffer.concat(list, total) call make([]byte, n)
// with a size the script chose, and Go dies on an allocation it cannot
// satisfy (issue 23.1). A refusal is the RangeError V8 throws for a backing
// store it cannot allocate, as workerd's Buffer (a Uint8Array) does.
// goja_nodejs is used unmodified, so the check wraps its functions
// (allocUnsafe and allocUnsafeSlow call alloc: modules.js).
func boundBufferAllocations(rt *goja.Runtime, ctor *goja.Object) {
	wrap := func(name string, size func(goja.FunctionCall) int64) {
		orig, ok := goja.AssertFunction(ctor.Get(name))
		if !ok {
			return
		}
		f := rt.ToValue(func(call goja.FunctionCall) goja.Value {
			if err := jserr.Allocate(rt, size(call), goja.AllocArrayBuffer); err != nil {
				jserr.Throw(rt, err)
			}
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		}).ToObject(rt)
		_ = f.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
		_ = ctor.Set(name, f)
	}
	wrap("alloc", func(call goja.FunctionCall) int64 {
		if a := call.Argument(0); goja.IsNumber(a) {
			return a.ToInteger()
		}
		return 0
	})
	wrap("from", func(call goja.FunctionCall) int64 {
		// An array-like object's length is what goja_nodejs allocates;
		// strings and buffers are copies of memory the script already has.
		o, ok := call.Argument(0).(*goja.Object)
		if !ok {
			return 0
		}
		switch o.Export().(type) {
		case goja.ArrayBuffer, []byte:
			return 0
		}
		if l := o.Get("length"); l != nil && goja.IsNumber(l) {
			return l.ToInteger()
		}
		return 0
	})
	wrap("concat", func(call goja.FunctionCall) int64 {
		if t := call.Argument(1); goja.IsNumber(t) {
			return t.ToInteger()
		}
		o, ok := call.Argument(0).(*goja.Object)
		if !ok {
			return 0
		}
		var total int64
		for _, k := range o.Keys() {
			if b, ok := o.Get(k).Export().([]byte); ok {
				total += int64(len(b))
			}
		}
		return total
	})
	boundBufferToString(rt, ctor)
}

// boundBufferToString makes Buffer.prototype.toString ask the allocation
// hook for the string it makes, two bytes a byte of the range (hex is two
// characters a byte, base64 four for three, UTF-8 at most one UTF-16 unit a
// byte): goja_nodejs encodes a whole 100 MB buffer into a string in one
// call that no limit saw. Refused: V8's `RangeError: Invalid string length`.
func boundBufferToString(rt *goja.Runtime, ctor *goja.Object) {
	proto, ok := ctor.Get("prototype").(*goja.Object)
	if !ok {
		return
	}
	orig, ok := goja.AssertFunction(proto.Get("toString"))
	if !ok {
		return
	}
	f := rt.ToValue(func(call goja.FunctionCall) goja.Value {
		if o, ok := call.This.(*goja.Object); ok {
			if b, ok := o.Export().([]byte); ok && len(b) >= 1<<19 {
				n := int64(len(b))
				start, end := int64(0), n
				if a := call.Argument(1); goja.IsNumber(a) {
					start = min(max(a.ToInteger(), 0), n)
				}
				if a := call.Argument(2); goja.IsNumber(a) {
					end = min(max(a.ToInteger(), 0), n)
				}
				if end > start {
					if err := jserr.Allocate(rt, 2*(end-start), goja.AllocString); err != nil {
						jserr.Throw(rt, err)
					}
				}
			}
		}
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	}).ToObject(rt)
	_ = f.DefineDataProperty("name", rt.ToValue("toString"), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = f.DefineDataProperty("length", rt.ToValue(3), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = proto.Set("toString", f) // keeps the property's attributes (enumerable, as node's)
}
