package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
)

// TestWake_FailoverSweep: the waker's GC pass takes over every cell of a
// dead node (from its markers) before deleting their markers; a cell a
// live node owns or that is no cell of the application is skipped; a cell
// that fails to activate keeps its own marker (the others' are deleted)
// until a later pass succeeds, and the node's record waits for it.
func TestWake_FailoverSweep(t *testing.T) {
	s, clock := gcFixture(t)
	w, err := NewWake(WakeConfig{Store: s, Node: liveB, Clock: clock, FailoverSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	failing := true
	fw := &fakeWaker{err: func(scope string) error {
		switch {
		case scope == "C:001":
			return &ownership.CellOwnedElsewhereError{Scope: scope, Owner: liveB}
		case scope == "C:002":
			return fmt.Errorf("wake %s: %w", scope, notACellErr{})
		case scope == "C:003" && failing:
			return errors.New("injected: restore failed")
		}
		return nil
	}}
	w.local = fw
	if err := w.gc.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	if got := listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA)); len(got) != 1 || !strings.HasSuffix(got[0], "/C:003") {
		t.Fatalf("after a failed take-over dead node A keeps markers %v, want the failed cell's only", got)
	}
	if !exists(s, bucketkey.NodeKey(deadA)) {
		t.Fatal("dead node A's record was retired while one of its cells waits")
	}
	var swept []string
	for _, sc := range fw.scopes {
		if len(sc) == len("C:000") {
			swept = append(swept, sc)
		}
	}
	sort.Strings(swept)
	if len(swept) != 100 || swept[0] != "C:000" || swept[99] != "C:099" {
		t.Fatalf("woken %d of A's cells (%v...), want its 100", len(swept), swept[:min(3, len(swept))])
	}
	// 97 of A's (one owned elsewhere, one no cell, one failed) and the
	// dead celld node's 2.
	if st := w.gc.Stats(); st.Taken != 99 || st.Retries != 1 {
		t.Errorf("Stats after the first pass = %+v, want 99 taken, 1 retry", st)
	}
	failing = false
	clock.t = clock.t.Add(time.Duration(10*tickMS) * time.Millisecond)
	if err := w.gc.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
		t.Fatal(err)
	}
	if n := len(listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA))); n != 0 {
		t.Errorf("dead node A keeps %d markers after a successful sweep", n)
	}
	if exists(s, bucketkey.NodeKey(deadA)) {
		t.Error("dead node A's record not retired after its last cell was taken")
	}
}

// TestWake_FailoverSweep10000: a node dies owning 10 000 cells. The sweep
// takes them over at most MaxSweepPerPass per pass (waker tick), never
// more than MaxSweepInFlight at once, deleting each one's markers once it
// is taken; a cell that keeps failing backs off alone (1, 2, 4 ... ticks)
// while the other 9 999 go on, and the dead node's record is retired once
// the last cell is taken.
func TestWake_FailoverSweep10000(t *testing.T) {
	const cells = 10000
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	mustPut(s, bucketkey.NodeKey(deadA), nodeRecord(deadA, uint64(t0.UnixMilli())-1))
	for i := range cells {
		mustPut(s, bucketkey.MarkerKey(deadA, genX, fmt.Sprintf("C:%05d", i)), nil)
	}
	w, err := NewWake(WakeConfig{Store: s, Node: liveB, Clock: clock, FailoverSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	const bad = "C:04242"
	badUntil := 6 // the bad cell fails its first 6 attempts
	var inFlight, maxInFlight atomic.Int32
	var attemptsMu sync.Mutex
	var badAttempts []time.Time
	fw := &concurrentWaker{f: func(scope string) error {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := maxInFlight.Load(); n > m && !maxInFlight.CompareAndSwap(m, n); m = maxInFlight.Load() {
		}
		if scope == bad {
			attemptsMu.Lock()
			defer attemptsMu.Unlock()
			badAttempts = append(badAttempts, clock.Now())
			if len(badAttempts) <= badUntil {
				return errors.New("injected: restore failed")
			}
		}
		return nil
	}}
	w.local = fw
	passes := 0
	for exists(s, bucketkey.NodeKey(deadA)) {
		before := fw.calls.Load()
		if err := w.gc.RunElectedPass(context.Background(), noRenew, clock.Now, tickMS); err != nil {
			t.Fatal(err)
		}
		if got := fw.calls.Load() - before; got > MaxSweepPerPass {
			t.Fatalf("pass %d activated %d cells, more than MaxSweepPerPass (%d)", passes, got, MaxSweepPerPass)
		}
		if passes < cells/MaxSweepPerPass-1 {
			// Until the last slice, each pass takes a full slice and
			// their markers go at once.
			left := len(listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA)))
			if want := cells - (passes+1)*MaxSweepPerPass; left > want+badUntil+1 { // the bad cell takes a slot per attempt
				t.Fatalf("after pass %d: %d markers left, want about %d", passes, left, want)
			}
		}
		passes++
		clock.t = clock.t.Add(time.Duration(tickMS) * time.Millisecond)
		if passes > 200 {
			t.Fatalf("dead node not retired after %d passes; %d markers left", passes, len(listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA))))
		}
	}
	if m := maxInFlight.Load(); m > MaxSweepInFlight {
		t.Errorf("%d activations at once, more than MaxSweepInFlight (%d)", m, MaxSweepInFlight)
	}
	if got := fw.calls.Load(); got != cells+int64(badUntil) {
		t.Errorf("%d activations, want %d (each cell once, the bad one %d times more)", got, cells+badUntil, badUntil)
	}
	// The bad cell's attempts back off 1, 2, 4, 8, 16, 32 ticks.
	for i := 1; i < len(badAttempts); i++ {
		gap := badAttempts[i].Sub(badAttempts[i-1])
		want := time.Duration(RetryDelayMS(tickMS, i)) * time.Millisecond
		if gap < want || gap > want+time.Duration(tickMS)*time.Millisecond {
			t.Errorf("attempt %d of the failing cell came %v after the previous, want its own back-off %v (one tick of slack)", i+1, gap, want)
		}
	}
	t.Logf("10 000 cells taken over in %d passes; the failing cell's attempts: %d", passes, len(badAttempts))
}

// concurrentWaker is a CellWaker safe for concurrent calls that counts them.
type concurrentWaker struct {
	f     func(scope string) error
	calls atomic.Int64
}

func (c *concurrentWaker) Wake(_ context.Context, scope string) error {
	c.calls.Add(1)
	return c.f(scope)
}

type notACellErr struct{}

func (notACellErr) Error() string  { return "not a cell of this worker" }
func (notACellErr) NotACell() bool { return true }
