package host_test

import (
	"context"
	"errors"
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
	node, err := ownership.New(ownership.Config{Store: bucket, TTL: 600 * time.Millisecond, Rejoin: true})
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
			defer h.Close()
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
