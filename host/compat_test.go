package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/host"
)

// TestCompatibility_DeleteAllAndTheAlarm: from compatibility date
// 2026-02-24 (or with delete_all_deletes_alarm) deleteAll() also deletes a
// pending alarm; before it the alarm stays.
func TestCompatibility_DeleteAllAndTheAlarm(t *testing.T) {
	const src = `export class Counter {
  constructor(ctx) { this.ctx = ctx; }
  async fetch() {
    await this.ctx.storage.setAlarm(Date.now() + 60000);
    await this.ctx.storage.deleteAll();
    return new Response(String(await this.ctx.storage.getAlarm() !== null));
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };`
	for _, tt := range []struct {
		date  string
		flags []string
		want  string
	}{
		{"2026-01-01", nil, "true"},
		{"2026-02-24", nil, "false"},
		{"2026-01-01", []string{"delete_all_deletes_alarm"}, "false"},
	} {
		h := newHostB(t, src, t.TempDir(), func(c *host.Config) {
			c.CompatibilityDate, c.CompatibilityFlags = tt.date, tt.flags
		})
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		body, err := fetchBody(t, h, "x", "/")
		h.Close(context.Background())
		if err != nil || strings.TrimSpace(body) != tt.want {
			t.Errorf("date %s flags %v: alarm pending after deleteAll = %q, %v; want %s", tt.date, tt.flags, body, err, tt.want)
		}
	}
}
