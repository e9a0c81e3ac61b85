package jsapi

import (
	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// A Durable Object stub is a goja dynamic object backed by stubObject
// rather than a JS Proxy: a worker makes one on every getByName, and a
// Proxy with its handler, plus the WeakMap entry its fetch needed to find
// its target, cost several times more in goja than one Go value. What JS
// sees is the same (do.js, DurableObjectStub): own properties id and name,
// the prototype's fetch, and an RPC method for any other string property
// except "then".
type stubObject struct {
	w     *Worker
	ns    Namespace
	nsObj *goja.Object
	id    goja.Value
	hex   string
	name  string     // "" when the id has no name
	nameV goja.Value // the id's name, or undefined
}

var _ goja.DynamicObject = (*stubObject)(nil)

// stubSetup receives DurableObjectStub.prototype and the RPC method maker
// from do.js.
func (w *Worker) stubSetup(proto *goja.Object, rpc goja.Value) {
	w.stubProto = proto
	w.stubRPC, _ = goja.AssertFunction(rpc)
}

// makeStub is native.makeStub(nsObj, id, hex, name).
func (w *Worker) makeStub(call goja.FunctionCall) goja.Value {
	nsObj, _ := call.Argument(0).(*goja.Object)
	st := &stubObject{w: w, ns: w.nsObjs[nsObj], nsObj: nsObj, id: call.Argument(1), hex: call.Argument(2).String(), nameV: call.Argument(3)}
	if !goja.IsUndefined(st.nameV) {
		st.name = st.nameV.String()
	}
	obj := w.rt.NewDynamicObject(st)
	_ = obj.SetPrototype(w.stubProto)
	return obj
}

// stubOf returns the stub v is, throwing workerd's TypeError when v is not
// one (a stub's fetch called with another `this`).
func (w *Worker) stubOf(v goja.Value) *stubObject {
	if obj, ok := v.(*goja.Object); ok {
		if st, ok := obj.Export().(*stubObject); ok {
			return st
		}
	}
	jserr.Throw(w.rt, jserr.TypeError("Illegal invocation: function called with incorrect `this` reference. See https://developers.cloudflare.com/workers/observability/errors/#illegal-invocation-errors for details."))
	return nil
}

func (s *stubObject) Get(key string) goja.Value {
	switch key {
	case "id":
		return s.id
	case "name":
		return s.nameV
	case "then":
		return nil // from the prototype chain: undefined
	}
	if s.w.stubProto.Get(key) != nil {
		return nil // the prototype's (fetch, toString, ...)
	}
	v, err := s.w.stubRPC(goja.Undefined(), s.nsObj, s.w.rt.ToValue(s.hex), s.nameV, s.w.rt.ToValue(key))
	if err != nil {
		panic(err)
	}
	return v
}

// Set refuses: a stub's properties are read-only.
func (s *stubObject) Set(string, goja.Value) bool { return false }

func (s *stubObject) Has(key string) bool { return key == "id" || key == "name" }

func (s *stubObject) Delete(key string) bool { return !s.Has(key) }

func (s *stubObject) Keys() []string { return []string{"id", "name"} }
