package filestore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/plugins"
)

// writeV1 writes an object as format v1 did (the file <root>/<key> holding
// the header and the body) and returns its ETag.
func writeV1(t testing.TB, root, key string, body []byte) string {
	t.Helper()
	sum := sha256.Sum256(body)
	raw := hex.EncodeToString(sum[:16]) + "-" + fmt.Sprintf("%016x", len(key))
	path := filepath.Join(root, filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append([]byte(v1Magic+raw+"\n"), body...), 0o666); err != nil {
		t.Fatal(err)
	}
	return `"` + raw + `"`
}

// newV1Dir returns a directory as format v1 left it: objects, the lock
// directory with lock files and the temporary files of interrupted writes.
func newV1Dir(t *testing.T) (root string, want map[string]string) {
	t.Helper()
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".cellhost-locks"), 0o777); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".cellhost-locks/00", ".cellhost-locks/17", ".cellhost-tmp-0123", "cells/a/.cellhost-tmp-4567"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, f)), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), []byte("partial"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	want = map[string]string{} // key -> etag; the body is "body of <key>"
	for _, k := range []string{"nodes/n1.json", "cells/a/own.json", "cells/a/ltx/e1/0000/0000000000000001-0000000000000001.ltx", "u/Zürich", "empty"} {
		body := []byte("body of " + k)
		if k == "empty" {
			body = nil
		}
		want[k] = writeV1(t, root, k, body)
	}
	return root, want
}

func checkMigrated(t *testing.T, s *Store, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	for k, etag := range want {
		body, got, err := s.Get(ctx, k)
		if err != nil {
			t.Errorf("Get(%s) after migration = %v", k, err)
			continue
		}
		wantBody := "body of " + k
		if k == "empty" {
			wantBody = ""
		}
		if got != etag || string(body) != wantBody {
			t.Errorf("Get(%s) = %q, %s; want %q, %s (the v1 etag)", k, body, got, wantBody, etag)
		}
	}
	page, err := s.List(ctx, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Objects) != len(want) {
		t.Errorf("List() after migration = %+v, want %d objects", page.Objects, len(want))
	}
}

func TestMigrate(t *testing.T) {
	ctx := context.Background()
	root, want := newV1Dir(t)
	if err := os.Symlink("nowhere", filepath.Join(root, "cells/a/link")); err != nil {
		t.Fatal(err)
	}
	s, err := New(root)
	if err != nil {
		t.Fatalf("New(v1 directory) = %v", err)
	}
	defer s.Close()
	checkMigrated(t, s, want)

	// A CAS with an etag read before the migration still applies.
	if _, err := s.Put(ctx, "cells/a/own.json", []byte("v2"), plugins.PutOptions{IfMatch: want["cells/a/own.json"]}); err != nil {
		t.Errorf("Put(IfMatch v1 etag) = %v", err)
	}

	// The v1 files are gone, except what was not a v1 object (the
	// symlink); the lock directory is the marker file; the node lease
	// is a file of the lease directory (leases.go).
	var left []string
	filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(root, path); !strings.HasPrefix(rel, ".cellhost-store") && !strings.HasPrefix(rel, ".cellhost-leases") && rel != "." {
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	if got, want := strings.Join(left, " "), ".cellhost-locks cells cells/a cells/a/link"; got != want {
		t.Errorf("files left after the migration: %s, want %s", got, want)
	}
	if err := os.MkdirAll(filepath.Join(root, ".cellhost-locks"), 0o777); err == nil {
		t.Errorf("an older cellhost could still create its lock directory")
	}
}

func TestMigrate_Corrupt(t *testing.T) {
	for name, damage := range map[string]func(data []byte) []byte{
		"Body":    func(d []byte) []byte { d[len(d)-1] ^= 1; return d },
		"Header":  func(d []byte) []byte { return d[5:] },
		"Foreign": func([]byte) []byte { return []byte("not an object") },
	} {
		t.Run(name, func(t *testing.T) {
			root, want := newV1Dir(t)
			path := filepath.Join(root, "cells", "a", "own.json")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, damage(data), 0o666); err != nil {
				t.Fatal(err)
			}
			_, err = New(root)
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), `"cells/a/own.json"`) {
				t.Fatalf("New() with a corrupt v1 file error = %v, want ErrCorrupt naming the key", err)
			}
			if _, err := os.Stat(filepath.Join(root, dbName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a failed migration left the database: %v", err)
			}
			for k := range want {
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(k))); err != nil {
					t.Errorf("a failed migration removed %s: %v", k, err)
				}
			}
			// Repaired, the migration runs.
			want["cells/a/own.json"] = writeV1(t, root, "cells/a/own.json", []byte("body of cells/a/own.json"))
			s, err := New(root)
			if err != nil {
				t.Fatalf("New() after the repair = %v", err)
			}
			defer s.Close()
			checkMigrated(t, s, want)
		})
	}
}

// TestMigrate_Interrupted starts from what a crash during a migration can
// leave: a partial database under its temporary name, or the database in
// place with the v1 files not yet removed.
func TestMigrate_Interrupted(t *testing.T) {
	t.Run("BeforeRename", func(t *testing.T) {
		root, want := newV1Dir(t)
		for _, f := range []string{newDBName, newDBName + "-journal"} {
			if err := os.WriteFile(filepath.Join(root, f), []byte("half a database"), 0o666); err != nil {
				t.Fatal(err)
			}
		}
		s, err := New(root)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		checkMigrated(t, s, want)
	})
	t.Run("AfterRename", func(t *testing.T) {
		root, want := newV1Dir(t)
		if err := create(root); err != nil {
			t.Fatal(err)
		}
		// Written by nobody after the database exists, but if it were,
		// it would not be read.
		writeV1(t, root, "late", []byte("never read"))
		s, err := New(root)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		checkMigrated(t, s, want)
		if _, err := os.Stat(filepath.Join(root, "nodes")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("v1 files left after the interrupted migration was finished: %v", err)
		}
	})
}

// TestMigrate_Concurrent opens one v1 directory from many Stores at once:
// the flock lets one migrate, the others open its database.
func TestMigrate_Concurrent(t *testing.T) {
	root, want := newV1Dir(t)
	var wg sync.WaitGroup
	stores := make([]*Store, 8)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = New(root) })
	}
	wg.Wait()
	for i, s := range stores {
		if errs[i] != nil {
			t.Fatalf("New() %d = %v", i, errs[i])
		}
		checkMigrated(t, s, want)
		s.Close()
	}
}

func TestNew_Fresh(t *testing.T) {
	root := filepath.Join(t.TempDir(), "a", "bucket")
	s, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	page, err := s.List(context.Background(), "", "", 0)
	if err != nil || len(page.Objects) != 0 {
		t.Errorf("List() of a fresh store = %+v, %v", page, err)
	}
	var size int
	if err := s.rdb.QueryRow("PRAGMA page_size").Scan(&size); err != nil || size != pageSize {
		t.Errorf("page_size = %d, %v; want %d", size, err, pageSize)
	}
	var mode string
	if err := s.rdb.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var sync int
	if err := s.w.conn.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&sync); err != nil || sync != 1 {
		t.Errorf("synchronous of the writer = %d, %v; want 1 (NORMAL: the writer fsyncs the WAL itself, after COMMIT)", sync, err)
	}
}
