package ownership_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// TestNode_TryAcquire_CreatedMeanwhile: own.json is absent when read, but
// another node creates it and uploads its first LTX before the listing of
// step 2. The record is not lost: TryAcquire reads it again and finds the
// other node the owner (found by fleet's contention test).
func TestNode_TryAcquire_CreatedMeanwhile(t *testing.T) {
	store := newMockStore()
	clock := newFakeClock()
	a := newNode(t, store, clock, nodeA)
	b := newNode(t, store, clock, nodeB)
	raced := false
	store.ListFunc = func(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
		if !raced && strings.HasPrefix(prefix, bucketkey.LTXPrefix(scope)) {
			raced = true
			store.ListFunc = nil
			if _, err := b.TryAcquire(ctx, scope); err != nil {
				t.Fatalf("b: %v", err)
			}
			if _, err := store.mem.Put(ctx, bucketkey.LTXKey(scope, 1, 0, 1, 1), []byte("ltx"), plugins.PutOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return store.mem.List(ctx, prefix, startAfter, limit)
	}
	_, err := a.TryAcquire(context.Background(), scope)
	var elsewhere *ownership.CellOwnedElsewhereError
	if !errors.As(err, &elsewhere) || elsewhere.Owner != nodeB || elsewhere.Epoch != 1 {
		t.Fatalf("TryAcquire = %v, want CellOwnedElsewhereError naming b at epoch 1", err)
	}
	if !raced {
		t.Fatal("the race was not staged")
	}
}
