package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// syncWriter is an io.Writer safe for the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	b  strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// devHarness is a `cellhost dev` running in-process on a free port, with
// its reloads reported on a channel.
type devHarness struct {
	t       *testing.T
	dir     string
	base    string
	reloads chan error
	stdout  *syncWriter
	stderr  *syncWriter
	stop    func() // stops the server (also done at cleanup)
}

// startDev serves dir (a project directory or module) as `cellhost dev`
// does, with extra options set by opt.
func startDevServer(t *testing.T, dir, target string, opt func(*devOptions)) *devHarness {
	t.Helper()
	d := &devHarness{t: t, dir: dir, reloads: make(chan error, 16), stdout: &syncWriter{}, stderr: &syncWriter{}}
	ready := make(chan string, 1)
	o := devOptions{port: 0, ip: "127.0.0.1",
		onReady:  func(addr string) { ready <- addr },
		onReload: func(err error) { d.reloads <- err },
	}
	if opt != nil {
		opt(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runDev(ctx, target, o, d.stdout, d.stderr) }()
	select {
	case addr := <-ready:
		d.base = "http://" + addr
	case err := <-done:
		cancel()
		t.Fatalf("runDev: %v\nstderr: %s", err, d.stderr.String())
	}
	var once sync.Once
	d.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("runDev: %v", err)
			}
		})
	}
	t.Cleanup(func() {
		d.stop()
		if t.Failed() {
			t.Logf("stdout:\n%s\nstderr:\n%s", d.stdout.String(), d.stderr.String())
		}
	})
	return d
}

// get returns the status and body of GET path.
func (d *devHarness) get(path string) (int, string) {
	d.t.Helper()
	resp, err := http.Get(d.base + path)
	if err != nil {
		d.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		d.t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b)
}

// write replaces a project file the way editors do: a hidden temporary
// file renamed over the old one.
func (d *devHarness) write(name, content string) {
	d.t.Helper()
	p := filepath.Join(d.dir, name)
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		d.t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		d.t.Fatal(err)
	}
}

// waitReload waits for the next reload whose outcome matches wantErr (an
// editor's save can be seen as more than one change).
func (d *devHarness) waitReload(wantErr bool) error {
	d.t.Helper()
	deadline := time.After(time.Minute) // a guard against a hang, not a synchronisation
	for {
		select {
		case err := <-d.reloads:
			if (err != nil) == wantErr {
				return err
			}
		case <-deadline:
			d.t.Fatalf("no reload with error=%v within a minute", wantErr)
		}
	}
}

const reloadConfig = `{"name": "r", "main": "src/index.ts", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}]}`

func reloadModule(version string) string {
	return `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req: Request): Promise<Response> {
    const n = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return new Response("` + version + ` n=" + n);
  }
}
export default {
  async fetch(req: Request, env: any): Promise<Response> {
    if (new URL(req.url).pathname === "/count") return env.COUNTER.getByName("a").fetch(req);
    return new Response("` + version + `");
  },
};
`
}

// An edit under a running `cellhost dev` is served by the next request; a
// broken build keeps the old code answering and prints the error with its
// file and line; the objects' state survives every reload.
func TestDev_ReloadsOnEdit(t *testing.T) {
	dir := writeProject(t, map[string]string{"wrangler.jsonc": reloadConfig, "src/index.ts": reloadModule("v1")})
	d := startDevServer(t, dir, dir, nil)
	if _, body := d.get("/"); body != "v1" {
		t.Fatalf("GET / = %q, want v1", body)
	}
	if _, body := d.get("/count"); body != "v1 n=1" {
		t.Fatalf("GET /count = %q, want v1 n=1", body)
	}

	d.write("src/index.ts", reloadModule("v2"))
	d.waitReload(false)
	if _, body := d.get("/"); body != "v2" {
		t.Errorf("after the edit, GET / = %q, want v2", body)
	}
	if _, body := d.get("/count"); body != "v2 n=2" {
		t.Errorf("after the edit, GET /count = %q, want v2 n=2 (new code, state kept)", body)
	}
	if !strings.Contains(d.stdout.String(), "reloaded ") {
		t.Errorf("stdout does not report the reload: %q", d.stdout.String())
	}

	// Line 4 gets a syntax error.
	broken := strings.Replace(reloadModule("v3"), "const n = ", "const n = = ", 1)
	d.write("src/index.ts", broken)
	err := d.waitReload(true)
	if !strings.Contains(err.Error(), "index.ts:4:") {
		t.Errorf("reload error = %q, want the file and line (index.ts:4:)", err)
	}
	if got := d.stderr.String(); !strings.Contains(got, "still serving the previous code") || !strings.Contains(got, "index.ts:4:") {
		t.Errorf("stderr = %q, want the build error with file and line and that the old code still serves", got)
	}
	if _, body := d.get("/"); body != "v2" {
		t.Errorf("during a broken build, GET / = %q, want the old code's v2", body)
	}
	if _, body := d.get("/count"); body != "v2 n=3" {
		t.Errorf("during a broken build, GET /count = %q, want v2 n=3", body)
	}

	d.write("src/index.ts", reloadModule("v4"))
	d.waitReload(false)
	if _, body := d.get("/count"); body != "v4 n=4" {
		t.Errorf("after the fix, GET /count = %q, want v4 n=4", body)
	}
}

// A module the bundle imports is watched too, and so is the config file.
func TestDev_ReloadsOnImportAndConfig(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "r", "main": "index.js", "vars": {"GREETING": "hello"}}`,
		"index.js":       `import { word } from "./lib/word.js"; export default { fetch(req, env) { return new Response(env.GREETING + " " + word); } };`,
		"lib/word.js":    `export const word = "one";`,
	})
	d := startDevServer(t, dir, dir, nil)
	if _, body := d.get("/"); body != "hello one" {
		t.Fatalf("GET / = %q, want hello one", body)
	}
	d.write("lib/word.js", `export const word = "two";`)
	d.waitReload(false)
	if _, body := d.get("/"); body != "hello two" {
		t.Errorf("after editing the import, GET / = %q, want hello two", body)
	}
	d.write("wrangler.jsonc", `{"name": "r", "main": "index.js", "vars": {"GREETING": "hi"}}`)
	d.waitReload(false)
	if _, body := d.get("/"); body != "hi two" {
		t.Errorf("after editing the config, GET / = %q, want hi two", body)
	}
}

// Secrets from .dev.vars reach env and are listed hidden; --var overrides;
// an unknown configuration key is a warning naming it.
func TestDev_VarsAndSecrets(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "s", "main": "index.js", "vars": {"GREETING": "hello", "N": 2}, "kv_namespacez": [],
		  "env": {"prod": {"vars": {"GREETING": "bonjour"}}}}`,
		".dev.vars":      "API_TOKEN=s3cret\n",
		".dev.vars.prod": "API_TOKEN=prod-s3cret\n",
		"index.js":       `export default { fetch(req, env) { return new Response([env.GREETING, env.N, env.API_TOKEN, env.EXTRA].join(" ")); } };`,
	})
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.vars = []string{"EXTRA:x:y"} })
	if _, body := d.get("/"); body != "hello 2 s3cret x:y" {
		t.Errorf("GET / = %q, want hello 2 s3cret x:y", body)
	}
	out := d.stdout.String()
	for _, want := range []string{"env.API_TOKEN", "(hidden)", "env.GREETING", `"hello"`, "env.EXTRA", "Var (--var)"} {
		if !strings.Contains(out, want) {
			t.Errorf("start-up output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("start-up output shows the secret:\n%s", out)
	}
	if errOut := d.stderr.String(); !strings.Contains(errOut, `unknown configuration key "kv_namespacez"`) || !strings.Contains(errOut, markWarn) {
		t.Errorf("stderr = %q, want a warning naming kv_namespacez", errOut)
	}

	prod := startDevServer(t, dir, dir, func(o *devOptions) { o.env = "prod"; o.state = t.TempDir() })
	if _, body := prod.get("/"); body != "bonjour  prod-s3cret " {
		t.Errorf("--env prod: GET / = %q, want %q", body, "bonjour  prod-s3cret ")
	}
}

// An uncaught exception answers 500 with its stack mapped to the original
// TypeScript lines (plain text for curl, HTML for a browser), the terminal
// shows the same stack marked as an error, every request gets one log line,
// and internal ownership lines stay hidden without --verbose.
func TestDev_ErrorsAndRequestLog(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "e", "main": "src/index.ts", "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]}}`,
		"src/index.ts": `// line 1
interface Unused { a: number }

function deep(n: number): number {
  if (n > 1) {
    throw new Error("boom");
  }
  return deep(n + 1);
}
export class C { async fetch(): Promise<Response> { console.log("in C"); console.warn("careful"); return new Response("c"); } }
export default {
  async fetch(req: Request): Promise<Response> {
    if (new URL(req.url).pathname === "/log") { console.error("from worker"); return new Response("logged"); }
    deep(0);
    return new Response("unreachable");
  },
};
`,
	})
	d := startDevServer(t, dir, dir, nil)
	status, body := d.get("/crash")
	if status != 500 || !strings.HasPrefix(body, "Error: boom\n") || !strings.Contains(body, "at deep (src/index.ts:6:") || !strings.Contains(body, "at fetch (src/index.ts:14:") {
		t.Errorf("GET /crash = %d %q, want the stack at src/index.ts lines 6 and 14", status, body)
	}
	if strings.Contains(body, dir) || strings.Contains(body, "(7)") {
		t.Errorf("stack shows the absolute directory or goja's offsets: %q", body)
	}
	req, _ := http.NewRequest("GET", d.base+"/crash", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page), "<h1>Error: boom</h1>") {
		t.Errorf("browser GET /crash = %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), page)
	}
	if _, body := d.get("/do/C/alice"); body != "c" {
		t.Errorf("GET /do/C/alice = %q", body)
	}
	d.get("/log")
	d.stop()
	errOut, out := d.stderr.String(), d.stdout.String()
	if !strings.Contains(errOut, markError+" Uncaught Error: boom\n\tat deep (src/index.ts:6:") {
		t.Errorf("terminal lacks the marked, mapped stack:\n%s", errOut)
	}
	// console output, labelled with the object and marked by level.
	for _, re := range []string{`(?m)^\[C:[0-9a-f]{8}\] in C$`, `(?m)^▲ \[WARNING\] \[C:[0-9a-f]{8}\] careful$`, `(?m)^✘ \[ERROR\] from worker$`} {
		if !regexp.MustCompile(re).MatchString(errOut) {
			t.Errorf("terminal lacks a line matching %s:\n%s", re, errOut)
		}
	}
	if strings.Contains(errOut, "ownership:") {
		t.Errorf("internal ownership lines shown without --verbose:\n%s", errOut)
	}
	for _, want := range []string{"[cellhost] GET /crash 500 Internal Server Error (", "[cellhost] GET /do/C/alice 200 OK (", "ms) → C/alice"} {
		if !strings.Contains(out, want) {
			t.Errorf("request log lacks %q:\n%s", want, out)
		}
	}
}

// An error thrown in an object over RPC keeps the object's stack, in the
// caller's 500 answer and in the terminal.
func TestDev_RPCErrorKeepsStack(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "r", "main": "index.ts", "durable_objects": {"bindings": [{"name": "NOTES", "class_name": "Notes"}]}}`,
		"index.ts": `import { DurableObject } from "cloudflare:workers";
export class Notes extends DurableObject {
  async add(n: number): Promise<number> {
    if (n > 2) {
      throw new Error("too many notes");
    }
    return n;
  }
}
export default {
  async fetch(req: Request, env: any): Promise<Response> {
    return new Response(String(await env.NOTES.getByName("a").add(5)));
  },
};
`,
	})
	d := startDevServer(t, dir, dir, nil)
	status, body := d.get("/")
	if status != 500 || !regexp.MustCompile(`^Error: too many notes\n\tat add \(index.ts:5:12\)\n\tat async fetch \(index.ts:12:\d+\)\n$`).MatchString(body) {
		t.Errorf("GET / = %d %q, want the object's stack", status, body)
	}
	d.stop()
	if !strings.Contains(d.stderr.String(), "Uncaught Error: too many notes\n\tat add (index.ts:5:12)\n") {
		t.Errorf("terminal lacks the object's stack:\n%s", d.stderr.String())
	}
}

// A WebSocket upgrade passes through the dev server's request log and
// reload wrapper.
func TestDev_WebSocket(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "w", "main": "index.js", "durable_objects": {"bindings": [{"name": "R", "class_name": "Room"}]}}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Room extends DurableObject {
  async fetch(req) {
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    return new Response(null, { status: 101, webSocket: client });
  }
  webSocketMessage(ws, msg) { ws.send("echo " + msg); }
}
export default { fetch(req, env) { return env.R.getByName("r").fetch(req); } };`,
	})
	d := startDevServer(t, dir, dir, nil)
	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(d.base, "http")+"/ws", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	if err := conn.WriteMessage(websocket.TextMessage, []byte("hi")); err != nil {
		t.Fatal(err)
	}
	_, msg, err := conn.ReadMessage()
	if err != nil || string(msg) != "echo hi" {
		t.Fatalf("read = %q, %v", msg, err)
	}
	conn.Close()
	d.stop()
	if !strings.Contains(d.stdout.String(), "[cellhost] GET /ws 101 Switching Protocols") {
		t.Errorf("request log lacks the upgrade:\n%s", d.stdout.String())
	}
}

// A plain cellhost dev start prints no internal line: not the wake index's
// ("waker: role changed", "wake: counters"), not ownership's, nothing at
// the info level of slog's text form. --verbose shows them, in dev's own
// form.
func TestDev_QuietStart(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "q", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]}}`,
		"index.js":       `import { DurableObject } from "cloudflare:workers"; export class C extends DurableObject { async fetch() { await this.ctx.storage.setAlarm(Date.now() + 3600e3); return new Response("c"); } alarm() {} } export default { fetch() { return new Response("w"); } };`,
	})
	internal := []string{"waker:", "wake:", "ownership:", "level=INFO", "failover sweep"}
	for _, verbose := range []bool{false, true} {
		d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = t.TempDir(); o.verbose = verbose })
		if _, body := d.get("/do/C/a"); body != "c" {
			t.Errorf("GET /do/C/a = %q", body)
		}
		d.stop()
		errOut := d.stderr.String()
		if !verbose {
			for _, s := range internal {
				if strings.Contains(errOut, s) {
					t.Errorf("plain dev start printed an internal line (%q):\n%s", s, errOut)
				}
			}
			continue
		}
		if !strings.Contains(errOut, "waker: role changed held=true") || strings.Contains(errOut, "level=INFO") {
			t.Errorf("--verbose lacks the waker's line in dev's form:\n%s", errOut)
		}
	}
}
