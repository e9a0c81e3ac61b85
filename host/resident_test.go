package host_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// TestResident_Bounded touches many distinct objects in a row, 8 at a time,
// with a bound of 32 resident cells: no request fails, at most the bound
// stays resident (the least recently used idle cells are evicted), and the
// registry keeps no record of an evicted cell. An object written before
// keeps its state across its eviction.
func TestResident_Bounded(t *testing.T) {
	objects := 600
	if testing.Short() {
		objects = 200
	}
	const bound = 32
	bucket := memstore.New()
	node := startNode(t, bucket)
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
		c.MaxResidentCells = bound
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	writeN(t, h, "first", 2)
	var failed atomic.Int32
	var wg sync.WaitGroup
	next := atomic.Int32{}
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			for {
				i := int(next.Add(1))
				if i > objects {
					return
				}
				body, err := fetchBody(t, h, fmt.Sprintf("o%d", i), "/")
				if err != nil || !strings.Contains(body, `"n":1`) {
					t.Errorf("object %d: %q, %v", i, body, err)
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d of %d requests failed", failed.Load(), objects)
	}
	resident, records := h.ResidentCells()
	t.Logf("%d objects touched: %d resident, %d records", objects, resident, records)
	if resident > bound {
		t.Errorf("%d cells resident, bound %d", resident, bound)
	}
	if records > bound+8 { // at most the resident ones and those with a job on its way
		t.Errorf("the registry keeps %d records after %d objects, bound %d", records, objects, bound)
	}
	if body, err := fetchBody(t, h, "first", "/read"); err != nil || !strings.Contains(body, `"n":2`) {
		t.Fatalf("the first object after its eviction: %q, %v", body, err)
	}
	// Idle eviction drops every record.
	h.EvictIdleBefore(time.Now().Add(time.Hour))
	if resident, records := h.ResidentCells(); resident != 0 || records != 0 {
		t.Fatalf("after evicting every idle cell: %d resident, %d records; want 0, 0", resident, records)
	}
}
