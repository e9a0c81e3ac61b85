package host

import (
	"time"

	"github.com/cellhost/cellhost/jsapi"
)

// WithClock sets idle eviction's clock (Config option for tests).
func WithClock(now func() time.Time) func(*Config) {
	return func(c *Config) { c.clock = now }
}

// EvictIdle runs one idle-eviction pass on every shard, as the ticker
// does, waits for it, and returns how many objects it evicted.
func EvictIdle(h *Host) int {
	n := 0
	for _, s := range h.shards {
		done := make(chan int, 1)
		if !s.post(func() { done <- s.evictIdle() }) {
			continue
		}
		n += <-done
	}
	return n
}

// Pause blocks every shard's loop in a job of its own until resume is
// called: what is posted meanwhile runs in the loops' next batch.
func Pause(h *Host) (resume func()) {
	release := make(chan struct{})
	for _, s := range h.shards {
		running := make(chan struct{})
		if s.post(func() { close(running); <-release }) {
			<-running
		}
	}
	return func() { close(release) }
}

// FetchResult is the outcome of PostFetch.
type FetchResult struct {
	Resp *jsapi.HTTPResponse
	Err  error
}

// PostFetch posts a fetch of the object class/name to its shard before it
// returns (FetchObject posts from its caller's goroutine too, but then
// waits), and delivers the outcome on the channel.
func PostFetch(h *Host, class, name string, req *jsapi.HTTPRequest) <-chan FetchResult {
	ch := make(chan FetchResult, 1)
	c := h.cellFor(class, IDFromName(h.cfg.Script, class, name))
	c.s.post(func() {
		c.unref()
		c.fetch(name, req, func(resp *jsapi.HTTPResponse, err error) { ch <- FetchResult{resp, err} })
	})
	return ch
}
