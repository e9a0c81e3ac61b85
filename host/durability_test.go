package host_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

func fetchBody(t *testing.T, h *host.Host, name, path string) (string, error) {
	t.Helper()
	r := <-fetchAsync(h, name, path)
	return r.body, r.err
}

// TestDurability_BucketIsTheSourceOfTruth writes through a host in each
// bucket mode, throws the whole local state away, and reads it back from
// the bucket alone.
func TestDurability_BucketIsTheSourceOfTruth(t *testing.T) {
	for _, mode := range []string{host.DurabilityLog, host.DurabilityBackup} {
		t.Run(mode, func(t *testing.T) {
			bucket := memstore.New()
			state := t.TempDir()
			open := func() *host.Host {
				h := newHostB(t, gateJS, state, func(c *host.Config) {
					c.Durability = mode
					c.Bucket = bucket
				})
				if err := h.Open(); err != nil {
					t.Fatal(err)
				}
				return h
			}
			h := open()
			for i := 0; i < 3; i++ {
				if _, err := fetchBody(t, h, "keep", "/"); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Close(context.Background()); err != nil { // backup: the final save
				t.Fatal(err)
			}
			page, err := bucket.List(context.Background(), bucketkey.LTXPrefix("Counter:"+host.IDFromName("counter", "Counter", "keep")), "", 100)
			if err != nil || len(page.Objects) == 0 {
				t.Fatalf("no LTX in the bucket after close: %v %v", page.Objects, err)
			}
			if err := os.RemoveAll(state); err != nil {
				t.Fatal(err)
			}
			h = open()
			defer h.Close(context.Background())
			body, err := fetchBody(t, h, "keep", "/read")
			if err != nil || !strings.Contains(body, `"n":3`) {
				t.Fatalf("after losing the local state: %q, %v; want n = 3", body, err)
			}
		})
	}
}

// TestDurability_CorruptObjectRefusesOnlyItsCell puts garbage where a cell's
// log should be: that cell is refused with an error naming the key, nothing
// local is overwritten, and other cells keep serving.
func TestDurability_CorruptObjectRefusesOnlyItsCell(t *testing.T) {
	bucket := memstore.New()
	scope := "Counter:" + host.IDFromName("counter", "Counter", "bad")
	key := bucketkey.LTXKey(scope, 1, 0, 1, 1)
	if _, err := bucket.Put(context.Background(), key, []byte("LTX1 but not really"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) { c.Bucket = bucket })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	_, err := fetchBody(t, h, "bad", "/")
	if err == nil || !strings.Contains(err.Error(), key) {
		t.Fatalf("request to the corrupt cell: %v, want an error naming %s", err, key)
	}
	if body, err := fetchBody(t, h, "good", "/"); err != nil || !strings.Contains(body, `"n":1`) {
		t.Fatalf("another cell: %q, %v", body, err)
	}
	got, _, err := bucket.Get(context.Background(), key)
	if err != nil || string(got) != "LTX1 but not really" {
		t.Fatalf("the corrupt object was touched: %q, %v", got, err)
	}
}

// TestEviction_IdleCellIsReleasedAndComesBack evicts an idle object: its
// ownership record is released in the bucket, and the next request restores
// it with its state and a fresh instance.
func TestEviction_IdleCellIsReleasedAndComesBack(t *testing.T) {
	bucket := memstore.New()
	node := startNode(t, bucket)
	clock := newFakeClock()
	h := newHostB(t, gateJS, t.TempDir(), host.WithClock(clock.Now), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
		c.IdleTimeout = time.Hour
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if body, err := fetchBody(t, h, "idle", "/"); err != nil || !strings.Contains(body, `"n":1,"hits":1`) {
		t.Fatalf("first request: %q, %v", body, err)
	}
	if n := host.EvictIdle(h); n != 0 {
		t.Fatalf("evicted %d objects before the idle timeout", n)
	}
	clock.Advance(2 * time.Hour)
	if n := host.EvictIdle(h); n != 1 {
		t.Fatalf("evicted %d objects past the idle timeout, want 1", n)
	}
	// The release of the lease runs in the background.
	ownKey := "cells/Counter:" + host.IDFromName("counter", "Counter", "idle") + "/own.json"
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _, err := bucket.Get(context.Background(), ownKey)
		if err == nil && string(b) == `{"node":"","epoch":1}` {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("own.json after the eviction: %q, %v; want the released record", b, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if body, err := fetchBody(t, h, "idle", "/"); err != nil || !strings.Contains(body, `"n":2,"hits":1`) {
		t.Fatalf("after eviction: %q, %v; want the stored n with a fresh instance", body, err)
	}
	b, _, _ := bucket.Get(context.Background(), ownKey)
	if want := `{"node":"` + node.ID() + `","epoch":2}`; string(b) != want {
		t.Fatalf("own.json after reactivation: %s, want %s", b, want)
	}
}

// TestLocalSync_Linger checks the group-commit policy of the local mode: a
// round after one that needed a syncfs waits for more commits; a round
// after a few fsyncs, or without a directory to syncfs, does not.
func TestLocalSync_Linger(t *testing.T) {
	l := host.LocalSync{Dir: t.TempDir()}
	for _, tt := range []struct {
		prev int
		wait bool
	}{{0, false}, {1, false}, {8, false}, {9, true}, {60, true}} {
		if got := l.Linger(tt.prev); (got > 0) != tt.wait {
			t.Errorf("Linger(%d) = %v, want waiting %v", tt.prev, got, tt.wait)
		}
	}
	if got := (host.LocalSync{}).Linger(60); got != 0 {
		t.Errorf("Linger(60) without Dir = %v, want 0 (no syncfs, so nothing to share)", got)
	}
	var _ host.Lingerer = host.LocalSync{}
}

// ltxFiles lists the cell's LTX files in the bucket.
func ltxFiles(t *testing.T, bucket plugins.ObjectStore, scope string) []bucketkey.LTXFile {
	t.Helper()
	files, err := storage.ListLTX(context.Background(), bucket, scope)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// waitFiles polls the cell's LTX files until ok accepts them (5 s at most).
func waitFiles(t *testing.T, bucket plugins.ObjectStore, scope, what string, ok func([]bucketkey.LTXFile) bool) []bucketkey.LTXFile {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		files := ltxFiles(t, bucket, scope)
		if ok(files) {
			return files
		}
		if time.Now().After(deadline) {
			levels := map[int]int{}
			for _, f := range files {
				levels[f.Level]++
			}
			t.Fatalf("%s: the bucket holds %d files (by level: %v), the first %v", what, len(files), levels, files[:min(len(files), 1)])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLog_Compaction: a cell's log does not grow without bound. After
// enough uploads a level-1 snapshot covers the chain from TXID 1 and the
// files it covers are deleted; restore from the bucket alone still gives
// every write; and once the cell runs at a newer epoch, the older epoch's
// files are deleted too.
func TestLog_Compaction(t *testing.T) {
	bucket := memstore.New()
	node := startNode(t, bucket)
	state := t.TempDir()
	open := func() *host.Host {
		h := newHostB(t, gateJS, state, func(c *host.Config) {
			c.Bucket = bucket
			c.Node = node
		})
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	scope := "Counter:" + host.IDFromName("counter", "Counter", "c")
	h := open()
	const writes = 300
	for i := 0; i < writes; i++ {
		if _, err := fetchBody(t, h, "c", "/"); err != nil {
			t.Fatal(err)
		}
	}
	// Compacted: the newest level-1 file starts at TXID 1, and every other
	// file is an L0 file after it.
	files := waitFiles(t, bucket, scope, "after compaction", func(fs []bucketkey.LTXFile) bool {
		var snap *bucketkey.LTXFile
		for i, f := range fs {
			if f.Level == 1 && f.MinTXID == 1 && (snap == nil || f.MaxTXID > snap.MaxTXID) {
				snap = &fs[i]
			}
		}
		if snap == nil {
			return false
		}
		for _, f := range fs {
			if f != *snap && !(f.Level == 0 && f.MinTXID > snap.MaxTXID) {
				return false
			}
		}
		return true
	})
	if len(files) >= writes/2 {
		t.Errorf("%d files left for %d uploads", len(files), writes)
	}
	t.Logf("after %d uploads: %d files, the first %v", writes, len(files), files[0])

	// The bucket alone restores every write, at a new epoch...
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	h = open()
	defer h.Close(context.Background())
	if body, err := fetchBody(t, h, "c", "/read"); err != nil || !strings.Contains(body, `"n":300`) {
		t.Fatalf("after restoring from the compacted log: %q, %v; want n = 300", body, err)
	}
	if _, err := fetchBody(t, h, "c", "/"); err != nil { // the new epoch's snapshot
		t.Fatal(err)
	}
	// ...after which the first epoch's files go.
	waitFiles(t, bucket, scope, "after the new epoch's snapshot", func(fs []bucketkey.LTXFile) bool {
		for _, f := range fs {
			if f.Epoch < 2 {
				return false
			}
		}
		return len(fs) > 0
	})
}

// TestBackup_KeepsOneSnapshot: in the backup mode every save is a snapshot,
// and each one makes the previous one obsolete.
func TestBackup_KeepsOneSnapshot(t *testing.T) {
	bucket := memstore.New()
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Durability = host.DurabilityBackup
		c.Bucket = bucket
		c.BackupInterval = 20 * time.Millisecond
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	scope := "Counter:" + host.IDFromName("counter", "Counter", "b")
	for i := 1; i <= 3; i++ {
		if _, err := fetchBody(t, h, "b", "/"); err != nil {
			t.Fatal(err)
		}
		waitFiles(t, bucket, scope, "after a save", func(fs []bucketkey.LTXFile) bool {
			return len(fs) == 1 && fs[0].MinTXID == 1 && fs[0].MaxTXID == uint64(i)
		})
	}
}

// startNode starts a fleet member on bucket, closed when the test ends.
func startNode(t *testing.T, bucket plugins.ObjectStore) *ownership.Node {
	t.Helper()
	node, err := ownership.New(ownership.Config{Store: bucket})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close(context.Background()) })
	return node
}
