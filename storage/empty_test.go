package storage_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

// TestCreateEmpty: the image CreateEmpty writes is an empty database in
// WAL mode that Open uses as it is (no rollback journal is left), and
// whose writes survive a reopen; it never overwrites a file.
func TestCreateEmpty(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cells", "C", "x.sqlite")
	if err := storage.CreateEmpty(path); err != nil {
		t.Fatalf("CreateEmpty: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:16]) != "SQLite format 3\x00" || b[18] != 2 || b[19] != 2 {
		t.Fatalf("not a WAL-mode SQLite header: %q", b[:20])
	}
	if err := storage.CreateEmpty(path); err == nil {
		t.Errorf("CreateEmpty over an existing file succeeded")
	}
	db, err := storage.Open(path, storage.Options{Scope: "C:x", DeferSync: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if _, err := os.Stat(path + "-journal"); !os.IsNotExist(err) {
		t.Errorf("a rollback journal exists after Open: %v", err)
	}
	mustPut(t, db, "k", "v")
	mustCommit(t, db)
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	db, err = storage.Open(path, storage.Options{Scope: "C:x"})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	if got := mustGet(t, db, "k"); string(got) != "v" {
		t.Errorf("after reopen k = %q, want v", got)
	}
}
