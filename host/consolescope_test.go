package host_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// consoleScopeJS logs from every kind of continuation an object's code
// has: its constructor's blockConcurrencyWhile callback, after awaiting
// storage, a timer, a fetch() and its streamed body, inside a later
// blockConcurrencyWhile, in promise callbacks and a microtask; the worker
// logs too, before and after awaiting the object.
const consoleScopeJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.blockConcurrencyWhile(async () => {
      console.log("obj: constructor bcw");
      await ctx.storage.get("k");
      console.log("obj: constructor bcw after await");
    });
  }
  async fetch(req) {
    const peer = new URL(req.url).searchParams.get("peer");
    console.log("obj: sync");
    await this.ctx.storage.put("k", 1);
    console.log("obj: after storage");
    await new Promise((r) => setTimeout(r, 1));
    console.log("obj: after timer");
    const r = await fetch(peer);
    console.log("obj: after fetch");
    const reader = r.body.getReader();
    let n = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      n += value.length;
    }
    console.log("obj: after body " + n);
    const t = await (await fetch(peer)).text();
    console.log("obj: after text " + t.length);
    await this.ctx.blockConcurrencyWhile(async () => { console.log("obj: bcw"); });
    await Promise.resolve().then(() => console.log("obj: then"));
    await new Promise((r) => queueMicrotask(() => { console.log("obj: microtask"); r(); }));
    setTimeout(() => console.log("obj: timer callback"), 1);
    await new Promise((r) => setTimeout(r, 5));
    return new Response("ok");
  }
}
export class Plain {}
export default {
  async fetch(req, env) {
    console.log("worker: before");
    const r = await env.COUNTER.getByName("a").fetch(req);
    console.log("worker: after");
    return r;
  }
};
`

// TestConsole_ScopeOnAsyncContinuations: every console line an object's
// code writes carries the object's scope, also from continuations that
// resume on a later job (a fetch() response, a stream body's chunk, a
// blockConcurrencyWhile callback); the worker's lines carry none. Before,
// the lines after a fetch() and inside blockConcurrencyWhile had no
// scope (the Agents example's first connect line had no [MyAgent:id]).
func TestConsole_ScopeOnAsyncContinuations(t *testing.T) {
	peer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fl := w.(http.Flusher)
		for i := 0; i < 3; i++ { // chunks flushed apart: several reads
			_, _ = w.Write([]byte(strings.Repeat("x", 1000)))
			fl.Flush()
		}
	}))
	defer peer.Close()
	type line struct{ scope, text string }
	var mu sync.Mutex
	var lines []line
	h := newHostB(t, consoleScopeJS, t.TempDir(), func(c *host.Config) {
		c.Console = func(scope, level, text string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, line{scope, text})
		}
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	resp, err := h.Fetch(context.Background(), &jsapi.HTTPRequest{Method: "GET", URL: "http://x/?peer=" + url.QueryEscape(peer.URL)})
	if err != nil || string(resp.Body) != "ok" {
		t.Fatalf("response %v, %v", resp, err)
	}
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "Counter:" + host.IDFromName("counter", "Counter", "a")
	mu.Lock()
	defer mu.Unlock()
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l.text] = true
		switch {
		case strings.HasPrefix(l.text, "obj: ") && l.scope != want:
			t.Errorf("%q logged with scope %q, want %q", l.text, l.scope, want)
		case strings.HasPrefix(l.text, "worker: ") && l.scope != "":
			t.Errorf("%q logged with scope %q, want none", l.text, l.scope)
		}
	}
	for _, w := range []string{"worker: before", "worker: after", "obj: constructor bcw", "obj: constructor bcw after await", "obj: sync",
		"obj: after storage", "obj: after timer", "obj: after fetch", "obj: after body 3000", "obj: after text 3000", "obj: bcw",
		"obj: then", "obj: microtask", "obj: timer callback"} {
		if !seen[w] {
			t.Errorf("no line %q in %q", w, lines)
		}
	}
}
