package node

import "github.com/cellhost/cellhost/third_party/goja"

// asyncContext is the async context AsyncLocalStorage reads: a value (a JS
// Map from each storage's key to its store) that follows promise jobs
// (goja's AsyncContextTracker: captured when a reaction is queued, restored
// when it runs, so it follows await), timers and setImmediate.
type asyncContext struct {
	rt      *goja.Runtime
	current goja.Value // nil: the empty context
	saved   goja.Value // the context Resumed replaced
}

func newAsyncContext(rt *goja.Runtime) *asyncContext { return &asyncContext{rt: rt} }

// Grab, Resumed and Exited implement goja.AsyncContextTracker.
func (a *asyncContext) Grab() interface{} { return a.current }

func (a *asyncContext) Resumed(v interface{}) {
	a.saved = a.current
	a.current, _ = v.(goja.Value)
}

func (a *asyncContext) Exited() { a.current, a.saved = a.saved, nil }

// run calls fn with ctx as the current context, then restores the old one.
func (a *asyncContext) run(ctx goja.Value, fn goja.Callable) (goja.Value, error) {
	prev := a.current
	a.current = ctx
	if ctx != nil && goja.IsUndefined(ctx) {
		a.current = nil
	}
	defer func() { a.current = prev }()
	return fn(goja.Undefined())
}

// wrap returns fn bound to the current context (for timers).
func (a *asyncContext) wrap(fn func()) func() {
	ctx := a.current
	return func() {
		prev := a.current
		a.current = ctx
		defer func() { a.current = prev }()
		fn()
	}
}

func (a *asyncContext) object() *goja.Object {
	o := a.rt.NewObject()
	_ = o.Set("get", func(goja.FunctionCall) goja.Value {
		if a.current == nil {
			return goja.Undefined()
		}
		return a.current
	})
	_ = o.Set("run", func(call goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(call.Argument(1))
		if !ok {
			panic(a.rt.NewTypeError("The \"fn\" argument must be of type function."))
		}
		v, err := a.run(call.Argument(0), fn)
		if err != nil {
			panic(err)
		}
		return v
	})
	return o
}

// immediates are setImmediate and clearImmediate.
type immediates struct {
	rt      *goja.Runtime
	sched   func(func()) func()
	ctx     *asyncContext
	next    int64
	pending map[int64]func()
	set     func(goja.FunctionCall) goja.Value
	clear   func(goja.FunctionCall) goja.Value
}

func newImmediates(rt *goja.Runtime, sched func(func()) func(), ctx *asyncContext) *immediates {
	im := &immediates{rt: rt, sched: sched, ctx: ctx, pending: map[int64]func(){}}
	im.set = func(call goja.FunctionCall) goja.Value {
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			panic(rt.NewTypeError("The \"callback\" argument must be of type function."))
		}
		if im.sched == nil {
			panic(rt.NewTypeError("setImmediate is not available here"))
		}
		args := append([]goja.Value(nil), call.Arguments[1:]...)
		im.next++
		id := im.next
		im.pending[id] = im.sched(ctx.wrap(func() {
			if _, live := im.pending[id]; !live {
				return
			}
			delete(im.pending, id)
			if _, err := fn(goja.Undefined(), args...); err != nil {
				panic(err)
			}
		}))
		o := rt.NewObject()
		_ = o.Set("id", id)
		_ = o.Set("hasRef", func() bool { return true })
		_ = o.Set("ref", func(goja.FunctionCall) goja.Value { return o })
		_ = o.Set("unref", func(goja.FunctionCall) goja.Value { return o })
		_ = o.SetSymbol(goja.SymToPrimitive, func(goja.FunctionCall) goja.Value { return rt.ToValue(id) })
		return o
	}
	im.clear = func(call goja.FunctionCall) goja.Value {
		v := call.Argument(0)
		var id int64
		if o, ok := v.(*goja.Object); ok {
			id = o.Get("id").ToInteger()
		} else {
			id = v.ToInteger()
		}
		if cancel, ok := im.pending[id]; ok {
			delete(im.pending, id)
			cancel()
		}
		return goja.Undefined()
	}
	return im
}
