package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

const counterJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, name: this.ctx.id.name ?? null });
  }
}
export class Plain {
  constructor(state, env) { this.state = state; }
  async fetch() { return new Response("plain " + (this.state.id.name ?? "")); }
}
export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get("name") ?? "default";
    if (name === "throw") throw new TypeError("thrown by the worker");
    return env.COUNTER.getByName(name).fetch(request);
  },
};
`

// newHost bundles src into a temp dir and returns an unopened host whose
// state lives in stateDir.
func newHost(t *testing.T, src, stateDir string) *host.Host { return newHostB(t, src, stateDir) }

func newHostB(t testing.TB, src, stateDir string, opts ...func(*host.Config)) *host.Host {
	t.Helper()
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := jsapi.BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	cfg := host.Config{
		Bundle:   b,
		Script:   "counter",
		Bindings: []host.Binding{{Name: "COUNTER", Class: "Counter"}, {Name: "PLAIN", Class: "Plain"}},
		Shards:   2,
		Storage:  host.Storage{StateDir: stateDir},
		Logging:  host.Logging{Log: os.Stderr},
	}
	for _, o := range opts {
		o(&cfg)
	}
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(t *testing.T, srv *httptest.Server, path string) (int, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func counterValue(t *testing.T, body string) int {
	t.Helper()
	var v struct{ N int }
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("body %q: %v", body, err)
	}
	return v.N
}

func TestHost_StateSurvivesRestart(t *testing.T) {
	state := t.TempDir()
	for round, want := range []int{2, 4} {
		h := newHost(t, counterJS, state)
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h.Handler())
		get(t, srv, "/do/Counter/alice")
		_, body := get(t, srv, "/?name=alice")
		if got := counterValue(t, body); got != want {
			t.Errorf("round %d: n = %d, want %d", round, got, want)
		}
		srv.Close()
		if err := h.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestHost_SecondHostOnStateIsRefused(t *testing.T) {
	state := t.TempDir()
	h1 := newHost(t, counterJS, state)
	if err := h1.Open(); err != nil {
		t.Fatal(err)
	}
	defer h1.Close(context.Background())
	h2 := newHost(t, counterJS, state)
	err := h2.Open()
	if !errors.Is(err, host.ErrStateLocked) {
		t.Fatalf("second Open: err = %v, want ErrStateLocked", err)
	}
	if !strings.Contains(err.Error(), state) {
		t.Errorf("error %q does not name the state directory", err)
	}
}

func TestHost_HTTPFront(t *testing.T) {
	h := newHost(t, counterJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	aliceID := host.IDFromName("counter", "Counter", "alice")
	tests := []struct {
		path       string
		wantStatus int
		wantBody   string
	}{
		{"/do/Counter/alice", 200, `{"n":1,"name":"alice"}`},
		{"/do/Counter/" + aliceID, 200, `{"n":2,"name":"alice"}`}, // same instance: woken by name
		{"/do/Counter/alice/sub/path?q=1", 200, `{"n":3,"name":"alice"}`},
		{"/do/Plain/bob", 200, `plain bob`},
		{"/do/Nope/alice", 404, "no Durable Object class named \"Nope\" is bound in this worker\n"},
		{"/do/Counter/" + strings.Repeat("0", 64), 400, "Durable Object ID is not valid for this namespace.\n"},
		{"/?name=throw", 500, "Internal Server Error"},
	}
	for _, tt := range tests {
		status, body := get(t, srv, tt.path)
		if status != tt.wantStatus || body != tt.wantBody {
			t.Errorf("GET %s = %d %q, want %d %q", tt.path, status, body, tt.wantStatus, tt.wantBody)
		}
	}
}

func TestHost_ConcurrentObjects(t *testing.T) {
	h := newHost(t, counterJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := string(rune('a' + i))
			id := host.IDFromName("counter", "Counter", name)
			for j := 1; j <= 5; j++ {
				resp, err := h.FetchObject(ctx, "Counter", id, name, &jsapi.HTTPRequest{Method: "GET", URL: "http://x/"})
				if err != nil {
					t.Error(err)
					return
				}
				if got := counterValue(t, string(resp.Body)); got != j {
					t.Errorf("%s: n = %d, want %d", name, got, j)
				}
			}
		}()
	}
	wg.Wait()
}

// TestHost_StubShape pins what JS sees of a Durable Object stub: its id
// (the same object) and name as its only own properties, fetch from its
// prototype, an RPC method for any other property but then, and workerd's
// TypeError for a fetch detached from its stub.
func TestHost_StubShape(t *testing.T) {
	const src = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) { return new Response("hello " + new URL(request.url).pathname); }
  hi(x) { return "hi " + x; }
}
export class Plain {}
export default {
  async fetch(request, env) {
    const id = env.COUNTER.idFromName("s");
    const stub = env.COUNTER.get(id);
    const out = {
      sameId: stub.id === id,
      name: stub.name,
      keys: Object.keys(stub),
      hasId: "id" in stub,
      hasOther: "other" in stub,
      thenType: typeof stub.then,
      rpcType: typeof stub.anything,
      sharedFetch: stub.fetch === env.COUNTER.getByName("t").fetch,
      toStringType: typeof stub.toString,
      byIdName: env.COUNTER.get(env.COUNTER.idFromString(id.toString())).name ?? null,
      fetched: await (await stub.fetch("http://do/path")).text(),
      rpc: await stub.hi("there"),
    };
    try { const f = stub.fetch; await f("http://x/"); out.detached = "no error"; } catch (e) { out.detached = e.name + ": " + e.message.slice(0, 18); }
    out.strict = (function () { return this === undefined; })();
    try { stub.id = 1; out.assign = "allowed"; } catch (e) { out.assign = e.name; }
    return Response.json(out);
  },
};
`
	h := newHostB(t, src, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	status, body := get(t, srv, "/")
	want := `{"sameId":true,"name":"s","keys":["id","name"],"hasId":true,"hasOther":false,"thenType":"undefined","rpcType":"function",` +
		`"sharedFetch":true,"toStringType":"function","byIdName":null,"fetched":"hello /path","rpc":"hi there",` +
		`"detached":"TypeError: Illegal invocation","strict":true,"assign":"TypeError"}`
	if status != 200 || body != want {
		t.Errorf("GET / = %d\n%s\nwant\n%s", status, body, want)
	}
}

// logBuffer collects a host's log lines; safe for concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHost_ClientGoneIsNotUncaught: a client that hangs up before the
// answer is not an error of the application; the log says nothing of it,
// while a real throw is still logged as Uncaught.
func TestHost_ClientGoneIsNotUncaught(t *testing.T) {
	const src = `
export class Counter {}
export class Plain {}
export default {
  async fetch(request) {
    if (new URL(request.url).pathname === "/throw") throw new Error("boom");
    console.log("slow running");
    await new Promise((r) => setTimeout(r, 300));
    return new Response("late");
  },
};
`
	var log logBuffer
	slowDone := make(chan struct{})
	slowRunning := make(chan struct{}, 1)
	h := newHostB(t, src, t.TempDir(), func(c *host.Config) {
		c.Log = &log
		c.Console = func(_, _, line string) {
			if line == "slow running" {
				slowRunning <- struct{}{}
			}
		}
		c.RequestLog = func(ri host.RequestInfo) {
			if ri.URI == "/slow" {
				close(slowDone)
			}
		}
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	// The client hangs up once the handler runs (a fixed 50 ms client
	// timeout could end before the request reached the server on a busy
	// machine, and the wait below then never ended).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-slowRunning; cancel() }()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/slow", nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the slow request answered although the client hung up: %d", resp.StatusCode)
	}
	<-slowDone // the HTTP front is done with it (and logged what it would)
	if status, _ := get(t, srv, "/throw"); status != 500 {
		t.Fatalf("GET /throw = %d, want 500", status)
	}
	got := log.String()
	if strings.Count("\n"+got, "\nUncaught ") != 1 || !strings.HasPrefix(got, "Uncaught Error: boom") {
		t.Errorf("log = %q, want exactly one Uncaught line, for boom", got)
	}
	if strings.Contains(got, "callWithRequest") || strings.Contains(got, "(native)") {
		t.Errorf("log = %q: the stack shows cellhost's own frames under fetch", got)
	}
}
