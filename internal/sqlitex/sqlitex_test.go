package sqlitex_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

func TestPrefixEnd(t *testing.T) {
	for _, tt := range []struct {
		prefix, want string
		ok           bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"cells/x/", "cells/x0", true},
		{"a\xff", "b", true},
		{"\xff\xff", "", false},
		{"é", "\xc3\xaa", true},
		{"\u00bf", "\xc2\xc0", true}, // invalid UTF-8, still a byte bound
	} {
		got, ok := sqlitex.PrefixEnd(tt.prefix)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PrefixEnd(%q) = %q, %v; want %q, %v", tt.prefix, got, ok, tt.want, tt.ok)
		}
	}
}

func TestHandle(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		tls, h, err := sqlitex.Handle(dc)
		if err != nil {
			return err
		}
		// The handle is live: SQLite answers on it.
		if ac := sqlite3.Xsqlite3_get_autocommit(tls, h); ac != 1 {
			t.Errorf("sqlite3_get_autocommit = %d, want 1", ac)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	for _, bad := range []any{nil, 42, &struct{ db int }{}, &struct{}{}} {
		if _, _, err := sqlitex.Handle(bad); !errors.Is(err, sqlitex.ErrNoRawHandle) {
			t.Errorf("Handle(%T) = %v, want ErrNoRawHandle", bad, err)
		}
	}
}

// TestDSN opens a database whose path holds URI metacharacters and checks
// that the file lands at that path and the pragmas apply, in order.
func TestDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a?b#c%d e.db")
	db, err := sql.Open("sqlite", sqlitex.DSN(path, "busy_timeout(1234)", "journal_mode(WAL)"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var timeout int
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if timeout != 1234 {
		t.Errorf("busy_timeout = %d, want 1234", timeout)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file at %q: %v", path, err)
	}
}
