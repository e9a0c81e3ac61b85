package jsapi

import (
	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// rpcCopySym holds, on each worker's global object, the worker's rpcCopy
// (a symbol no script can name), so that RPCCopy finds it from a runtime.
var rpcCopySym = goja.NewSymbol("cellhost.rpcCopy")

// installRPCCopy publishes w.rpcCopy for RPCCopy.
func (w *Worker) installRPCCopy() error {
	return w.rt.GlobalObject().DefineDataPropertySymbol(rpcCopySym, w.rt.ToValue(w.rpcCopy), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// rpcCopy sends v through RPC's encoding and back, as a call over a
// service binding does in workerd: plain data is structured-cloned,
// functions and RpcTargets become stubs, and a value RPC cannot carry
// throws DataCloneError.
func (w *Worker) rpcCopy(v goja.Value) goja.Value {
	enc, err := w.rpc.encode(goja.Undefined(), v)
	if err != nil {
		panic(err)
	}
	o := enc.ToObject(w.rt)
	b, err := w.envelope(nil, o.Get("v"), o.Get("caps"))
	if err != nil {
		jserr.Throw(w.rt, err)
	}
	r, err := w.receive(b)
	if err != nil {
		jserr.Throw(w.rt, err)
	}
	return r
}

// RPCCopy returns v as the receiver of an RPC in the worker of rt gets it
// (see rpcCopy). It must be called on rt's goroutine; it panics with a JS
// exception when v cannot be sent.
func RPCCopy(rt *goja.Runtime, v goja.Value) goja.Value {
	f, ok := goja.AssertFunction(rt.GlobalObject().GetSymbol(rpcCopySym))
	if !ok {
		return v
	}
	r, err := f(goja.Undefined(), v)
	if err != nil {
		panic(err)
	}
	return r
}
