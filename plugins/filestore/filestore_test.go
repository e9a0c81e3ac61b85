package filestore_test

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
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
// directory, alternating calls between them, so conditional writes go through the flock
// between two Stores rather than the in-process mutex.
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
			"bad\xffutf8", ".cellhost-locks/00", "a/.cellhost-tmp-1",
			strings.Repeat("x", 256), strings.Repeat("a/", 600) + "a",
		} {
			_, err := s.Put(ctx, key, []byte("v"), plugins.PutOptions{})
			if !errors.Is(err, plugins.ErrInvalidKey) {
				t.Errorf("Put(%.40q) error = %v, want ErrInvalidKey", key, err)
			}
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(s.Root()), "b")); err == nil {
			t.Errorf("a write escaped the root")
		}
	})

	t.Run("ErrKeyConflict", func(t *testing.T) {
		s := newStore(t)
		put := func(key string) error {
			_, err := s.Put(ctx, key, []byte("v"), plugins.PutOptions{})
			return err
		}
		if err := put("x"); err != nil {
			t.Fatal(err)
		}
		if err := put("x/child"); !errors.Is(err, filestore.ErrKeyConflict) {
			t.Errorf("Put(x/child) with x present error = %v, want ErrKeyConflict", err)
		}
		if err := put("y/child"); err != nil {
			t.Fatal(err)
		}
		if err := put("y"); !errors.Is(err, filestore.ErrKeyConflict) {
			t.Errorf("Put(y) with y/child present error = %v, want ErrKeyConflict", err)
		}
		_, err := s.Put(ctx, "y", []byte("v"), plugins.PutOptions{IfNoneMatch: true})
		if !errors.Is(err, filestore.ErrKeyConflict) {
			t.Errorf("Put(y, IfNoneMatch) with y/child present error = %v, want ErrKeyConflict", err)
		}
		if _, err := s.Head(ctx, "y"); !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("Head(y) error = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, "y", ""); err != nil {
			t.Errorf("Delete(y) = %v, want nil", err)
		}
		// Deleting the child removes its directory, so "y" becomes writable.
		if err := s.Delete(ctx, "y/child", ""); err != nil {
			t.Fatal(err)
		}
		if err := put("y"); err != nil {
			t.Errorf("Put(y) after deleting y/child = %v", err)
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
	for _, k := range []string{"a/1", "a/2", "b"} {
		if _, err := s.Put(ctx, k, []byte("v"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Leftovers of a crashed write, a lock file and an empty directory.
	root := s.Root()
	for _, f := range []string{"a/.cellhost-tmp-0123", ".cellhost-tmp-4567"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("partial"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o777); err != nil {
		t.Fatal(err)
	}
	page, err := s.List(ctx, "", "", 0)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	var got []string
	for _, o := range page.Objects {
		got = append(got, o.Key)
	}
	if want := []string{"a/1", "a/2", "b"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("List() = %q, want %q", got, want)
	}

	t.Run("ErrCorrupt", func(t *testing.T) {
		if err := os.WriteFile(filepath.Join(root, "foreign"), []byte("not an object"), 0o666); err != nil {
			t.Fatal(err)
		}
		if _, err := s.List(ctx, "", "", 0); !errors.Is(err, filestore.ErrCorrupt) {
			t.Errorf("List() over a foreign file error = %v, want ErrCorrupt", err)
		}
		if _, _, err := s.Get(ctx, "foreign"); !errors.Is(err, filestore.ErrCorrupt) {
			t.Errorf("Get(foreign) error = %v, want ErrCorrupt", err)
		}
	})
}

func TestStore_Get(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Put(ctx, "k", []byte("hello"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Root(), "k")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-1] ^= 1 // flip a bit of the body
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, filestore.ErrCorrupt) {
		t.Errorf("Get() of a damaged body error = %v, want ErrCorrupt", err)
	}
}

func TestStore_Delete(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if _, err := s.Put(ctx, "a/b/c", []byte("v"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a/b/c", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Root(), "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(a) after deleting its only key error = %v, want not exist (empty directories pruned)", err)
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
	if _, err := os.Stat(filepath.Join(dir, "k")); err != nil {
		t.Errorf("object not stored under %s: %v", dir, err)
	}
}
