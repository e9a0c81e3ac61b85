package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/ownership"
)

type unsentErr struct{ unsent bool }

func (e unsentErr) Error() string { return fmt.Sprintf("forward failed (unsent %v)", e.unsent) }
func (e unsentErr) Unsent() bool  { return e.unsent }

func elsewhere(addr string) error {
	return &ownership.CellOwnedElsewhereError{Scope: "C:x", Owner: "node_" + addr, Addr: addr}
}

// TestRouted scripts the local attempts (here) and the forwards (there) of
// one request and checks which were made and what the caller gets: a
// forward that failed after it was sent is never sent again.
func TestRouted(t *testing.T) {
	tests := []struct {
		name   string
		cached string  // owner cache entry before the request
		here   []error // results of the local attempts, in order
		there  []error // results of the forwards, in order
		want   string  // the calls made: h = here, t<addr> = there
		result string  // "ok" or a substring of the error
	}{
		{"Local", "", []error{nil}, nil, "h", "ok"},
		{"LocalError", "", []error{errors.New("boom")}, nil, "h", "boom"},
		{"Forwarded", "", []error{elsewhere("b")}, []error{nil}, "h tb", "ok"},
		{"ObjectThrew", "", []error{elsewhere("b")}, []error{&httpmsg.ScriptError{Name: "Error", Message: "js"}}, "h tb", "js"},
		{"SentThenFailed", "", []error{elsewhere("b")}, []error{unsentErr{false}}, "h tb", "unsent false"},
		{"NotSentLookAgainTakeHere", "", []error{elsewhere("b"), nil}, []error{unsentErr{true}}, "h tb h", "ok"},
		{"NotOwnerLookAgain", "", []error{elsewhere("b"), elsewhere("c")}, []error{elsewhere("c"), nil}, "h tb h tc", "ok"},
		{"Unreachable", "", []error{elsewhere("b"), elsewhere("b"), elsewhere("b")}, []error{unsentErr{true}, unsentErr{true}, unsentErr{true}}, "h tb h tb h tb", "unsent true"},
		{"Cached", "b", nil, []error{nil}, "tb", "ok"},
		{"CachedStale", "b", []error{nil}, []error{unsentErr{true}}, "tb h", "ok"},
		{"CachedSentThenFailed", "b", nil, []error{unsentErr{false}}, "tb", "unsent false"},
		{"CachedNotOwner", "b", []error{elsewhere("c")}, []error{elsewhere("c"), nil}, "tb h tc", "ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &Placement{}
			if tt.cached != "" {
				p.owners.put("C:x", ownerRef{addr: tt.cached}, time.Now())
			}
			var calls []string
			here := func() (string, error) {
				calls = append(calls, "h")
				if len(tt.here) == 0 {
					t.Fatal("unexpected local attempt")
				}
				err := tt.here[0]
				tt.here = tt.here[1:]
				return "local", err
			}
			there := func(_ context.Context, addr string) (string, error) {
				calls = append(calls, "t"+addr)
				if len(tt.there) == 0 {
					t.Fatal("unexpected forward")
				}
				err := tt.there[0]
				tt.there = tt.there[1:]
				return "remote", err
			}
			_, err := routed(context.Background(), p, "C:x", here, there)
			checkRouted(t, calls, err, tt.want, tt.result)
		})
	}
}

func TestOwnerCache_Expires(t *testing.T) {
	var c ownerCache
	now := time.Unix(1000, 0)
	c.put("s", ownerRef{addr: "a:1"}, now)
	if o, ok := c.get("s", now.Add(ownerCacheTTL-time.Nanosecond)); !ok || o.addr != "a:1" {
		t.Errorf("get before the TTL = %q, %v", o.addr, ok)
	}
	if _, ok := c.get("s", now.Add(ownerCacheTTL)); ok {
		t.Error("get at the TTL found the entry")
	}
	c.forget("s", "b:1")
	if _, ok := c.get("s", now); !ok {
		t.Error("forget of another address dropped the entry")
	}
	c.forget("s", "a:1")
	if _, ok := c.get("s", now); ok {
		t.Error("forget kept the entry")
	}
}

// TestRouted_CacheOnlyAnswers: a forward that got no answer does not make
// its target the cached owner.
func TestRouted_CacheOnlyAnswers(t *testing.T) {
	p := &Placement{}
	owners := &p.owners
	_, _ = routed(context.Background(), p, "C:x", func() (int, error) { return 0, elsewhere("b") }, func(context.Context, string) (int, error) { return 0, unsentErr{false} })
	if _, ok := owners.get("C:x", time.Now()); ok {
		t.Error("a failed forward was cached")
	}
	_, _ = routed(context.Background(), p, "C:x", func() (int, error) { return 0, elsewhere("b") }, func(context.Context, string) (int, error) { return 0, nil })
	if o, ok := owners.get("C:x", time.Now()); !ok || o.addr != "b" {
		t.Errorf("an answered forward was not cached: %q %v", o.addr, ok)
	}
}

// TestOwnerCache_LeaseExpiry: a cached owner is not used past the lease
// expiry the look-up read, even within ownerCacheTTL.
func TestOwnerCache_LeaseExpiry(t *testing.T) {
	var c ownerCache
	now := time.Unix(1000, 0)
	c.put("s", ownerRef{addr: "a:1", node: "n", expiresMS: uint64(now.Add(100 * time.Millisecond).UnixMilli())}, now)
	if _, ok := c.get("s", now.Add(99*time.Millisecond)); !ok {
		t.Error("entry missing before the lease expiry")
	}
	if _, ok := c.get("s", now.Add(100*time.Millisecond)); ok {
		t.Error("entry used at the owner's lease expiry")
	}
}

// fakeLeases answers Placement.lease with a scripted lease per read.
type fakeLeases struct {
	reads chan struct{} // one send per read (buffered)
	recs  []ownership.NodeRecord
	live  []bool
}

func (f *fakeLeases) read(_ context.Context, node string) (ownership.NodeRecord, bool, error) {
	i := len(f.reads)
	f.reads <- struct{}{}
	if i >= len(f.recs) {
		i = len(f.recs) - 1
	}
	return f.recs[i], f.live[i], nil
}

// elsewhereUntil is an owner b whose lease, as read, expires at expiresMS.
func elsewhereUntil(expiresMS uint64) error {
	return &ownership.CellOwnedElsewhereError{Scope: "C:x", Owner: "node_b", Addr: "b", ExpiresMS: expiresMS}
}

// TestRouted_OwnerLease: a forward is bounded by the owner's lease. The
// lease in the look-up has already expired (an owner paused or dead), so
// the lease is read again at once: not live, the forward is cancelled.
// Sent: answered MaybeAppliedError, never re-sent. Not yet written: looked
// up again, and taken here. A lease renewed meanwhile lets the forward
// go on to its answer.
func TestRouted_OwnerLease(t *testing.T) {
	past := uint64(time.Now().Add(-time.Second).UnixMilli())
	for _, tt := range []struct {
		name    string
		written bool
		renewed bool
		want    string
		result  string
	}{
		{"SentMayHaveApplied", true, false, "h tb", httpmsg.MsgMaybeApplied},
		{"NotWrittenTakenHere", false, false, "h tb h", "ok"},
		{"RenewedAnswers", true, true, "h tb", "ok"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			leases := &fakeLeases{reads: make(chan struct{}, 16),
				recs: []ownership.NodeRecord{{Node: "node_b", ExpiresMS: past}}, live: []bool{false}}
			if tt.renewed {
				leases.recs = []ownership.NodeRecord{{Node: "node_b", ExpiresMS: uint64(time.Now().Add(time.Hour).UnixMilli())}}
				leases.live = []bool{true}
			}
			p := &Placement{lease: leases.read}
			heres := []error{elsewhereUntil(past), nil}
			var calls []string
			here := func() (int, error) {
				calls = append(calls, "h")
				err := heres[0]
				heres = heres[1:]
				return 0, err
			}
			there := func(ctx context.Context, addr string) (int, error) {
				calls = append(calls, "t"+addr)
				if tt.renewed {
					<-leases.reads // the watcher read the renewed lease: answer
					return 1, nil
				}
				<-ctx.Done() // the owner never answers
				return 0, unsentErr{!tt.written}
			}
			_, err := routed(context.Background(), p, "C:x", here, there)
			checkRouted(t, calls, err, tt.want, tt.result)
			var ma *httpmsg.MaybeAppliedError
			if tt.result == httpmsg.MsgMaybeApplied && !errors.As(err, &ma) {
				t.Errorf("err = %T, want *MaybeAppliedError", err)
			}
		})
	}
}

// checkRouted: routed made the calls want lists (space-separated) and
// ended in result: "ok" for no error, else a text the error contains.
func checkRouted(t *testing.T, calls []string, err error, want, result string) {
	t.Helper()
	if got := strings.Join(calls, " "); got != want {
		t.Errorf("calls = %q, want %q", got, want)
	}
	switch {
	case result == "ok" && err != nil:
		t.Errorf("err = %v, want nil", err)
	case result != "ok" && (err == nil || !strings.Contains(err.Error(), result)):
		t.Errorf("err = %v, want %q", err, result)
	}
}
