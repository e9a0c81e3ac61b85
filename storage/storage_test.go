package storage_test

import (
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	_ "modernc.org/sqlite" // registers the "sqlite" driver for rawDB

	"github.com/cellhost/cellhost/storage"
)

// openDB opens a cell database in a fresh temporary directory and closes it
// at the end of the test.
func openDB(t testing.TB, opts storage.Options) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "cell.sqlite"), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// rawDB opens path with a plain connection of its own, to look at the file
// the way another process would.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	raw, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	raw.SetMaxOpenConns(1)
	t.Cleanup(func() { raw.Close() })
	return raw
}

func mustPut(t *testing.T, db *storage.DB, kv ...string) {
	t.Helper()
	var keys []string
	var values [][]byte
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i])
		values = append(values, []byte(kv[i+1]))
	}
	if err := db.Put(keys, values); err != nil {
		t.Fatalf("Put: %v", err)
	}
}

func mustGet(t *testing.T, db *storage.DB, key string) []byte {
	t.Helper()
	got, err := db.Get([]string{key})
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return got[0]
}

func mustCommit(t *testing.T, db *storage.DB) {
	t.Helper()
	if err := db.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

func TestOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "cell.sqlite")
	db, err := storage.Open(path, storage.Options{Scope: "Counter:ab", ActorName: "Counter"})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got := db.Path(); got != path {
		t.Errorf("Path() = %q, want %q", got, path)
	}
	if db.InTx() {
		t.Errorf("InTx() after Open = true, want false")
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	raw := rawDB(t, path)
	var mode string
	if err := raw.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	// The internal tables appear when first needed, as workerd's do.
	tables := func(t *testing.T, raw *sql.DB) []string {
		t.Helper()
		rows, err := raw.Query(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			names = append(names, s)
		}
		return names
	}
	if got := tables(t, raw); len(got) != 0 {
		t.Errorf("tables after Open = %q, want none", got)
	}
	raw.Close()

	t.Run("CreatedWhenNeeded", func(t *testing.T) {
		db, err := storage.Open(path, storage.Options{Scope: "Counter:ab", ActorName: "Counter"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		mustPut(t, db, "k", "v")
		mustCommit(t, db)
		raw := rawDB(t, path)
		if got, want := tables(t, raw), []string{"_cf_KV"}; !reflect.DeepEqual(got, want) {
			t.Errorf("tables after Put = %q, want %q", got, want)
		}
		if err := db.SetAlarm(5); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, db)
		db.Close()
		if got, want := tables(t, raw), []string{"_cf_ALARM", "_cf_KV", "_cf_METADATA"}; !reflect.DeepEqual(got, want) {
			t.Errorf("tables after SetAlarm = %q, want %q", got, want)
		}
		var name string
		if err := raw.QueryRow(`SELECT actor_name FROM _cf_METADATA WHERE scope = ?`, "Counter:ab").Scan(&name); err != nil {
			t.Fatalf("read metadata: %v", err)
		}
		if name != "Counter" {
			t.Errorf("actor_name = %q, want Counter", name)
		}
		// The alarm table takes celld's defaults.
		if _, err := raw.Exec(`INSERT INTO _cf_ALARM (scope, at_ms) VALUES ('x', 5)`); err != nil {
			t.Fatal(err)
		}
		var retry, counted, gen int
		if err := raw.QueryRow(`SELECT retry, counted_retry, generation FROM _cf_ALARM WHERE scope = 'x'`).Scan(&retry, &counted, &gen); err != nil {
			t.Fatal(err)
		}
		if retry != 0 || counted != 0 || gen != 0 {
			t.Errorf("alarm defaults = %d %d %d, want 0 0 0", retry, counted, gen)
		}
		raw.Close()
	})

	t.Run("KeepsFirstActorName", func(t *testing.T) {
		db, err := storage.Open(path, storage.Options{Scope: "Counter:ab", ActorName: "Other"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		db.Close()
		raw := rawDB(t, path)
		var name string
		if err := raw.QueryRow(`SELECT actor_name FROM _cf_METADATA WHERE scope = ?`, "Counter:ab").Scan(&name); err != nil {
			t.Fatal(err)
		}
		if name != "Counter" {
			t.Errorf("actor_name = %q, want Counter", name)
		}
	})

	t.Run("NoActorName", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "cell.sqlite")
		db, err := storage.Open(path, storage.Options{Scope: "s"})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		if err := db.SetAlarm(1); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, db)
		db.Close()
		raw := rawDB(t, path)
		var n int
		if err := raw.QueryRow(`SELECT count(*) FROM _cf_METADATA`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("metadata rows = %d, want 0", n)
		}
	})

	t.Run("OddPath", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "we?ird #dir%41", "cell?x.sqlite")
		db, err := storage.Open(path, storage.Options{})
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		mustPut(t, db, "k", "v")
		mustCommit(t, db)
		db.Close()
		db, err = storage.Open(path, storage.Options{})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		defer db.Close()
		if got := string(mustGet(t, db, "k")); got != "v" {
			t.Errorf("Get after reopen = %q, want v", got)
		}
	})

	t.Run("ErrNotADirectory", func(t *testing.T) {
		dir := t.TempDir()
		db, err := storage.Open(filepath.Join(dir, "file"), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		if _, err := storage.Open(filepath.Join(dir, "file", "cell.sqlite"), storage.Options{}); err == nil {
			t.Errorf("Open under a file: err = nil, want an error")
		}
	})
}

func TestDB_Size(t *testing.T) {
	db := openDB(t, storage.Options{})
	before, err := db.Size()
	if err != nil {
		t.Fatalf("Size: %v", err)
	}
	if before <= 0 || before%512 != 0 {
		t.Errorf("Size() = %d, want a positive multiple of the page size", before)
	}
	mustPut(t, db, "big", string(make([]byte, 100_000)))
	mustCommit(t, db)
	after, err := db.Size()
	if err != nil {
		t.Fatalf("Size: %v", err)
	}
	if after < 100_000 || after <= before {
		t.Errorf("Size() after a 100 kB put = %d, want >= 100000 and > %d", after, before)
	}
}

func TestDB_Commit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cell.sqlite")
	db, err := storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	other, err := storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()

	mustPut(t, db, "k", "v1")
	if !db.InTx() {
		t.Fatalf("InTx() after Put = false, want true")
	}
	if got := mustGet(t, other, "k"); got != nil {
		t.Errorf("other sees %q before Commit, want nil", got)
	}
	if err := other.Rollback(); err != nil { // end other's read snapshot
		t.Fatal(err)
	}
	// A third, fresh open does not see it either.
	third, err := storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		t.Fatalf("Open during a write transaction: %v", err)
	}
	if got := mustGet(t, third, "k"); got != nil {
		t.Errorf("fresh open sees %q before Commit, want nil", got)
	}
	third.Close()

	mustCommit(t, db)
	if db.InTx() {
		t.Errorf("InTx() after Commit = true, want false")
	}
	if got := string(mustGet(t, other, "k")); got != "v1" {
		t.Errorf("other after Commit = %q, want v1", got)
	}

	t.Run("SnapshotUntilCommit", func(t *testing.T) {
		// other's transaction is open: it keeps reading its snapshot.
		mustPut(t, db, "k", "v2")
		mustCommit(t, db)
		if got := string(mustGet(t, other, "k")); got != "v1" {
			t.Errorf("other inside its transaction = %q, want v1", got)
		}
		mustCommit(t, other)
		if got := string(mustGet(t, other, "k")); got != "v2" {
			t.Errorf("other after its Commit = %q, want v2", got)
		}
		mustCommit(t, other)
	})

	t.Run("NoTransaction", func(t *testing.T) {
		if db.InTx() {
			t.Fatalf("InTx() = true, want false")
		}
		if err := db.Commit(); err != nil {
			t.Errorf("Commit without a transaction: %v", err)
		}
		if err := db.Rollback(); err != nil {
			t.Errorf("Rollback without a transaction: %v", err)
		}
	})

	t.Run("ReadOpensTransaction", func(t *testing.T) {
		mustGet(t, db, "k")
		if !db.InTx() {
			t.Errorf("InTx() after Get = false, want true")
		}
		mustCommit(t, db)
	})
}

func TestDB_Rollback(t *testing.T) {
	db := openDB(t, storage.Options{})
	mustPut(t, db, "keep", "1")
	mustCommit(t, db)

	mustPut(t, db, "keep", "2", "new", "x")
	if _, err := db.Delete([]string{"keep"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Rollback(); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if db.InTx() {
		t.Errorf("InTx() after Rollback = true, want false")
	}
	if got := string(mustGet(t, db, "keep")); got != "1" {
		t.Errorf("keep = %q, want 1", got)
	}
	if got := mustGet(t, db, "new"); got != nil {
		t.Errorf("new = %q, want nil", got)
	}
}

func TestDB_Close(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cell.sqlite")
	db, err := storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, db, "committed", "yes")
	mustCommit(t, db)
	mustPut(t, db, "pending", "lost")
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}

	t.Run("ErrClosed", func(t *testing.T) {
		if _, err := db.Get([]string{"k"}); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Get: err = %v, want ErrClosed", err)
		}
		if err := db.Put([]string{"k"}, [][]byte{nil}); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Put: err = %v, want ErrClosed", err)
		}
		if _, err := db.List(storage.ListOptions{}); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("List: err = %v, want ErrClosed", err)
		}
		if err := db.Commit(); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Commit: err = %v, want ErrClosed", err)
		}
		if _, err := db.Size(); !errors.Is(err, storage.ErrClosed) {
			t.Errorf("Size: err = %v, want ErrClosed", err)
		}
	})

	db, err = storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if got := string(mustGet(t, db, "committed")); got != "yes" {
		t.Errorf("committed = %q, want yes", got)
	}
	if got := mustGet(t, db, "pending"); got != nil {
		t.Errorf("pending = %q, want nil (rolled back by Close)", got)
	}
}

// Each cell is used from its own goroutine; cells run concurrently.
func TestDB_ConcurrentCells(t *testing.T) {
	dir := t.TempDir()
	const cells, increments = 8, 20
	var wg sync.WaitGroup
	errs := make(chan error, cells)
	for c := range cells {
		wg.Go(func() {
			errs <- func() error {
				db, err := storage.Open(filepath.Join(dir, fmt.Sprintf("cell%d.sqlite", c)), storage.Options{Scope: "s"})
				if err != nil {
					return err
				}
				defer db.Close()
				for range increments {
					if err := increment(db, "n"); err != nil {
						return err
					}
					if err := db.Commit(); err != nil {
						return err
					}
				}
				got, err := db.Get([]string{"n"})
				if err != nil {
					return err
				}
				if string(got[0]) != fmt.Sprint(increments) {
					return fmt.Errorf("cell %d: n = %q, want %d", c, got[0], increments)
				}
				return db.Commit()
			}()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// increment adds one to the decimal counter under key.
func increment(db *storage.DB, key string) error {
	keys := []string{key}
	got, err := db.Get(keys)
	if err != nil {
		return err
	}
	var n int
	if got[0] != nil {
		if _, err := fmt.Sscan(string(got[0]), &n); err != nil {
			return err
		}
	}
	return db.Put(keys, [][]byte{fmt.Append(nil, n+1)})
}

func TestDB_DeferSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.sqlite")
	db, err := storage.Open(path, storage.Options{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil { // nothing committed yet
		t.Fatalf("Sync before any commit: %v", err)
	}
	if err := db.Put([]string{"k"}, [][]byte{[]byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Sync() }() // from another goroutine, as the host's syncer does
	if err := db.Put([]string{"k2"}, [][]byte{[]byte("v2")}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Sync: %v", err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := storage.SyncFS(filepath.Dir(path)); err != nil {
		t.Fatalf("SyncFS: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(); err != nil {
		t.Fatalf("Sync after Close: %v", err)
	}
	db2, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	got, err := db2.Get([]string{"k", "k2"})
	if err != nil || string(got[0]) != "v" || string(got[1]) != "v2" {
		t.Fatalf("after reopen: %q, %v", got, err)
	}
}
