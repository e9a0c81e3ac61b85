package storage_test

import (
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

// TestDB_CacheKV_servesReads shows that with CacheKV a get of a key the
// connection used answers from memory: a write by another connection
// (which CacheKV's contract rules out) is not seen, while without CacheKV
// it is.
func TestDB_CacheKV_servesReads(t *testing.T) {
	for _, cache := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "cell.sqlite")
		db, err := storage.Open(path, storage.Options{Scope: "s", CacheKV: cache})
		if err != nil {
			t.Fatal(err)
		}
		mustPut(t, db, "k", "mine")
		mustCommit(t, db)
		if got := string(mustGet(t, db, "k")); got != "mine" {
			t.Fatalf("CacheKV=%v: Get = %q, want mine", cache, got)
		}
		mustCommit(t, db)
		raw := rawDB(t, path)
		if _, err := raw.Exec(`UPDATE _cf_KV SET v = CAST('theirs' AS BLOB) WHERE k = 'k'`); err != nil {
			t.Fatal(err)
		}
		want := "theirs"
		if cache {
			want = "mine"
		}
		if got := string(mustGet(t, db, "k")); got != want {
			t.Errorf("CacheKV=%v: Get after another connection's write = %q, want %q", cache, got, want)
		}
		db.Close()
	}
}

// TestDB_CacheKV_followsTransactions checks that the cache never answers
// with a value a rollback undid, or with a key that was deleted.
func TestDB_CacheKV_followsTransactions(t *testing.T) {
	db := openDB(t, storage.Options{Scope: "s", CacheKV: true})
	mustPut(t, db, "k", "v1")
	mustCommit(t, db)

	// The implicit transaction rolled back.
	mustPut(t, db, "k", "v2")
	if got := string(mustGet(t, db, "k")); got != "v2" {
		t.Fatalf("Get in the transaction = %q, want v2", got)
	}
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := string(mustGet(t, db, "k")); got != "v1" {
		t.Errorf("Get after Rollback = %q, want v1", got)
	}

	// An explicit transaction rolled back.
	d, err := db.BeginTransaction()
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, "k", "v3", "new", "x")
	if err := db.RollbackTransaction(d); err != nil {
		t.Fatal(err)
	}
	if got := string(mustGet(t, db, "k")); got != "v1" {
		t.Errorf("Get after RollbackTransaction = %q, want v1", got)
	}
	if got := mustGet(t, db, "new"); got != nil {
		t.Errorf("Get(new) after RollbackTransaction = %q, want absent", got)
	}

	// An explicit transaction committed into the implicit one.
	d, err = db.BeginTransaction()
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, "k", "v4")
	if err := db.CommitTransaction(d); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db)
	if got := string(mustGet(t, db, "k")); got != "v4" {
		t.Errorf("Get after CommitTransaction = %q, want v4", got)
	}

	// A batch that fails half-way leaves every key as it was.
	_ = mustGet(t, db, "a") // cached as absent
	err = db.Put([]string{"a", "k"}, [][]byte{[]byte("A"), bytes.Repeat([]byte("x"), 8_388_643)})
	var se *storage.SQLError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "SQLITE_TOOBIG") {
		t.Fatalf("Put of an oversized value = %v, want SQLITE_TOOBIG", err)
	}
	if got := mustGet(t, db, "a"); got != nil {
		t.Errorf("Get(a) after the failed batch = %q, want absent", got)
	}
	if got := string(mustGet(t, db, "k")); got != "v4" {
		t.Errorf("Get(k) after the failed batch = %q, want v4", got)
	}

	// Delete and DeleteAll.
	if n, err := db.Delete([]string{"k"}); err != nil || n != 1 {
		t.Fatalf("Delete = %d, %v", n, err)
	}
	if got := mustGet(t, db, "k"); got != nil {
		t.Errorf("Get after Delete = %q, want absent", got)
	}
	mustPut(t, db, "b", "B")
	mustCommit(t, db)
	if err := db.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, db, "b"); got != nil {
		t.Errorf("Get after DeleteAll = %q, want absent", got)
	}

	// An empty value stays a present, empty value.
	mustPut(t, db, "empty", "")
	got := mustGet(t, db, "empty")
	if got == nil || len(got) != 0 {
		t.Errorf("Get(empty) = %#v, want a non-nil empty slice", got)
	}
}

// TestDB_CacheKV_copies checks that neither the caller's value nor a
// returned value shares memory with the cache.
func TestDB_CacheKV_copies(t *testing.T) {
	db := openDB(t, storage.Options{Scope: "s", CacheKV: true})
	v := []byte("abc")
	if err := db.Put([]string{"k"}, [][]byte{v}); err != nil {
		t.Fatal(err)
	}
	v[0] = 'X'
	got := mustGet(t, db, "k")
	if string(got) != "abc" {
		t.Fatalf("Get = %q after the caller changed its slice, want abc", got)
	}
	got[0] = 'Y'
	if got := string(mustGet(t, db, "k")); got != "abc" {
		t.Errorf("Get = %q after the caller changed a returned slice, want abc", got)
	}
}

// TestDB_CacheKV_bounded fills the cache past its bound; every key still
// reads back right.
func TestDB_CacheKV_bounded(t *testing.T) {
	db := openDB(t, storage.Options{Scope: "s", CacheKV: true})
	big := bytes.Repeat([]byte("z"), 20<<10) // over the per-value bound
	if err := db.Put([]string{"big"}, [][]byte{big}); err != nil {
		t.Fatal(err)
	}
	val := bytes.Repeat([]byte("v"), 4<<10)
	keys := make([]string, 100) // 400 KB in all: more than the cache keeps
	for i := range keys {
		keys[i] = "k" + strings.Repeat("x", i)
		if err := db.Put([]string{keys[i]}, [][]byte{append([]byte(keys[i]), val...)}); err != nil {
			t.Fatal(err)
		}
	}
	mustCommit(t, db)
	for _, k := range keys {
		if got := mustGet(t, db, k); !bytes.Equal(got, append([]byte(k), val...)) {
			t.Fatalf("Get(%s) = %d bytes, want its value", k, len(got))
		}
	}
	if got := mustGet(t, db, "big"); !bytes.Equal(got, big) {
		t.Errorf("Get(big) = %d bytes, want %d", len(got), len(big))
	}
}
