package host

import (
	"time"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/jsapi"
)

// WithClock sets idle eviction's clock (Config option for tests).
func WithClock(now func() time.Time) func(*Config) {
	return func(c *Config) { c.clock = now }
}

// WithWorkerShard runs every worker request on shard i (Config option for
// tests).
func WithWorkerShard(i int) func(*Config) {
	return func(c *Config) { c.workerShard = i + 1 }
}

// WithLinger lets f set the output gate's group-commit policy's hooks
// (Sleep, Now) before the syncer starts (Config option for tests).
func WithLinger(f func(*queue.Linger)) func(*Config) {
	return func(c *Config) { c.linger = f }
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

// nopSocketConn is a jsapi.WebSocketConn that drops everything.
type nopSocketConn struct{}

func (nopSocketConn) Send(bool, []byte) {}
func (nopSocketConn) Close(int, string) {}
func (nopSocketConn) Accepted()         {}

// StoreSocketRow stores a hibernated-WebSocket row id in the open object
// class/name (committed with the job's turn); held also puts a socket of
// that id in the object's set, as a re-attached one.
func StoreSocketRow(h *Host, class, name, id string, held bool) error {
	c := h.cellFor(class, IDFromName(h.cfg.Script, class, name))
	done := make(chan error, 1)
	c.s.post(func() {
		c.unref()
		c.deliver(name, func() {
			c.touch()
			c.wrote = true
			err := c.db.PutWebSocket(id, []string{"t"}, nil)
			if err == nil && held {
				jsapi.RestoreWebSocket(c.webSocketSet(), id, []string{"t"}, nil, nopSocketConn{})
			}
			done <- err
		})
	})
	return <-done
}

// SweepSocketRows runs the stale-row GC of the object class/name now and
// returns how many rows it deleted and the ids left.
func SweepSocketRows(h *Host, class, name string) (int, []string, error) {
	c := h.cellFor(class, IDFromName(h.cfg.Script, class, name))
	type res struct {
		n    int
		left []string
		err  error
	}
	done := make(chan res, 1)
	c.s.post(func() {
		c.unref()
		c.deliver(name, func() {
			n := c.sweepSocketRows()
			left, err := c.db.WebSocketIDs()
			done <- res{n, left, err}
		})
	})
	r := <-done
	return r.n, r.left, r.err
}

// OpenDatabases reports how many cells have their database open (or
// opening), and how many are resident (park.go), asking every loop.
func OpenDatabases(h *Host) (open, resident int) {
	for _, s := range h.shards {
		ch := make(chan [2]int, 1)
		if s.post(func() { ch <- [2]int{s.open.n, s.nResident} }) {
			r := <-ch
			open += r[0]
			resident += r[1]
		}
	}
	return open, resident
}

// Parked reports how many databases were closed with their cell staying
// resident, and how many of those were opened again.
func Parked(h *Host) (parked, reopened int64) {
	return h.counted.parked.Load(), h.counted.reopened.Load()
}

// BodyBytesHeld is how much of the host-wide body budget requests hold.
func BodyBytesHeld(h *Host) int64 { return h.bodyBytes.Load() }

// SetBufferedBodyTimeout sets how long a buffered request body may take to
// arrive, until restore.
func SetBufferedBodyTimeout(d time.Duration) (restore func()) {
	old := bufferedBodyTimeout.Swap(int64(d))
	return func() { bufferedBodyTimeout.Store(old) }
}
