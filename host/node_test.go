package host_test

import (
	"context"
	"net/http/httptest"
	"testing"
)

// redirectJS: the object answers /start with a chain of redirects; the
// worker fetches it through a stub with the default redirect mode and with
// "manual", and calls transactionSync with a throwing closure.
const redirectJS = `
export class Counter {
  constructor(state) { this.state = state; }
  async fetch(request) {
    const url = new URL(request.url);
    const body = request.body === null ? "" : await request.text();
    switch (url.pathname) {
      case "/start": return Response.redirect("https://x/see-other", 302);
      case "/see-other": return new Response(null, { status: 303, headers: { location: "/keep" } });
      case "/keep": return new Response(null, { status: 307, headers: { location: "/end?q=1" } });
      case "/end": return new Response(request.method + " " + url.pathname + url.search + " [" + body + "]");
      case "/loop": return Response.redirect("https://x/loop", 301);
      case "/tx": {
        const thrown = new RangeError("mine");
        thrown.extra = 42;
        try {
          this.state.storage.transactionSync(() => { throw thrown; });
        } catch (e) {
          return new Response(String(e === thrown) + " " + e.extra);
        }
        return new Response("no error");
      }
    }
    return new Response("unknown", { status: 404 });
  }
}
export class Plain {}
export default {
  async fetch(request, env) {
    const stub = env.COUNTER.getByName("r");
    const path = new URL(request.url).pathname;
    if (path === "/manual") {
      const r = await stub.fetch("https://x/start", { redirect: "manual" });
      return new Response(r.status + " " + r.headers.get("location"));
    }
    if (path === "/loop") {
      try { await stub.fetch("https://x/loop"); } catch (e) { return new Response(String(e)); }
    }
    if (path === "/tx") return stub.fetch("https://x/tx");
    const r = await stub.fetch("https://x/start", { method: "POST", body: "payload" });
    return new Response(r.status + " " + await r.text());
  },
};
`

// TestHost_StubFetchRedirects: stub.fetch() follows redirects as workerd
// does (a 303 turns the POST into a GET without a body), "manual" returns
// them; and transactionSync rethrows the closure's own error object.
func TestHost_StubFetchRedirects(t *testing.T) {
	h := newHost(t, redirectJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	defer func() {
		srv.Close()
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	for _, c := range []struct{ path, want string }{
		{"/follow", "200 GET /end?q=1 []"},
		{"/manual", "302 https://x/see-other"},
		{"/loop", "TypeError: Too many redirects."},
		{"/tx", "true 42"},
	} {
		if _, body := get(t, srv, c.path); body != c.want {
			t.Errorf("%s: got %q, want %q", c.path, body, c.want)
		}
	}
}
