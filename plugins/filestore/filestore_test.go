package filestore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/storetest"
)

func newStore(t *testing.T) *filestore.Store {
	t.Helper()
	s, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return s
}

func TestStore_Contract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) plugins.ObjectStore { return newStore(t) })
}

// TestStore_ContractSharedDir runs the suite on two Stores over one
// directory, alternating calls between them, so that conditional writes
// race through SQLite's write lock between two writers (as two processes
// do) and reads see the other Store's commits.
func TestStore_ContractSharedDir(t *testing.T) {
	storetest.Run(t, func(t *testing.T) plugins.ObjectStore {
		dir := t.TempDir()
		a, err := filestore.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		b, err := filestore.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		return &alternating{stores: [2]*filestore.Store{a, b}}
	})
}

// alternating sends each call to the next of two Stores.
type alternating struct {
	stores [2]*filestore.Store
	n      atomic.Uint64
}

func (a *alternating) next() *filestore.Store { return a.stores[a.n.Add(1)%2] }

func (a *alternating) Get(ctx context.Context, key string) ([]byte, string, error) {
	return a.next().Get(ctx, key)
}
func (a *alternating) Head(ctx context.Context, key string) (string, error) {
	return a.next().Head(ctx, key)
}
func (a *alternating) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	return a.next().Put(ctx, key, body, opts)
}
func (a *alternating) Delete(ctx context.Context, key, ifMatch string) error {
	return a.next().Delete(ctx, key, ifMatch)
}
func (a *alternating) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	return a.next().List(ctx, prefix, startAfter, limit)
}
func (a *alternating) Close() error {
	return errors.Join(a.stores[0].Close(), a.stores[1].Close())
}

func TestStore_Put(t *testing.T) {
	ctx := context.Background()

	t.Run("ErrInvalidKey", func(t *testing.T) {
		s := newStore(t)
		for _, key := range []string{
			"", "/abs", "a/", "a//b", "..", "a/../b", "./a", "a/.", "nul\x00byte",
			"bad\xffutf8", strings.Repeat("a/", 600) + "a",
		} {
			_, err := s.Put(ctx, key, []byte("v"), plugins.PutOptions{})
			if !errors.Is(err, plugins.ErrInvalidKey) {
				t.Errorf("Put(%.40q) error = %v, want ErrInvalidKey", key, err)
			}
		}
	})

	// Keys are rows: what a directory tree could not hold is fine.
	t.Run("KeysBeyondFiles", func(t *testing.T) {
		s := newStore(t)
		for _, key := range []string{
			"x", "x/child", "y/child", "y", ".cellhost-locks/00", "a/.cellhost-tmp-1",
			".cellhost-store.db", strings.Repeat("x", 1000),
		} {
			etag, err := s.Put(ctx, key, []byte("body of "+key), plugins.PutOptions{IfNoneMatch: true})
			if err != nil {
				t.Fatalf("Put(%.40q) = %v", key, err)
			}
			body, got, err := s.Get(ctx, key)
			if err != nil || got != etag || string(body) != "body of "+key {
				t.Errorf("Get(%.40q) = %q, %s, %v; want %q, %s", key, body, got, err, "body of "+key, etag)
			}
		}
		if err := s.Delete(ctx, "x", ""); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Head(ctx, "x/child"); err != nil {
			t.Errorf("Head(x/child) after deleting x = %v", err)
		}
	})

	t.Run("SameContentNewETag", func(t *testing.T) {
		s := newStore(t)
		e1, err := s.Put(ctx, "k", []byte("same"), plugins.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e2, err := s.Put(ctx, "k", []byte("same"), plugins.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if e1 == e2 {
			t.Errorf("two writes of the same content got the same etag %s", e1)
		}
		if _, err := s.Put(ctx, "k", []byte("again"), plugins.PutOptions{IfMatch: e1}); !errors.Is(err, plugins.ErrPreconditionFailed) {
			t.Errorf("Put(IfMatch first etag) error = %v, want ErrPreconditionFailed", err)
		}
	})

	t.Run("IfMatchMissing", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Put(ctx, "absent", nil, plugins.PutOptions{IfMatch: `"x"`})
		if !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("Put(IfMatch) on a missing key error = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, "absent", `"x"`); !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("Delete(IfMatch) on a missing key error = %v, want ErrNotFound", err)
		}
	})

	t.Run("ErrClosed", func(t *testing.T) {
		s := newStore(t)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Put(ctx, "k", nil, plugins.PutOptions{}); !errors.Is(err, plugins.ErrClosed) {
			t.Errorf("Put() after Close error = %v, want ErrClosed", err)
		}
	})
}

func TestStore_ETagSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	etag, err := s.Put(ctx, "cells/x/own.json", []byte(`{"node":"a","epoch":1}`), plugins.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err = filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Head(ctx, "cells/x/own.json")
	if err != nil {
		t.Fatal(err)
	}
	if got != etag {
		t.Errorf("Head() after reopen = %s, want %s", got, etag)
	}
	if _, err := s.Put(ctx, "cells/x/own.json", []byte("v2"), plugins.PutOptions{IfMatch: etag}); err != nil {
		t.Errorf("Put(IfMatch) after reopen = %v", err)
	}
}

func TestStore_List(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var want []string
	for i := range 2500 {
		k := fmt.Sprintf("cells/c%d/ltx/e1/0000/%016x-%016x.ltx", i%7, i, i)
		if _, err := s.Put(ctx, k, []byte("v"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%7 == 3 {
			want = append(want, k)
		}
	}
	for _, k := range []string{"cells/c3", "cells/c3.", "cells/c4/own.json", "cells/c3/\u00ff\u00ff"} {
		if _, err := s.Put(ctx, k, []byte("v"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want = append(want, "cells/c3/\u00ff\u00ff")
	sort.Strings(want)

	// Pages of the default size, then of 100.
	for _, limit := range []int{0, 100} {
		var got []string
		for after := ""; ; {
			page, err := s.List(ctx, "cells/c3/", after, limit)
			if err != nil {
				t.Fatalf("List(after %q) = %v", after, err)
			}
			for _, o := range page.Objects {
				got = append(got, o.Key)
			}
			if page.NextStartAfter == "" {
				break
			}
			after = page.NextStartAfter
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("List(cells/c3/, limit %d) returned %d keys, want %d", limit, len(got), len(want))
		}
	}

	// A prefix ending in 0xff bytes has no upper bound.
	if _, err := s.Put(ctx, "z\xff", []byte("v"), plugins.PutOptions{}); err == nil {
		t.Fatal("Put(invalid UTF-8) succeeded")
	}
	page, err := s.List(ctx, "cells/c3/\u00ff", "", 0)
	if err != nil || len(page.Objects) != 1 || page.Objects[0].Key != "cells/c3/\u00ff\u00ff" {
		t.Errorf("List(cells/c3/\u00ff) = %+v, %v", page, err)
	}
}

// TestStore_Get checks that Get verifies the body against the checksum in
// its ETag.
func TestStore_Get(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Put(ctx, "k", []byte("hello"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(s.Root(), ".cellhost-store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE objects SET body = CAST('hellO' AS BLOB) WHERE key = 'k'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, filestore.ErrCorrupt) || !strings.Contains(err.Error(), `"k"`) {
		t.Errorf("Get() of a damaged body error = %v, want ErrCorrupt naming the key", err)
	}
	if _, err := db.Exec(`UPDATE objects SET etag = 'W/"weak"' WHERE key = 'k'`); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, filestore.ErrCorrupt) {
		t.Errorf("Get() with a malformed etag error = %v, want ErrCorrupt", err)
	}
}

func TestDirFromURL(t *testing.T) {
	tests := []struct {
		url, want string
	}{
		{"file:///var/lib/cellhost", "/var/lib/cellhost"},
		{"file://localhost/var/lib/cellhost", "/var/lib/cellhost"},
		{"file://.cellhost", ".cellhost"},
		{"file://data/bucket", "data/bucket"},
		{"file://./data", "data"},
		{"file://../up", "../up"},
		{"file:rel/dir", "rel/dir"},
		{"file:///with%20space", "/with space"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		got, err := filestore.DirFromURL(u)
		if err != nil {
			t.Errorf("DirFromURL(%q) = %v", tt.url, err)
			continue
		}
		if got != tt.want {
			t.Errorf("DirFromURL(%q) = %q, want %q", tt.url, got, tt.want)
		}
	}
	for _, bad := range []string{"file://", "file:///x?mode=1", "file://u:p@host/x"} {
		u, err := url.Parse(bad)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := filestore.DirFromURL(u); err == nil {
			t.Errorf("DirFromURL(%q) = %q, want an error", bad, got)
		}
	}
}

func TestOpenStore_File(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := plugins.OpenStore(ctx, "file://"+dir)
	if err != nil {
		t.Fatalf("OpenStore() = %v", err)
	}
	defer s.Close()
	if _, err := s.Put(ctx, "k", []byte("v"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cellhost-store.db")); err != nil {
		t.Errorf("no database under %s: %v", dir, err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, ".cellhost-locks")); err != nil || !strings.Contains(string(got), "SQLite") {
		t.Errorf("marker file .cellhost-locks = %q, %v; want the format note", got, err)
	}
}

// TestStore_GetMany checks that each key gets what Get answers for it:
// bodies and ETags, ErrNotFound, ErrInvalidKey and ErrCorrupt, each error
// naming its key, also when the same key comes twice; and that the
// reader is usable afterwards (its read transaction ended).
func TestStore_GetMany(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	etags := map[string]string{}
	for _, k := range []string{"a/own.json", "b/own.json", "bad", "empty"} {
		body := []byte("body of " + k)
		if k == "empty" {
			body = nil
		}
		etag, err := s.Put(ctx, k, body, plugins.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		etags[k] = etag
	}
	db, err := sql.Open("sqlite", filepath.Join(s.Root(), ".cellhost-store.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE objects SET body = CAST('damaged' AS BLOB) WHERE key = 'bad'`); err != nil {
		t.Fatal(err)
	}
	keys := []string{"a/own.json", "missing", "b/own.json", "/invalid", "bad", "empty", "a/own.json"}
	for round := range 2 {
		got := s.GetMany(ctx, keys)
		if len(got) != len(keys) {
			t.Fatalf("GetMany() returned %d results for %d keys", len(got), len(keys))
		}
		for i, k := range keys {
			body, etag, err := s.Get(ctx, k)
			r := got[i]
			switch {
			case (err == nil) != (r.Err == nil):
				t.Errorf("round %d: GetMany %q error = %v, Get's = %v", round, k, r.Err, err)
			case err != nil:
				if !strings.Contains(r.Err.Error(), fmt.Sprintf("%q", k)) ||
					!errors.Is(r.Err, plugins.ErrNotFound) && k == "missing" ||
					!errors.Is(r.Err, plugins.ErrInvalidKey) && k == "/invalid" ||
					!errors.Is(r.Err, filestore.ErrCorrupt) && k == "bad" {
					t.Errorf("round %d: GetMany %q error = %v, want one naming the key, like Get's %v", round, k, r.Err, err)
				}
			case string(r.Body) != string(body) || r.ETag != etag || r.ETag != etags[k] || r.Body == nil:
				t.Errorf("round %d: GetMany %q = %q %s, want %q %s (non-nil)", round, k, r.Body, r.ETag, body, etag)
			}
		}
		// The reader's transaction ended: a write is seen by the next round.
		if etags["missing"], err = s.Put(ctx, "missing", []byte("now here"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	for _, r := range s.GetMany(ctx, []string{"a/own.json"}) {
		if !errors.Is(r.Err, plugins.ErrClosed) {
			t.Errorf("GetMany() after Close error = %v, want ErrClosed", r.Err)
		}
	}
}
