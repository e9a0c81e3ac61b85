package host_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/host"
)

const abortJS = `
export class Counter {
  constructor(ctx) { this.ctx = ctx; }
  fetch() { try { this.ctx.abort("asked to"); } catch {} return new Response("x"); }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestLogger_ScopeAndShard: a message about an object reaches
// Config.Logger with the attributes scope and shard.
func TestLogger_ScopeAndShard(t *testing.T) {
	var out logBuffer
	h := newHostB(t, abortJS, t.TempDir(), func(c *host.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&out, nil))
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	fetchBody(t, h, "a", "/")
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	scope := "Counter:" + host.IDFromName("counter", "Counter", "a")
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var rec struct {
			Level, Msg, Scope string
			Shard             *int
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if rec.Msg == "Durable Object reset because asked to" {
			if rec.Scope != scope || rec.Shard == nil || rec.Level != "WARN" {
				t.Errorf("reset logged as %s, want level WARN, scope %s and a shard", line, scope)
			}
			return
		}
	}
	t.Errorf("no reset in the log:\n%s", out.String())
}

// TestLogger_ConsoleDefault: without a Logger, messages are readable lines
// on Config.Log: "<scope>: <message>".
func TestLogger_ConsoleDefault(t *testing.T) {
	var out logBuffer
	h := newHostB(t, abortJS, t.TempDir(), func(c *host.Config) { c.Log = &out })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	fetchBody(t, h, "a", "/")
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := "Counter:" + host.IDFromName("counter", "Counter", "a") + ": Durable Object reset because asked to\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("console = %q, want the line %q", out.String(), want)
	}
}
