package host_test

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

const allocJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; }
  async fetch(request) {
    this.hits++;
    const url = new URL(request.url);
    const err = (f) => { try { f(); return "allocated" } catch (e) { return e.constructor.name + ": " + e.message } };
    if (url.pathname === "/big") {
      return Response.json({
        ta: err(() => new Uint8Array(4 * 1024 ** 3)),
        ab: err(() => new ArrayBuffer(2 ** 32)),
        resize: err(() => new ArrayBuffer(8, { maxByteLength: 2 ** 33 }).resize(2 ** 33)),
        clone: err(() => structuredClone(new Uint8Array(1 << 20))),
        cloneBig: err(() => structuredClone(new Uint8Array(24 << 20))), // two more copies: past 7/8 of 64 MiB
        hits: this.hits,
      });
    }
    if (url.pathname === "/keep") { // 5 MiB buffers kept until one is refused
      const kept = [];
      let error = "";
      for (let i = 0; i < 64 && !error; i++) {
        try { kept.push(new Uint8Array(5 << 20)) } catch (e) { error = e.constructor.name + ": " + e.message }
      }
      return Response.json({ kept: kept.length, error, hits: this.hits });
    }
    if (url.pathname === "/churn") { // 64 x 5 MiB, none kept: all allowed
      let n = 0;
      for (let i = 0; i < 64; i++) n += new Uint8Array(5 << 20).length;
      return Response.json({ n, hits: this.hits });
    }
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, hits: this.hits });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestMemoryLimit_AllocationRefusedBeforeItIsMade: an allocation a script
// sizes past its object's memory limit is refused before it is made, with
// workerd's catchable RangeError, and the instance carries on (no reset:
// its in-memory counter keeps counting). Before, `new Uint8Array(4 *
// 1024 ** 3)` ended in Go's "fatal error: out of memory" (issue 23.1).
// Buffers kept alive are refused once they would pass the limit; as many
// that are garbage are not.
func TestMemoryLimit_AllocationRefusedBeforeItIsMade(t *testing.T) {
	h := newHostB(t, allocJS, t.TempDir(), func(c *host.Config) {
		c.MemoryLimit = 64 << 20
		c.CPULimit = 10 * time.Minute
		c.RequestTimeout = 10 * time.Minute
		// The hits counter lives in the instance: on a loaded machine the
		// steps can be further apart than the default idle timeouts.
		c.InstanceIdleTimeout = 10 * time.Minute
		c.IdleTimeout = 10 * time.Minute
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	writeN(t, h, "a", 1)
	get := func(path string, v any) {
		t.Helper()
		// The check measures a job from the live heap of the last
		// collection (Go knows no fresher figure without collecting):
		// collect first, so that earlier garbage does not count in the
		// base and the bounds below are the limit's.
		runtime.GC()
		body, err := fetchBody(t, h, "a", path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s: %q: %v", path, body, err)
		}
	}
	const failed = "RangeError: Array buffer allocation failed"
	var big struct {
		TA, AB, Resize, Clone, CloneBig string
		Hits                            int
	}
	get("/big", &big)
	if big.TA != failed || big.AB != failed || big.Resize != failed || big.Clone != "allocated" ||
		big.CloneBig != "DOMException: Data cannot be cloned, out of memory." || big.Hits != 2 {
		t.Fatalf("/big: %+v; want %q for the first three, the 1 MiB clone allocated, the 24 MiB one refused, hits 2", big, failed)
	}
	var keep struct {
		Kept  int
		Error string
		Hits  int
	}
	get("/keep", &keep)
	// 7/8 of 64 MiB allows eleven 5 MiB buffers at most (a little of it
	// is taken by the rest of the job).
	if keep.Error != failed || keep.Kept < 4 || keep.Kept > 11 || keep.Hits != 3 {
		t.Fatalf("/keep: %+v; want %q after 4 to 11 buffers, hits 3", keep, failed)
	}
	var churn struct{ N, Hits int }
	get("/churn", &churn)
	if churn.N != 64*5<<20 || churn.Hits != 4 {
		t.Fatalf("/churn: %+v; want every buffer allocated, hits 4", churn)
	}
	if body := writeN(t, h, "a", 1); body != `{"n":2,"hits":5}` {
		t.Fatalf("after: %s; want the same instance, its storage intact", body)
	}
}
