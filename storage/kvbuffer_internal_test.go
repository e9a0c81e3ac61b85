package storage

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// With CacheKV, puts of small values wait in the write-back buffer: ten
// puts of one key over turns carried in one transaction (EndTurnOpen) write
// one row at the commit, and the committed value is the last one. Without
// CacheKV every put is its own INSERT.
func TestDB_writeBack_coalescesPuts(t *testing.T) {
	for _, cache := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "cell.sqlite")
		db, err := Open(path, Options{Scope: "s", CacheKV: cache})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Put([]string{"n"}, [][]byte{[]byte("0")}); err != nil {
			t.Fatal(err)
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		before := db.totalChanges()
		for i := 1; i <= 10; i++ {
			v := []byte{byte('0' + i%10)}
			if err := db.Put([]string{"n"}, [][]byte{v}); err != nil {
				t.Fatal(err)
			}
			got, err := db.Get([]string{"n"})
			if err != nil || !bytes.Equal(got[0], v) {
				t.Fatalf("CacheKV=%v: Get after put %d = %q, %v", cache, i, got, err)
			}
			if i < 10 && !db.EndTurnOpen() {
				t.Fatalf("EndTurnOpen = false with only puts in the transaction")
			}
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
		rows := db.totalChanges() - before
		want := int64(10)
		if cache {
			want = 1
		}
		if rows != want {
			t.Errorf("CacheKV=%v: rows written for 10 puts of one key = %d, want %d", cache, rows, want)
		}
		db.Close()
		// What reached the file is the last value.
		db, err = Open(path, Options{Scope: "s"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Get([]string{"n"})
		if err != nil || string(got[0]) != "0" {
			t.Errorf("CacheKV=%v: value after reopening = %q, %v; want \"0\" (the 10th put)", cache, got, err)
		}
		db.Close()
	}
}

// Every operation that reads the table as the transaction sees it finds
// the buffered puts; a rollback of any kind drops them.
func TestDB_writeBack_visibleAndUndone(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cell.sqlite"), Options{Scope: "s", CacheKV: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	put := func(k, v string) {
		t.Helper()
		if err := db.Put([]string{k}, [][]byte{[]byte(v)}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(k string) string {
		t.Helper()
		got, err := db.Get([]string{k})
		if err != nil {
			t.Fatal(err)
		}
		if got[0] == nil {
			return "<absent>"
		}
		return string(got[0])
	}

	put("a", "1")
	put("b", "2")
	if es, err := db.List(ListOptions{}); err != nil || len(es) != 2 || string(es[1].Value) != "2" {
		t.Fatalf("List with buffered puts = %+v, %v", es, err)
	}
	put("c", "3")
	if n, err := db.Delete([]string{"c"}); err != nil || n != 1 {
		t.Fatalf("Delete of a buffered key = %d, %v; want 1", n, err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}

	// The implicit transaction rolled back.
	put("a", "rolled back")
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := get("a"); got != "1" {
		t.Errorf("a after Rollback = %q, want 1", got)
	}

	// An explicit transaction: a put before it stays, one inside it goes.
	put("a", "before")
	d, err := db.BeginTransaction()
	if err != nil {
		t.Fatal(err)
	}
	put("a", "inside")
	put("z", "inside")
	if err := db.RollbackTransaction(d); err != nil {
		t.Fatal(err)
	}
	if got, gz := get("a"), get("z"); got != "before" || gz != "<absent>" {
		t.Errorf("after RollbackTransaction: a = %q, z = %q; want before, <absent>", got, gz)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}

	// A failed statement aborts the transaction: buffered puts go with it.
	put("b", "aborted")
	db.abort(errors.New("disk on fire"))
	if err := db.Commit(); !errors.Is(err, ErrTxAborted) {
		t.Fatalf("Commit after abort = %v, want ErrTxAborted", err)
	}
	if got := get("b"); got != "2" {
		t.Errorf("b after the aborted transaction = %q, want 2", got)
	}

	// A value too large to buffer keeps the order of puts to one key.
	big := string(bytes.Repeat([]byte("x"), kvCacheMaxValue+1))
	put("k", "small")
	put("k", big)
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := get("k"); got != big {
		t.Errorf("k after small then big = %d bytes, want the big value", len(got))
	}
	put("k", big)
	put("k", "small")
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := get("k"); got != "small" {
		t.Errorf("k after big then small = %d bytes, want small", len(got))
	}

	// More than the buffer's bound: everything still lands.
	for i := range 400 {
		put(string(rune('A'+i%26))+string(rune('a'+i/26)), string(bytes.Repeat([]byte{'v'}, 1000)))
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	db.dropKVCache()
	if es, err := db.List(ListOptions{}); err != nil || len(es) != 400+3 {
		t.Errorf("List after 400 buffered puts = %d entries, %v; want 403", len(es), err)
	}
}
