package host_test

import (
	"context"
	"net/http/httptest"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

// manualClock is a host.Clock whose timers fire only when the test moves
// it (in small steps, so that periodic passes run between timers).
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers map[int]*manualTimer
}

type manualTimer struct {
	at  time.Time
	seq int
	f   func()
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Unix(1_800_000_000, 0), timers: map[int]*manualTimer{}}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	id := c.seq
	c.timers[id] = &manualTimer{at: c.now.Add(d), seq: id, f: f}
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		_, ok := c.timers[id]
		delete(c.timers, id)
		return ok
	}
}

func (c *manualClock) Advance(d time.Duration) {
	for d > 0 {
		step := min(d, 250*time.Millisecond)
		d -= step
		c.mu.Lock()
		c.now = c.now.Add(step)
		var due []*manualTimer
		for id, t := range c.timers {
			if !t.at.After(c.now) {
				due = append(due, t)
				delete(c.timers, id)
			}
		}
		c.mu.Unlock()
		sort.Slice(due, func(i, j int) bool {
			return due[i].at.Before(due[j].at) || due[i].at.Equal(due[j].at) && due[i].seq < due[j].seq
		})
		for _, t := range due {
			t.f()
		}
	}
}

const instanceJS = `
export class Counter {
  constructor() { this.n = 0; }
  async fetch(req) {
    if (new URL(req.url).pathname.endsWith("/timer")) setTimeout(() => {}, 60000);
    this.n++;
    return new Response(String(this.n));
  }
}
export class Plain {}
export default {
  fetch(req, env) { return env.COUNTER.get(env.COUNTER.idFromName("a")).fetch(req); },
};
`

// An idle instance is dropped after InstanceIdleTimeout (workerd's 10 s),
// not while a timer it set is pending; the next event constructs a new
// one. The test moves the host's clock: nothing sleeps.
func TestHost_InstanceIdleEviction(t *testing.T) {
	clock := newManualClock()
	h := newHostB(t, instanceJS, t.TempDir(), func(c *host.Config) { c.Clock = clock })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	step := func(path, want string) {
		t.Helper()
		if code, body := get(t, srv, path); code != 200 || body != want {
			t.Fatalf("GET %s = %d %q, want 200 %q", path, code, body, want)
		}
	}
	step("/", "1")
	step("/", "2")
	clock.Advance(9 * time.Second)
	step("/", "3") // not idle long enough
	clock.Advance(11 * time.Second)
	step("/", "1") // a new instance
	step("/timer", "2")
	clock.Advance(30 * time.Second)
	step("/", "3") // the pending timer kept it
	clock.Advance(31 * time.Second)
	step("/", "1") // the timer fired: idle since
}
