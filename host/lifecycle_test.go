package host_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// stallingStore is a bucket whose List waits until its caller gives up
// (ctx ends), then answers anyway from the inner store, as a slow bucket
// whose answer arrives after the host began to close.
type stallingStore struct {
	plugins.ObjectStore
	listing chan struct{} // closed by the first List
	once    sync.Once
}

func (s *stallingStore) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	s.once.Do(func() { close(s.listing) })
	<-ctx.Done()
	return s.ObjectStore.List(context.Background(), prefix, startAfter, limit)
}

// TestHost_CloseWaitsForActivation: an activation still restoring when
// Close runs is canceled, and Close returns only after it ended and closed
// the database it went on to open: nothing is left open or running in the
// state directory, whose lock is free again.
func TestHost_CloseWaitsForActivation(t *testing.T) {
	state := t.TempDir()
	bucket := &stallingStore{ObjectStore: memstore.New(), listing: make(chan struct{})}
	h := newHostB(t, counterJS, state, func(c *host.Config) {
		c.Bucket = bucket
		c.Durability = host.DurabilityLog
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	id, _, err := h.ResolveID("Counter", "alice")
	if err != nil {
		t.Fatal(err)
	}
	reqCtx, cancelReq := context.WithCancel(context.Background())
	defer cancelReq()
	replied := make(chan error, 1)
	go func() {
		_, err := h.FetchObject(reqCtx, "Counter", id, "alice", &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"})
		replied <- err
	}()
	<-bucket.listing // the activation is inside Restore

	if err := h.Close(context.Background()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	path := filepath.Join(state, "cells", "Counter", id+".sqlite")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the activation did not go on to open its database (the case under test): %v", err)
	}
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + suffix); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s%s after Close: %v; want the database closed", filepath.Base(path), suffix, err)
		}
	}
	lock, err := host.LockState(state)
	if err != nil {
		t.Fatalf("state lock after Close: %v", err)
	}
	lock.Close()
	cancelReq()
	if err := <-replied; err == nil {
		t.Errorf("the request got an answer from a host that closed before the object opened")
	}
}

// TestHost_CloseTwice: a second Close returns nil.
func TestHost_CloseTwice(t *testing.T) {
	h := newHost(t, counterJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Errorf("second Close = %v, want nil", err)
	}
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_800_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
