package storage

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestOpen_Pragmas(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cell.sqlite"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"synchronous", "2"}, // FULL
		{"foreign_keys", "1"},
		{"busy_timeout", "5000"},
		{"cache_size", "-512"},
	}
	for _, tt := range tests {
		var got string
		if err := db.conn.QueryRowContext(context.Background(), "PRAGMA "+tt.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tt.pragma, err)
		}
		if got != tt.want {
			t.Errorf("PRAGMA %s = %s, want %s", tt.pragma, got, tt.want)
		}
	}
}

// A failed statement aborts the whole implicit transaction: nothing of it is
// committed, and Commit reports the failure.
func TestDB_abort(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "cell.sqlite"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	if err := db.Put([]string{"a"}, [][]byte{[]byte("1")}); err != nil {
		t.Fatal(err)
	}
	cause := errors.New("disk on fire")
	if got := db.abort(cause); got != cause {
		t.Errorf("abort returned %v, want the cause", got)
	}
	if !db.InTx() {
		t.Errorf("InTx() after abort = false, want true")
	}
	if _, err := db.Get([]string{"a"}); !errors.Is(err, ErrTxAborted) || !errors.Is(err, cause) {
		t.Errorf("Get after abort: err = %v, want ErrTxAborted and the cause", err)
	}
	if err := db.Put([]string{"b"}, [][]byte{nil}); !errors.Is(err, ErrTxAborted) {
		t.Errorf("Put after abort: err = %v, want ErrTxAborted", err)
	}
	if err := db.Commit(); !errors.Is(err, ErrTxAborted) {
		t.Errorf("Commit after abort: err = %v, want ErrTxAborted", err)
	}
	if db.InTx() {
		t.Errorf("InTx() after the failed Commit = true, want false")
	}
	got, err := db.Get([]string{"a", "b"})
	if err != nil {
		t.Fatalf("Get in a new transaction: %v", err)
	}
	if got[0] != nil || got[1] != nil {
		t.Errorf("Get = %q, want nothing of the aborted transaction", got)
	}

	t.Run("RollbackClears", func(t *testing.T) {
		db.abort(cause)
		if err := db.Rollback(); err != nil {
			t.Fatalf("Rollback: %v", err)
		}
		if db.InTx() {
			t.Errorf("InTx() after Rollback = true, want false")
		}
		if _, err := db.Get([]string{"a"}); err != nil {
			t.Errorf("Get after Rollback: %v", err)
		}
		if err := db.Commit(); err != nil {
			t.Errorf("Commit: %v", err)
		}
	})
}
