package host_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// TestSyncer_LoneWriterNeverLingers: in the log mode, a writer that waits
// for each reply makes rounds that serve one reply with nothing queued
// behind them, and no round waits for more commits; once a round served
// several replies (two increments sharing a commit), the next one does
// (logLinger). The policy's clock is frozen and its waits recorded, so
// nothing depends on timing.
func TestSyncer_LoneWriterNeverLingers(t *testing.T) {
	var mu sync.Mutex
	var slept []time.Duration
	frozen := time.Now()
	h := newHostB(t, counterJS, t.TempDir(), func(c *host.Config) {
		c.Bucket, c.Durability = memstore.New(), host.DurabilityLog
		c.Shards = 1
		c.CommitCoalesce = time.Minute // two increments posted together share a commit
	}, host.WithLinger(func(l *queue.Linger) {
		l.Now = func() time.Time { return frozen }
		l.Sleep = func(d time.Duration) { mu.Lock(); slept = append(slept, d); mu.Unlock() }
	}))
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	lingered := func() []time.Duration {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(slept)
	}

	for i := 1; i <= 20; i++ {
		if body, err := fetchBody(t, h, "a", "/"); err != nil || body != fmt.Sprintf(`{"n":%d,"name":"a"}`, i) {
			t.Fatalf("increment %d: %q, %v", i, body, err)
		}
	}
	if got := lingered(); len(got) != 0 {
		t.Fatalf("a lone writer's rounds lingered %v", got)
	}

	resume := host.Pause(h) // the two increments run in one batch of the loop
	var posted []<-chan host.FetchResult
	for range 2 {
		posted = append(posted, host.PostFetch(h, "Counter", "a", &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"}))
	}
	resume()
	for _, ch := range posted {
		if r := <-ch; r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if body, err := fetchBody(t, h, "a", "/"); err != nil || body != `{"n":23,"name":"a"}` {
		t.Fatalf("increment after the shared round: %q, %v", body, err)
	}
	if got := lingered(); len(got) != 1 || got[0] <= 0 {
		t.Errorf("the round after a round of two replies lingered %v, want once", got)
	}
}
