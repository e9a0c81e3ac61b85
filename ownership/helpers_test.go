package ownership_test

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeClock is a Clock that moves only when told. Advance moves the wall
// and the monotonic clock together; StepWall moves only the wall clock (an
// NTP step). Due timers run in their own goroutines, as time.AfterFunc's.
type fakeClock struct {
	mu     sync.Mutex
	wall   time.Time
	mono   time.Duration
	timers []*fakeTimer
	fired  sync.WaitGroup // due timers' functions still running
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Duration
	f     func()
	state int // 0 pending, 1 fired, 2 stopped
}

// t0 is the fake wall clock's start: 1787000000000 ms, as in the spec.
var t0 = time.UnixMilli(1787000000000)

func newFakeClock() *fakeClock { return &fakeClock{wall: t0, mono: time.Hour} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wall
}

func (c *fakeClock) Monotonic() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mono
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) ownership.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.mono + d, f: f}
	if d <= 0 {
		t.state = 1
		go f()
		return t
	}
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	if t.state != 0 {
		return false
	}
	t.state = 2
	return true
}

// Advance moves both clocks by d and fires the timers that became due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.mono += d
	c.wall = c.wall.Add(d)
	var due []*fakeTimer
	kept := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.state != 0:
		case t.at <= c.mono:
			t.state = 1
			due = append(due, t)
		default:
			kept = append(kept, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	c.fired.Add(len(due))
	for _, t := range due {
		go func() {
			defer c.fired.Done()
			t.f()
		}()
	}
}

// Jump moves both clocks by d without running the timers that became
// due: a process resumed after a pause (SIGSTOP, a long GC stop), whose
// other goroutines run before its timers do. The next Advance (Advance(0)
// will do) runs them.
func (c *fakeClock) Jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.mono += d
	c.wall = c.wall.Add(d)
}

// Settle waits for the functions of the timers fired so far to return.
func (c *fakeClock) Settle() { c.fired.Wait() }

// pendingWithin reports whether a timer is pending that is due within d.
func (c *fakeClock) pendingWithin(d time.Duration) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.timers {
		if t.state == 0 && t.at <= c.mono+d {
			return true
		}
	}
	return false
}

// StepWall moves only the wall clock.
func (c *fakeClock) StepWall(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wall = c.wall.Add(d)
}

// mockStore is a function-field mock: each nil field delegates to the
// memory store underneath.
type mockStore struct {
	mem        *memstore.Store
	GetFunc    func(ctx context.Context, key string) ([]byte, string, error)
	PutFunc    func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error)
	DeleteFunc func(ctx context.Context, key, ifMatch string) error
	ListFunc   func(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error)

	mu    sync.Mutex
	calls []string // "get key", "put key", ...
}

func newMockStore() *mockStore { return &mockStore{mem: memstore.New()} }

func (m *mockStore) record(op, key string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, op+" "+key)
}

func (m *mockStore) Calls() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.calls...)
}

func (m *mockStore) Get(ctx context.Context, key string) ([]byte, string, error) {
	m.record("get", key)
	if m.GetFunc != nil {
		return m.GetFunc(ctx, key)
	}
	return m.mem.Get(ctx, key)
}

func (m *mockStore) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	m.record("put", key)
	if m.PutFunc != nil {
		return m.PutFunc(ctx, key, body, opts)
	}
	return m.mem.Put(ctx, key, body, opts)
}

func (m *mockStore) Delete(ctx context.Context, key, ifMatch string) error {
	m.record("delete", key)
	if m.DeleteFunc != nil {
		return m.DeleteFunc(ctx, key, ifMatch)
	}
	return m.mem.Delete(ctx, key, ifMatch)
}

func (m *mockStore) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	m.record("list", prefix)
	if m.ListFunc != nil {
		return m.ListFunc(ctx, prefix, startAfter, limit)
	}
	return m.mem.List(ctx, prefix, startAfter, limit)
}

var _ ownership.Store = (*mockStore)(nil)

// errNetwork is an ambiguous store error.
var errNetwork = errors.New("connection reset by peer")

const (
	nodeA  = "node_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	nodeB  = "node_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	nodeC  = "node_cccccccccccccccccccccccccccccccc"
	hexID  = "1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"
	scope  = "Counter:" + hexID
	ttl    = 9 * time.Second
	margin = 2 * time.Second
)

// testLog is a Node's logger writing to the test's log.
func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// newNode starts a Node on store with the fake clock (a fresh one when clock
// is nil) and closes it when the test ends.
func newNode(t *testing.T, store ownership.Store, clock *fakeClock, id string) *ownership.Node {
	t.Helper()
	n := newUnstartedNode(t, store, clock, id)
	if err := n.Start(context.Background()); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return n
}

func newUnstartedNode(t *testing.T, store ownership.Store, clock *fakeClock, id string) *ownership.Node {
	t.Helper()
	if clock == nil {
		clock = newFakeClock()
	}
	n, err := ownership.New(ownership.Config{
		Store:       store,
		NodeID:      id,
		TTL:         ttl,
		FenceMargin: margin,
		Clock:       clock,
		Log:         testLog(t),
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		if err := n.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return n
}

// advanceRenewing advances clock by d in steps of ttl/3, waiting after each
// full step for every node's renewal at that time to land, so that a long
// advance does not fence nodes whose renewals would have kept up.
func advanceRenewing(t *testing.T, clock *fakeClock, d time.Duration, nodes ...*ownership.Node) {
	t.Helper()
	for ; d >= ttl/3; d -= ttl / 3 {
		clock.Advance(ttl / 3)
		want := uint64(clock.Now().UnixMilli() + ttl.Milliseconds())
		for _, n := range nodes {
			waitFor(t, "a renewal", func() bool { return n.ExpiresMS() == want })
		}
	}
	clock.Advance(d)
}

// waitFor polls cond until it holds, failing the test after 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func getString(t *testing.T, s ownership.Store, key string) string {
	t.Helper()
	body, _, err := s.Get(context.Background(), key)
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	return string(body)
}

func put(t *testing.T, s ownership.Store, key, body string) string {
	t.Helper()
	etag, err := s.Put(context.Background(), key, []byte(body), plugins.PutOptions{})
	if err != nil {
		t.Fatalf("Put(%s): %v", key, err)
	}
	return etag
}

func exists(t *testing.T, s ownership.Store, key string) bool {
	t.Helper()
	_, _, err := s.Get(context.Background(), key)
	if errors.Is(err, plugins.ErrNotFound) {
		return false
	}
	if err != nil {
		t.Fatalf("Get(%s): %v", key, err)
	}
	return true
}

// nodeRecord returns a lease body for node expiring at expiresMS.
func nodeRecord(node string, expiresMS uint64, addr string) string {
	return string(ownership.NodeRecord{
		Node:                     node,
		ExpiresMS:                expiresMS,
		Addr:                     addr,
		ProbePublicKey:           "0000000000000000000000000000000000000000000000000000000000000000",
		PeerProtocol:             2,
		OwnershipIndexGeneration: "1111111111111111111111111111111111111111111111111111111111111111",
		Load:                     ownership.UnattractiveLoad(),
	}.Encode())
}
