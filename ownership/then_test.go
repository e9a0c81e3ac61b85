package ownership_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// Lease.Created is set only when TryAcquire created own.json (the cell
// starts empty); TryAcquireThen runs then once own.json names the node,
// returns with the marker written, and releases the lease when then fails.
func TestNode_TryAcquireThen(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	n := newNode(t, s, nil, nodeA)
	marker := "node-cells/" + nodeA + "/" + n.Generation() + "/" + scope

	var seen *ownership.Lease
	l, err := n.TryAcquireThen(ctx, scope, func(l *ownership.Lease) error {
		seen = l
		if got, want := getString(t, s, ownKey), `{"node":"`+nodeA+`","epoch":1}`; got != want {
			t.Errorf("own.json while then runs = %s, want %s", got, want)
		}
		return nil
	})
	if err != nil || seen != l || !l.Created || l.Epoch != 1 {
		t.Fatalf("TryAcquireThen = %+v, %v (then saw %p), want the created lease at epoch 1", l, err, seen)
	}
	if !exists(t, s, marker) {
		t.Fatal("no marker once TryAcquireThen returned")
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}

	boom := errors.New("restore failed")
	l2, err := n.TryAcquireThen(ctx, scope, func(l *ownership.Lease) error {
		if l.Created || l.Epoch != 2 {
			t.Errorf("re-acquired lease: created %v, epoch %d; want an existing record at epoch 2", l.Created, l.Epoch)
		}
		return boom
	})
	if !errors.Is(err, boom) || l2 != nil {
		t.Fatalf("TryAcquireThen with a failing then = %v, %v; want its error", l2, err)
	}
	if got, want := getString(t, s, ownKey), `{"node":"","epoch":2}`; got != want {
		t.Errorf("own.json after the failure = %s, want %s (released)", got, want)
	}
	if exists(t, s, marker) {
		t.Error("marker left after the failure")
	}
}
