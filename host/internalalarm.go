package host

import (
	"context"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
)

// Alarms of internal cells. An internal class with an Alarm hook keeps
// work in its cell (a queue's messages, a workflow's next step) and arms
// the cell's stored alarm for when it is due, as an object does with
// setAlarm: the alarm is published to the wake index like any, so after a
// restart, or on another node when this one died, the cell is woken and
// its work resumes. The hook runs in a turn of the cell; the work it
// returns runs off the loop once that turn's commit is durable, and
// reaches the worker's code (a queue consumer) and other internal cells
// through an InternalWorker.

// InternalAlarm runs in a turn of an internal cell when its stored alarm
// comes due (now), on the cell's database: it may write, and re-arm the
// alarm (db.SetAlarm); the alarm that fired is deleted unless it did.
// after, if not nil, runs on a goroutine of the host once the turn's
// commit is durable.
type InternalAlarm func(db *storage.DB, now time.Time) (after func(ctx context.Context, w InternalWorker))

// InternalWorker is what an internal cell's alarm work reaches.
type InternalWorker interface {
	// RunWorker runs fn on a shard's loop with the worker (its module's
	// default export, env, a fresh ExecutionContext) and waits until the
	// value fn returns settles (a promise), or ctx ends: nil, or the
	// error it threw or rejected with (a *jsapi.ScriptError).
	RunWorker(ctx context.Context, fn func(w *jsapi.Worker, ectx *goja.Object) (goja.Value, error)) error
	// CallCell is Host.CallCell.
	CallCell(ctx context.Context, class, key string, req []byte) ([]byte, error)
}

// RunWorker is InternalWorker.RunWorker. Safe from any goroutine.
func (h *Host) RunWorker(ctx context.Context, fn func(w *jsapi.Worker, ectx *goja.Object) (goja.Value, error)) error {
	s := h.workerShard()
	_, err := h.await(ctx, func(reply func(*jsapi.HTTPResponse, error)) {
		if !s.post(func() {
			ectx := s.w.NewExecutionContext(nil)
			v, err := fn(s.w, ectx)
			if err != nil {
				s.reply(nil, func() { reply(nil, err) })
				return
			}
			s.w.Settle(v, func(goja.Value) {
				s.reply(nil, func() { reply(nil, nil) })
			}, func(e goja.Value) {
				err := s.w.ScriptErrorOf(e)
				s.reply(nil, func() { reply(nil, err) })
			})
		}) {
			reply(nil, ErrClosed)
		}
	})
	return err
}

// internalAlarm runs the internal class's Alarm hook for the due alarm a.
// On the cell's loop, in a turn of the cell.
func (c *cell) internalAlarm(ic InternalClass, a storage.Alarm) {
	c.touch()
	c.wrote = true
	var after func(ctx context.Context, w InternalWorker)
	if ic.Alarm != nil {
		after = ic.Alarm(c.db, c.s.h.clock.Now())
	}
	if _, err := c.db.DeleteAlarmIf(a.Generation); err != nil { // kept when the hook re-armed it
		c.logger().Error("delete alarm: " + err.Error())
	}
	if after == nil {
		return
	}
	h := c.s.h
	gen := c.gen
	c.s.reply(c, func() {
		if c.gen != gen { // the turn's commit failed: its alarm fires again
			return
		}
		h.goFunc(func(ctx context.Context) { after(ctx, h) })
	})
}

// startInternal runs the internal classes' Start hooks. After Open has
// built every shard.
func (h *Host) startInternal() {
	for _, ic := range h.cfg.Internal {
		if start := ic.Start; start != nil {
			h.goFunc(func(ctx context.Context) { start(ctx, h) })
		}
	}
}
