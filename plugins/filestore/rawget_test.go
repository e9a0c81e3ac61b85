package filestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cellhost/cellhost/internal/sqlitex"
	"github.com/cellhost/cellhost/plugins"
)

// TestGet_RawAndFallback reads objects through the raw getters and through
// database/sql (the fallback when the driver has no raw handle): same
// answers, and a corrupt row is ErrCorrupt on both.
func TestGet_RawAndFallback(t *testing.T) {
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	etag, err := s.Put(ctx, "a/own.json", []byte(`{"node":"n"}`), plugins.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(ctx, "empty", nil, plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", sqlitex.DSN(s.w.path, "busy_timeout(10000)"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO objects (key, etag, body) VALUES ('bad', ?1, x'00')`, etag); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("k", plugins.MaxKeyLen)
	if _, err := s.Put(ctx, long, []byte("long"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, fallback := range []bool{false, true} {
		s.getters.mu.Lock()
		s.getters.broken = fallback
		s.getters.mu.Unlock()
		body, got, err := s.Get(ctx, "a/own.json")
		if err != nil || got != etag || string(body) != `{"node":"n"}` {
			t.Errorf("fallback %v: Get = %q, %s, %v", fallback, body, got, err)
		}
		if body, _, err := s.Get(ctx, "empty"); err != nil || body == nil || len(body) != 0 {
			t.Errorf("fallback %v: Get(empty) = %q (nil %v), %v", fallback, body, body == nil, err)
		}
		if body, _, err := s.Get(ctx, long); err != nil || string(body) != "long" {
			t.Errorf("fallback %v: Get(long key) = %q, %v", fallback, body, err)
		}
		if _, _, err := s.Get(ctx, "missing"); !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("fallback %v: Get(missing) = %v", fallback, err)
		}
		if _, _, err := s.Get(ctx, "bad"); !errors.Is(err, ErrCorrupt) {
			t.Errorf("fallback %v: Get(bad) = %v", fallback, err)
		}
	}
}

// TestGet_Close closes the store while Gets run: each returns its object
// or ErrClosed, and Close returns once they are done. Close is called only
// once every reader has had one Get answered and is still looping, so the
// race between Close and Gets in flight is exercised however slowly the
// readers start; each reader must then see ErrClosed.
func TestGet_Close(t *testing.T) {
	ctx := context.Background()
	s := newStoreWithK(t)
	const readers = 16
	var wg, started sync.WaitGroup
	started.Add(readers)
	var closedSeen atomic.Int32
	for range readers {
		wg.Go(func() {
			var once sync.Once
			defer once.Do(started.Done) // a reader that fails at once
			for {
				body, _, err := s.Get(ctx, "k")
				if errors.Is(err, plugins.ErrClosed) {
					closedSeen.Add(1)
					return
				}
				if err != nil || string(body) != "v" {
					t.Errorf("Get = %q, %v", body, err)
					return
				}
				once.Do(started.Done)
			}
		})
	}
	started.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if n := closedSeen.Load(); n != readers && !t.Failed() {
		t.Errorf("%d of %d readers saw ErrClosed after Close", n, readers)
	}
}
