package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// writeN sends n increments to object name and returns the last reply.
func writeN(t *testing.T, h *host.Host, name string, n int) string {
	t.Helper()
	var body string
	for i := 0; i < n; i++ {
		var err error
		if body, err = fetchBody(t, h, name, "/"); err != nil {
			t.Fatal(err)
		}
	}
	return body
}

// TestBackup_LocalNewerThanBucketWins: in the backup mode a reply leaves
// once its commit is fsync'd locally. When the bucket misses the newest
// writes (as after a kill -9 between two saves) and the state
// directory is intact, the next activation keeps the local database: no
// acknowledged write is lost. Before the fix the bucket's older snapshot
// replaced it (n went back to 2).
func TestBackup_LocalNewerThanBucketWins(t *testing.T) {
	bucket := memstore.New()
	state := t.TempDir()
	node := startNode(t, bucket) // one node id across the "restarts"
	open := func() *host.Host {
		h := newHostB(t, gateJS, state, func(c *host.Config) {
			c.Durability = host.DurabilityBackup
			c.Bucket = bucket
			c.Node = node
			c.BackupInterval = time.Hour
		})
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := open()
	writeN(t, h, "k", 2)
	if err := h.Close(context.Background()); err != nil { // the final save: the bucket has n = 2
		t.Fatal(err)
	}
	h = open()
	if got := writeN(t, h, "k", 3); !strings.Contains(got, `"n":5`) {
		t.Fatalf("after reopening: %s, want n = 5", got)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Take the final save (epoch 2) back out of the bucket: it now holds
	// what it would after a kill -9 before that save (nothing newer than
	// n = 2; that save's first snapshot deleted epoch 1's files).
	scope := "Counter:" + host.IDFromName("counter", "Counter", "k")
	for _, f := range ltxFiles(t, bucket, scope) {
		if f.Epoch == 2 {
			if err := bucket.Delete(context.Background(), f.String(), ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	h = open()
	defer h.Close(context.Background())
	if body, err := fetchBody(t, h, "k", "/read"); err != nil || !strings.Contains(body, `"n":5`) {
		t.Fatalf("after the lost save: %q, %v; want n = 5 (the local database)", body, err)
	}
}

// TestBackup_NewerEpochInBucketWins: once another node wrote the cell at a
// later epoch, this node's local database is stale and the bucket wins.
func TestBackup_NewerEpochInBucketWins(t *testing.T) {
	bucket := memstore.New()
	stateA, stateB := t.TempDir(), t.TempDir()
	nodeA, nodeB := startNode(t, bucket), startNode(t, bucket)
	open := func(state string, node interface{ ID() string }) *host.Host {
		h := newHostB(t, gateJS, state, func(c *host.Config) {
			c.Durability = host.DurabilityBackup
			c.Bucket = bucket
			if node == nodeA {
				c.Node = nodeA
			} else {
				c.Node = nodeB
			}
			c.BackupInterval = time.Hour
		})
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := open(stateA, nodeA)
	writeN(t, h, "k", 2)
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h = open(stateB, nodeB) // B restores n = 2 from the bucket, writes 3, saves at a later epoch
	if got := writeN(t, h, "k", 1); !strings.Contains(got, `"n":3`) {
		t.Fatalf("on node B: %s, want n = 3", got)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	h = open(stateA, nodeA)
	defer h.Close(context.Background())
	if body, err := fetchBody(t, h, "k", "/read"); err != nil || !strings.Contains(body, `"n":3`) {
		t.Fatalf("back on node A: %q, %v; want n = 3 (node B's save)", body, err)
	}
}
