package ownership_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func TestNew(t *testing.T) {
	s := memstore.New()
	tests := []struct {
		name string
		cfg  ownership.Config
		want string
	}{
		{"NoStore", ownership.Config{}, "no store"},
		{"BadNodeID", ownership.Config{Store: s, NodeID: "n1"}, "invalid node id"},
		{"MarginTooBig", ownership.Config{Store: s, TTL: 3 * time.Second, FenceMargin: 2 * time.Second}, "fence margin"},
		{"NegativeMargin", ownership.Config{Store: s, FenceMargin: -1}, "fence margin"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ownership.New(tt.cfg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	t.Run("Defaults", func(t *testing.T) {
		m := newMockStore()
		n, err := ownership.New(ownership.Config{Store: m})
		if err != nil {
			t.Fatal(err)
		}
		if err := ownership.ValidateNodeID(n.ID()); err != nil {
			t.Error(err)
		}
		if len(n.Generation()) != 64 {
			t.Errorf("Generation() = %q", n.Generation())
		}
		if calls := m.Calls(); len(calls) != 0 {
			t.Errorf("New called the store: %v", calls)
		}
		if n.CanAck() || n.Fenced() {
			t.Errorf("unstarted node: CanAck %v, Fenced %v, want false, false", n.CanAck(), n.Fenced())
		}
		if _, err := n.TryAcquire(context.Background(), scope); !errors.Is(err, ownership.ErrNotStarted) {
			t.Errorf("TryAcquire before Start = %v, want ErrNotStarted", err)
		}
		if err := n.Close(context.Background()); err != nil {
			t.Errorf("Close of an unstarted node = %v", err)
		}
		if err := n.Start(context.Background()); !errors.Is(err, ownership.ErrClosed) {
			t.Errorf("Start after Close = %v, want ErrClosed", err)
		}
	})
}

func TestNode_Start(t *testing.T) {
	s := memstore.New()
	clock := newFakeClock()
	n := newNode(t, s, clock, nodeA)
	body := getString(t, s, bucketkey.NodeKey(nodeA))
	rec, err := ownership.DecodeNodeRecord(bucketkey.NodeKey(nodeA), []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	want := ownership.NodeRecord{
		Node:                     nodeA,
		ExpiresMS:                uint64(t0.UnixMilli()) + uint64(ttl.Milliseconds()),
		Addr:                     nodeA + ".cellhost.invalid:9",
		ProbePublicKey:           rec.ProbePublicKey,
		PeerProtocol:             2,
		OwnershipIndexGeneration: n.Generation(),
		Load:                     ownership.UnattractiveLoad(),
	}
	if got, want := body, string(want.Encode()); got != want {
		t.Errorf("lease =\n%s\nwant\n%s", got, want)
	}
	wantPrefix := `{"node":"` + nodeA + `","expires_ms":1787000009000,"addr":"` + nodeA + `.cellhost.invalid:9","probe_public_key":"`
	if !strings.HasPrefix(body, wantPrefix) || !strings.HasSuffix(body, `"load":{"sampled_ms":0,"resident_cells":0,"host_websockets":0,"rss_bytes":1,"in_use_bytes":null,"cpu_percent_x100":0,"open_fds":0,"fd_limit":0,"pressured":true,"shed_cells":0,"restoring":0}}`) {
		t.Errorf("lease = %s", body)
	}
	if !rec.Live(bucketkey.NodeKey(nodeA), clock.Now()) {
		t.Error("lease is not live")
	}
	if !n.CanAck() || n.Fenced() || n.Err() != nil {
		t.Errorf("CanAck %v, Fenced %v, Err %v, want true, false, nil", n.CanAck(), n.Fenced(), n.Err())
	}
	if err := n.Start(context.Background()); err == nil {
		t.Error("second Start succeeded")
	}
	if keys := listKeys(t, s, "probe/"); len(keys) != 0 {
		t.Errorf("probe left %v", keys)
	}
}

func TestNode_Start_ProbeFault(t *testing.T) {
	m := newMockStore()
	m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
		opts.IfNoneMatch = false // a store that ignores If-None-Match
		return m.mem.Put(ctx, key, body, opts)
	}
	n, err := ownership.New(ownership.Config{Store: m, NodeID: nodeA, Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	err = n.Start(context.Background())
	var fault *ownership.StoreFaultError
	if !errors.As(err, &fault) || !strings.Contains(err.Error(), "the object store is at fault") {
		t.Fatalf("Start = %v, want a *StoreFaultError", err)
	}
	if exists(t, m.mem, bucketkey.NodeKey(nodeA)) {
		t.Error("a lease was written on a faulty store")
	}
}

func TestNode_Renew(t *testing.T) {
	m := newMockStore()
	clock := newFakeClock()
	n := newNode(t, m, clock, nodeA)
	key := bucketkey.NodeKey(nodeA)
	_, etag0, _ := m.mem.Get(context.Background(), key)

	var ifMatch atomic.Value
	m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
		if k == key {
			ifMatch.Store(opts.IfMatch)
		}
		return m.mem.Put(ctx, k, body, opts)
	}
	before := len(m.Calls())
	clock.Advance(ttl / 3)
	waitFor(t, "a renewal", func() bool { return ifMatch.Load() != nil })
	waitFor(t, "the renewal to land", func() bool { return n.ExpiresMS() == uint64(t0.UnixMilli()+(ttl/3+ttl).Milliseconds()) })
	if !strings.Contains(getString(t, m.mem, key), `"expires_ms":`+strconv.FormatInt(t0.UnixMilli()+(ttl/3+ttl).Milliseconds(), 10)) {
		t.Errorf("lease = %s", getString(t, m.mem, key))
	}
	if got := ifMatch.Load().(string); got != etag0 {
		t.Errorf("renewal If-Match = %q, want the etag of the first write %q", got, etag0)
	}
	if calls := m.Calls()[before:]; len(calls) != 1 || calls[0] != "put "+key {
		t.Errorf("renewal calls = %v, want one put and no read", calls)
	}
	// The fence point moved with the renewal: at the old one the node still acks.
	clock.Advance(ttl - margin - ttl/3)
	if !n.CanAck() {
		t.Error("CanAck false after a renewal")
	}
}

func TestNode_Renew_Rejected(t *testing.T) {
	t.Run("AnotherWriter", func(t *testing.T) {
		s := memstore.New()
		clock := newFakeClock()
		n := newNode(t, s, clock, nodeA)
		l, err := n.TryAcquire(context.Background(), scope)
		if err != nil {
			t.Fatal(err)
		}
		put(t, s, bucketkey.NodeKey(nodeA), nodeRecord(nodeA, 1, "x:1")) // e.g. dead-node GC's tombstone
		clock.Advance(ttl / 3)
		waitFor(t, "fencing", n.Fenced)
		assertFenced(t, n, l)
	})
	t.Run("Mock412", func(t *testing.T) {
		m := newMockStore()
		clock := newFakeClock()
		n := newNode(t, m, clock, nodeA)
		l, err := n.TryAcquire(context.Background(), scope)
		if err != nil {
			t.Fatal(err)
		}
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == bucketkey.NodeKey(nodeA) {
				return "", plugins.ErrPreconditionFailed
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		clock.Advance(ttl / 3)
		waitFor(t, "fencing", n.Fenced)
		assertFenced(t, n, l)
		// A fenced node never renews again: its loop is parked on its
		// retry timer; the timer fires and its wake-up is delivered
		// (Settle) before Close joins the loop, so a renewal it made
		// would be among the calls.
		waitFor(t, "the retry timer", func() bool { return clock.pendingWithin(ttl / 10) })
		before := len(m.Calls())
		clock.Advance(ttl)
		clock.Settle()
		if err := n.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		for _, c := range m.Calls()[before:] {
			if c == "put "+bucketkey.NodeKey(nodeA) {
				t.Errorf("fenced node renewed: %v", c)
			}
		}
	})
	t.Run("Deleted", func(t *testing.T) {
		s := memstore.New()
		clock := newFakeClock()
		n := newNode(t, s, clock, nodeA)
		if err := s.Delete(context.Background(), bucketkey.NodeKey(nodeA), ""); err != nil {
			t.Fatal(err)
		}
		clock.Advance(ttl / 3)
		waitFor(t, "fencing", n.Fenced)
	})
}

func assertFenced(t *testing.T, n *ownership.Node, l *ownership.Lease) {
	t.Helper()
	if !closed(l.Lost) {
		t.Error("Lost not closed")
	}
	if n.CanAck() {
		t.Error("CanAck true on a fenced node")
	}
	if !closed(n.Done()) {
		t.Error("Done not closed")
	}
	if !errors.Is(n.Err(), ownership.ErrFenced) {
		t.Errorf("Err() = %v, want ErrFenced", n.Err())
	}
	err := l.Check(context.Background())
	var fe *ownership.FencedError
	if !errors.As(err, &fe) || err.Error() != scope+": this node's lease has lapsed; the write is refused" {
		t.Errorf("Check = %v, want the self-fencing error", err)
	}
	if _, err := n.TryAcquire(context.Background(), "C:other"); !errors.Is(err, ownership.ErrFenced) {
		t.Errorf("TryAcquire on a fenced node = %v, want ErrFenced", err)
	}
}

func TestNode_Renew_Ambiguous(t *testing.T) {
	key := bucketkey.NodeKey(nodeA)
	t.Run("Landed", func(t *testing.T) {
		m := newMockStore()
		clock := newFakeClock()
		n := newNode(t, m, clock, nodeA)
		var once atomic.Bool
		m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
			etag, err := m.mem.Put(ctx, k, body, opts)
			if k == key && err == nil && once.CompareAndSwap(false, true) {
				return "", errNetwork // it landed, but the reply was lost
			}
			return etag, err
		}
		clock.Advance(ttl / 3)
		waitFor(t, "the ambiguous write", once.Load)
		// The read-back adopts the write's etag: the next renewal is not rejected.
		clock.Advance(ttl / 3)
		waitFor(t, "the next renewal", func() bool { return n.ExpiresMS() == uint64(t0.UnixMilli()+(2*ttl/3+ttl).Milliseconds()) })
		if n.Fenced() {
			t.Errorf("fenced after an ambiguous renewal that landed: %v", n.Err())
		}
		clock.Advance(ttl - margin - time.Millisecond) // from the second renewal's anchor
		if !n.CanAck() {
			t.Error("CanAck false")
		}
	})
	t.Run("NotLanded", func(t *testing.T) {
		m := newMockStore()
		clock := newFakeClock()
		n := newNode(t, m, clock, nodeA)
		var fails atomic.Int32
		m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
			if k == key && fails.Add(1) == 1 {
				return "", errNetwork // did not land
			}
			return m.mem.Put(ctx, k, body, opts)
		}
		clock.Advance(ttl / 3)
		waitFor(t, "the failed renewal", func() bool { return fails.Load() >= 1 })
		clock.Advance(ttl / 10) // the retry
		waitFor(t, "the retried renewal", func() bool { return fails.Load() >= 2 })
		waitFor(t, "the retry to land", func() bool { return n.ExpiresMS() == uint64(t0.UnixMilli()+(ttl/3+ttl/10+ttl).Milliseconds()) })
		if n.Fenced() {
			t.Errorf("fenced: %v", n.Err())
		}
	})
	t.Run("LandedLate", func(t *testing.T) {
		// The write times out, the read-back finds the old record, and
		// the store applies the write afterwards (a queued write, an S3
		// request applied after the client gave up): the retry's
		// If-Match is rejected by my own write. The node adopts it
		// instead of fencing.
		m := newMockStore()
		clock := newFakeClock()
		n := newNode(t, m, clock, nodeA)
		var puts atomic.Int32
		var held struct {
			body []byte
			opts plugins.PutOptions
		}
		m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
			if k != key {
				return m.mem.Put(ctx, k, body, opts)
			}
			switch puts.Add(1) {
			case 1:
				held.body, held.opts = body, opts
				return "", errNetwork // not applied yet
			case 2:
				if _, err := m.mem.Put(ctx, k, held.body, held.opts); err != nil { // it lands now
					t.Errorf("the late write: %v", err)
				}
			}
			return m.mem.Put(ctx, k, body, opts)
		}
		clock.Advance(ttl / 3)
		waitFor(t, "the ambiguous write", func() bool { return puts.Load() >= 1 })
		clock.Advance(ttl / 10) // the retry: rejected by the late write, adopted
		waitFor(t, "the late write adopted", func() bool { return n.ExpiresMS() == uint64(t0.UnixMilli()+(ttl/3+ttl).Milliseconds()) })
		clock.Advance(ttl / 10) // the next retry lands on the adopted etag
		waitFor(t, "the next renewal", func() bool { return n.ExpiresMS() == uint64(t0.UnixMilli()+(ttl/3+2*ttl/10+ttl).Milliseconds()) })
		if n.Fenced() {
			t.Errorf("fenced by its own late write: %v", n.Err())
		}
	})
	t.Run("OtherWriter", func(t *testing.T) {
		m := newMockStore()
		clock := newFakeClock()
		n := newNode(t, m, clock, nodeA)
		m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
			if k == key {
				// Someone else wrote the record; my write's outcome is unknown.
				m.mem.Put(ctx, k, []byte(nodeRecord(nodeA, 5, "y:1")), plugins.PutOptions{})
				return "", errNetwork
			}
			return m.mem.Put(ctx, k, body, opts)
		}
		clock.Advance(ttl / 3)
		waitFor(t, "fencing", n.Fenced)
	})
}

func TestNode_SelfFencing(t *testing.T) {
	m := newMockStore()
	clock := newFakeClock()
	n := newNode(t, m, clock, nodeA)
	l, err := n.TryAcquire(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	// The bucket becomes unreachable: renewals and reads all fail.
	var attempts atomic.Int32
	m.PutFunc = func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
		attempts.Add(1)
		return "", errNetwork
	}
	m.GetFunc = func(context.Context, string) ([]byte, string, error) {
		attempts.Add(1) // a read-back of the unresolved renewal
		return nil, "", errNetwork
	}
	t.Cleanup(func() {
		if err := n.Close(context.Background()); err == nil {
			t.Error("Close succeeded on an unreachable bucket")
		}
	})

	// A wall-clock step does not move the fence point either way.
	clock.StepWall(time.Hour)
	if !n.CanAck() {
		t.Error("a wall clock step forward fenced the node")
	}
	clock.StepWall(-2 * time.Hour)

	clock.Advance(ttl / 3)
	waitFor(t, "a failed renewal and its read-back", func() bool { return attempts.Load() >= 2 })
	for i := range 3 {
		clock.Advance(ttl / 10)
		waitFor(t, "another read-back", func() bool { return attempts.Load() >= int32(i+3) })
	}
	if !n.CanAck() || closed(l.Lost) {
		t.Fatalf("fenced early: CanAck %v, Lost closed %v", n.CanAck(), closed(l.Lost))
	}
	// Just before the fence point (ttl - margin after the last landed write).
	clock.Advance(ttl - margin - ttl/3 - 3*ttl/10 - time.Millisecond)
	if !n.CanAck() {
		t.Fatal("CanAck false before the fence point")
	}
	clock.Advance(time.Millisecond)
	if n.CanAck() {
		t.Error("CanAck true at the fence point")
	}
	waitFor(t, "the deadline timer to close Lost", func() bool { return closed(l.Lost) })
	if !n.Fenced() {
		t.Error("not Fenced after the deadline")
	}
	var fe *ownership.FencedError
	if err := l.Check(context.Background()); !errors.As(err, &fe) {
		t.Errorf("Check = %v, want *FencedError", err)
	}
}

// TestNode_RenewalLandingAfterDeadline pins the rule of commit e78c53e: a
// renewal that lands after the lease's fence point fences the node, exactly
// as the deadline timer would, instead of extending the lease. The race it
// closes: a process paused mid-renewal (SIGSTOP past the TTL) resumes, its
// renewal's write completes before its deadline timer runs, and an extended
// lease would let it answer from instances whose cells another node took
// over meanwhile (a stale read in TestChaos). The fake clock's Jump moves
// time past the fence point without running the deadline timer, and the
// store holds the renewal's write until then.
func TestNode_RenewalLandingAfterDeadline(t *testing.T) {
	m := newMockStore()
	clock := newFakeClock()
	n := newNode(t, m, clock, nodeA)
	l, err := n.TryAcquire(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	key := bucketkey.NodeKey(nodeA)
	entered, release := make(chan struct{}), make(chan struct{})
	var once atomic.Bool
	m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
		if k == key && once.CompareAndSwap(false, true) {
			close(entered)
			select { // held until the clock has passed the fence point
			case <-release:
			case <-ctx.Done():
				return "", ctx.Err()
			}
		}
		return m.mem.Put(ctx, k, body, opts)
	}
	expires0 := n.ExpiresMS()

	clock.Advance(ttl / 3) // the renewal starts and its write is held
	<-entered
	// The process is paused, and resumes past the fence point (ttl - margin
	// after the first write) but before the renewal's own (ttl - margin
	// after it started): its deadline timer has not run yet.
	clock.Jump(ttl - margin - ttl/3 + time.Second)
	if n.CanAck() {
		t.Fatal("CanAck true past the fence point")
	}
	close(release) // the renewal's write lands now, late
	waitFor(t, "the late renewal to be handled", func() bool { return n.Fenced() || n.ExpiresMS() != expires0 })

	if !n.Fenced() {
		t.Fatalf("a renewal that landed after the deadline extended the lease (expires_ms %d -> %d, CanAck %v)", expires0, n.ExpiresMS(), n.CanAck())
	}
	if n.CanAck() {
		t.Error("CanAck true after the late renewal")
	}
	if got := n.ExpiresMS(); got != expires0 {
		t.Errorf("ExpiresMS = %d, want %d (the late renewal must not count)", got, expires0)
	}
	var fe *ownership.FencedError
	if err := n.Err(); !errors.As(err, &fe) || !strings.Contains(fe.Reason, "after the deadline") {
		t.Errorf("Err = %v, want a *FencedError naming the renewal that landed after the deadline", err)
	}
	if !closed(l.Lost) {
		t.Error("the cell's Lost is open after the fence")
	}
	// The deadline timer, run at last, changes nothing.
	clock.Advance(0)
	clock.Settle()
	if n.CanAck() || !n.Fenced() {
		t.Error("the node acks again after its deadline timer ran")
	}
}

// TestNode_SameNodeID documents section 4's rule that a configured node id
// is a singleton: a second Node with the same id CASes over the lease, the
// first fences at its next renewal (412) and loses its cells, and the second
// treats the first's cells as its own (epoch + 1).
func TestNode_SameNodeID(t *testing.T) {
	s := memstore.New()
	clock := newFakeClock()
	first := newNode(t, s, clock, nodeA)
	l1, err := first.TryAcquire(context.Background(), scope)
	if err != nil {
		t.Fatal(err)
	}
	second := newNode(t, s, clock, nodeA)
	if got := getString(t, s, bucketkey.NodeKey(nodeA)); !strings.Contains(got, second.Generation()) {
		t.Errorf("lease = %s, want the second node's generation", got)
	}
	l2, err := second.TryAcquire(context.Background(), scope)
	if err != nil {
		t.Fatalf("second TryAcquire: %v", err)
	}
	if l2.Epoch != l1.Epoch+1 {
		t.Errorf("second epoch = %d, want %d", l2.Epoch, l1.Epoch+1)
	}
	var lost *ownership.LeaseLostError
	if err := l1.Check(context.Background()); !errors.As(err, &lost) {
		t.Errorf("first Check = %v, want *LeaseLostError", err)
	}
	clock.Advance(ttl / 3)
	waitFor(t, "the first node to fence", first.Fenced)
	if second.Fenced() {
		t.Error("the second node fenced")
	}
	if !closed(l1.Lost) || closed(l2.Lost) {
		t.Errorf("Lost closed: first %v, second %v, want true, false", closed(l1.Lost), closed(l2.Lost))
	}
	// The first Close leaves the second's lease and cell alone.
	if err := first.Close(context.Background()); err != nil {
		t.Errorf("first Close: %v", err)
	}
	if got := getString(t, s, bucketkey.OwnKey(scope)); got != `{"node":"`+nodeA+`","epoch":2}` {
		t.Errorf("own.json = %s after the first Close", got)
	}
	if !exists(t, s, bucketkey.NodeKey(nodeA)) {
		t.Error("the first Close deleted the second's lease")
	}
	if err := l2.Check(context.Background()); err != nil {
		t.Errorf("second Check = %v", err)
	}
}

func TestNode_Close(t *testing.T) {
	s := memstore.New()
	clock := newFakeClock()
	n := newNode(t, s, clock, nodeA)
	ctx := context.Background()
	l1, err := n.TryAcquire(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, bucketkey.OwnKey("C:2"), `{"node":"","epoch":41}`)
	l2, err := n.TryAcquire(ctx, "C:2")
	if err != nil {
		t.Fatal(err)
	}
	l3, err := n.TryAcquire(ctx, "C:3")
	if err != nil {
		t.Fatal(err)
	}
	if err := l3.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := n.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	for sc, want := range map[string]string{scope: `{"node":"","epoch":1}`, "C:2": `{"node":"","epoch":42}`, "C:3": `{"node":"","epoch":1}`} {
		if got := getString(t, s, bucketkey.OwnKey(sc)); got != want {
			t.Errorf("%s own.json = %s, want %s", sc, got, want)
		}
	}
	if keys := listKeys(t, s, ""); strings.Join(keys, " ") != "cells/C:2/own.json cells/C:3/own.json cells/"+scope+"/own.json" {
		t.Errorf("bucket after Close = %v, want only the released own.json records", keys)
	}
	if !closed(l1.Lost) || !closed(l2.Lost) || closed(l3.Lost) {
		t.Errorf("Lost closed: %v %v %v, want true true false (Close released the first two)", closed(l1.Lost), closed(l2.Lost), closed(l3.Lost))
	}
	if n.CanAck() || !errors.Is(n.Err(), ownership.ErrClosed) {
		t.Errorf("after Close: CanAck %v, Err %v", n.CanAck(), n.Err())
	}
	if _, err := n.TryAcquire(ctx, "C:4"); !errors.Is(err, ownership.ErrClosed) {
		t.Errorf("TryAcquire after Close = %v, want ErrClosed", err)
	}
	if err := n.Close(ctx); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

func TestNode_Close_LeaseTakenOver(t *testing.T) {
	s := memstore.New()
	clock := newFakeClock()
	n := newNode(t, s, clock, nodeA)
	if _, err := n.TryAcquire(context.Background(), scope); err != nil {
		t.Fatal(err)
	}
	other := nodeRecord(nodeA, 99, "other:1")
	put(t, s, bucketkey.NodeKey(nodeA), other)
	put(t, s, bucketkey.OwnKey(scope), `{"node":"`+nodeB+`","epoch":2}`)
	if err := n.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := getString(t, s, bucketkey.NodeKey(nodeA)); got != other {
		t.Errorf("lease = %s, want the other writer's record left in place", got)
	}
	if got := getString(t, s, bucketkey.OwnKey(scope)); got != `{"node":"`+nodeB+`","epoch":2}` {
		t.Errorf("own.json = %s, want the new owner's record untouched", got)
	}
}

func TestNode_Close_WhileRenewing(t *testing.T) {
	// Close cancels a renewal in flight; its outcome is read back before
	// the conditional delete.
	m := newMockStore()
	clock := newFakeClock()
	n := newNode(t, m, clock, nodeA)
	key := bucketkey.NodeKey(nodeA)
	entered := make(chan struct{})
	m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
		if k != key {
			return m.mem.Put(ctx, k, body, opts)
		}
		if _, err := m.mem.Put(ctx, k, body, opts); err != nil { // lands
			t.Errorf("renewal: %v", err)
		}
		close(entered)
		<-ctx.Done()
		return "", ctx.Err()
	}
	clock.Advance(ttl / 3)
	<-entered
	if err := n.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if exists(t, m.mem, key) {
		t.Error("lease not deleted")
	}
}

func listKeys(t *testing.T, s ownership.Store, prefix string) []string {
	t.Helper()
	var keys []string
	after := ""
	for {
		page, err := s.List(context.Background(), prefix, after, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if page.NextStartAfter == "" {
			return keys
		}
		after = page.NextStartAfter
	}
}

// TestNode_RenewEvery: with RenewEvery set, the first renewal comes that
// long after the last landed write, not TTL/3; a value above TTL/3 is
// capped at TTL/3.
func TestNode_RenewEvery(t *testing.T) {
	for _, tt := range []struct{ every, want time.Duration }{
		{ttl / 5, ttl / 5},
		{ttl, ttl / 3},
	} {
		s := memstore.New()
		clock := newFakeClock()
		n, err := ownership.New(ownership.Config{Store: s, NodeID: nodeA, TTL: ttl, FenceMargin: margin, Clock: clock, SkipProbe: true, RenewEvery: tt.every})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		clock.Advance(tt.want - time.Millisecond)
		if got := n.ExpiresMS(); got != uint64(t0.Add(ttl).UnixMilli()) {
			t.Errorf("RenewEvery %v: renewed before %v (expires %d)", tt.every, tt.want, got)
		}
		clock.Advance(time.Millisecond)
		want := uint64(t0.Add(tt.want + ttl).UnixMilli())
		waitFor(t, "the renewal", func() bool { return n.ExpiresMS() == want })
		n.Close(context.Background())
	}
}

// newHedgingNode starts a Node like newNode with Config.HedgeAfter.
func newHedgingNode(t *testing.T, store ownership.Store, clock *fakeClock, hedgeAfter time.Duration) *ownership.Node {
	t.Helper()
	n, err := ownership.New(ownership.Config{Store: store, NodeID: nodeA, TTL: ttl, FenceMargin: margin, Clock: clock, Log: testLog(t), HedgeAfter: hedgeAfter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close(context.Background()) })
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestNode_Renew_SlowStore: a store where one request stalls (a queued S3
// request, a stalled connection, a starved process: issue 31's healthy
// fences at load 15). The renewal's first write hangs past the fence
// point. With HedgeAfter a second write, sent beside it, lands and the
// node keeps its lease; without it the same store fences the node.
func TestNode_Renew_SlowStore(t *testing.T) {
	for _, hedge := range []time.Duration{0, time.Second} {
		t.Run(fmt.Sprint("hedge=", hedge), func(t *testing.T) {
			m := newMockStore()
			clock := newFakeClock()
			n := newHedgingNode(t, m, clock, hedge)
			key := bucketkey.NodeKey(nodeA)
			stalled := make(chan struct{})
			var calls atomic.Int32
			m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
				if k == key && calls.Add(1) == 1 {
					close(stalled)
					<-ctx.Done() // the slow request: never answers
					return "", ctx.Err()
				}
				return m.mem.Put(ctx, k, body, opts)
			}
			expires0 := n.ExpiresMS()
			clock.Advance(ttl / 3)
			<-stalled
			if hedge == 0 {
				// Nothing else is sent: the fence point passes with the
				// write in flight.
				clock.Advance(ttl - margin - ttl/3)
				waitFor(t, "the deadline to fence the node", n.Fenced)
				if calls.Load() != 1 {
					t.Errorf("%d renewal writes without hedging, want 1", calls.Load())
				}
				return
			}
			clock.Advance(hedge) // the second write goes out beside the stalled one
			want := uint64(t0.UnixMilli() + (ttl/3 + hedge + ttl).Milliseconds())
			waitFor(t, "the second write to land", func() bool { return n.ExpiresMS() != expires0 || n.Fenced() })
			if got := n.ExpiresMS(); got != want {
				t.Fatalf("ExpiresMS = %d, want %d (the second write's stamp)", got, want)
			}
			// Past the first write's fence point, the node still acks.
			clock.Advance(ttl - margin - ttl/3 - hedge)
			clock.Settle()
			if !n.CanAck() || n.Fenced() {
				t.Errorf("CanAck %v, Fenced %v past the old fence point although the second write landed", n.CanAck(), n.Fenced())
			}
		})
	}
}

// TestNode_Renew_SiblingLandedUnheard: the stalled first write lands in the
// store but its answer is lost; the second write, sent beside it with the
// same If-Match, is rejected. The rejection is the node's own write, not
// another writer: the node reads the record back, adopts its own write and
// keeps its lease.
func TestNode_Renew_SiblingLandedUnheard(t *testing.T) {
	m := newMockStore()
	clock := newFakeClock()
	n := newHedgingNode(t, m, clock, time.Second)
	key := bucketkey.NodeKey(nodeA)
	stalled, apply, applied := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	m.PutFunc = func(ctx context.Context, k string, body []byte, opts plugins.PutOptions) (string, error) {
		if k != key {
			return m.mem.Put(ctx, k, body, opts)
		}
		switch calls.Add(1) {
		case 1:
			close(stalled)
			<-apply
			_, err := m.mem.Put(ctx, k, body, opts)
			close(applied)
			if err != nil {
				t.Errorf("first write: %v", err)
			}
			return "", errNetwork // landed, the answer lost
		case 2:
			close(apply)
			<-applied
		}
		return m.mem.Put(ctx, k, body, opts)
	}
	clock.Advance(ttl / 3)
	<-stalled
	clock.Advance(time.Second)
	want := uint64(t0.UnixMilli() + (ttl/3 + ttl).Milliseconds()) // the first write's
	// (Once adopted, the node renews again at once: ExpiresMS may be that
	// renewal's.)
	waitFor(t, "the renewal to settle", func() bool { return n.ExpiresMS() >= want || n.Fenced() })
	if n.Fenced() {
		t.Fatalf("fenced on its own write: %v", n.Err())
	}
	if got := calls.Load(); got < 2 {
		t.Errorf("%d writes, want 2 or more", got)
	}
	clock.Advance(ttl - margin - ttl/3 - time.Second + time.Millisecond)
	clock.Settle()
	if !n.CanAck() {
		t.Error("CanAck false although the first write landed")
	}
}
