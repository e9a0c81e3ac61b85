package ltxlog

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

const scope = "Counter:abc"

// cellDB opens a cell database whose commits the log reads, and a Log on
// it (no lease: epoch 1).
func cellDB(t *testing.T) (*storage.DB, *Log) {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "cell.db"), storage.Options{Scope: scope, LogPages: true, DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	l := New(scope, nil)
	l.Attach(db.WALCapture())
	t.Cleanup(func() { l.Close() })
	return db, l
}

func put(t *testing.T, db *storage.DB, k, v string) {
	t.Helper()
	if err := db.Put([]string{k}, [][]byte{[]byte(v)}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
}

// inline runs background work at once, so the test sees its deletes.
func inline(f func(context.Context)) { f(context.Background()) }

func files(t *testing.T, store plugins.ObjectStore) []bucketkey.LTXFile {
	t.Helper()
	fs, err := storage.ListLTX(context.Background(), store, scope)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// restored reads key k of the database Restore makes from the bucket.
func restored(t *testing.T, store plugins.ObjectStore, k string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "restored.db")
	res, err := storage.Restore(context.Background(), store, scope, path)
	if err != nil || !res.Found {
		t.Fatalf("Restore = %+v, %v", res, err)
	}
	db, err := storage.Open(path, storage.Options{Scope: scope})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vs, err := db.Get([]string{k})
	if err != nil {
		t.Fatal(err)
	}
	return string(vs[0])
}

// TestRound_EachRoundIsTheNextFile: the first round uploads a snapshot at
// TXID 1, each later one the L0 file of the next TXID; a round with
// nothing committed uploads nothing; Restore reads the chain back.
func TestRound_EachRoundIsTheNextFile(t *testing.T) {
	store := memstore.New()
	w := &Writer{Bucket: store, Background: inline}
	db, l := cellDB(t)
	ctx := context.Background()
	for i, v := range []string{"one", "two", "three"} {
		put(t, db, "k", v)
		if errs := w.Round(ctx, []*Log{l}, nil); errs != nil {
			t.Fatalf("round %d: %v", i, errs)
		}
	}
	if errs := w.Round(ctx, []*Log{l}, nil); errs != nil {
		t.Fatalf("empty round: %v", errs)
	}
	fs := files(t, store)
	if len(fs) != 3 {
		t.Fatalf("files %v, want 3", fs)
	}
	for i, f := range fs {
		if f.Epoch != 1 || f.Level != 0 || f.MinTXID != uint64(i+1) || f.MaxTXID != uint64(i+1) {
			t.Errorf("file %d = %+v, want L0 TXID %d of epoch 1", i, f, i+1)
		}
	}
	if v := restored(t, store, "k"); v != "three" {
		t.Errorf("restored k = %q, want three", v)
	}
}

// TestRound_RetriesAFailedPut: a PUT that fails is retried (back-off)
// until it lands, and the round succeeds.
func TestRound_RetriesAFailedPut(t *testing.T) {
	store := faultstore.Wrap(memstore.New())
	w := &Writer{Bucket: store, Background: inline}
	db, l := cellDB(t)
	put(t, db, "k", "v")
	in := store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpPut}, Fail: true, Count: 2})
	if errs := w.Round(context.Background(), []*Log{l}, nil); errs != nil {
		t.Fatalf("round: %v", errs)
	}
	if in.Hits() != 2 || store.Calls(faultstore.OpPut) != 3 {
		t.Errorf("fault hits %d, puts %d; want 2 failed puts then one that lands", in.Hits(), store.Calls(faultstore.OpPut))
	}
	if v := restored(t, store.Inner(), "k"); v != "v" {
		t.Errorf("restored k = %q", v)
	}
}

// TestRound_GivesUpWithTheContext: a PUT that keeps failing fails the
// round once its context ends, naming the file.
func TestRound_GivesUpWithTheContext(t *testing.T) {
	store := faultstore.Wrap(memstore.New())
	w := &Writer{Bucket: store, Background: inline}
	db, l := cellDB(t)
	put(t, db, "k", "v")
	store.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpPut}, Fail: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	errs := w.Round(ctx, []*Log{l}, nil)
	if errs == nil || !errors.Is(errs[0], faultstore.ErrInjected) {
		t.Fatalf("round = %v, want the injected error", errs)
	}
}

// TestRound_RetiredAndFailedLogs: a log retired (or nil) before its round
// reports ErrRetired, a database the local stage failed reports that
// error, and the other logs of the round still upload.
func TestRound_RetiredAndFailedLogs(t *testing.T) {
	store := memstore.New()
	w := &Writer{Bucket: store, Background: inline}
	db1, l1 := cellDB(t)
	db2, l2 := cellDB(t)
	_, l3 := cellDB(t)
	put(t, db1, "k", "1")
	put(t, db2, "k", "2")
	l1.Close()
	local := errors.New("fsync failed")
	errs := w.Round(context.Background(), []*Log{l1, nil, l3, l2}, []error{nil, nil, local, nil})
	if len(errs) != 4 || !errors.Is(errs[0], ErrRetired) || !errors.Is(errs[1], ErrRetired) || errs[2] != local || errs[3] != nil {
		t.Fatalf("round = %v, want [retired retired fsync nil]", errs)
	}
	if fs := files(t, store); len(fs) != 1 {
		t.Errorf("files %v, want l2's snapshot only", fs)
	}
}

// TestRound_Compaction: after compactMinFiles L0 files heavier than the
// snapshot, the next upload is a level-1 snapshot covering TXIDs 1 to its
// own, and the files it replaces are deleted once it is recorded.
func TestRound_Compaction(t *testing.T) {
	store := memstore.New()
	w := &Writer{Bucket: store, Background: inline}
	db, l := cellDB(t)
	ctx := context.Background()
	for i := range compactMinFiles + 2 {
		put(t, db, fmt.Sprintf("k%d", i%8), fmt.Sprint(i))
		if errs := w.Round(ctx, []*Log{l}, nil); errs != nil {
			t.Fatalf("round %d: %v", i, errs)
		}
	}
	fs := files(t, store)
	var l1 *bucketkey.LTXFile
	for i, f := range fs {
		if f.Level == compactLevel {
			l1 = &fs[i]
		}
	}
	if l1 == nil || l1.MinTXID != 1 {
		t.Fatalf("no level-1 snapshot from TXID 1 among %d files: %v", len(fs), fs)
	}
	for _, f := range fs {
		if f.Level == 0 && f.MaxTXID <= l1.MaxTXID {
			t.Errorf("file %+v, covered by the snapshot %+v, was not deleted", f, *l1)
		}
	}
	if len(fs) > 3 {
		t.Errorf("%d files left after the compaction, want the snapshot and the L0 files after it", len(fs))
	}
	last := compactMinFiles + 1
	if v := restored(t, store, fmt.Sprintf("k%d", last%8)); v != fmt.Sprint(last) {
		t.Errorf("restored k%d = %q, want %d", last%8, v, last)
	}
}

// TestSave_IsASnapshot: the backup mode's saves are snapshots; the second
// (level 1, TXIDs 1-2) makes the first obsolete.
func TestSave_IsASnapshot(t *testing.T) {
	store := memstore.New()
	w := &Writer{Bucket: store, Background: inline}
	db, l := cellDB(t)
	ctx := context.Background()
	put(t, db, "k", "a")
	if err := w.Save(ctx, l); err != nil {
		t.Fatal(err)
	}
	put(t, db, "k", "b")
	if err := w.Save(ctx, l); err != nil {
		t.Fatal(err)
	}
	fs := files(t, store)
	if len(fs) != 1 || fs[0].Level != compactLevel || fs[0].MinTXID != 1 || fs[0].MaxTXID != 2 {
		t.Fatalf("files %v, want one level-1 snapshot of TXIDs 1-2", fs)
	}
	if v := restored(t, store, "k"); v != "b" {
		t.Errorf("restored k = %q, want b", v)
	}
	l.Close()
	if err := w.Save(ctx, l); !errors.Is(err, ErrRetired) {
		t.Errorf("Save of a closed log = %v, want ErrRetired", err)
	}
}
