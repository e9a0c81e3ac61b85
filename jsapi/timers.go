package jsapi

import (
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// Scheduler runs f on the runtime's goroutine, as a macrotask of its own,
// after d. The returned cancel stops it if it has not started; it is called
// on the runtime's goroutine.
type Scheduler interface {
	AfterFunc(d time.Duration, f func()) (cancel func())
}

// InstallTimers installs setTimeout, clearTimeout, setInterval and
// clearInterval. Timer ids are positive integers, unique per runtime.
func InstallTimers(rt *goja.Runtime, s Scheduler) {
	type timer struct {
		cancel func()
	}
	timers := map[int64]*timer{}
	var next int64
	schedule := func(call goja.FunctionCall, repeat bool) goja.Value {
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			jserr.Throw(rt, jserr.TypeError("The \"callback\" argument must be of type function."))
		}
		ms := call.Argument(1).ToFloat()
		if !(ms >= 1) { // also NaN
			ms = 0
		}
		if repeat && ms < 1 {
			ms = 1
		}
		var args []goja.Value
		if len(call.Arguments) > 2 {
			args = append(args, call.Arguments[2:]...)
		}
		next++
		id := next
		t := &timer{}
		timers[id] = t
		d := time.Duration(ms * float64(time.Millisecond))
		var fire func()
		fire = func() {
			if _, live := timers[id]; !live {
				return
			}
			if repeat {
				t.cancel = s.AfterFunc(d, fire)
			} else {
				delete(timers, id)
			}
			if _, err := fn(goja.Undefined(), args...); err != nil {
				panic(err)
			}
		}
		t.cancel = s.AfterFunc(d, fire)
		return rt.ToValue(id)
	}
	clear := func(call goja.FunctionCall) goja.Value {
		id := call.Argument(0).ToInteger()
		if t, ok := timers[id]; ok {
			delete(timers, id)
			t.cancel()
		}
		return goja.Undefined()
	}
	_ = rt.Set("setTimeout", func(call goja.FunctionCall) goja.Value { return schedule(call, false) })
	_ = rt.Set("setInterval", func(call goja.FunctionCall) goja.Value { return schedule(call, true) })
	_ = rt.Set("clearTimeout", clear)
	_ = rt.Set("clearInterval", clear)
	// scheduler.wait(ms) is workerd's promise-returning timer.
	sched := rt.NewObject()
	_ = sched.Set("wait", func(call goja.FunctionCall) goja.Value {
		ms := call.Argument(0).ToFloat()
		if !(ms >= 1) {
			ms = 0
		}
		p, resolve, _ := rt.NewPromise()
		s.AfterFunc(time.Duration(ms*float64(time.Millisecond)), func() { _ = resolve(goja.Undefined()) })
		return rt.ToValue(p)
	})
	_ = rt.Set("scheduler", sched)
}
