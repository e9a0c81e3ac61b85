package memstore_test

import (
	"context"
	"errors"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/plugins/storetest"
)

func TestStore_Contract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) plugins.ObjectStore { return memstore.New() })
}

func TestOpenStore_Named(t *testing.T) {
	ctx := context.Background()
	name := "mem://" + t.Name()
	a, err := plugins.OpenStore(ctx, name)
	if err != nil {
		t.Fatalf("OpenStore(%q) = %v", name, err)
	}
	etag, err := a.Put(ctx, "k", []byte("shared"), plugins.PutOptions{})
	if err != nil {
		t.Fatalf("Put() = %v", err)
	}
	if err := a.Close(); err != nil {
		t.Fatalf("Close() = %v", err)
	}
	if _, _, err := a.Get(ctx, "k"); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("Get() after Close error = %v, want ErrClosed", err)
	}

	b, err := plugins.OpenStore(ctx, name)
	if err != nil {
		t.Fatalf("OpenStore(%q) again = %v", name, err)
	}
	defer b.Close()
	body, gotETag, err := b.Get(ctx, "k")
	if err != nil {
		t.Fatalf("Get() on the second open = %v", err)
	}
	if string(body) != "shared" || gotETag != etag {
		t.Errorf("Get() = %q, %s; want %q, %s", body, gotETag, "shared", etag)
	}

	other, err := plugins.OpenStore(ctx, "mem://")
	if err != nil {
		t.Fatalf("OpenStore(mem://) = %v", err)
	}
	defer other.Close()
	if _, err := other.Head(ctx, "k"); !errors.Is(err, plugins.ErrNotFound) {
		t.Errorf("Head() on an anonymous store error = %v, want ErrNotFound", err)
	}
}

func TestStore_Put(t *testing.T) {
	ctx := context.Background()
	s := memstore.New()
	t.Run("SameContentNewETag", func(t *testing.T) {
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
	})
	t.Run("IfMatchMissing", func(t *testing.T) {
		_, err := s.Put(ctx, "absent", nil, plugins.PutOptions{IfMatch: `"x"`})
		if !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("Put(IfMatch) on a missing key error = %v, want ErrNotFound", err)
		}
	})
	t.Run("ErrInvalidKey", func(t *testing.T) {
		for _, key := range []string{"", "/a", "a//b", "a/../b", "a/"} {
			if _, err := s.Put(ctx, key, nil, plugins.PutOptions{}); !errors.Is(err, plugins.ErrInvalidKey) {
				t.Errorf("Put(%q) error = %v, want ErrInvalidKey", key, err)
			}
		}
	})
	t.Run("BothConditions", func(t *testing.T) {
		if _, err := s.Put(ctx, "k", nil, plugins.PutOptions{IfNoneMatch: true, IfMatch: `"x"`}); err == nil {
			t.Errorf("Put(IfNoneMatch and IfMatch) = nil, want an error")
		}
	})
}
