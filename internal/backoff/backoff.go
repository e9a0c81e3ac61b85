// Package backoff is the project's one retry back-off: the delay before
// the next attempt after failures consecutive failures, doubling from a
// first delay (bucket-protocol.md section 5's retry_delay_ms: tick *
// 2^min(failures-1, 6)), optionally capped, and a wait for it that ends
// with a context. fleet.RetryDelay (leases, sweeps) and the LTX log's
// uploads and ownership checks (ltxlog) use it.
package backoff

import (
	"context"
	"time"
)

// Delay is tick * 2^min(failures-1, 6): 1x, 2x, 4x, ... up to 64x the
// tick. failures < 1 counts as 1.
func Delay(tick time.Duration, failures int) time.Duration {
	return tick << min(max(failures, 1)-1, 6)
}

// Policy is a back-off that starts at First and doubles up to Max (0: up
// to 64x First).
type Policy struct {
	First, Max time.Duration
}

// Delay is the wait after failures consecutive failures.
func (p Policy) Delay(failures int) time.Duration {
	d := Delay(p.First, failures)
	if p.Max > 0 {
		d = min(d, p.Max)
	}
	return d
}

// Wait sleeps for the delay after failures consecutive failures, or until
// ctx ends; it reports whether the full delay passed.
func (p Policy) Wait(ctx context.Context, failures int) bool {
	return Sleep(ctx, p.Delay(failures))
}

// Sleep sleeps for d, or until ctx ends; it reports whether the full d
// passed.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
