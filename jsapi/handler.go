package jsapi

import "github.com/cellhost/cellhost/third_party/goja"

// CallHandler runs the default export's handler name (queue, ...) with
// args: name(...args, env, ctx) of an object, or name(...args) of a new
// instance of a WorkerEntrypoint class, as CallScheduled does. ok is false
// when the default export has no such handler. It returns what the handler
// returned (often a promise). On the runtime's goroutine.
func (w *Worker) CallHandler(name string, ctx *goja.Object, args ...goja.Value) (v goja.Value, ok bool, err error) {
	d, isObj := w.Default.(*goja.Object)
	if !isObj {
		return nil, false, nil
	}
	w.initLoopback()
	target := d
	if w.extends(d, w.entryCls) {
		inst, err := w.rt.New(d, ctx, w.Env)
		if err != nil {
			return nil, true, w.errorOf(err)
		}
		target = inst
	} else {
		args = append(args, w.Env, ctx)
	}
	fn, isFn := goja.AssertFunction(target.Get(name))
	if !isFn {
		return nil, false, nil
	}
	v, err = fn(target, args...)
	if err != nil {
		return nil, true, w.errorOf(err)
	}
	return v, true, nil
}

// Runtime is the worker's runtime (for code run through a host's
// RunWorker, on the runtime's goroutine).
func (w *Worker) Runtime() *goja.Runtime { return w.rt }
