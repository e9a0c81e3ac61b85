package host_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

const interruptJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; }
  async fetch(request) {
    this.hits++;
    const url = new URL(request.url);
    switch (url.pathname.replace(/^\/do\/Counter\/[^/]*/, "")) {
      case "/spin": for (;;) {}
      case "/spin-after-timer": // the loop runs in the timer's turn
        await new Promise((resolve) => setTimeout(resolve, 1));
        for (;;) {}
      case "/grow": { const a = []; for (;;) a.push("x".repeat(1024) + a.length); }
      case "/double": { let s = "x"; for (;;) s += s; }
      case "/ws": {
        const [client, server] = Object.values(new WebSocketPair());
        server.accept();
        server.addEventListener("message", (e) => server.send(e.data + " " + (++this.hits)));
        return new Response(null, { status: 101, webSocket: client });
      }
    }
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, hits: this.hits });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

type attack struct{ path, want string }

// TestInterrupt_ResetsOnlyTheOffendingObject: the CPU and memory limits
// interrupt a runaway object's code and reset that object alone. A
// neighbour on the SAME shard (one shard: the same goja runtime) fails no
// request during the attacks, keeps its instance (the in-memory hit
// counter goes on), its storage and its open WebSocket.
func TestInterrupt_ResetsOnlyTheOffendingObject(t *testing.T) {
	t.Run("cpu", func(t *testing.T) {
		runAttacks(t, func(c *host.Config) { c.CPULimit = 400 * time.Millisecond },
			attack{"/spin", "Durable Object exceeded its CPU time limit and was reset."},
			attack{"/spin-after-timer", "Durable Object exceeded its CPU time limit and was reset."})
	})
	t.Run("memory", func(t *testing.T) {
		runAttacks(t, func(c *host.Config) {
			c.MemoryLimit = 32 << 20
			// The memory watchdog, not the CPU limit, must end it (under
			// -race on a loaded machine reaching the limit is slow).
			c.CPULimit = 10 * time.Minute
		},
			attack{"/grow", "exceeded its memory limit of 32 MiB"},
			// Doubling a string ends at V8's length limit (a RangeError
			// of its own request), or earlier at the memory limit.
			attack{"/double", "Invalid string length|exceeded its memory limit of 32 MiB"})
	})
}

func runAttacks(t *testing.T, limits func(*host.Config), attacks ...attack) {
	h := newHostB(t, interruptJS, t.TempDir(), func(c *host.Config) {
		c.Shards = 1
		c.RequestTimeout = 10 * time.Minute
		limits(c)
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	hits, writes := 0, 0 // the neighbour's in-memory counter and stored n, as they must be
	neighbour := func() (string, error) {
		body, err := fetchBody(t, h, "neighbour", "/")
		if err == nil {
			hits++
			writes++
		}
		return body, err
	}
	if _, err := neighbour(); err != nil {
		t.Fatal(err)
	}
	ws := dialWS(t, srv, "/do/Counter/neighbour/ws")
	hits++
	ws.send(t, "before")
	hits++
	ws.expect(t, "before "+itoa(hits))
	writeN(t, h, "offender", 1)

	for _, a := range attacks {
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
				if _, err := neighbour(); err != nil {
					t.Errorf("neighbour during %s: %v", a.path, err)
					failed++
				} else {
					served++
				}
			}
		})
		body, err := fetchBody(t, h, "offender", a.path)
		close(stop)
		wg.Wait()
		if err == nil || !containsAny(err.Error(), a.want) {
			t.Fatalf("%s: %q, %v; want an error with %q", a.path, body, err, a.want)
		}
		t.Logf("%s: neighbour on the same shard: %d served, %d failed", a.path, served, failed)
		// The offender comes back as a fresh instance with its durable
		// state. (A RangeError is its request's own error, no reset.)
		caught := strings.Contains(err.Error(), "Invalid string length")
		body, err = fetchBody(t, h, "offender", "/")
		if caught {
			if err != nil || strings.Contains(body, `"hits":1}`) {
				t.Fatalf("offender after %s: %q %v; want its instance kept", a.path, body, err)
			}
		} else if err != nil || !strings.Contains(body, `"hits":1}`) {
			t.Fatalf("offender after %s: %q %v; want a fresh instance (hits 1)", a.path, body, err)
		}
	}
	// The neighbour kept its instance, its storage and its WebSocket.
	body, err := neighbour()
	if want := `{"n":` + itoa(writes) + `,"hits":` + itoa(hits) + `}`; err != nil || body != want {
		t.Fatalf("neighbour after the attacks: %q %v; want %s", body, err, want)
	}
	ws.send(t, "after")
	hits++
	ws.expect(t, "after "+itoa(hits))
}

func containsAny(s, alternatives string) bool {
	for _, a := range strings.Split(alternatives, "|") {
		if a != "" && strings.Contains(s, a) {
			return true
		}
	}
	return false
}
