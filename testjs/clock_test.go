package testjs

import (
	"sort"
	"sync"
	"time"
)

// skewClock is a host.Clock that runs with real time and jumps ahead when
// the test moves it: a replay's sleep step advances it instead of
// sleeping, firing the timers that fall due on the way (in order, in
// small steps so that periodic passes run in between).
type skewClock struct {
	mu     sync.Mutex
	skew   time.Duration
	timers map[*skewTimer]struct{}
}

type skewTimer struct {
	at    time.Time
	once  sync.Once
	real  *time.Timer
	fired bool
	f     func()
}

func newSkewClock() *skewClock { return &skewClock{timers: map[*skewTimer]struct{}{}} }

func (c *skewClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skew)
}

// claim reports whether this call is the one that fires (or stops) t.
func (t *skewTimer) claim() bool {
	won := false
	t.once.Do(func() { won = true })
	return won
}

func (c *skewClock) AfterFunc(d time.Duration, f func()) func() bool {
	t := &skewTimer{at: c.Now().Add(d)}
	t.f = func() {
		if t.claim() {
			c.mu.Lock()
			delete(c.timers, t)
			c.mu.Unlock()
			f()
		}
	}
	// The real timer is set before Advance can see t (it stops t.real).
	c.mu.Lock()
	t.real = time.AfterFunc(d, t.f)
	c.timers[t] = struct{}{}
	c.mu.Unlock()
	return func() bool {
		t.real.Stop()
		if !t.claim() {
			return false
		}
		c.mu.Lock()
		delete(c.timers, t)
		c.mu.Unlock()
		return true
	}
}

// advanceStep bounds one jump of Advance.
const advanceStep = 250 * time.Millisecond

// Advance moves the clock d ahead and fires the timers due on the way.
func (c *skewClock) Advance(d time.Duration) {
	for d > 0 {
		step := min(d, advanceStep)
		d -= step
		c.mu.Lock()
		c.skew += step
		now := time.Now().Add(c.skew)
		var due []*skewTimer
		for t := range c.timers {
			if !t.at.After(now) {
				due = append(due, t)
			}
		}
		c.mu.Unlock()
		sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
		for _, t := range due {
			t.real.Stop()
			t.f()
		}
	}
}
