package faultstore_test

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/plugins/storetest"
)

// Without faults the wrapper is the store it wraps.
func TestStore_Contract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) plugins.ObjectStore { return faultstore.Wrap(memstore.New()) })
}

func TestStore_Fail(t *testing.T) {
	ctx := context.Background()
	s := faultstore.Wrap(memstore.New())
	full := s.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpPut}, Prefix: "cells/", Fail: true, Err: syscall.ENOSPC})
	if _, err := s.Put(ctx, "cells/a", []byte("x"), plugins.PutOptions{}); !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Put under the fault = %v, want ENOSPC", err)
	}
	if _, err := s.Put(ctx, "nodes/a", []byte("x"), plugins.PutOptions{}); err != nil {
		t.Fatalf("Put outside the prefix = %v", err)
	}
	if _, _, err := s.Get(ctx, "cells/a"); !errors.Is(err, plugins.ErrNotFound) {
		t.Fatalf("the failed Put landed: Get = %v", err)
	}
	if full.Hits() != 1 {
		t.Fatalf("Hits() = %d, want 1", full.Hits())
	}
	full.Remove()
	if _, err := s.Put(ctx, "cells/a", []byte("x"), plugins.PutOptions{}); err != nil {
		t.Fatalf("Put after Remove = %v", err)
	}
}

func TestStore_FailLanded(t *testing.T) {
	ctx := context.Background()
	s := faultstore.Wrap(memstore.New())
	s.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpPut}, Fail: true, Landed: true, Count: 1})
	if _, err := s.Put(ctx, "k", []byte("v"), plugins.PutOptions{IfNoneMatch: true}); !errors.Is(err, faultstore.ErrInjected) {
		t.Fatalf("Put = %v, want ErrInjected", err)
	}
	body, _, err := s.Get(ctx, "k")
	if err != nil || string(body) != "v" {
		t.Fatalf("the write did not land: %q %v", body, err)
	}
	// Count 1: the next call goes through (and is rejected: the key exists).
	if _, err := s.Put(ctx, "k", []byte("w"), plugins.PutOptions{IfNoneMatch: true}); !errors.Is(err, plugins.ErrPreconditionFailed) {
		t.Fatalf("second Put = %v, want ErrPreconditionFailed", err)
	}
}

func TestStore_Hang(t *testing.T) {
	s := faultstore.Wrap(memstore.New())
	hang := s.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpGet}, Hang: true})

	// A hang ends with the call's context...
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := s.Get(ctx, "k"); done <- err }()
	<-hang.Hit()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Get after cancel = %v", err)
	}
	// ...or proceeds when the fault is removed.
	hang.Remove()
	hang = s.Inject(faultstore.Fault{Ops: []faultstore.Op{faultstore.OpGet}, Hang: true})
	go func() { _, _, err := s.Get(context.Background(), "k"); done <- err }()
	<-hang.Hit()
	hang.Remove()
	if err := <-done; !errors.Is(err, plugins.ErrNotFound) {
		t.Fatalf("Get after Remove = %v, want ErrNotFound", err)
	}
}

func TestStore_Delay(t *testing.T) {
	s := faultstore.Wrap(memstore.New())
	s.Inject(faultstore.Fault{Delay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.List(ctx, "", "", 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("List with a delay and a done context = %v", err)
	}
	if s.Calls(faultstore.OpList) != 1 {
		t.Fatalf("Calls(list) = %d", s.Calls(faultstore.OpList))
	}
}
