package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"
)

// chromiumPath finds a headless-capable Chromium: $CELLHOST_CHROMIUM, else
// chromium or google-chrome on PATH.
func chromiumPath() string {
	if p := os.Getenv("CELLHOST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// The inspector in a real browser: headless Chromium loads the pages,
// follows the object link, runs a query from the SQL console, and the test
// asserts on the DOM the browser built. Screenshots of each page are
// written to $CELLHOST_SCREENSHOTS (default: the test's temporary
// directory) and their paths logged.
func TestInspector_Chromium(t *testing.T) {
	chrome := chromiumPath()
	if chrome == "" {
		t.Skip("no Chromium (apt-get install chromium, or set CELLHOST_CHROMIUM)")
	}
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "i", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "Counter"}]}}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    if (req.headers.get("Upgrade") === "websocket") {
      const [client, server] = Object.values(new WebSocketPair());
      this.ctx.acceptWebSocket(server, ["room:lobby", "user:alice"]);
      server.serializeAttachment({ user: "alice", joined: 1 });
      await this.ctx.storage.setAlarm(Date.UTC(2030, 0, 2, 3, 4, 5));
      return new Response(null, { status: 101, webSocket: client });
    }
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)");
    this.ctx.storage.sql.exec("INSERT INTO notes (body) VALUES ('hello'), ('world')");
    await this.ctx.storage.put("greeting", { text: "hi" });
    return new Response("ok");
  }
  async webSocketMessage(ws, msg) { ws.send(msg); }
  async alarm() {}
}
export default { fetch() { return new Response("w"); } };`,
	})
	d := startDevServer(t, dir, dir, nil)
	d.get("/do/Counter/alice")
	// A hibernatable WebSocket with tags and an attachment, and an alarm.
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(d.base, "http")+"/do/Counter/alice", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if err := ws.WriteMessage(websocket.TextMessage, []byte("ping")); err != nil {
		t.Fatal(err)
	}
	if _, echo, err := ws.ReadMessage(); err != nil || string(echo) != "ping" {
		t.Fatalf("echo = %q, %v", echo, err)
	}

	shots := os.Getenv("CELLHOST_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chrome), chromedp.NoSandbox,
		chromedp.WindowSize(1200, 900), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()

	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("chromium: %v", err)
		}
	}
	shot := func(name string) {
		t.Helper()
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		check(err)
		p := filepath.Join(shots, name+".png")
		check(os.WriteFile(p, png, 0o644))
		t.Logf("screenshot %s (%d bytes)", p, len(png))
	}
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		check(err)
		return s
	}

	check(chromedp.Do(ctx, chromedp.Navigate(d.base+"/_cellhost"), chromedp.WaitVisible(chromedp.CSS(`section[data-class="Counter"]`))))
	sections, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("section").length`))
	check(err)
	classes, objectText := text(`section[data-class="Counter"] h2`), text(`tr.object`)
	// The live log: a request made now appears on the open page (the page
	// is told by server-sent events; the poll waits on DOM mutations).
	d.get("/do/Counter/live-log-probe")
	logLine, err := chromedp.Run(ctx, chromedp.Poll[string](
		`Array.from(document.querySelectorAll("#live-log .line"), (e) => e.textContent).find((l) => l.includes("/do/Counter/live-log-probe")) || false`,
		chromedp.WithPollingMutation()))
	check(err)
	shot("inspector-home")
	check(chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`tr.object a`)), chromedp.WaitVisible(chromedp.CSS(`ul.tables`))))
	tables, kv := text(`ul.tables`), text(`table.grid`)
	sockets, alarm := text(`table.websockets`), text(`p.alarm`)
	socketState, socketTags, attachment := text(`tr.websocket td.state`), text(`tr.websocket td.tags`), text(`tr.websocket td.attachment`)
	check(chromedp.Do(ctx,
		chromedp.SetValue(chromedp.CSS(`textarea[name="q"]`), "SELECT body FROM notes ORDER BY id DESC"),
		chromedp.Click(chromedp.CSS(`form button`)),
		chromedp.WaitVisible(chromedp.CSS(`#sql ~ table.grid`))))
	result := text(`#sql ~ table.grid`)
	shot("inspector-object")

	if !strings.Contains(logLine, "GET /do/Counter/live-log-probe 200") {
		t.Errorf("live log line: %q", logLine)
	}
	if !strings.Contains(sockets, "acceptWebSocket (hibernatable)") || socketState != "OPEN" ||
		socketTags != "room:lobby user:alice" || attachment != `{"user":"alice","joined":1}` {
		t.Errorf("WebSockets: %q; state %q, tags %q, attachment %q", sockets, socketState, socketTags, attachment)
	}
	if !strings.Contains(alarm, "stored: 2030-01-02T03:04:05Z") {
		t.Errorf("alarm: %q", alarm)
	}
	if sections != 1 || classes != "Counter" || !strings.Contains(objectText, "bytes") {
		t.Errorf("home page: %d sections, class %q, object row %q", sections, classes, objectText)
	}
	if !strings.Contains(tables, "notes (2 rows)") {
		t.Errorf("tables: %q", tables)
	}
	if !strings.Contains(kv, "greeting") || !strings.Contains(kv, `{"text":"hi"}`) {
		t.Errorf("KV grid: %q", kv)
	}
	if !strings.Contains(result, "body") || strings.Index(result, "world") > strings.Index(result, "hello") {
		t.Errorf("SQL console result: %q, want body then world before hello", result)
	}
}
