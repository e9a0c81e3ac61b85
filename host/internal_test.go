package host_test

import (
	"context"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

// tallyClass is an internal class: each request adds a row and answers the
// number of rows (or, for "read", only reads).
const tallyClass = "test.Tally"

func serveTally(db *storage.DB, req []byte) ([]byte, bool) {
	run := func(q string) (any, error) {
		c, err := db.Exec(q)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		row, _, err := c.Next()
		if len(row) > 0 {
			return row[0], err
		}
		return nil, err
	}
	wrote := string(req) != "read"
	if wrote {
		if _, err := run("CREATE TABLE IF NOT EXISTS tally (x)"); err != nil {
			return []byte("error: " + err.Error()), true
		}
		if _, err := run("INSERT INTO tally VALUES (1)"); err != nil {
			return []byte("error: " + err.Error()), true
		}
	}
	n, err := run("SELECT count(*) FROM tally")
	if err != nil {
		return []byte("error: " + err.Error()), wrote
	}
	return []byte(strconv.FormatInt(n.(int64), 10)), wrote
}

// tallyJS reaches the tally cells through env.tally (bound by
// BindInternal), from the worker and from an object.
const tallyJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    const k = new URL(request.url).searchParams.get("k");
    return new Response("object " + await this.env.tally(k, "add"));
  }
}
export class Plain {}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const k = url.searchParams.get("k");
    if (url.pathname === "/object") return env.COUNTER.getByName("o").fetch(request);
    if (url.pathname === "/env") return Response.json(Object.keys(env).sort());
    if (url.pathname === "/read") return new Response(await env.tally(k, "read"));
    const [a, b] = await Promise.all([env.tally(k, "add"), env.tally(k, "read")]);
    return new Response(a + " " + b);
  },
};
`

func withTally(c *host.Config) {
	c.Internal = []host.InternalClass{{Name: tallyClass, Serve: serveTally}}
	c.BindInternal = func(rt *goja.Runtime, env *goja.Object, cells host.CellCaller) error {
		return env.Set("tally", func(key, op string) goja.Value {
			p, resolve, reject := rt.NewPromise()
			cells.CallCell(tallyClass, key, []byte(op), func(b []byte, err error) {
				if err != nil {
					_ = reject(rt.NewGoError(err))
					return
				}
				_ = resolve(string(b))
			})
			return rt.ToValue(p)
		})
	}
}

// TestInternal_CellsAreLoggedAndHidden: an internal cell answers JS calls
// (the worker's and an object's) through promises, keeps its rows in a
// database logged to the bucket like any cell (a host with the local state
// gone reads them back), answers Go through CallCell, and is reached
// neither through /do/ nor through env.
func TestInternal_CellsAreLoggedAndHidden(t *testing.T) {
	bucket := memstore.New()
	state := t.TempDir()
	open := func() *host.Host {
		h := newHostB(t, tallyJS, state, withTally, func(c *host.Config) {
			c.Durability = host.DurabilityLog
			c.Bucket = bucket
		})
		if err := h.Open(); err != nil {
			t.Fatal(err)
		}
		return h
	}
	h := open()
	srv := httptest.NewServer(h.Handler())
	for i, want := range []string{"1 1", "2 2", "3 3"} {
		if status, body := get(t, srv, "/?k=a"); status != 200 || body != want {
			t.Fatalf("request %d: %d %q, want %q", i, status, body, want)
		}
	}
	if _, body := get(t, srv, "/?k=b"); body != "1 1" {
		t.Errorf("another key: %q, want its own cell", body)
	}
	if _, body := get(t, srv, "/object?k=a"); body != "object 4" {
		t.Errorf("from an object: %q, want \"object 4\"", body)
	}
	if status, _ := get(t, srv, "/do/"+tallyClass+"/a"); status != 404 {
		t.Errorf("GET /do/%s/a = %d, want 404", tallyClass, status)
	}
	if _, body := get(t, srv, "/env"); body != `["COUNTER","PLAIN","tally"]` {
		t.Errorf("env keys = %s", body)
	}
	if b, err := h.CallCell(context.Background(), tallyClass, "a", []byte("read")); err != nil || string(b) != "4" {
		t.Errorf("CallCell = %q, %v; want 4", b, err)
	}
	if _, err := h.CallCell(context.Background(), "Counter", "a", nil); err == nil {
		t.Error("CallCell reached a JavaScript class")
	}
	srv.Close()
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	scope := tallyClass + ":" + host.InternalID(tallyClass, "a")
	page, err := bucket.List(context.Background(), bucketkey.LTXPrefix(scope), "", 100)
	if err != nil || len(page.Objects) == 0 {
		t.Fatalf("no LTX of %s in the bucket: %v %v", scope, page.Objects, err)
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	h = open()
	defer h.Close(context.Background())
	if b, err := h.CallCell(context.Background(), tallyClass, "a", []byte("read")); err != nil || string(b) != "4" {
		t.Errorf("after losing the local state: CallCell = %q, %v; want 4", b, err)
	}
	if err := h.Wake(context.Background(), scope); err != nil {
		t.Errorf("Wake(%s) = %v", scope, err)
	}
}

// TestInternal_NameIsReserved: a Durable Object binding cannot name an
// internal class.
func TestInternal_NameIsReserved(t *testing.T) {
	h, err := host.New(host.Config{
		Bundle:   &jsapi.Bundle{},
		Bindings: []host.Binding{{Name: "T", Class: tallyClass}},
		Internal: []host.InternalClass{{Name: tallyClass, Serve: serveTally}},
		Storage:  host.Storage{StateDir: t.TempDir()},
	})
	if err == nil || !strings.Contains(err.Error(), "reserved") {
		t.Errorf("New = %v, %v; want the name refused as reserved", h, err)
	}
}

// BenchmarkInternal_Read is one read of an internal cell from a worker's
// request (a JS promise resolved on the caller's loop), against the same
// request that reads nothing (BenchmarkInternal_Baseline).
func BenchmarkInternal_Read(b *testing.B)     { benchTally(b, "/read?k=bench") }
func BenchmarkInternal_Baseline(b *testing.B) { benchTally(b, "/env") }

func benchTally(b *testing.B, path string) {
	h := newHostB(b, tallyJS, b.TempDir(), withTally)
	if err := h.Open(); err != nil {
		b.Fatal(err)
	}
	defer h.Close(context.Background())
	req := func() {
		resp, err := h.Fetch(context.Background(), &jsapi.HTTPRequest{Method: "GET", URL: "http://x" + path})
		if err != nil || resp.Status != 200 {
			b.Fatalf("%v %v", resp, err)
		}
	}
	if _, err := h.CallCell(context.Background(), tallyClass, "bench", []byte("add")); err != nil {
		b.Fatal(err)
	}
	req()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req()
	}
}

// TestInternal_OutputGate: an internal cell's answer waits for its commit
// to be durable, and so does a read of it made meanwhile (it saw the
// write); another cell's read does not wait.
func TestInternal_OutputGate(t *testing.T) {
	g := newGateSyncer()
	reads := make(chan struct{}, 4)
	h := newHostB(t, tallyJS, t.TempDir(), withTally, func(c *host.Config) {
		c.Syncer = g
		c.Internal = []host.InternalClass{{Name: tallyClass, Serve: func(db *storage.DB, req []byte) ([]byte, bool) {
			resp, wrote := serveTally(db, req)
			if string(req) == "read" {
				reads <- struct{}{}
			}
			return resp, wrote
		}}}
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	call := func(key, op string) <-chan string {
		ch := make(chan string, 1)
		go func() {
			b, err := h.CallCell(context.Background(), tallyClass, key, []byte(op))
			if err != nil {
				b = []byte(err.Error())
			}
			ch <- string(b)
		}()
		return ch
	}
	if got := <-call("b", "add"); got != "1" {
		t.Fatalf("add to b = %q", got)
	}
	g.setHold(true)
	write := call("a", "add")
	<-g.calls // the commit of a's write is being made durable
	read := call("a", "read")
	<-reads // a's read ran
	if got := <-call("b", "read"); got != "1" {
		t.Errorf("read of b while a's sync is held = %q", got)
	}
	<-reads
	host.Pause(h)() // every turn that ran has ended: a reply not held has left
	w, r := "", ""
	select {
	case w = <-write:
		t.Errorf("the answer left before its commit was durable: %q", w)
	case r = <-read:
		t.Errorf("a read of a write not yet durable left: %q", r)
	default:
	}
	g.release <- nil
	if w == "" {
		w = <-write
	}
	if r == "" {
		r = <-read
	}
	if w != "1" || r != "1" {
		t.Errorf("after the sync: add = %q, read = %q; want 1 and 1", w, r)
	}
}
