package fleet

import (
	"time"

	"github.com/cellhost/cellhost/internal/backoff"
)

// RetryDelay is retry_delay_ms(tick, failures) of bucket-protocol.md
// section 5: tick * 2^min(failures-1, 6), so 1x, 2x, 4x, ... up to 64x the
// tick. failures < 1 counts as 1. It is the project's one back-off
// (internal/backoff, which the LTX log's retries use too).
func RetryDelay(tick time.Duration, failures int) time.Duration {
	return backoff.Delay(tick, failures)
}

// Jittered adds jitter to d: d + frac*d/2, where frac in [0, 1) comes from
// the caller's random source. Concurrent standbys that lost one race thus
// spread their next attempts over half a back-off step.
func Jittered(d time.Duration, frac float64) time.Duration {
	if frac < 0 || frac >= 1 {
		frac = 0
	}
	return d + time.Duration(frac*float64(d)/2)
}

// ForwardStage is how far a forwarded request got before it ended.
type ForwardStage int

const (
	// StageNotSent: the request never fully reached the peer (no
	// connection, or its write failed). The peer cannot have run it.
	StageNotSent ForwardStage = iota
	// StageSent: the request was written but no authenticated answer came
	// back (the connection broke, the peer died, the answer was forged or
	// garbled). The peer may have run it.
	StageSent
	// StageNotOwner: the peer answered that it does not own the object
	// (and did not run it).
	StageNotOwner
	// StageAnswered: the peer answered (a response, or the object's error).
	StageAnswered
)

// MayResend reports whether a forward that ended at stage may be sent
// again (to the owner looked up again): only when the peer cannot have run
// it. Requests are not idempotent, so a forward that failed after it was
// sent is reported to the caller, never retried.
func MayResend(stage ForwardStage) bool {
	return stage == StageNotSent || stage == StageNotOwner
}

// MaxForwardRounds bounds how often one request is looked up and sent
// again (after StageNotSent or StageNotOwner) before the caller gets
// "owner unreachable".
const MaxForwardRounds = 3

// ClockOK reports whether a peer request stamped at sentMS may be accepted
// at nowMS: within skew either way (the replay window; nonces are
// remembered for as long).
func ClockOK(sentMS, nowMS int64, skew time.Duration) bool {
	d := nowMS - sentMS
	if d < 0 {
		d = -d
	}
	return d <= skew.Milliseconds()
}
