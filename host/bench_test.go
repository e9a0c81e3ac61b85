package host_test

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

// BenchmarkHost_Counter measures durable counter increments through the
// host core (no HTTP): one object, and spread over 1000 objects. Compare the
// two with `go test -bench Counter ./host`; a ratio, never a timed test.
func BenchmarkHost_Counter(b *testing.B) {
	for _, objects := range []int{1, 1000} {
		for _, mode := range []string{"fsync", "no-fsync", "log"} {
			name := "objects=" + strconv.Itoa(objects)
			if mode != "fsync" {
				name += "/" + mode
			}
			b.Run(name, func(b *testing.B) { benchCounter(b, objects, mode) })
		}
	}
}

// nopSyncer makes nothing durable: the baseline that shows the price of
// the fsync in the output gate.
type nopSyncer struct{}

func (nopSyncer) Sync([]*storage.DB) []error { return nil }

// benchCounter serves the counter: mode "fsync" (the local mode),
// "no-fsync" (nopSyncer) or "log" (a memory bucket).
func benchCounter(b *testing.B, objects int, mode string) {
	{
		{
			h := newHostB(b, counterJS, b.TempDir(), func(c *host.Config) {
				switch mode {
				case "no-fsync":
					c.Syncer = nopSyncer{}
				case "log":
					c.Bucket = memstore.New()
					c.Durability = host.DurabilityLog
				}
			})
			if err := h.Open(); err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			ids := make([]string, objects)
			for i := range ids {
				ids[i] = host.IDFromName("counter", "Counter", "o"+strconv.Itoa(i))
			}
			// Activate every object first: the measurement is of serving
			// resident objects, not of creating databases.
			for i, id := range ids {
				if _, err := h.FetchObject(context.Background(), "Counter", id, "", &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/"}); err != nil {
					b.Fatalf("warm-up of object %d: %v", i, err)
				}
			}
			var next atomic.Int64
			b.SetParallelism(32)
			b.ResetTimer()
			defer reportCPU(b)()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					i := int(next.Add(1)) % objects
					resp, err := h.FetchObject(ctx, "Counter", ids[i], "", &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/"})
					if err != nil || resp.Status != 200 {
						b.Fatalf("fetch: %v", err)
					}
				}
			})
		}
	}
}

// reportCPU reports the process's CPU time (user + system) per operation
// as "cpu-us/op" when the returned function runs: unlike ns/op it does not
// move when other processes load the machine, so it compares runs taken
// while the machine was busy.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime()-start)/1e3/float64(b.N), "cpu-us/op")
		}
	}
}

// profileRun writes a CPU profile of the measured part of a benchmark (not
// its set-up) to the file named by BENCH_CPUPROFILE, when set and b.N > 1.
func profileRun(b *testing.B) func() {
	path := os.Getenv("BENCH_CPUPROFILE")
	if path == "" || b.N <= 1 {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		b.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkHost_StatelessFetch is the baseline: the worker's fetch with no
// storage.
func BenchmarkHost_StatelessFetch(b *testing.B) {
	h := newHostB(b, `export class Counter {} export class Plain {}
export default { fetch(req) { return new Response("hi " + new URL(req.url).pathname); } };`, b.TempDir())
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	b.SetParallelism(32)
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			if _, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/x"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHost_WorkerToObject is the path of most applications: the
// worker's fetch forwards to one object with stub.fetch (counterJS's
// default export), compared with reaching the object directly.
func BenchmarkHost_WorkerToObject(b *testing.B) {
	h := newHostB(b, counterJS, b.TempDir(), func(c *host.Config) { c.Syncer = nopSyncer{} })
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	b.SetParallelism(32)
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			resp, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/?name=bench"})
			if err != nil || resp.Status != 200 {
				b.Fatalf("fetch: %v", err)
			}
		}
	})
}

// BenchmarkHost_DevObjects is what `cellhost dev` serves in the 1000-object
// row of bench/vs-workerd.sh, without the HTTP front: the worker's fetch
// forwards to one of `objects` counters (stub.fetch), in the log mode on a
// file bucket with a node lease, as dev runs. cpu-us/op is the host's CPU
// per request, the number to compare before and after a change.
func BenchmarkHost_DevObjects(b *testing.B) {
	for _, objects := range []int{1, 1000} {
		b.Run("objects="+strconv.Itoa(objects), func(b *testing.B) {
			bucket, err := filestore.New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer bucket.Close()
			node, err := ownership.New(ownership.Config{Store: bucket})
			if err != nil {
				b.Fatal(err)
			}
			if err := node.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			defer node.Close(context.Background())
			h := newHostB(b, counterJS, b.TempDir(), func(c *host.Config) {
				c.Bucket, c.Node, c.Durability = bucket, node, host.DurabilityLog
				c.Shards = 0 // one per CPU, as dev
			})
			if err := h.Open(); err != nil {
				b.Fatal(err)
			}
			defer h.Close(context.Background())
			urls := make([]string, objects)
			for i := range urls {
				urls[i] = "http://bench/?name=o" + strconv.Itoa(i)
				if _, err := h.Fetch(context.Background(), &jsapi.HTTPRequest{Method: "GET", URL: urls[i]}); err != nil {
					b.Fatalf("warm-up of object %d: %v", i, err)
				}
			}
			var next atomic.Int64
			b.SetParallelism(32) // 64 clients on 2 CPUs
			b.ResetTimer()
			defer reportCPU(b)()
			defer profileRun(b)()
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				r := rand.New(rand.NewPCG(uint64(next.Add(1)), 7919))
				for pb.Next() {
					resp, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: urls[r.IntN(objects)]})
					if err != nil || resp.Status != 200 {
						b.Fatalf("fetch: %v %v", resp, err)
					}
				}
			})
		})
	}
}

// BenchmarkHost_Activation measures the first request to a new object,
// one after another: acquiring the cell (own.json and the node's marker on
// a file bucket, as `cellhost dev` has), starting its database, building
// the instance, one durable write (its LTX upload and the ownership
// check). Compare builds with it; a ratio, never a timed test.
func BenchmarkHost_Activation(b *testing.B) {
	bucket, err := filestore.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.Close()
	node, err := ownership.New(ownership.Config{Store: bucket})
	if err != nil {
		b.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer node.Close(context.Background())
	h := newHostB(b, counterJS, b.TempDir(), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
		c.Durability = host.DurabilityLog
	})
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	b.ResetTimer()
	defer reportCPU(b)()
	for i := range b.N {
		name := "new-" + strconv.Itoa(i)
		resp, err := h.FetchObject(ctx, "Counter", host.IDFromName("counter", "Counter", name), name, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/"})
		if err != nil || resp.Status != 200 {
			b.Fatalf("fetch: %v", err)
		}
	}
}
