package host_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// startRejoiningNode starts a fleet member with a short lease that rejoins
// after a fence (as cmd/cellhost runs it).
func startRejoiningNode(t *testing.T, bucket plugins.ObjectStore) *ownership.Node {
	t.Helper()
	node, err := ownership.New(ownership.Config{Store: bucket, TTL: 2 * time.Second, Rejoin: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close(context.Background()) })
	return node
}

// TestOutage_FenceThenRejoin: a bucket that fails every call (down), or
// every write (its disk full), fences the node. The write in flight fails
// instead of being acknowledged, the process goes on, requests get a clear
// "lease has lapsed" error, and once the bucket answers the node takes a
// new lease and serves again with every acknowledged write.
func TestOutage_FenceThenRejoin(t *testing.T) {
	for name, fault := range map[string]faultstore.Fault{
		"down": {Fail: true},
		"full": {Fail: true, Err: syscall.ENOSPC, Ops: []faultstore.Op{faultstore.OpPut}},
		"hung": {Hang: true},
	} {
		t.Run(name, func(t *testing.T) {
			bucket := faultstore.Wrap(memstore.New())
			node := startRejoiningNode(t, bucket)
			h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
				c.Bucket = bucket
				c.Node = node
			})
			if err := h.Open(); err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			writeN(t, h, "a", 3)

			outage := bucket.Inject(fault)
			fenced := node.Done()
			if body, err := fetchBody(t, h, "a", "/"); err == nil {
				t.Fatalf("a write was acknowledged during the outage: %s", body)
			}
			<-fenced
			_, err := fetchBody(t, h, "a", "/")
			if !errors.Is(err, ownership.ErrFenced) {
				t.Fatalf("request while fenced: %v, want ErrFenced", err)
			}

			rejoined := node.Rejoined()
			outage.Remove()
			<-rejoined
			body, err := fetchBody(t, h, "a", "/")
			if err != nil {
				t.Fatalf("after the rejoin: %v", err)
			}
			if !strings.Contains(body, `"n":4`) {
				t.Fatalf("after the rejoin: %s, want n = 4 (3 acknowledged, 1 failed)", body)
			}
		})
	}
}

// TestLog_TransientFaults: short bursts of failing, lost-reply and slow
// bucket calls on the log path (LTX uploads, the acknowledgement check) are
// ridden through: every write is acknowledged once it is durable, and a
// fresh host restores every one of them from the bucket alone.
func TestLog_TransientFaults(t *testing.T) {
	bucket := faultstore.Wrap(memstore.New())
	node := startNode(t, bucket)
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	put := []faultstore.Op{faultstore.OpPut}
	get := []faultstore.Op{faultstore.OpGet}
	faults := []faultstore.Fault{
		{Ops: put, Prefix: "cells/", Fail: true, Count: 3},               // uploads fail, then land
		{Ops: put, Prefix: "cells/", Fail: true, Landed: true, Count: 2}, // uploads land, replies lost
		{Ops: get, Prefix: "cells/", Fail: true, Count: 2},               // the ownership check fails
		{Ops: put, Prefix: "cells/", Delay: 20 * time.Millisecond, Count: 2},
	}
	writeN(t, h, "t", 1) // activates the cell: own.json and the first snapshot
	n := 1
	for _, f := range faults {
		in := bucket.Inject(f)
		n++
		body := writeN(t, h, "t", 1)
		if want := `"n":` + itoa(n); !strings.Contains(body, want) {
			t.Fatalf("fault %+v: %s, want %s", f, body, want)
		}
		if in.Hits() == 0 {
			t.Fatalf("fault %+v never applied", f)
		}
		in.Remove()
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h2 := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
	})
	if err := h2.Open(); err != nil {
		t.Fatal(err)
	}
	defer h2.Close(context.Background())
	if body, err := fetchBody(t, h2, "t", "/read"); err != nil || !strings.Contains(body, `"n":`+itoa(n)) {
		t.Fatalf("restored: %q, %v; want n = %d", body, err, n)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
