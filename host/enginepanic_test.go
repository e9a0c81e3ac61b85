package host_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/host"
)

// engineBug stands for a bug in the JavaScript engine reached by user code:
// a native function that raises a Go runtime panic (index out of range, as
// goja's compiler output did for an anonymous class with a static block and
// a direct eval, fork patch 21).
func engineBug(goja.FunctionCall) goja.Value {
	var s []goja.Value
	return s[len(s)] // panics: index out of range [0] with length 0
}

const enginePanicJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    if (new URL(request.url).searchParams.get("boom")) this.env.ENGINE_BUG();
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n });
  }
}
export default {
  async fetch(request, env) {
    const u = new URL(request.url);
    if (u.searchParams.get("boom")) env.ENGINE_BUG();
    if (u.searchParams.get("wait")) {
      console.log("waiting");
      return await new Promise(() => {}); // settles only if the runtime answers
    }
    return env.COUNTER.getByName(u.searchParams.get("name") ?? "a").fetch(request);
  },
};
`

func bindEngineBug(c *host.Config) {
	c.Bindings = []host.Binding{{Name: "COUNTER", Class: "Counter"}}
	c.Bind = func(rt *goja.Runtime, env *goja.Object) error { return env.Set("ENGINE_BUG", engineBug) }
}

func TestHost_EnginePanicResetsTheObject(t *testing.T) {
	var log logBuffer
	h := newHostB(t, enginePanicJS, t.TempDir(), bindEngineBug, func(c *host.Config) { c.Log = &log })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	if code, body := get(t, srv, "/do/Counter/a"); code != 200 || counterValue(t, body) != 1 {
		t.Fatalf("first request: %d %q", code, body)
	}
	// Before: the request hung until the request timeout (2 minutes), and a
	// panic at module load killed the process.
	const uncaught = "Uncaught internal error in the JavaScript engine: runtime error: index out of range [0] with length 0\n"
	code, body := get(t, srv, "/do/Counter/a?boom=1")
	if code != 500 || body != "Internal Server Error" || strings.Count(log.String(), uncaught) != 1 {
		t.Fatalf("object panic: %d %q, log:\n%s", code, body, log.String())
	}
	if !strings.Contains(log.String(), "Durable Object reset because its JavaScript runtime hit an internal error (a Go panic in the engine)") {
		t.Fatalf("object panic: no reset in the log:\n%s", log.String())
	}
	code, body = get(t, srv, "/?boom=1")
	if code != 500 || body != "Internal Server Error" || strings.Count(log.String(), uncaught) != 2 {
		t.Fatalf("worker panic: %d %q, log:\n%s", code, body, log.String())
	}
	// The host still serves, the object from its stored state.
	if code, body := get(t, srv, "/?name=a"); code != 200 || counterValue(t, body) != 2 {
		t.Fatalf("after the panics: %d %q", code, body)
	}
}

func TestHost_EnginePanicAtModuleLoadIsAnError(t *testing.T) {
	src := `import { env } from "cloudflare:workers";
env.ENGINE_BUG();
export default { fetch() { return new Response("x") } };
export class Counter {}
`
	h := newHostB(t, src, t.TempDir(), bindEngineBug)
	err := h.Open() // before: the process died here
	if err == nil {
		h.Close(context.Background())
		t.Fatal("Open succeeded")
	}
	if !strings.Contains(err.Error(), "index.js failed: internal error in the JavaScript engine: runtime error: index out of range [0] with length 0") {
		t.Fatalf("Open: %v", err)
	}
}

// A worker request still waiting on the runtime that a panic made the host
// replace fails at once, as the objects' running events do.
func TestHost_EnginePanicFailsPendingWorkerRequests(t *testing.T) {
	waiting := make(chan struct{}, 1)
	var log logBuffer
	h := newHostB(t, enginePanicJS, t.TempDir(), bindEngineBug, host.WithWorkerShard(0), func(c *host.Config) {
		c.Log = &log
		c.Console = func(scope, level, line string) {
			if line == "waiting" {
				waiting <- struct{}{}
			}
		}
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	type res struct {
		code int
		body string
	}
	pending := make(chan res, 1)
	go func() {
		resp, err := http.Get(srv.URL + "/?wait=1")
		if err != nil {
			pending <- res{0, err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		pending <- res{resp.StatusCode, string(b)}
	}()
	<-waiting
	if code, body := get(t, srv, "/?boom=1"); code != 500 {
		t.Fatalf("worker panic: %d %q", code, body)
	}
	r := <-pending
	if r.code != 500 || r.body != "Internal Server Error" || !strings.Contains(log.String(), "Uncaught the worker's JavaScript runtime was reset because its JavaScript runtime hit an internal error (a Go panic in the engine)\n") {
		t.Fatalf("pending request: %d %q, log:\n%s", r.code, r.body, log.String())
	}
	if code, body := get(t, srv, "/?name=b"); code != 200 || counterValue(t, body) != 1 {
		t.Fatalf("after the panic: %d %q", code, body)
	}
}
