package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

// TestRestore_Faults: a bucket that lists but then fails, hangs on or
// slows down the objects of a chain never leaves a partial restore; once
// the fault is gone the same call restores the whole chain.
func TestRestore_Faults(t *testing.T) {
	mem := memstore.New()
	l := newCellLog(t, mem, "F", 1)
	l.put("a", "1")
	l.snapshot()
	for i := 0; i < 5; i++ {
		l.put("a", string(rune('2'+i)))
		l.capture(1)
	}
	store := faultstore.Wrap(mem)
	dst, old := prepareDst(t)

	t.Run("ListFails", func(t *testing.T) {
		f := store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpList}, Fail: true})
		defer f.Remove()
		if _, err := storage.Restore(context.Background(), store, "F", dst); !errors.Is(err, faultstore.ErrInjected) {
			t.Fatalf("Restore = %v", err)
		}
		assertUntouched(t, dst, old)
	})
	t.Run("ThirdGetFails", func(t *testing.T) {
		f := store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpGet}, Prefix: l.keys[2], Fail: true})
		defer f.Remove()
		_, err := storage.Restore(context.Background(), store, "F", dst)
		var oerr *storage.LTXObjectError
		if !errors.As(err, &oerr) || oerr.Key != l.keys[2] || !errors.Is(err, faultstore.ErrInjected) {
			t.Fatalf("Restore = %v", err)
		}
		assertUntouched(t, dst, old)
	})
	t.Run("Hang", func(t *testing.T) {
		f := store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpGet}, Prefix: l.keys[len(l.keys)-1], Hang: true})
		defer f.Remove()
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() { _, err := storage.Restore(ctx, store, "F", dst); errc <- err }()
		<-f.Hit()
		cancel() // the activation's deadline
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("Restore = %v", err)
		}
		assertUntouched(t, dst, old)
	})
	t.Run("Recovers", func(t *testing.T) {
		res, err := storage.Restore(context.Background(), store, "F", dst)
		if err != nil || res.TXID != uint64(len(l.keys)) {
			t.Fatalf("Restore = %+v, %v", res, err)
		}
		integrityCheck(t, dst)
	})
}
