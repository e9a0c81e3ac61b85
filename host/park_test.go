package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// parkJS counts per object, arms an alarm on /alarm and counts its runs.
const parkJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    const u = new URL(req.url);
    if (u.pathname.endsWith("/alarm")) {
      await this.ctx.storage.setAlarm(Date.now() + 60000);
      return new Response("armed");
    }
    if (u.pathname.endsWith("/peek")) {
      return Response.json({ n: (await this.ctx.storage.get("n")) ?? 0, fired: (await this.ctx.storage.get("fired")) ?? 0 });
    }
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (n INTEGER)");
    this.ctx.storage.sql.exec("INSERT INTO t VALUES (?)", n);
    const rows = this.ctx.storage.sql.exec("SELECT count(*) AS c FROM t").one().c;
    return Response.json({ n, rows });
  }
  async alarm() {
    await this.ctx.storage.put("fired", ((await this.ctx.storage.get("fired")) ?? 0) + 1);
  }
}
export class Plain {}
export default { fetch() { return new Response("worker"); } };
`

type parkReply struct {
	N     int `json:"n"`
	Rows  int `json:"rows"`
	Fired int `json:"fired"`
}

func fetchPark(t *testing.T, h *host.Host, name, path string) parkReply {
	t.Helper()
	resp, err := h.FetchObject(context.Background(), "Counter", host.IDFromName("counter", "Counter", name), name,
		&jsapi.HTTPRequest{Method: "GET", URL: "http://x/" + path})
	if err != nil {
		t.Fatalf("%s %s: %v", name, path, err)
	}
	var r parkReply
	if err := json.Unmarshal(resp.Body, &r); err != nil || resp.Status != 200 {
		t.Fatalf("%s %s: %d %q (%v)", name, path, resp.Status, resp.Body, err)
	}
	return r
}

// More objects than Config.MaxOpenDatabases: every object stays resident,
// the least recently used databases close and reopen on demand, and every
// write lands where it belongs, in the database and, in the log mode, in
// the bucket (a second host restores each object from there alone).
func TestPark_MoreObjectsThanOpenDatabases(t *testing.T) {
	const objects, bound, rounds = 24, 4, 3
	for _, mode := range []string{host.DurabilityLocal, host.DurabilityLog} {
		t.Run(mode, func(t *testing.T) {
			bucket := memstore.New()
			clock := newManualClock()
			config := func(c *host.Config) {
				c.Clock = clock
				c.MaxOpenDatabases = bound
				c.Durability = mode
				if mode == host.DurabilityLog {
					c.Bucket = bucket
					c.Node = startNode(t, bucket)
				}
			}
			h := newHostB(t, parkJS, t.TempDir(), config)
			if err := h.Open(); err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			name := func(i int) string { return fmt.Sprintf("o%d", i) }
			for round := 1; round <= rounds; round++ {
				// One at a time: each open finds the others idle and
				// closes what the bound needs, so after a full pass the
				// bound holds exactly (a burst went over it: it is soft).
				prev := objects
				for i := range objects {
					if r := fetchPark(t, h, name(i), ""); r.N != 2*round-1 || r.Rows != 2*round-1 {
						t.Fatalf("round %d, %s: %+v, want n = rows = %d", round, name(i), r, 2*round-1)
					}
					open, resident := host.OpenDatabases(h)
					if open > max(bound, prev) || resident != min(objects, max(i+1, (round-1)*objects)) {
						t.Fatalf("round %d after %s: %d open databases (bound %d, %d before), %d resident", round, name(i), open, bound, prev, resident)
					}
					prev = open
				}
				if prev > bound {
					t.Fatalf("round %d: %d open databases after a pass, bound %d", round, prev, bound)
				}
				// All at once: the bound is soft (busy cells do not
				// close), the writes are all there.
				var wg sync.WaitGroup
				got := make([]parkReply, objects)
				for i := range objects {
					wg.Go(func() { got[i] = fetchPark(t, h, name(i), "") })
				}
				wg.Wait()
				clock.Advance(time.Second) // the idle-instance pass trims the burst back to the bound
				for i, r := range got {
					if r.N != 2*round || r.Rows != 2*round {
						t.Fatalf("round %d, concurrent, %s: %+v, want n = rows = %d", round, name(i), r, 2*round)
					}
				}
			}
			parked, reopened := host.Parked(h)
			if _, resident := host.OpenDatabases(h); resident != objects || parked == 0 || reopened == 0 {
				t.Fatalf("%d resident, %d parked, %d reopened: want %d resident and databases closed and reopened", resident, parked, reopened, objects)
			}
			if mode != host.DurabilityLog {
				return
			}
			if err := h.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			// Only the bucket carries the state over.
			h2 := newHostB(t, parkJS, t.TempDir(), config)
			if err := h2.Open(); err != nil {
				t.Fatal(err)
			}
			defer h2.Close(context.Background())
			for i := range objects {
				if r := fetchPark(t, h2, name(i), ""); r.N != 2*rounds+1 || r.Rows != 2*rounds+1 {
					t.Fatalf("restored %s: %+v, want n = rows = %d", name(i), r, 2*rounds+1)
				}
			}
		})
	}
}

// A cell whose instance is dropped for idleness closes its database and
// stays resident; the next request reopens it, its armed alarm still fires
// (reopening it), and nothing is lost. The clock moves; nothing sleeps.
func TestPark_IdleInstanceClosesTheDatabase(t *testing.T) {
	clock := newManualClock()
	clock.now = time.Now() // JS's Date.now() is the real clock: the alarm is due 60 s from here
	bucket := memstore.New()
	h := newHostB(t, parkJS, t.TempDir(), func(c *host.Config) {
		c.Clock = clock
		c.Durability = host.DurabilityLog
		c.Bucket = bucket
		c.Node = startNode(t, bucket)
		c.IdleTimeout = -1
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	if r := fetchPark(t, h, "a", ""); r.N != 1 {
		t.Fatalf("first write: %+v", r)
	}
	resp, err := h.FetchObject(context.Background(), "Counter", host.IDFromName("counter", "Counter", "a"), "a",
		&jsapi.HTTPRequest{Method: "GET", URL: "http://x/alarm"})
	if err != nil || string(resp.Body) != "armed" {
		t.Fatalf("arm: %v %v", resp, err)
	}
	open := func() (int, int) { return host.OpenDatabases(h) }
	if o, r := open(); o != 1 || r != 1 {
		t.Fatalf("active: %d open, %d resident", o, r)
	}
	clock.Advance(9 * time.Second)
	if o, _ := open(); o != 1 {
		t.Fatalf("idle 9 s: %d open, want 1", o)
	}
	clock.Advance(3 * time.Second)
	if o, r := open(); o != 0 || r != 1 {
		t.Fatalf("idle 12 s: %d open, %d resident; want the database closed, the cell resident", o, r)
	}
	if r := fetchPark(t, h, "a", ""); r.N != 2 || r.Rows != 2 {
		t.Fatalf("after reopening: %+v, want n = rows = 2", r)
	}
	clock.Advance(12 * time.Second)
	if o, _ := open(); o != 0 {
		t.Fatalf("idle again: %d open", o)
	}
	clock.Advance(40 * time.Second) // the alarm comes due
	if r := fetchPark(t, h, "a", "peek"); r.N != 2 || r.Fired != 1 {
		t.Fatalf("after the alarm: %+v, want n 2, fired 1", r)
	}
	if parked, reopened := host.Parked(h); parked < 2 || reopened < 2 {
		t.Fatalf("%d parked, %d reopened; want 2 each at least", parked, reopened)
	}
}

// A hibernatable WebSocket stays connected while its object's instance is
// dropped and its database closed; the next message reopens the database,
// builds a new instance, and its write lands after the earlier ones.
func TestPark_HibernatedWebSocketReopens(t *testing.T) {
	clock := newManualClock()
	bucket := memstore.New()
	h, srv := startWSHost(t, func(c *host.Config) {
		c.Clock = clock
		c.IdleTimeout = -1
		c.Durability = host.DurabilityLog
		c.Bucket = bucket
		c.Node = startNode(t, bucket)
	})
	w := dialWS(t, srv, "/do/Echo/h")
	w.expect(t, "welcome")
	w.send(t, "write")
	w.expect(t, "wrote 1")
	clock.Advance(12 * time.Second)
	if open, resident := host.OpenDatabases(h); open != 0 || resident != 1 {
		t.Fatalf("idle: %d open, %d resident; want the database closed, the object resident", open, resident)
	}
	w.send(t, "write")
	w.expect(t, "wrote 2")
	w.send(t, "info")
	var info struct {
		Constructed int `json:"constructed"`
		Open        int `json:"open"`
	}
	if err := json.Unmarshal([]byte(w.next(t).data), &info); err != nil || info.Constructed != 2 || info.Open != 1 {
		t.Fatalf("info after reopening: %+v (%v), want a second instance holding the socket", info, err)
	}
	if parked, reopened := host.Parked(h); parked != 1 || reopened != 1 {
		t.Fatalf("%d parked, %d reopened; want 1 each", parked, reopened)
	}
}
