package fleet

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
)

// TestWake_FailoverSweep: the waker's GC pass takes over every cell of a
// dead node (from its markers) before deleting the markers; a cell a live
// node owns or that is no cell of the application is skipped; a cell that
// fails to activate keeps the markers until a later pass succeeds.
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
	if n := len(listKeys(t, s, bucketkey.NodeMarkersPrefix(deadA))); n != 100 {
		t.Fatalf("after a failed take-over dead node A keeps %d markers, want all 100", n)
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
}

type notACellErr struct{}

func (notACellErr) Error() string  { return "not a cell of this worker" }
func (notACellErr) NotACell() bool { return true }
