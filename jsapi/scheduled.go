package jsapi

import (
	"errors"
	"time"

	"github.com/dop251/goja"
)

// ErrNoScheduled means the module's default export has no scheduled()
// handler.
var ErrNoScheduled = errors.New("the worker has no default export with a scheduled() handler")

// CallScheduled runs the default export's scheduled handler for a cron
// trigger: scheduled(controller, env, ctx) of an object, or
// scheduled(controller) of a WorkerEntrypoint class. controller is a
// ScheduledController (cron, scheduledTime in ms, type "scheduled",
// noRetry()). It returns what the handler returned (often a promise). On
// the runtime's goroutine.
func (w *Worker) CallScheduled(cron string, at time.Time, ctx *goja.Object) (goja.Value, error) {
	d, ok := w.Default.(*goja.Object)
	if !ok {
		return nil, ErrNoScheduled
	}
	ctl := w.rt.NewObject()
	_ = ctl.Set("cron", cron)
	_ = ctl.Set("scheduledTime", at.UnixMilli())
	_ = ctl.Set("type", "scheduled")
	_ = ctl.Set("noRetry", func(goja.FunctionCall) goja.Value { return goja.Undefined() })
	target, args := d, []goja.Value{ctl, w.Env, ctx}
	if w.extends(d, w.entryCls) {
		inst, err := w.rt.New(d, ctx, w.Env)
		if err != nil {
			return nil, w.errorOf(err)
		}
		target, args = inst, []goja.Value{ctl}
	}
	fn, ok := goja.AssertFunction(target.Get("scheduled"))
	if !ok {
		return nil, ErrNoScheduled
	}
	v, err := fn(target, args...)
	if err != nil {
		return nil, w.errorOf(err)
	}
	return v, nil
}
