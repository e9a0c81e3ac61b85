package host

import (
	"time"
)

// Clock is the time of a Host's timers: JS timers (setTimeout,
// setInterval, scheduler.wait), alarm and blockConcurrencyWhile timers,
// and instance and cell idle eviction. Config.Clock nil is the real clock;
// tests pass a clock they move (no test sleeps). AfterFunc runs f on a
// goroutine of the clock's (or, for a test clock, inside the call that
// moves it); stop reports whether it stopped f before it ran. Safe from
// any goroutine.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// DefaultInstanceIdleTimeout is Config.InstanceIdleTimeout when zero:
// workerd drops an idle Durable Object instance after 10 s.
const DefaultInstanceIdleTimeout = 10 * time.Second

// instanceSweeps is how many idle-instance passes run per
// InstanceIdleTimeout: an idle instance goes within a tenth of it late.
const instanceSweeps = 10

// sweepInstances posts an idle-instance pass to every shard each
// InstanceIdleTimeout/instanceSweeps on the host's clock, until Close.
func (h *Host) sweepInstances() {
	period := h.cfg.InstanceIdleTimeout / instanceSweeps
	var tick func()
	tick = func() {
		select {
		case <-h.stop:
			return
		default:
		}
		h.releaseMemory() // what the last ticks' passes freed
		for _, s := range h.shards {
			s.post(s.evictIdleInstances)
		}
		h.clock.AfterFunc(period, tick)
	}
	h.clock.AfterFunc(period, tick)
}

// evictIdleInstances drops the instances idle for InstanceIdleTimeout,
// and closes the databases of the cells left without one (park.go). On
// the loop.
func (s *shard) evictIdleInstances() {
	cutoff := s.h.now().Add(-s.h.cfg.InstanceIdleTimeout)
	for c := s.cells.tail; c != nil; c = c.byUse.prev {
		if !c.lastActive.Before(cutoff) {
			break // the rest are more recent
		}
		if c.instanceEvictable() {
			c.evictInstance()
		}
		c.parkIdle()
	}
	s.trimOpen(0)
}

// instanceEvictable reports whether the cell's instance may go while the
// cell stays: nothing runs, waits or is held for it (events, gates,
// transactions, timers, alarms, a WebSocket it did not accept for
// hibernation). Hibernatable WebSockets stay connected without it. On the
// loop.
func (c *cell) instanceEvictable() bool {
	switch {
	case c.inst == nil, c.db == nil, c.opening, c.inflight > 0, len(c.waiting) > 0, c.blocked > 0, c.dirty:
		return false
	case c.timers > 0, c.alarmRunning, c.synced != c.committed, c.backingUp:
		return false
	case c.keepAlive != nil && c.keepAlive():
		return false
	}
	return true
}

// evictInstance drops the instance (its next event constructs a new one);
// the database and the cell's lease stay until the cell is idle for
// IdleTimeout. On the loop.
func (c *cell) evictInstance() {
	c.s.w.ReleaseOwner(c.inst)
	c.inst = nil
	c.gen++
	c.timers = 0
}
