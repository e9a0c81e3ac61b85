package ownership_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

var (
	ownKey = bucketkey.OwnKey(scope)
	ltxKey = func(epoch string) string {
		return bucketkey.LTXPrefix(scope) + "e" + epoch + "/0000/0000000000000001-0000000000000001.ltx"
	}
)

func TestNode_TryAcquire(t *testing.T) {
	ctx := context.Background()
	t.Run("Absent", func(t *testing.T) {
		s := memstore.New()
		n := newNode(t, s, nil, nodeA)
		l, err := n.TryAcquire(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		if l.Epoch != 1 || l.Scope != scope {
			t.Errorf("lease = %s at %d, want %s at 1", l.Scope, l.Epoch, scope)
		}
		if got, want := getString(t, s, ownKey), `{"node":"`+nodeA+`","epoch":1}`; got != want {
			t.Errorf("own.json = %s, want %s", got, want)
		}
		marker := "node-cells/" + nodeA + "/" + n.Generation() + "/" + scope
		if got := getString(t, s, marker); got != "" {
			t.Errorf("marker body = %q, want empty", got)
		}
		if err := l.Check(ctx); err != nil {
			t.Errorf("Check = %v", err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatalf("Release = %v", err)
		}
		if got, want := getString(t, s, ownKey), `{"node":"","epoch":1}`; got != want {
			t.Errorf("released own.json = %s, want %s", got, want)
		}
		if exists(t, s, marker) {
			t.Error("marker left after Release")
		}
		if err := l.Release(ctx); err != nil {
			t.Errorf("second Release = %v, want nil", err)
		}
		if err := l.Check(ctx); !errors.Is(err, ownership.ErrReleased) {
			t.Errorf("Check after Release = %v, want ErrReleased", err)
		}
		if closed(l.Lost) || l.Context().Err() != nil {
			t.Error("Release closed Lost or canceled Context")
		}
		// Released ("") → {me, epoch+1}.
		l2, err := n.TryAcquire(ctx, scope)
		if err != nil || l2.Epoch != 2 {
			t.Fatalf("re-acquire = %v, %v, want epoch 2", l2, err)
		}
	})
	t.Run("Me", func(t *testing.T) {
		// A record naming my node id (a previous process start) is mine.
		s := memstore.New()
		put(t, s, ownKey, `{"node":"`+nodeA+`","epoch":7}`)
		n := newNode(t, s, nil, nodeA)
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 8 {
			t.Fatalf("TryAcquire = %v, %v, want epoch 8", l, err)
		}
		if got, want := getString(t, s, ownKey), `{"node":"`+nodeA+`","epoch":8}`; got != want {
			t.Errorf("own.json = %s, want %s", got, want)
		}
	})
	deadOwners := []struct {
		name  string
		lease string // "" for none
	}{
		{"Expired", nodeRecord(nodeB, uint64(t0.UnixMilli()), "b:1")},
		{"Tombstone", nodeRecord(nodeB, 0, "b:1")},
		{"NoLease", ""},
		{"EmptyAddr", nodeRecord(nodeB, uint64(t0.UnixMilli())+60000, "")},
		{"NodeMismatch", nodeRecord(nodeC, uint64(t0.UnixMilli())+60000, "c:1")},
	}
	for _, tt := range deadOwners {
		t.Run("DeadOwner/"+tt.name, func(t *testing.T) {
			s := memstore.New()
			put(t, s, ownKey, `{"node":"`+nodeB+`","epoch":4}`)
			if tt.lease != "" {
				put(t, s, bucketkey.NodeKey(nodeB), tt.lease)
			}
			n := newNode(t, s, nil, nodeA)
			l, err := n.TryAcquire(ctx, scope)
			if err != nil || l.Epoch != 5 {
				t.Fatalf("TryAcquire = %v, %v, want epoch 5", l, err)
			}
			if got, want := getString(t, s, ownKey), `{"node":"`+nodeA+`","epoch":5}`; got != want {
				t.Errorf("own.json = %s, want %s", got, want)
			}
		})
	}
	// A bucket shared with celld: a live celld node (any id, a record with
	// celld's "log") owns the cell; it is refused, never taken, and taken
	// once that lease expired.
	t.Run("LiveCelldOwner", func(t *testing.T) {
		const celld = "node-1234"
		s := memstore.New()
		clock := newFakeClock()
		etag := put(t, s, ownKey, `{"node":"`+celld+`","epoch":9}`)
		rec := strings.Replace(nodeRecord(celld, uint64(t0.UnixMilli())+1, "10.0.0.9:8081"), `"addr"`, `"log":{"state":"open","epoch":9,"ensemble":[],"tiered":false,"active":true},"addr"`, 1)
		put(t, s, bucketkey.NodeKey(celld), rec)
		n := newNode(t, s, clock, nodeA)
		_, err := n.TryAcquire(ctx, scope)
		var oe *ownership.CellOwnedElsewhereError
		if !errors.As(err, &oe) || oe.Owner != celld || oe.Addr != "10.0.0.9:8081" {
			t.Fatalf("TryAcquire = %v, want *CellOwnedElsewhereError naming %s", err, celld)
		}
		if _, now, _ := s.Get(ctx, ownKey); now != etag {
			t.Error("own.json was written")
		}
		clock.Advance(time.Millisecond)
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 10 {
			t.Fatalf("after the celld lease expired: %v, %v; want epoch 10", l, err)
		}
	})
	t.Run("LiveOwner", func(t *testing.T) {
		s := memstore.New()
		clock := newFakeClock()
		etag := put(t, s, ownKey, `{"node":"`+nodeB+`","epoch":4}`)
		put(t, s, bucketkey.NodeKey(nodeB), nodeRecord(nodeB, uint64(t0.UnixMilli())+1, "10.0.0.2:8081"))
		n := newNode(t, s, clock, nodeA)
		_, err := n.TryAcquire(ctx, scope)
		var oe *ownership.CellOwnedElsewhereError
		if !errors.As(err, &oe) {
			t.Fatalf("TryAcquire = %v, want *CellOwnedElsewhereError", err)
		}
		if got, want := err.Error(), "Durable Object Counter/"+hexID+" is owned by another node"; got != want {
			t.Errorf("message = %q, want %q", got, want)
		}
		if oe.Owner != nodeB || oe.Addr != "10.0.0.2:8081" || oe.Epoch != 4 || oe.Scope != scope {
			t.Errorf("error = %+v", oe)
		}
		if _, now, _ := s.Get(ctx, ownKey); now != etag {
			t.Error("own.json was written")
		}
		if keys := listKeys(t, s, "node-cells/"); len(keys) != 0 {
			t.Errorf("markers %v", keys)
		}
		// Once the owner's lease expires (expires_ms <= now) the cell is taken over.
		clock.Advance(time.Millisecond)
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 5 {
			t.Fatalf("TryAcquire after expiry = %v, %v, want epoch 5", l, err)
		}
	})
	t.Run("InvalidScope", func(t *testing.T) {
		n := newNode(t, memstore.New(), nil, nodeA)
		for _, sc := range []string{"", "..", "a/b", strings.Repeat("x", 256)} {
			if _, err := n.TryAcquire(ctx, sc); !errors.Is(err, ownership.ErrInvalidScope) {
				t.Errorf("TryAcquire(%q) = %v, want ErrInvalidScope", sc, err)
			}
		}
	})
	t.Run("CorruptOwnRecord", func(t *testing.T) {
		s := memstore.New()
		etag := put(t, s, ownKey, `{"node":"`+nodeB+`","epoch":4`)
		n := newNode(t, s, nil, nodeA)
		_, err := n.TryAcquire(ctx, scope)
		var re *ownership.RecordError
		if !errors.As(err, &re) || re.Key != ownKey || !strings.Contains(err.Error(), ownKey) {
			t.Fatalf("TryAcquire = %v, want a *RecordError naming %s", err, ownKey)
		}
		if _, now, _ := s.Get(ctx, ownKey); now != etag {
			t.Error("corrupt own.json was overwritten")
		}
	})
	t.Run("CorruptOwnerLease", func(t *testing.T) {
		s := memstore.New()
		etag := put(t, s, ownKey, `{"node":"`+nodeB+`","epoch":4}`)
		put(t, s, bucketkey.NodeKey(nodeB), `{"node":`)
		n := newNode(t, s, nil, nodeA)
		_, err := n.TryAcquire(ctx, scope)
		var re *ownership.RecordError
		if !errors.As(err, &re) || re.Key != bucketkey.NodeKey(nodeB) {
			t.Fatalf("TryAcquire = %v, want a *RecordError naming %s", err, bucketkey.NodeKey(nodeB))
		}
		if _, now, _ := s.Get(ctx, ownKey); now != etag {
			t.Error("own.json was written")
		}
	})
	t.Run("Supersede", func(t *testing.T) {
		n := newNode(t, memstore.New(), nil, nodeA)
		l1, err := n.TryAcquire(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		l2, err := n.TryAcquire(ctx, scope)
		if err != nil || l2.Epoch != 2 {
			t.Fatalf("second TryAcquire = %v, %v", l2, err)
		}
		if !closed(l1.Lost) || closed(l2.Lost) {
			t.Errorf("Lost closed: %v %v, want true false", closed(l1.Lost), closed(l2.Lost))
		}
		if l1.Context().Err() == nil || l2.Context().Err() != nil {
			t.Errorf("Context canceled: %v %v, want the superseded lease's only", l1.Context().Err(), l2.Context().Err())
		}
		var lost *ownership.LeaseLostError
		if err := l1.Release(ctx); !errors.As(err, &lost) {
			t.Errorf("Release of the superseded lease = %v, want *LeaseLostError", err)
		}
		if err := l2.Check(ctx); err != nil {
			t.Errorf("Check of the new lease = %v", err)
		}
	})
}

func TestNode_TryAcquire_LostRecord(t *testing.T) {
	ctx := context.Background()
	m := newMockStore()
	clock := newFakeClock()
	for _, e := range []string{"2", "9", "10", "09", "0", "x"} {
		put(t, m.mem, ltxKey(e), "ltx")
	}
	put(t, m.mem, bucketkey.LTXPrefix(scope)+"e11", "not under e11/")
	put(t, m.mem, bucketkey.LTXPrefix(scope)+"junk/x", "junk")
	n := newNode(t, m, clock, nodeA)

	const want = `ownership record lost: cells/` + scope + `/own.json is missing, but the bucket holds LTX (newest epoch 10); write {"node": "", "epoch": 10} to repair`
	_, err := n.TryAcquire(ctx, scope)
	var le *ownership.LostRecordError
	if !errors.As(err, &le) || le.NewestEpoch != 10 || le.Scope != scope {
		t.Fatalf("TryAcquire = %v, want *LostRecordError at epoch 10", err)
	}
	if err.Error() != want {
		t.Errorf("message =\n%s\nwant\n%s", err, want)
	}
	if exists(t, m.mem, ownKey) {
		t.Error("own.json was created")
	}

	// Refused for 10 s without touching the bucket, even once repaired.
	put(t, m.mem, ownKey, `{"node": "", "epoch": 10}`)
	before := len(m.Calls())
	advanceRenewing(t, clock, ownership.LostRecordRefusal-time.Millisecond, n)
	if _, err := n.TryAcquire(ctx, scope); !errors.As(err, &le) {
		t.Errorf("TryAcquire within 10 s = %v, want the cached *LostRecordError", err)
	}
	for _, c := range m.Calls()[before:] {
		if strings.Contains(c, scope) {
			t.Errorf("the refused cell touched the bucket: %s", c)
		}
	}
	clock.Advance(time.Millisecond)
	l, err := n.TryAcquire(ctx, scope)
	if err != nil || l.Epoch != 11 {
		t.Fatalf("TryAcquire after the repair = %v, %v, want epoch 11", l, err)
	}
}

func TestNewestLTXEpoch(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		epochs []string
		want   uint64
		wantOK bool
	}{
		{"None", nil, 0, false},
		{"One", []string{"1"}, 1, true},
		{"Numeric", []string{"9", "10", "2"}, 10, true},
		{"Padded", []string{"010", "3"}, 3, true},
		{"OnlyJunk", []string{"0", "x", "-1"}, 0, false},
		{"Max", []string{"18446744073709551615", "7"}, 18446744073709551615, true},
		{"Overflow", []string{"18446744073709551616", "7"}, 7, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New()
			for _, e := range tt.epochs {
				for i := range 3 {
					put(t, s, bucketkey.LTXPrefix(scope)+"e"+e+"/000"+string(rune('0'+i))+"/x.ltx", "")
				}
			}
			put(t, s, bucketkey.LTXPrefix("Counter:other")+"e99/0000/x.ltx", "") // another cell
			got, ok, err := ownership.NewestLTXEpoch(ctx, s, scope)
			if err != nil || got != tt.want || ok != tt.wantOK {
				t.Errorf("NewestLTXEpoch = %d, %v, %v, want %d, %v", got, ok, err, tt.want, tt.wantOK)
			}
		})
	}
	t.Run("ListsOncePerEpoch", func(t *testing.T) {
		m := newMockStore()
		for _, e := range []string{"1", "2", "3"} {
			for i := range 50 {
				put(t, m.mem, bucketkey.LTXPrefix(scope)+"e"+e+"/0000/"+strings.Repeat("0", 15)+string(rune('a'+i%26))+string(rune('a'+i/26))+".ltx", "")
			}
		}
		if _, _, err := ownership.NewestLTXEpoch(ctx, m, scope); err != nil {
			t.Fatal(err)
		}
		if got := len(m.Calls()); got != 4 {
			t.Errorf("%d List calls, want 4 (one per epoch and the last, empty)", got)
		}
	})
}

func TestNode_TryAcquire_Rejected(t *testing.T) {
	ctx := context.Background()
	t.Run("RetryFromStep1", func(t *testing.T) {
		// Between my read and my CAS a live node B takes the cell: my CAS is
		// rejected, I read again and find B.
		m := newMockStore()
		clock := newFakeClock()
		put(t, m.mem, ownKey, `{"node":"","epoch":3}`)
		put(t, m.mem, bucketkey.NodeKey(nodeB), nodeRecord(nodeB, uint64(t0.UnixMilli())+60000, "b:1"))
		n := newNode(t, m, clock, nodeA)
		var once atomic.Bool
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey && once.CompareAndSwap(false, true) {
				put(t, m.mem, ownKey, `{"node":"`+nodeB+`","epoch":4}`)
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		_, err := n.TryAcquire(ctx, scope)
		var oe *ownership.CellOwnedElsewhereError
		if !errors.As(err, &oe) || oe.Epoch != 4 {
			t.Fatalf("TryAcquire = %v, want *CellOwnedElsewhereError at epoch 4", err)
		}
		if got := countCalls(m, "get "+ownKey); got != 2 {
			t.Errorf("%d reads of own.json, want 2", got)
		}
	})
	t.Run("CreateRace", func(t *testing.T) {
		// My create is rejected because B created it first; B then releases:
		// I read again and CAS {me, 2}.
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		var once atomic.Bool
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey && once.CompareAndSwap(false, true) {
				put(t, m.mem, ownKey, `{"node":"","epoch":1}`)
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 2 {
			t.Fatalf("TryAcquire = %v, %v, want epoch 2", l, err)
		}
	})
	t.Run("Endless", func(t *testing.T) {
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey {
				return "", plugins.ErrPreconditionFailed
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		if _, err := n.TryAcquire(ctx, scope); err == nil || !strings.Contains(err.Error(), "rejected in a row") {
			t.Fatalf("TryAcquire = %v, want a bounded retry", err)
		}
	})
}

func TestNode_TryAcquire_Ambiguous(t *testing.T) {
	ctx := context.Background()
	t.Run("LandedIsWon", func(t *testing.T) {
		m := newMockStore()
		put(t, m.mem, ownKey, `{"node":"","epoch":3}`)
		n := newNode(t, m, nil, nodeA)
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			etag, err := m.mem.Put(ctx, key, body, opts)
			if key == ownKey && err == nil {
				return "", errNetwork
			}
			return etag, err
		}
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 4 {
			t.Fatalf("TryAcquire = %v, %v, want epoch 4", l, err)
		}
		if got := countCalls(m, "put "+ownKey); got != 1 {
			t.Errorf("%d writes of own.json, want 1 (never retried blindly)", got)
		}
		m.PutFunc = nil
		if err := l.Check(ctx); err != nil {
			t.Errorf("Check = %v", err)
		}
	})
	t.Run("NotLandedThenWon", func(t *testing.T) {
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		var fails atomic.Int32
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey && fails.Add(1) <= 2 {
				return "", errNetwork
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		l, err := n.TryAcquire(ctx, scope)
		if err != nil || l.Epoch != 1 {
			t.Fatalf("TryAcquire = %v, %v, want epoch 1", l, err)
		}
	})
	t.Run("LandedForSomeoneElse", func(t *testing.T) {
		// The reconcile read shows another live node: not mine; step 1 again.
		m := newMockStore()
		put(t, m.mem, bucketkey.NodeKey(nodeB), nodeRecord(nodeB, uint64(t0.UnixMilli())+60000, "b:1"))
		n := newNode(t, m, nil, nodeA)
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey {
				put(t, m.mem, ownKey, `{"node":"`+nodeB+`","epoch":1}`)
				return "", errNetwork
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		var oe *ownership.CellOwnedElsewhereError
		if _, err := n.TryAcquire(ctx, scope); !errors.As(err, &oe) {
			t.Fatalf("TryAcquire = %v, want *CellOwnedElsewhereError", err)
		}
	})
	t.Run("ThreeFailedReconciles", func(t *testing.T) {
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey {
				return "", errNetwork
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		_, err := n.TryAcquire(ctx, scope)
		if !errors.Is(err, ownership.ErrUnresolved) || !strings.Contains(err.Error(), "after 3 reconciles") {
			t.Fatalf("TryAcquire = %v, want ErrUnresolved after 3 reconciles", err)
		}
		if got := countCalls(m, "put "+ownKey); got != 3 {
			t.Errorf("%d writes of own.json, want 3", got)
		}
	})
	t.Run("ReconcileReadFails", func(t *testing.T) {
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		var writes atomic.Int32
		m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
			if key == ownKey {
				writes.Add(1)
				return "", errNetwork
			}
			return m.mem.Put(ctx, key, body, opts)
		}
		m.GetFunc = func(ctx context.Context, key string) ([]byte, string, error) {
			if key == ownKey && writes.Load() > 0 {
				return nil, "", errNetwork
			}
			return m.mem.Get(ctx, key)
		}
		_, err := n.TryAcquire(ctx, scope)
		if err == nil {
			t.Fatal("TryAcquire succeeded")
		}
		m.GetFunc, m.PutFunc = nil, nil
	})
}

func TestNode_TryAcquire_MarkerFails(t *testing.T) {
	ctx := context.Background()
	m := newMockStore()
	n := newNode(t, m, nil, nodeA)
	m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
		if strings.HasPrefix(key, "node-cells/") {
			return "", errNetwork
		}
		return m.mem.Put(ctx, key, body, opts)
	}
	// A MarkerError, which the host answers 503 (Unavailable), never a
	// bare 500: the chaos suite saw a 500 when versitygw answered a marker
	// write 409 while dead-node GC deleted the markers beside it.
	_, err := n.TryAcquire(ctx, scope)
	var me *ownership.MarkerError
	if !errors.As(err, &me) || me.Scope != scope || !errors.Is(err, errNetwork) {
		t.Fatalf("TryAcquire = %v, want a MarkerError wrapping the store's error", err)
	}
	var u interface{ Unavailable() bool }
	if !errors.As(err, &u) || !u.Unavailable() {
		t.Errorf("%v is not Unavailable (the host would answer a bare 500)", err)
	}
	if want := "the request was not run"; !strings.Contains(err.Error(), want) {
		t.Errorf("message %q does not say %q", err, want)
	}
	if got, want := getString(t, m.mem, ownKey), `{"node":"","epoch":1}`; got != want {
		t.Errorf("own.json = %s, want the cell released: %s", got, want)
	}
}

func TestLease_Check(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		own     string // "" deletes own.json
		missing bool
	}{
		{"TakenOver", `{"node":"` + nodeB + `","epoch":2}`, false},
		{"OlderEpochMe", `{"node":"` + nodeA + `","epoch":7}`, false},
		{"Released", `{"node":"","epoch":1}`, false},
		{"Deleted", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := memstore.New()
			n := newNode(t, s, nil, nodeA)
			l, err := n.TryAcquire(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			if tt.own == "" {
				s.Delete(ctx, ownKey, "")
			} else {
				put(t, s, ownKey, tt.own)
			}
			err = l.Check(ctx)
			var lost *ownership.LeaseLostError
			if !errors.As(err, &lost) || lost.Missing != tt.missing || lost.Epoch != 1 {
				t.Fatalf("Check = %v, want *LeaseLostError", err)
			}
			if !closed(l.Lost) {
				t.Error("Lost not closed")
			}
			// Release leaves the other writer's record alone and removes my marker.
			if err := l.Release(ctx); tt.name == "Released" && err != nil || tt.name != "Released" && !errors.As(err, &lost) {
				t.Errorf("Release = %v, want *LeaseLostError (nil when already released)", err)
			}
			if tt.own != "" && getString(t, s, ownKey) != tt.own {
				t.Errorf("Release wrote own.json: %s", getString(t, s, ownKey))
			}
			if keys := listKeys(t, s, "node-cells/"); len(keys) != 0 {
				t.Errorf("markers %v after Release", keys)
			}
		})
	}
	t.Run("StoreError", func(t *testing.T) {
		m := newMockStore()
		n := newNode(t, m, nil, nodeA)
		l, err := n.TryAcquire(ctx, scope)
		if err != nil {
			t.Fatal(err)
		}
		m.GetFunc = func(context.Context, string) ([]byte, string, error) { return nil, "", errNetwork }
		if err := l.Check(ctx); !errors.Is(err, errNetwork) {
			t.Errorf("Check = %v, want the store error", err)
		}
		if closed(l.Lost) {
			t.Error("a failed read closed Lost")
		}
		m.GetFunc = nil
	})
}

func TestLease_Release_Ambiguous(t *testing.T) {
	ctx := context.Background()
	m := newMockStore()
	n := newNode(t, m, nil, nodeA)
	l, err := n.TryAcquire(ctx, scope)
	if err != nil {
		t.Fatal(err)
	}
	m.PutFunc = func(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
		etag, err := m.mem.Put(ctx, key, body, opts)
		if key == ownKey && err == nil {
			return "", errNetwork // landed
		}
		return etag, err
	}
	if err := l.Release(ctx); err != nil {
		t.Fatalf("Release = %v", err)
	}
	if got := getString(t, m.mem, ownKey); got != `{"node":"","epoch":1}` {
		t.Errorf("own.json = %s", got)
	}
	if got := countCalls(m, "put "+ownKey); got != 2 { // acquire + release
		t.Errorf("%d writes of own.json, want 2", got)
	}
	m.PutFunc = nil
}

// TestNode_TryAcquire_Race races several Nodes for one cell, round after
// round: the first round creates own.json, each later one takes it over
// from the previous winner, whose lease is made dead (a tombstone).
// Exactly one node wins each epoch.
func TestNode_TryAcquire_Race(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	clock := newFakeClock()
	const nodes = 6
	var ns []*ownership.Node
	for range nodes {
		ns = append(ns, newNode(t, s, clock, ""))
	}
	for round := range nodes - 1 {
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			winners []int
			leases  []*ownership.Lease
			start   = make(chan struct{})
		)
		for i, n := range ns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				l, err := n.TryAcquire(ctx, scope)
				var oe *ownership.CellOwnedElsewhereError
				switch {
				case err == nil:
					mu.Lock()
					winners, leases = append(winners, i), append(leases, l)
					mu.Unlock()
				case errors.As(err, &oe):
				default:
					t.Errorf("round %d node %d: %v", round, i, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d winners, want 1", round, len(winners))
		}
		w := ns[winners[0]]
		if got, want := leases[0].Epoch, uint64(round+1); got != want {
			t.Errorf("round %d: epoch %d, want %d", round, got, want)
		}
		if got, want := getString(t, s, ownKey), string(ownership.OwnRecord{Node: w.ID(), Epoch: uint64(round + 1)}.Encode()); got != want {
			t.Errorf("round %d: own.json = %s, want %s", round, got, want)
		}
		// The winner dies: its lease becomes a tombstone.
		put(t, s, bucketkey.NodeKey(w.ID()), nodeRecord(w.ID(), 0, "x:1"))
		ns = append(ns[:winners[0]], ns[winners[0]+1:]...)
	}
}

func countCalls(m *mockStore, call string) int {
	c := 0
	for _, x := range m.Calls() {
		if x == call {
			c++
		}
	}
	return c
}

func TestNode_TryAcquire_SameNodeConcurrent(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	n := newNode(t, s, nil, nodeA)
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		leases []*ownership.Lease
	)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := n.TryAcquire(ctx, scope)
			var lost *ownership.LeaseLostError
			switch {
			case err == nil:
				mu.Lock()
				leases = append(leases, l)
				mu.Unlock()
			case errors.As(err, &lost):
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	cur, err := ownership.DecodeOwnRecord(ownKey, []byte(getString(t, s, ownKey)))
	if err != nil {
		t.Fatal(err)
	}
	open := 0
	for _, l := range leases {
		if closed(l.Lost) {
			continue
		}
		open++
		if l.Epoch != cur.Epoch {
			t.Errorf("open lease at epoch %d, own.json at %d", l.Epoch, cur.Epoch)
		}
		if err := l.Check(ctx); err != nil {
			t.Errorf("Check = %v", err)
		}
	}
	if open != 1 {
		t.Errorf("%d open leases, want 1", open)
	}
}

// multiStore is a mockStore that is a plugins.MultiGetter: GetMany
// answers from the memory store and is recorded as "getmany <n keys>".
type multiStore struct{ *mockStore }

func (m multiStore) GetMany(ctx context.Context, keys []string) []plugins.GetResult {
	m.record("getmany", strconv.Itoa(len(keys)))
	out := make([]plugins.GetResult, len(keys))
	for i, k := range keys {
		out[i].Body, out[i].ETag, out[i].Err = m.mem.Get(ctx, k)
	}
	return out
}

// TestCheckAll checks that CheckAll gives each lease what Check gives it
// (held, taken over, released, own.json deleted), reading own.json of the
// leases that may still acknowledge in one GetMany when the store has it,
// and with one Get each otherwise.
func TestCheckAll(t *testing.T) {
	ctx := context.Background()
	for _, multi := range []bool{false, true} {
		t.Run(fmt.Sprintf("multi=%v", multi), func(t *testing.T) {
			ms := newMockStore()
			var s ownership.Store = ms
			if multi {
				s = multiStore{ms}
			}
			n := newNode(t, s, nil, nodeA)
			var leases []*ownership.Lease
			var keys []string
			for i := range 5 {
				sc := fmt.Sprintf("Counter:%064x", i+1)
				l, err := n.TryAcquire(ctx, sc)
				if err != nil {
					t.Fatal(err)
				}
				leases = append(leases, l)
				keys = append(keys, bucketkey.OwnKey(sc))
			}
			put(t, ms.mem, keys[2], `{"node":"`+nodeB+`","epoch":2}`) // taken over
			if err := leases[3].Release(ctx); err != nil {
				t.Fatal(err)
			}
			if err := ms.mem.Delete(ctx, keys[4], ""); err != nil {
				t.Fatal(err)
			}
			before := len(ms.Calls())
			errs := ownership.CheckAll(ctx, leases)
			var lost *ownership.LeaseLostError
			if errs[0] != nil || errs[1] != nil {
				t.Errorf("CheckAll() of held leases = %v, %v, want nil", errs[0], errs[1])
			}
			if !errors.As(errs[2], &lost) || lost.Missing || lost.Found.Node != nodeB || !closed(leases[2].Lost) {
				t.Errorf("CheckAll() of a lease taken over = %v, want *LeaseLostError naming %s, Lost closed", errs[2], nodeB)
			}
			if !errors.Is(errs[3], ownership.ErrReleased) {
				t.Errorf("CheckAll() of a released lease = %v, want ErrReleased", errs[3])
			}
			if !errors.As(errs[4], &lost) || !lost.Missing {
				t.Errorf("CheckAll() of a deleted own.json = %v, want *LeaseLostError{Missing}", errs[4])
			}
			calls := ms.Calls()[before:]
			sort.Strings(calls)
			want := []string{"get " + keys[0], "get " + keys[1], "get " + keys[2], "get " + keys[4]}
			if multi {
				want = []string{"getmany 4"}
			}
			if !reflect.DeepEqual(calls, want) {
				t.Errorf("CheckAll() read %q, want %q", calls, want)
			}
		})
	}
}

// TestTryAcquire_TakeoverReadsTheOwnersLeaseEarly: after TryAcquire found a
// live other owner, the next TryAcquire of the cell (the takeover once that
// lease expired: a failed forward waits for the expiry, then looks up
// again) reads the owner's lease together with own.json, not after it: one
// bucket round trip less between the expiry and the object answering again
// (issue 31: S3 recovery). The store here answers own.json only once the
// owner's lease is being read: read one after the other, the takeover
// waits for its context to end.
func TestTryAcquire_TakeoverReadsTheOwnersLeaseEarly(t *testing.T) {
	ctx := context.Background()
	m := newMockStore()
	clock := newFakeClock()
	ownKey := bucketkey.OwnKey(scope)
	put(t, m.mem, ownKey, `{"node":"`+nodeB+`","epoch":4}`)
	put(t, m.mem, bucketkey.NodeKey(nodeB), nodeRecord(nodeB, uint64(t0.UnixMilli())+1, "10.0.0.2:8081"))
	n := newNode(t, m, clock, nodeA)
	var oe *ownership.CellOwnedElsewhereError
	if _, err := n.TryAcquire(ctx, scope); !errors.As(err, &oe) {
		t.Fatalf("TryAcquire = %v, want *CellOwnedElsewhereError", err)
	}
	clock.Advance(time.Millisecond) // nodeB's lease expires

	leaseAsked := make(chan struct{})
	var once sync.Once
	m.GetFunc = func(ctx context.Context, key string) ([]byte, string, error) {
		switch key {
		case bucketkey.NodeKey(nodeB):
			once.Do(func() { close(leaseAsked) })
		case ownKey:
			select {
			case <-leaseAsked:
			case <-ctx.Done():
				return nil, "", ctx.Err()
			}
		}
		return m.mem.Get(ctx, key)
	}
	tctx, cancel := context.WithTimeout(ctx, 30*time.Second) // bounds the old code's wait, not a timing
	defer cancel()
	l, err := n.TryAcquire(tctx, scope)
	if err != nil {
		t.Fatalf("takeover: %v (own.json read before the owner's lease?)", err)
	}
	if l.Epoch != 5 {
		t.Errorf("epoch %d, want 5", l.Epoch)
	}
	// A cell nobody else owned reads no lease early.
	m.GetFunc = nil
	before := len(m.Calls())
	const other = "Counter:2182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"
	if _, err := n.TryAcquire(ctx, other); err != nil {
		t.Fatal(err)
	}
	for _, c := range m.Calls()[before:] {
		if strings.HasPrefix(c, "get nodes/") {
			t.Errorf("acquiring a free cell read a lease: %v", m.Calls()[before:])
		}
	}
}
