package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

// TestModuleScope_Limits: the worker's top-level code runs under the CPU
// and memory limits: an endless loop or a memory bomb at module scope fails
// the load with workerd's message instead of hanging it (and `cellhost dev`
// at start, a reload or a deploy) or growing without bound, and an
// allocation past the limit at module scope is workerd's RangeError
// (issue 23.6).
func TestModuleScope_Limits(t *testing.T) {
	const tail = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`
	for _, tt := range []struct{ name, top, want string }{
		{"loop", "for (;;) {}", "Script startup exceeded CPU time limit (300ms): the worker's top-level code did not finish"},
		{"memory", `globalThis.kept = []; for (;;) globalThis.kept.push("x".repeat(1024) + globalThis.kept.length);`, "Script startup exceeded memory limits (32 MiB)"},
		{"buffer", "globalThis.big = new Uint8Array(4 * 1024 ** 3);", "RangeError: Array buffer allocation failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHostB(t, tt.top+tail, t.TempDir(), func(c *host.Config) {
				c.MemoryLimit = 32 << 20
				c.CPULimit = 300 * time.Millisecond
				if tt.name == "memory" {
					// The memory limit, not the time limit, must end it
					// (under -race on a busy machine growing takes long).
					c.CPULimit = 10 * time.Minute
				}
			})
			err := h.Open()
			if err == nil {
				h.Close(context.Background())
				t.Fatal("the worker loaded")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("load: %v\nwant %q", err, tt.want)
			}
		})
	}
}
