package ownership_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func newRejoiningNode(t *testing.T, store ownership.Store, clock *fakeClock) *ownership.Node {
	t.Helper()
	n, err := ownership.New(ownership.Config{
		Store: store, NodeID: nodeA, TTL: ttl, FenceMargin: margin, Clock: clock, Log: testLog(t), Rejoin: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close(context.Background()) })
	return n
}

// advanceUntil advances the clock a step at a time until cond holds (the
// node's timers run in goroutines of their own), failing after 5 s.
func advanceUntil(t *testing.T, clock *fakeClock, step time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		clock.Advance(step)
		time.Sleep(time.Millisecond)
	}
}

// TestNode_RejoinAfterOutage: a bucket that refuses every call (down, or
// its disk full) fences the node: its cells are lost and nothing is
// acknowledged. When the bucket answers again the node takes a new lease
// under a new generation, without a restart, and takes cells again at new
// epochs; a lease from before the fence stays lost.
func TestNode_RejoinAfterOutage(t *testing.T) {
	for _, fault := range []faultstore.Fault{
		{Fail: true, Err: syscall.ENOSPC, Ops: []faultstore.Op{faultstore.OpPut}}, // a full disk: reads work
		{Fail: true}, // down: every call fails
		{Hang: true}, // hung: every call blocks
	} {
		name := "Fail"
		switch {
		case fault.Hang:
			name = "Hang"
		case fault.Err != nil:
			name = "Full"
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store := faultstore.Wrap(memstore.New())
			clock := newFakeClock()
			n := newRejoiningNode(t, store, clock)
			gen := n.Generation()
			old, err := n.TryAcquire(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			outage := store.Inject(fault)
			advanceUntil(t, clock, ttl/3, "the fence", n.Fenced)
			if !closed(old.Lost) || n.CanAck() {
				t.Fatalf("fenced node: Lost closed %v, CanAck %v", closed(old.Lost), n.CanAck())
			}
			if _, err := n.TryAcquire(ctx, scope); !errors.Is(err, ownership.ErrFenced) {
				t.Fatalf("TryAcquire while fenced = %v, want ErrFenced", err)
			}
			// Still down: it stays fenced however long it tries.
			for range 5 {
				clock.Advance(ttl)
			}
			if !n.Fenced() {
				t.Fatal("the node rejoined while the bucket was down")
			}
			rejoined := n.Rejoined()
			// The rejoin's lease write, seen by a fault that only watches.
			write := store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpPut}, Prefix: bucketkey.NodeKey(nodeA)})
			outage.Remove()
			advanceUntil(t, clock, ttl/10, "the rejoin's lease write", func() bool { return closed(write.Hit()) || closed(rejoined) })
			<-rejoined // no more time passes: the new lease is fresh
			if n.Fenced() || !n.CanAck() || n.Err() != nil || closed(n.Done()) {
				t.Fatalf("rejoined node: Fenced %v, CanAck %v, Err %v, Done closed %v", n.Fenced(), n.CanAck(), n.Err(), closed(n.Done()))
			}
			if n.Generation() == gen {
				t.Fatal("the rejoined node kept its generation")
			}
			rec, err := ownership.DecodeNodeRecord(bucketkey.NodeKey(nodeA), []byte(getString(t, store, bucketkey.NodeKey(nodeA))))
			if err != nil || rec.OwnershipIndexGeneration != n.Generation() {
				t.Fatalf("lease record %+v, %v: want generation %s", rec, err, n.Generation())
			}
			l, err := n.TryAcquire(ctx, scope)
			if err != nil || l.Epoch != old.Epoch+1 {
				t.Fatalf("TryAcquire after the rejoin = %+v, %v; want epoch %d", l, err, old.Epoch+1)
			}
			if err := l.Check(ctx); err != nil {
				t.Fatalf("Check of the new lease = %v", err)
			}
			if err := old.Check(ctx); err == nil {
				t.Fatal("a lease from before the fence passed Check after the rejoin")
			}
			if !exists(t, store, bucketkey.MarkerKey(nodeA, n.Generation(), scope)) {
				t.Fatal("no marker under the new generation")
			}
			// Renewals go on.
			advanceRenewing(t, clock, ttl, n)
			if !n.CanAck() {
				t.Fatal("CanAck false after renewals")
			}
		})
	}
}

// TestNode_NoRejoinAfterOtherWriter: a node whose record another writer
// changed (a second process with its id) never rejoins.
func TestNode_NoRejoinAfterOtherWriter(t *testing.T) {
	store := memstore.New()
	clock := newFakeClock()
	n := newRejoiningNode(t, store, clock)
	put(t, store, bucketkey.NodeKey(nodeA), nodeRecord(nodeA, uint64(clock.Now().Add(time.Hour).UnixMilli()), "y:1"))
	advanceUntil(t, clock, ttl/3, "the fence", n.Fenced)
	for range 5 {
		clock.Advance(ttl)
	}
	if !n.Fenced() {
		t.Fatal("rejoined over another writer's record")
	}
}

var _ plugins.ObjectStore = (*faultstore.Store)(nil)
