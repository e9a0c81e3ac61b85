package host_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

const growJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; }
  async fetch(request) {
    this.hits++;
    const url = new URL(request.url);
    if (url.pathname === "/grow") {
      const a = [];
      for (;;) a.push("x".repeat(1024) + a.length);
    }
    if (url.pathname === "/garbage") { // 256 MB allocated, little of it live at once
      let n = 0;
      for (let i = 0; i < 1 << 18; i++) n += ("y".repeat(1024) + i).length;
      return Response.json({ n });
    }
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, hits: this.hits });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestMemoryLimit_GrowingObjectIsResetAlone: an object that grows its heap
// without bound is interrupted past the per-object limit and reset with a
// clear error, the process lives on, its durable state is intact, and an
// object of another shard fails no request meanwhile. Allocating as much
// garbage (little of it live) is not punished.
func TestMemoryLimit_GrowingObjectIsResetAlone(t *testing.T) {
	h := newHostB(t, growJS, t.TempDir(), func(c *host.Config) {
		c.MemoryLimit = 32 << 20
		// The memory watchdog, not the CPU limit, must end it (under -race
		// on a loaded machine reaching the limit takes a minute).
		c.CPULimit = 10 * time.Minute
		c.RequestTimeout = 10 * time.Minute
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	writeN(t, h, "grower", 1)
	// A neighbour on the other shard keeps being served during the attack.
	neighbour := "n0"
	for i := 0; host.ShardOf(h, "Counter", host.IDFromName("counter", "Counter", neighbour)) == host.ShardOf(h, "Counter", host.IDFromName("counter", "Counter", "grower")); i++ {
		neighbour = "n" + itoa(i+1)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var served, failed int
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := fetchBody(t, h, neighbour, "/"); err != nil {
				failed++
			} else {
				served++
			}
		}
	})
	_, err := fetchBody(t, h, "grower", "/grow")
	close(stop)
	wg.Wait()
	if err == nil || !strings.Contains(err.Error(), "exceeded its memory limit of 32 MiB") {
		t.Fatalf("growing object: %v, want the memory limit", err)
	}
	t.Logf("neighbour on the other shard: %d served, %d failed during the attack", served, failed)
	if failed > 0 {
		t.Fatalf("the neighbour failed %d requests", failed)
	}
	if body, err := fetchBody(t, h, "grower", "/"); err != nil || !strings.Contains(body, `"n":2,"hits":1`) {
		t.Fatalf("the grower after its reset: %q, %v; want n = 2 on a fresh instance", body, err)
	}
	if body, err := fetchBody(t, h, "grower", "/garbage"); err != nil {
		t.Fatalf("allocating garbage: %q, %v", body, err)
	}
}
