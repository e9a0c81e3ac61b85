package jsapi

import (
	"errors"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
)

// ErrNoScheduled means the module's default export has no scheduled()
// handler.
var ErrNoScheduled = errors.New("the worker has no default export with a scheduled() handler")

// CallScheduled runs the default export's scheduled handler for a cron
// trigger: scheduled(controller, env, ctx) of an object, or
// scheduled(controller) of a WorkerEntrypoint class. controller is a
// ScheduledController as workerd makes it (own cron and scheduledTime in
// ms, noRetry() on its prototype, no type: as recorded in
// cmd/cellhost/testdata/cases/cron). It returns what the handler returned
// (often a promise). On the runtime's goroutine.
func (w *Worker) CallScheduled(cron string, at time.Time, ctx *goja.Object) (goja.Value, error) {
	d, ok := w.Default.(*goja.Object)
	if !ok {
		return nil, ErrNoScheduled
	}
	w.initLoopback()
	ctl, err := w.scheduledCtl(goja.Undefined(), w.rt.ToValue(cron), w.rt.ToValue(at.UnixMilli()))
	if err != nil {
		return nil, w.errorOf(err)
	}
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
