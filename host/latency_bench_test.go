package host_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// BenchmarkHost_LoneWriter measures the commit path of one writer that
// waits for each reply before the next request (issue 17.1: one
// connection), through the worker's fetch to one object, in the log mode
// with ownership, as `cellhost dev` runs: "file" on the file bucket (its
// fsync included), "mem" on the memory bucket (the CPU and hand-offs
// alone), "file+fsync" as "file" with the cell's own WAL fsync'd before
// each upload (host.LocalSync: what the log mode would pay to keep a
// local copy durable too). ns/op is the latency of one durable write;
// p50-us and p99-us are its percentiles. Compare runs of two commits in
// the same session, never as a timed test.
func BenchmarkHost_LoneWriter(b *testing.B) {
	for _, bucket := range []string{"file", "mem", "file+fsync"} {
		b.Run(bucket, func(b *testing.B) {
			h := newLogHost(b, bucket)
			ctx := context.Background()
			req := func() {
				resp, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/?name=lone"})
				if err != nil || resp.Status != 200 {
					b.Fatalf("fetch: %v", err)
				}
			}
			for range 20 { // activation, first snapshot, warm caches
				req()
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			defer reportCPU(b)()
			for range b.N {
				t := time.Now()
				req()
				lat = append(lat, time.Since(t))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-us")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-us")
		})
	}
}

// BenchmarkHost_FileBucket64 is the same path under load: 64 writers on
// one object, on the file bucket. cpu-us/op (the process's CPU per write)
// is the figure to compare on a busy machine.
func BenchmarkHost_FileBucket64(b *testing.B) {
	h := newLogHost(b, "file")
	ctx := context.Background()
	b.SetParallelism(32)
	var fail atomic.Bool
	b.ResetTimer()
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/?name=many"})
			if (err != nil || resp.Status != 200) && !fail.Swap(true) {
				b.Errorf("fetch: %v", err)
			}
		}
	})
}

// newLogHost opens a host of counterJS in the log mode with ownership on a
// bucket: "mem" (memstore) or "file" / "file+fsync" (filestore; the latter
// with host.LocalSync), closed when b ends.
func newLogHost(b *testing.B, bucket string) *host.Host {
	var store plugins.ObjectStore
	if bucket != "mem" {
		s, err := filestore.New(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		store = s
	} else {
		store = memstore.New()
	}
	b.Cleanup(func() { store.Close() })
	node, err := ownership.New(ownership.Config{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { node.Close(context.Background()) })
	state := b.TempDir()
	h := newHostB(b, counterJS, state, func(c *host.Config) {
		c.Bucket, c.Node, c.Durability = store, node, host.DurabilityLog
		if bucket == "file+fsync" {
			c.Syncer = host.LocalSync{Dir: state}
		}
	})
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close(context.Background()) })
	return h
}
