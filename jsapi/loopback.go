package jsapi

import (
	_ "embed"
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"
)

//go:embed loopback.js
var loopbackSource string

var loopbackProgram = goja.MustCompile("cellhost:loopback.js", loopbackSource, true)

// serviceStubSym holds, on each worker's global object, the worker's
// serviceStub (a symbol no script can name), for ServiceStub.
var serviceStubSym = goja.NewSymbol("cellhost.serviceStub")

// installLoopback publishes w.serviceStub for ServiceStub.
func (w *Worker) installLoopback() error {
	return w.rt.GlobalObject().DefineDataPropertySymbol(serviceStubSym,
		w.rt.ToValue(func(binding, entrypoint string) goja.Value { return w.serviceStub(binding, entrypoint) }),
		goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// serviceStub returns a stub that calls entrypoint ("" for the default
// export) of w in w's runtime: fetch, scheduled and RPC methods, with
// RPC's copying. binding names it in errors.
func (w *Worker) serviceStub(binding, entrypoint string) goja.Value {
	w.initLoopback()
	v, err := w.loopback(goja.Undefined(), w.rt.ToValue(binding), w.rt.ToValue(entrypoint))
	if err != nil {
		panic(err)
	}
	return v
}

// initLoopback runs loopback.js in w's runtime once.
func (w *Worker) initLoopback() {
	if w.loopback != nil {
		return
	}
	fv, err := w.rt.RunProgram(loopbackProgram)
	if err != nil {
		panic(err)
	}
	fn, _ := goja.AssertFunction(fv)
	native := w.rt.NewObject()
	_ = native.Set("exports", func() goja.Value { return w.Exports })
	_ = native.Set("env", w.Env)
	_ = native.Set("newCtx", func() goja.Value { return w.NewExecutionContext(nil) })
	_ = native.Set("rpcCopy", w.rpcCopy)
	mv, err := fn(goja.Undefined(), native)
	if err != nil {
		panic(err)
	}
	m := mv.ToObject(w.rt)
	w.loopback, _ = goja.AssertFunction(m.Get("service"))
	w.scheduledCtl, _ = goja.AssertFunction(m.Get("controller"))
}

// ServiceStub returns a service binding to entrypoint ("" for the default
// export) of the worker of rt, named binding in its errors: fetch(),
// scheduled() and RPC methods run in rt, arguments and results copied as
// RPC copies them. On rt's goroutine, after the bundle ran.
func ServiceStub(rt *goja.Runtime, binding, entrypoint string) (goja.Value, error) {
	f, ok := goja.AssertFunction(rt.GlobalObject().GetSymbol(serviceStubSym))
	if !ok {
		return nil, fmt.Errorf("service binding %s: not a worker's runtime", binding)
	}
	return f(goja.Undefined(), rt.ToValue(binding), rt.ToValue(entrypoint))
}

// ctxExports is ctx.exports of a handler: the default export and each
// WorkerEntrypoint class as a loopback service stub, each Durable Object
// class as its namespace (when bound).
func (w *Worker) ctxExports() *goja.Object {
	if w.ctxExportsObj != nil {
		return w.ctxExportsObj
	}
	out := w.rt.NewObject()
	if w.Exports == nil {
		return out
	}
	if _, ok := w.Default.(*goja.Object); ok {
		_ = out.Set("default", w.serviceStub("ctx.exports.default", ""))
	}
	for _, k := range w.Exports.Keys() {
		if k == "default" {
			continue
		}
		cls, ok := w.Classes[k]
		if !ok {
			continue
		}
		switch {
		case w.extends(cls, w.entryCls):
			_ = out.Set(k, w.serviceStub("ctx.exports."+k, k))
		case w.moduleExports != nil && w.extends(cls, w.doCls):
			_ = out.Set(k, w.moduleExports.Get(k))
		}
	}
	w.ctxExportsObj = out
	return out
}
