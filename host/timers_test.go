package host_test

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

// reverseClock is a host.Clock whose zero-delay timers fire only when the
// test calls fireReverse, last set first: the worst order in which Go's
// timer goroutines could post them. Timers with a delay never fire.
type reverseClock struct {
	mu      sync.Mutex
	now     time.Time
	pending []func()
	added   chan struct{}
}

func (c *reverseClock) Now() time.Time { return c.now }

func (c *reverseClock) AfterFunc(d time.Duration, f func()) func() bool {
	if d > 0 {
		return func() bool { return true }
	}
	c.mu.Lock()
	c.pending = append(c.pending, f)
	c.mu.Unlock()
	c.added <- struct{}{}
	return func() bool { return false }
}

func (c *reverseClock) fireReverse() {
	c.mu.Lock()
	p := c.pending
	c.pending = nil
	c.mu.Unlock()
	for i := len(p) - 1; i >= 0; i-- {
		p[i]()
	}
}

const timerOrderJS = `
export class Counter {
  fetch(req) {
    return new Promise((resolve) => {
      const order = [];
      for (let i = 0; i < 5; i++) {
        setTimeout(() => {
          order.push(i);
          Promise.resolve().then(() => order.push("m" + i));
          if (i === 4) setTimeout(() => resolve(new Response(order.join())), 0);
        }, 0);
      }
    });
  }
}
export class Plain {}
export default {
  fetch(req, env) { return env.COUNTER.get(env.COUNTER.idFromName("a")).fetch(req); },
};
`

// Five setTimeout(f, 0) set in a row fire in the order set, each as a task
// of its own (the microtasks one queues run before the next timer), as in
// HTML and workerd, even when the clock reports their deadlines in the
// reverse order.
func TestHost_TimersWithEqualDeadlinesFireInOrderSet(t *testing.T) {
	clock := &reverseClock{now: time.Unix(1_800_000_000, 0), added: make(chan struct{}, 16)}
	h := newHostB(t, timerOrderJS, t.TempDir(), func(c *host.Config) { c.Clock = clock })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	type answer struct {
		code int
		body string
	}
	got := make(chan answer, 1)
	go func() {
		code, body := get(t, srv, "/")
		got <- answer{code, body}
	}()
	for range 5 {
		<-clock.added
	}
	clock.fireReverse()
	<-clock.added // the sixth timer, set by the fifth
	clock.fireReverse()
	a := <-got
	if want := "0,m0,1,m1,2,m2,3,m3,4,m4"; a.code != 200 || a.body != want {
		t.Fatalf("GET / = %d %q, want 200 %q", a.code, a.body, want)
	}
}
