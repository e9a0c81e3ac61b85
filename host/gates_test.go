package host_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
)

// gateSyncer is a Syncer whose syncs wait until the test releases them, and
// can be told to fail.
type gateSyncer struct {
	calls   chan int // the number of databases of each Sync call
	release chan error
	mu      sync.Mutex
	hold    bool
}

func newGateSyncer() *gateSyncer {
	return &gateSyncer{calls: make(chan int, 100), release: make(chan error)}
}

func (g *gateSyncer) setHold(h bool) {
	g.mu.Lock()
	g.hold = h
	g.mu.Unlock()
}

func (g *gateSyncer) Sync(dbs []*storage.DB) []error {
	g.mu.Lock()
	hold := g.hold
	g.mu.Unlock()
	if !hold {
		return nil
	}
	g.calls <- len(dbs)
	if err := <-g.release; err != nil {
		errs := make([]error, len(dbs))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	return nil
}

const gateJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; }
  async fetch(request) {
    this.hits++;
    const url = new URL(request.url);
    if (url.pathname === "/read") {
      return Response.json({ n: (await this.ctx.storage.get("n")) ?? 0, hits: this.hits });
    }
    if (url.pathname === "/spin") { for (;;) {} }
    if (url.pathname === "/recurse") { const f = (n) => f(n + 1) + 1; return new Response(String(f(0))); }
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, hits: this.hits });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

type fetchResult struct {
	body string
	err  error
}

func fetchAsync(h *host.Host, name, path string) <-chan fetchResult {
	ch := make(chan fetchResult, 1)
	go func() {
		id := host.IDFromName("counter", "Counter", name)
		resp, err := h.FetchObject(context.Background(), "Counter", id, name, &jsapi.HTTPRequest{Method: "GET", URL: "http://x" + path})
		if err != nil {
			ch <- fetchResult{err: err}
			return
		}
		ch <- fetchResult{body: string(resp.Body)}
	}()
	return ch
}

func TestOutputGate_ReplyWaitsForDurability(t *testing.T) {
	g := newGateSyncer()
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) { c.Syncer = g })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if r := <-fetchAsync(h, "b", "/"); r.err != nil { // b has durable state, nothing pending
		t.Fatal(r.err)
	}

	g.setHold(true)
	write := fetchAsync(h, "a", "/")
	<-g.calls // the commit of a's write is being made durable
	// b is read-only and has nothing pending: it is not delayed behind a.
	if r := <-fetchAsync(h, "b", "/read"); r.err != nil || !strings.Contains(r.body, `"n":1`) {
		t.Fatalf("read of b while a's sync is held: %+v", r)
	}
	select {
	case r := <-write:
		t.Fatalf("the reply left before its commit was durable: %+v", r)
	default:
	}
	g.release <- nil
	if r := <-write; r.err != nil || !strings.Contains(r.body, `"n":1`) {
		t.Fatalf("write reply after the sync: %+v", r)
	}
}

func TestOutputGate_FailedSyncResetsObject(t *testing.T) {
	g := newGateSyncer()
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) { c.Syncer = g })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if r := <-fetchAsync(h, "a", "/"); r.err != nil || !strings.Contains(r.body, `"hits":1`) {
		t.Fatalf("first write: %+v", r)
	}
	g.setHold(true)
	write := fetchAsync(h, "a", "/")
	<-g.calls
	g.release <- errors.New("disk on fire")
	r := <-write
	// The write ran, and whether it is durable is unknown: the client is
	// told so (503 at the HTTP front), never a bare 500.
	var ma *host.MaybeAppliedError
	if !errors.As(r.err, &ma) || r.err.Error() != "the request may or may not have been applied: a commit failed to become durable (disk on fire)" {
		t.Fatalf("reply of a write whose sync failed: %+v, want MaybeAppliedError", r)
	}
	g.setHold(false)
	// The next request builds a fresh instance (its in-memory hits restart).
	if r := <-fetchAsync(h, "a", "/read"); r.err != nil || !strings.Contains(r.body, `"hits":1`) {
		t.Fatalf("after the reset: %+v, want a fresh instance", r)
	}
}

func TestInputGate_ConcurrentIncrementsLoseNothing(t *testing.T) {
	h := newHostB(t, gateJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	const workers, each = 64, 5
	var wg sync.WaitGroup
	for i := 0; i < workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				if r := <-fetchAsync(h, "shared", "/"); r.err != nil {
					t.Error(r.err)
				}
			}
		}()
	}
	wg.Wait()
	r := <-fetchAsync(h, "shared", "/read")
	if want := `"n":320`; !strings.Contains(r.body, want) {
		t.Fatalf("after %d increments: %s, want %s", workers*each, r.body, want)
	}
}

func TestLimits_InfiniteLoopAndDeepRecursion(t *testing.T) {
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.CPULimit = 300 * time.Millisecond
		c.Shards = 1
		c.RequestTimeout = 20 * time.Second
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if r := <-fetchAsync(h, "spinner", "/"); r.err != nil {
		t.Fatal(r.err)
	}
	r := <-fetchAsync(h, "spinner", "/spin")
	if r.err == nil || !strings.Contains(r.err.Error(), "time limit") {
		t.Fatalf("infinite loop: %+v, want an error naming the time limit", r)
	}
	// The same shard keeps serving other objects, and the spinner itself
	// comes back as a fresh instance with its durable state.
	if r := <-fetchAsync(h, "other", "/"); r.err != nil || !strings.Contains(r.body, `"n":1`) {
		t.Fatalf("other object after the interrupt: %+v (%v)", r, r.err)
	}
	if r := <-fetchAsync(h, "spinner", "/read"); r.err != nil || !strings.Contains(r.body, `"n":1,"hits":1`) {
		t.Fatalf("spinner after the interrupt: %+v", r)
	}
}

// TestLimits_DeepRecursion: a stack overflow is a RangeError of its own
// request, and the object keeps serving. The CPU limit is far away here:
// under -race on a busy machine the recursion can take longer than the
// 300 ms the infinite-loop test uses, and then the time limit would win.
func TestLimits_DeepRecursion(t *testing.T) {
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.CPULimit = 5 * time.Minute
		c.Shards = 1
		c.RequestTimeout = 5 * time.Minute
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if r := <-fetchAsync(h, "other", "/"); r.err != nil {
		t.Fatal(r.err)
	}
	r := <-fetchAsync(h, "other", "/recurse")
	if r.err == nil || !strings.Contains(r.err.Error(), "RangeError") {
		t.Fatalf("deep recursion: %+v (%v), want a RangeError", r, r.err)
	}
	if r := <-fetchAsync(h, "other", "/read"); r.err != nil || !strings.Contains(r.body, `"n":1`) {
		t.Fatalf("after deep recursion: %+v (%v)", r, r.err)
	}
}

// TestDeadline_ObjectThatNeverAnswers: the HTTP front answers 500 once
// the request timeout passes, and the log says why.
func TestDeadline_ObjectThatNeverAnswers(t *testing.T) {
	var log logBuffer
	h := newHostB(t, `export class Counter { fetch() { return new Promise(() => {}); } }
export class Plain {}
export default { fetch() { return new Response("w"); } };`, t.TempDir(), func(c *host.Config) {
		c.RequestTimeout = 200 * time.Millisecond
		c.Log = &log
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	status, body := get(t, srv, "/do/Counter/mute")
	if status != 500 || body != "Internal Server Error" {
		t.Errorf("a request to an object that never answers: %d %q, want 500 Internal Server Error", status, body)
	}
	if got := log.String(); !strings.Contains(got, "Uncaught "+host.ErrTimeout.Error()+" (200ms)") {
		t.Errorf("log = %q, want the timeout", got)
	}
}

const coalesceJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestCommitCoalesce shows the turns of one loop batch sharing one commit:
// 20 increments queued while the loop is paused run in one batch, and with
// coalescing they add one or two WAL frames and reach the syncer as one
// commit, whose durability every reply waits for; with it switched off,
// each turn appends its own frame. Either way no update is lost.
func TestCommitCoalesce(t *testing.T) {
	for _, coalesce := range []time.Duration{time.Minute, -1} {
		t.Run(coalesce.String(), func(t *testing.T) {
			g := newGateSyncer()
			state := t.TempDir()
			h := newHostB(t, coalesceJS, state, func(c *host.Config) {
				c.Syncer = g
				c.Shards = 1
				c.CommitCoalesce = coalesce
			})
			if err := h.Open(); err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			if r := <-fetchAsync(h, "a", "/"); r.err != nil || r.body != `{"n":1}` {
				t.Fatalf("first increment: %+v", r)
			}
			wal := filepath.Join(state, "cells", "Counter", host.IDFromName("counter", "Counter", "a")+".sqlite-wal")
			before := fileSize(t, wal)

			g.setHold(true)
			resume := host.Pause(h) // the 20 increments run in one batch of the loop
			const n = 20
			results := make([]<-chan fetchResult, n)
			for i := range results {
				posted := host.PostFetch(h, "Counter", "a", &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"})
				ch := make(chan fetchResult, 1)
				results[i] = ch
				go func() {
					r := <-posted
					if r.Err != nil {
						ch <- fetchResult{err: r.Err}
						return
					}
					ch <- fetchResult{body: string(r.Resp.Body)}
				}()
			}
			resume()
			syncs := 0
			if coalesce > 0 {
				<-g.calls // the one commit of the batch is being made durable
				syncs++
				for i, ch := range results {
					select {
					case r := <-ch:
						t.Fatalf("reply %d left before the commit was durable: %+v", i, r)
					default:
					}
				}
			}
			seen := map[string]bool{}
			for i, ch := range results {
				for len(seen) < n {
					select {
					case r := <-ch:
						if r.err != nil {
							t.Fatalf("increment %d: %v", i, r.err)
						}
						seen[r.body] = true
					case <-g.calls:
						syncs++
						continue
					case g.release <- nil:
						continue
					}
					break
				}
			}
			for k := 2; k <= n+1; k++ {
				if !seen[fmt.Sprintf(`{"n":%d}`, k)] {
					t.Errorf("no reply saw n=%d: %v", k, seen)
				}
			}
			frames := (fileSize(t, wal) - before) / (24 + 4096)
			t.Logf("CommitCoalesce=%v: %d WAL frames, %d syncs for %d increments", coalesce, frames, syncs, n)
			if coalesce > 0 && (frames > 2 || syncs != 1) {
				t.Errorf("coalesced: %d WAL frames and %d syncs for %d increments, want at most 2 frames and 1 sync", frames, syncs, n)
			}
			if coalesce < 0 && frames < n {
				t.Errorf("not coalesced: %d WAL frames for %d increments, want at least %d", frames, n, n)
			}
		})
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
