package host_test

import (
	"context"
	"strings"
	"testing"
)

const bcwJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.log = [];
    const mode = ctx.id.name;
    if (mode === "storage") {
      ctx.blockConcurrencyWhile(async () => {
        this.v = (await ctx.storage.get("k")) ?? "none";
        await null;
        this.log.push("first");
      });
    }
    if (mode === "queue") {
      ctx.blockConcurrencyWhile(async () => {
        this.log.push("a1");
        await ctx.storage.get("x");
        await null;
        this.log.push("a2");
      });
      ctx.blockConcurrencyWhile(async () => { this.log.push("b"); });
      this.log.push("sync");
    }
    if (mode === "await") {
      (async () => { await null; this.log.push("microtask"); })();
    }
    if (mode === "throws") {
      ctx.blockConcurrencyWhile(async () => { await null; throw new RangeError("ctor failed"); });
    }
    if (mode === "throws-sync") {
      ctx.blockConcurrencyWhile(() => { throw new TypeError("ctor failed at once"); });
    }
  }
  async fetch(request) {
    return Response.json({ v: this.v, log: this.log });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestConstructor_RunsPromiseJobs checks that constructing an object runs
// its promise jobs, so that a blockConcurrencyWhile in the constructor that
// awaits storage completes before the first request (it used to hang until
// the 30 s limit), that a second blockConcurrencyWhile waits for the first,
// and that a failing one fails the requests that waited for it.
func TestConstructor_RunsPromiseJobs(t *testing.T) {
	h := newHost(t, bcwJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())

	for _, tc := range []struct{ name, want string }{
		{"storage", `{"v":"none","log":["first"]}`},
		{"queue", `{"log":["sync","a1","a2","b"]}`},
		{"await", `{"log":["microtask"]}`},
	} {
		body, err := fetchBody(t, h, tc.name, "/")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if body != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, body, tc.want)
		}
	}

	for _, tc := range []struct{ name, want string }{
		{"throws", "RangeError: ctor failed"},
		{"throws-sync", "TypeError: ctor failed at once"},
	} {
		// Two requests wait for the constructor: both fail with its error.
		a, b := fetchAsync(h, tc.name, "/"), fetchAsync(h, tc.name, "/")
		for _, r := range []fetchResult{<-a, <-b} {
			if r.err == nil || !strings.Contains(r.err.Error(), tc.want) {
				t.Errorf("%s: got (%q, %v), want the error %q", tc.name, r.body, r.err, tc.want)
			}
		}
	}
}
