package host_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

const cpuSQLJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.hits = 0;
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)");
  }
  async fetch(request) {
    this.hits++;
    const url = new URL(request.url);
    const insert = (i) => this.ctx.storage.sql.exec("INSERT INTO t (v) VALUES (?)", "x".repeat(100) + i);
    switch (url.pathname.replace(/^\/do\/Counter\/[^/]*/, "")) {
      case "/insert": for (let i = 0; ; i++) insert(i);
      case "/insert-catch": // swallowing the statement's error must not help
        for (let i = 0; ; i++) try { insert(i); } catch (e) { this.caught = String(e); }
      case "/slow-query": // one statement that runs past the limit
        this.ctx.storage.sql.exec("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c").one();
    }
    return Response.json({ rows: this.ctx.storage.sql.exec("SELECT count(*) AS c FROM t").one().c, hits: this.hits });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

// TestInterrupt_CPULimitInsideSQL: a turn whose SQL runs past the CPU limit
// (the turn's SQL deadline stops the statement) is the CPU limit: the
// caller gets Cloudflare's "Durable Object exceeded its CPU time limit and
// was reset.", the object is reset (a fresh instance) and the turn's writes
// are rolled back, however the code catches. Before: a catchable "Error:
// interrupted: SQLITE_INTERRUPT", the instance kept, the interrupted turn's
// thousands of inserts committed (and a commit that then failed was
// reported as "constraints were violated").
func TestInterrupt_CPULimitInsideSQL(t *testing.T) {
	h := newHostB(t, cpuSQLJS, t.TempDir(), func(c *host.Config) {
		c.Shards = 1
		c.RequestTimeout = 10 * time.Minute
		c.CPULimit = 300 * time.Millisecond
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	const want = "Durable Object exceeded its CPU time limit and was reset."
	for _, p := range []string{"/insert", "/insert-catch", "/slow-query"} {
		body, err := fetchBody(t, h, "a", "/")
		if err != nil || !strings.Contains(body, `"rows":0`) {
			t.Fatalf("before %s: %q %v; want no rows", p, body, err)
		}
		body, err = fetchBody(t, h, "a", p)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "constraints") {
			t.Fatalf("%s: %q %v; want %q", p, body, err, want)
		}
		body, err = fetchBody(t, h, "a", "/")
		if err != nil || body != `{"rows":0,"hits":1}` {
			t.Fatalf("after %s: %q %v; want a fresh instance and the turn's inserts rolled back", p, body, err)
		}
	}
}
