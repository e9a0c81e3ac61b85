package host_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/cellhost/cellhost/host"
)

const engineJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  n = 0;
  fetch() { this.n++; return new Response(String(this.n)); }
}
export class Plain extends DurableObject {
  fetch(req) {
    const what = new URL(req.url).searchParams.get("what");
    const recurse = () => recurse() + 1;
    if (what === "caught") {
      try { recurse(); } catch (e) { return new Response(String(e)); }
    }
    if (what === "uncaught") recurse();
    if (what === "string") {
      try { "ab".repeat(2 ** 28); } catch (e) { return new Response(String(e)); }
    }
    return new Response("no error");
  }
}
export default { fetch() { return new Response("worker"); } };
`

// TestEngine_StackOverflowStaysInItsObject: a stack overflow is a catchable
// RangeError (workerd's text), and even uncaught it fails only its own
// request: another object on the same shard keeps its in-memory state, so
// the shard's runtime was not replaced (issue 13.2). A string past V8's
// length limit is a RangeError too (issue 13.1).
func TestEngine_StackOverflowStaysInItsObject(t *testing.T) {
	h := newHostB(t, engineJS, t.TempDir(), func(c *host.Config) { c.Shards = 1 })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	steps := []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/do/Counter/a", 200, "1"},
		{"/do/Plain/p?what=caught", 200, "RangeError: Maximum call stack size exceeded"},
		{"/do/Counter/a", 200, "2"},
		{"/do/Plain/p?what=uncaught", 500, "Internal Server Error"},
		{"/do/Counter/a", 200, "3"},
		{"/do/Plain/p?what=string", 200, "RangeError: Invalid string length"},
		{"/do/Counter/a", 200, "4"},
	}
	for _, s := range steps {
		status, body := get(t, srv, s.path)
		if status != s.wantStatus || body != s.wantBody {
			t.Errorf("GET %s = %d %q, want %d %q", s.path, status, body, s.wantStatus, s.wantBody)
		}
	}
}
