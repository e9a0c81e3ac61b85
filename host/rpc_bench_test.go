package host_test

import (
	"context"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

const rpcBenchJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async increment(by) {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + by;
    await this.ctx.storage.put("n", n);
    return { n };
  }
}
export class Plain {}
export default {
  async fetch(request, env) {
    const r = await env.COUNTER.getByName("bench").increment(1);
    return new Response(String(r.n));
  },
};
`

// BenchmarkHost_WorkerToObjectRPC is BenchmarkHost_WorkerToObject with a
// JS RPC method call (arguments and result cross as RPC messages) instead
// of stub.fetch.
func BenchmarkHost_WorkerToObjectRPC(b *testing.B) {
	h := newHostB(b, rpcBenchJS, b.TempDir(), func(c *host.Config) { c.Syncer = nopSyncer{} })
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	b.SetParallelism(32)
	defer reportCPU(b)()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		for pb.Next() {
			resp, err := h.Fetch(ctx, &jsapi.HTTPRequest{Method: "GET", URL: "http://bench/"})
			if err != nil || resp.Status != 200 {
				b.Fatalf("fetch: %v", err)
			}
		}
	})
}
