package jsapi

import (
	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// maxBCWDepth is workerd's MAX_BLOCK_CONCURRENCY_WHILE_DEPTH (io-context.h):
// a critical section nested deeper throws.
const maxBCWDepth = 64

// bcwNestedTooDeeply is workerd's error for a critical section past maxBCWDepth.
const bcwNestedTooDeeply = "blockConcurrencyWhile() calls are nested too deeply."

// critSection is one blockConcurrencyWhile call: workerd's
// InputGate::CriticalSection.
type critSection struct {
	depth   int
	fn      goja.Callable
	release func(error) // reopens the input gate; nil for a nested section
	resolve func(any) error
	reject  func(any) error
	started bool
	post    func(func()) bool // runs the callback as the code that called (Worker.postHere)
}

// bcwState runs an object's blockConcurrencyWhile calls as workerd does: the
// callback runs later (never inside the call), a call made while no critical
// section is running queues behind the ones already queued, and a call made
// from inside a running critical section nests in it (it runs at once,
// holding the same gate) up to maxBCWDepth. The input gate is closed from
// the call until its callback settles.
//
// Which section a call comes from is known exactly while a callback runs
// synchronously (cur); from a later continuation of a callback (after an
// await) it is taken to be the innermost running section, since while the
// gate is closed only that section's code should be running.
type bcwState struct {
	w       *Worker
	block   func() func(error)
	queue   []*critSection // top-level sections waiting for their turn
	running []*critSection // started and not settled, outermost first
	cur     *critSection   // the section whose callback is on the stack
	broken  error          // a callback failed: the object is being reset
	// waiting are calls to the object's RPC targets that arrived while
	// the gate was closed: they run when it opens (or the object broke).
	waiting []func()
}

// wait runs f once no top-level section is queued or running; now when
// none is. On the loop.
func (b *bcwState) wait(f func()) {
	if len(b.queue) == 0 && !b.topRunning() {
		f()
		return
	}
	b.waiting = append(b.waiting, f)
}

// open runs the calls waiting for the gate, unless it is still closed.
func (b *bcwState) open() {
	if b.broken == nil && (len(b.queue) > 0 || b.topRunning()) {
		return
	}
	w := b.waiting
	b.waiting = nil
	for _, f := range w {
		f()
	}
}

// call implements ctx.blockConcurrencyWhile(fn).
func (b *bcwState) call(fn goja.Value) goja.Value {
	rt := b.w.rt
	p, resolve, reject := rt.NewPromise()
	f, ok := goja.AssertFunction(fn)
	if !ok {
		_ = reject(rt.NewTypeError("blockConcurrencyWhile() requires a function"))
		return rt.ToValue(p)
	}
	if b.broken != nil {
		_ = reject(b.w.ErrorValue(b.broken))
		return rt.ToValue(p)
	}
	cs := &critSection{fn: f, resolve: resolve, reject: reject, depth: 1, post: b.w.postHere()}
	parent := b.cur
	if parent == nil && len(b.running) > 0 {
		parent = b.running[len(b.running)-1]
	}
	if parent != nil {
		cs.depth = parent.depth + 1
		if cs.depth > maxBCWDepth {
			panic(jserr.Object(rt, "Error", bcwNestedTooDeeply))
		}
		b.start(cs)
		return rt.ToValue(p)
	}
	cs.release = func(error) {}
	if b.block != nil {
		cs.release = b.block()
	}
	b.queue = append(b.queue, cs)
	if len(b.queue) == 1 && !b.topRunning() {
		b.next()
	}
	return rt.ToValue(p)
}

// topRunning reports whether a top-level section is running.
func (b *bcwState) topRunning() bool {
	return len(b.running) > 0
}

// next starts the first queued top-level section.
func (b *bcwState) next() {
	if len(b.queue) == 0 || b.topRunning() || b.broken != nil {
		return
	}
	cs := b.queue[0]
	b.queue[0] = nil
	b.queue = b.queue[1:]
	b.start(cs)
}

// start runs cs's callback in a turn of its own, as workerd runs it after
// the critical section's wait: the turn that called blockConcurrencyWhile
// ends first, with its implicit transaction (so that the callback can,
// e.g., turn PRAGMA foreign_keys off). A runtime without a loop runs it in
// a microtask.
func (b *bcwState) start(cs *critSection) {
	cs.started = true
	b.running = append(b.running, cs)
	if !cs.post(func() { b.run(cs) }) {
		b.w.microtask(func() { b.run(cs) })
	}
}

func (b *bcwState) run(cs *critSection) {
	if b.broken != nil {
		b.finish(cs, b.broken, nil)
		return
	}
	prev := b.cur
	b.cur = cs
	v, err := cs.fn(goja.Undefined())
	b.cur = prev
	if err != nil {
		b.finish(cs, b.w.errorOf(err), nil)
		return
	}
	b.w.Settle(v, func(r goja.Value) {
		b.finish(cs, nil, r)
	}, func(e goja.Value) {
		b.finish(cs, b.w.ScriptErrorOf(e), e)
	})
}

// finish settles cs: on success its promise resolves and the next queued
// section starts; a failure breaks the object (host resets it: every
// request waiting on the gate fails with the error) and rejects the call.
func (b *bcwState) finish(cs *critSection, err error, v goja.Value) {
	for i, r := range b.running {
		if r == cs {
			b.running = append(b.running[:i], b.running[i+1:]...)
			break
		}
	}
	if err != nil {
		first := b.broken == nil
		if first {
			b.broken = err
		}
		rejection := v
		if rejection == nil {
			rejection = b.w.ErrorValue(err)
		}
		if cs.release != nil {
			cs.release(err)
		}
		_ = cs.reject(rejection)
		if first {
			queued := b.queue
			b.queue = nil
			for _, q := range queued {
				q.release(nil)
				_ = q.reject(b.w.ErrorValue(err))
			}
		}
		b.open()
		return
	}
	if cs.release != nil {
		cs.release(nil)
	}
	_ = cs.resolve(v)
	b.next()
	b.open()
}

// microtask queues f as a promise job of the runtime.
func (w *Worker) microtask(f func()) {
	_, err := w.defer_(goja.Undefined(), w.rt.ToValue(func(goja.FunctionCall) goja.Value {
		f()
		return goja.Undefined()
	}))
	if err != nil {
		panic(err)
	}
}

// drainJobs runs the runtime's promise jobs now. goja runs them only when a
// call from Go (RunProgram, a Callable) returns to an empty JS stack, and
// Runtime.New is not such a call: without this a constructor's promise jobs
// (a blockConcurrencyWhile callback, any await) would wait for the next
// entry into JS.
func (w *Worker) drainJobs() {
	_, _ = w.noop(goja.Undefined())
}
