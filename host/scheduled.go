package host

import (
	"context"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi"
)

// Scheduled runs the worker's scheduled() handler for a cron trigger
// (cron is the trigger's expression, at its scheduled time) and waits until
// it settles: nil, the error it threw or rejected with, or
// jsapi.ErrNoScheduled. Safe from any goroutine.
func (h *Host) Scheduled(ctx context.Context, cron string, at time.Time) error {
	s := h.workerShard()
	_, err := h.await(ctx, func(reply func(*jsapi.HTTPResponse, error)) {
		s.post(func() { s.workerScheduled(cron, at, reply) })
	})
	return err
}

// workerScheduled runs the default export's scheduled handler. On the loop.
func (s *shard) workerScheduled(cron string, at time.Time, reply func(*jsapi.HTTPResponse, error)) {
	ctx := s.w.NewExecutionContext(nil)
	v, err := s.w.CallScheduled(cron, at, ctx)
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
}
