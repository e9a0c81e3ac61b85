package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestNextCron(t *testing.T) {
	entries := parseCrons([]string{"*/15 * * * *", "0 3 * * mon", "not a cron"}, io.Discard)
	if len(entries) != 2 {
		t.Fatalf("parsed %d entries, want 2 (the bad one dropped)", len(entries))
	}
	now := time.Date(2026, 12, 7, 2, 59, 30, 0, time.UTC) // a Monday
	e, at, ok := nextCron(entries, now)
	if !ok || e.expr != "*/15 * * * *" || !at.Equal(time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("next = %q at %v, want */15 at 03:00 (it ties with 0 3 * * mon; the first wins)", e.expr, at)
	}
	e, at, _ = nextCron(entries[1:], now.Add(time.Hour))
	if !at.Equal(time.Date(2026, 12, 14, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("next monday 03:00 = %v", at)
	}
}

// The scheduled handler runs from wrangler's test endpoint, with the
// controller's cron, and a failing one answers 500 with its stack.
func TestDev_Scheduled(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "c", "main": "index.js", "triggers": {"crons": ["*/5 * * * *"]},
		  "kv_namespaces": [{"binding": "KV", "id": "k"}]}`,
		"index.js": `export default {
  async scheduled(controller, env, ctx) {
    if (controller.cron === "boom") throw new Error("scheduled failed");
    await env.KV.put("last", controller.cron + "@" + controller.scheduledTime + " " + controller.type);
  },
  async fetch(req, env) { return new Response(await env.KV.get("last") ?? "none"); },
};`,
	})
	d := startDevServer(t, dir, dir, nil)
	if status, body := d.get("/cdn-cgi/handler/scheduled?cron=*/5+*+*+*+*&time=1700000000000"); status != 200 || body != "Ran scheduled event" {
		t.Fatalf("scheduled endpoint = %d %q", status, body)
	}
	// workerd's ScheduledController has no type (testdata/cases/cron).
	if _, body := d.get("/"); body != "*/5 * * * *@1700000000000 undefined" {
		t.Errorf("after the scheduled event, GET / = %q", body)
	}
	status, body := d.get("/__scheduled?cron=boom")
	if status != 500 || !strings.Contains(body, "Error: scheduled failed") || !strings.Contains(body, "index.js:3:") {
		t.Errorf("failing scheduled = %d %q", status, body)
	}
	if out := d.stdout.String(); !strings.Contains(out, `[cellhost] scheduled "*/5 * * * *" ok (`) || !strings.Contains(out, "/cdn-cgi/handler/scheduled?cron=") {
		t.Errorf("stdout lacks the scheduled log line or the hint:\n%s", out)
	}
}
