package jsapi

import (
	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

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
