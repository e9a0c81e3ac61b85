package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/bindings/kv"
	"github.com/cellhost/cellhost/bindings/r2"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/storage"
)

const bindingsConfig = `{
  "name": "b", "main": "index.js", "compatibility_date": "2026-01-01",
  "kv_namespaces": [{"binding": "CACHE", "id": "cache-id"}],
  "services": [{"binding": "API", "service": "b", "entrypoint": "Api"}, {"binding": "SELF", "service": "b"}],
  "r2_buckets": [{"binding": "BUCKET", "bucket_name": "b"}],
  "queues": {"producers": [{"binding": "Q", "queue": "q"}]},
  "ai": {"binding": "AI"},
  "assets": {"directory": "public", "binding": "ASSETS", "not_found_handling": "404-page"}
}`

const bindingsModule = `import { WorkerEntrypoint } from "cloudflare:workers";
const shared = { n: 1 };
class Plain { constructor() { this.a = 1; } }
export class Api extends WorkerEntrypoint {
  async add(a, b) { return a + b + Number(this.env.BASE ?? 0); }
  async mutate(o) { o.x = 2; o.list.push(9); return o.d instanceof Date && o.m instanceof Map; }
  async shared() { return shared; }
  async callBack(f) { return typeof f + ":" + await f(5); }
  async fetch(req) { return new Response("api saw " + new URL(req.url).pathname); }
}
export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/kv/put": {
        await env.CACHE.put("k1", "v1", { metadata: { m: 1 } });
        await env.CACHE.put("k2", JSON.stringify({ j: true }));
        await env.CACHE.put("bin", new Uint8Array([1, 2, 3]));
        return new Response("ok");
      }
      case "/kv/get": {
        const a = await env.CACHE.get("k1");
        const j = await env.CACHE.get("k2", "json");
        const b = new Uint8Array(await env.CACHE.get("bin", "arrayBuffer"));
        const m = await env.CACHE.getWithMetadata("k1");
        const missing = await env.CACHE.get("nope");
        const l = await env.CACHE.list({ prefix: "k" });
        const page = await env.CACHE.list({ limit: 1 });
        await env.CACHE.delete("k2");
        const gone = await env.CACHE.get("k2");
        let err;
        try { await env.CACHE.get(""); } catch (e) { err = e.name + ": " + e.message; }
        return Response.json({ a, j, b: [...b], m, missing, names: l.keys.map(k => k.name), complete: l.list_complete,
          page: [page.keys.length, page.list_complete, typeof page.cursor], gone, err });
      }
      case "/svc": {
        const sum = await env.API.add(2, 3);
        const r = await env.API.fetch("http://x/inner");
        const self = await env.SELF.fetch("http://x/hello");
        return new Response(sum + "|" + await r.text() + "|" + await self.text());
      }
      case "/svc/clone": {
        const o = { x: 1, list: [1], d: new Date(0), m: new Map([[1, 2]]) };
        const types = await env.API.mutate(o);
        const s = await env.API.shared();
        s.n = 99;
        const again = await env.API.shared();
        const cb = await env.API.callBack((n) => n * 2);
        let err;
        try { await env.API.mutate(new Plain()); } catch (e) { err = e.name + ": " + e.message; }
        return Response.json({ o: [o.x, o.list], types, again: again.n, cb, err });
      }
      case "/stub":
        await env.Q.send("k"); // a queue works (bindings/queues)
        try { await env.AI.run("m"); return new Response("no error"); }
        catch (e) { return new Response(e.message, { status: 500 }); }
      case "/r2/put":
        await env.BUCKET.put("dir/k", "r2 value", { customMetadata: { a: "1" } });
        return new Response("ok");
      case "/r2/get": {
        const o = await env.BUCKET.get("dir/k");
        return new Response(o === null ? "missing" : (await o.text()) + "|" + o.customMetadata.a);
      }
      case "/asset-binding": {
        const r = await env.ASSETS.fetch("http://x/style.css");
        return new Response(r.status + " " + await r.text());
      }
      case "/hello": return new Response("hello from default");
    }
    return new Response("worker " + url.pathname);
  },
};`

// KV namespaces, service bindings to the worker's own entrypoints, a queue,
// a throwing binding for Workers AI and the assets all work under cellhost dev, and KV survives a
// restart.
func TestDev_Bindings(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc":         bindingsConfig,
		"index.js":               bindingsModule,
		"public/index.html":      "<h1>home</h1>",
		"public/about.html":      "<h1>about</h1>",
		"public/style.css":       "body{}",
		"public/404.html":        "<h1>nope</h1>",
		"public/docs/index.html": "<h1>docs</h1>",
	})
	state := t.TempDir()
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state; o.vars = []string{"BASE:10"} })
	if _, body := d.get("/kv/put"); body != "ok" {
		t.Fatalf("/kv/put = %q", body)
	}
	want := `{"a":"v1","j":{"j":true},"b":[1,2,3],"m":{"value":"v1","metadata":{"m":1},"cacheStatus":null},"missing":null,"names":["k1","k2"],"complete":true,"page":[1,false,"string"],"gone":null,"err":"TypeError: Key name cannot be empty."}`
	if _, body := d.get("/kv/get"); body != want {
		t.Errorf("/kv/get =\n%s\nwant\n%s", body, want)
	}
	if _, body := d.get("/svc"); body != "15|api saw /inner|hello from default" {
		t.Errorf("/svc = %q", body)
	}
	// RPC over a service binding copies its arguments and result; a
	// function travels as a stub; a class instance cannot travel.
	wantClone := `{"o":[1,[1]],"types":true,"again":1,"cb":"function:10","err":"DataCloneError: Could not serialize object of type \"Plain\". This type does not support serialization."}`
	if _, body := d.get("/svc/clone"); body != wantClone {
		t.Errorf("/svc/clone =\n%s\nwant\n%s", body, wantClone)
	}
	status, body := d.get("/stub")
	if status != 500 || !strings.Contains(body, "(used: env.AI.run)") {
		t.Errorf("/stub = %d %q, want the stub's error", status, body)
	}
	if !strings.Contains(d.stderr.String(), "env.AI will throw when used") {
		t.Errorf("no start-up warning about env.AI: %s", d.stderr.String())
	}
	for _, c := range []struct {
		path, want string
		status     int
	}{
		{"/", "<h1>home</h1>", 200},
		{"/about", "<h1>about</h1>", 200},
		{"/style.css", "body{}", 200},
		{"/docs/", "<h1>docs</h1>", 200},
		{"/missing.png", "worker /missing.png", 200}, // a miss goes to the worker
		{"/asset-binding", "200 body{}", 200},
	} {
		status, body := d.get(c.path)
		if status != c.status || body != c.want {
			t.Errorf("GET %s = %d %q, want %d %q", c.path, status, body, c.status, c.want)
		}
	}
	resp, err := http.Post(d.base+"/style.css", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	// As workerd's asset server (testdata/cases/assets-auto): another method
	// than GET or HEAD on an asset is 405, not the worker's.
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST /style.css = %d, want 405", resp.StatusCode)
	}
	// Redirects of html_handling auto-trailing-slash.
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for path, loc := range map[string]string{"/about.html": "/about", "/docs": "/docs/", "/index.html": "/"} {
		resp, err := client.Get(d.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 307 || resp.Header.Get("Location") != loc {
			t.Errorf("GET %s = %d to %q, want 307 to %q", path, resp.StatusCode, resp.Header.Get("Location"), loc)
		}
	}
}

// The KV namespace outlives the process.
func TestDev_KVSurvivesRestart(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "k", "main": "index.js", "kv_namespaces": [{"binding": "KV", "id": "one"}]}`,
		"index.js": `export default { async fetch(req, env) {
			const n = Number(await env.KV.get("n") ?? 0) + 1; await env.KV.put("n", String(n)); return new Response(String(n)); } };`,
	})
	state := t.TempDir()
	first := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	first.get("/")
	if _, body := first.get("/"); body != "2" {
		t.Fatalf("second request = %q, want 2", body)
	}
	first.stop()
	second := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	if _, body := second.get("/"); body != "3" {
		t.Errorf("after a restart = %q, want 3", body)
	}
	second.stop()
	// The namespace lives in the bucket, one object per entry, so that a
	// fleet sharing the bucket shares it.
	st, err := filestore.New(filepath.Join(state, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	raw, _, err := st.Get(context.Background(), bucketkey.KVKey("one", "n"))
	if err != nil {
		t.Fatal(err)
	}
	if e, err := kv.DecodeEntry(raw); err != nil || string(e.Value) != "3" {
		t.Errorf("stored entry %q, %v", e.Value, err)
	}
}

// R2 objects live in the host's bucket under r2/<bucket_name>/<key> and
// outlive the process; with --durability local, in <state>/bucket.
func TestDev_R2SurvivesRestart(t *testing.T) {
	for _, durability := range []string{"", "local"} {
		t.Run("durability="+durability, func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"wrangler.jsonc": `{"name": "r", "main": "index.js", "r2_buckets": [{"binding": "R", "bucket_name": "media"}]}`,
				"index.js": `export default { async fetch(req, env) {
			const o = await env.R.get("n"); const n = (o === null ? 0 : Number(await o.text())) + 1;
			await env.R.put("n", String(n), { httpMetadata: { contentType: "text/plain" } });
			return new Response(String(n)); } };`,
			})
			state := t.TempDir()
			opts := func(o *devOptions) { o.state = state; o.durability = durability }
			first := startDevServer(t, dir, dir, opts)
			first.get("/")
			if _, body := first.get("/"); body != "2" {
				t.Fatalf("second request = %q, want 2", body)
			}
			first.stop()
			second := startDevServer(t, dir, dir, opts)
			if _, body := second.get("/"); body != "3" {
				t.Errorf("after a restart = %q, want 3", body)
			}
			second.stop()
			st, err := filestore.New(filepath.Join(state, "bucket"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			raw, _, err := st.Get(context.Background(), "r2/media/n")
			if err != nil {
				t.Fatalf("the object is not at r2/media/n in the state's bucket: %v", err)
			}
			if m, body, err := r2.Decode(raw); err != nil || string(body) != "3" || m.HTTP.ContentType != "text/plain" {
				t.Errorf("stored %+v %q %v", m, body, err)
			}
		})
	}
}

// The D1 API: prepare/bind/first/all/raw/run, batch (atomic), exec,
// withSession, errors with D1's prefix. The database is a cell logged to
// the bucket: a restart with the local cell files gone reads it back from
// there, and /do/ does not reach its class.
func TestDev_D1(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "d", "main": "index.js", "d1_databases": [{"binding": "DB", "database_name": "app", "database_id": "db-1"}]}`,
		"index.js": `export default { async fetch(req, env) {
  const db = env.DB;
  if (new URL(req.url).pathname === "/count") return Response.json(await db.prepare("SELECT group_concat(name) AS names FROM users").first("names"));
  const out = {};
  out.exec = (await db.exec("CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, data BLOB)\nDELETE FROM users")).count;
  const ins = await db.prepare("INSERT INTO users (name, score, data) VALUES (?, ?, ?)").bind("ann", 1.5, new Uint8Array([7, 8])).run();
  out.run = [ins.success, ins.meta.changes, ins.meta.last_row_id, ins.meta.changed_db, ins.results.length];
  const b = await db.batch([
    db.prepare("INSERT INTO users (name, score) VALUES (?1, ?2)").bind("bob", 2),
    db.prepare("SELECT count(*) AS n FROM users"),
  ]);
  out.batch = [b.length, b[1].results[0].n];
  try { await db.batch([db.prepare("INSERT INTO users (name) VALUES ('cy')"), db.prepare("INSERT INTO nope VALUES (1)")]); }
  catch (e) { out.batchErr = e.message; }
  out.afterFailedBatch = await db.prepare("SELECT count(*) AS n FROM users").first("n");
  out.first = await db.prepare("SELECT name, score, data FROM users WHERE name = ?").bind("ann").first();
  out.firstNone = await db.prepare("SELECT * FROM users WHERE id = -1").first();
  out.all = (await db.prepare("SELECT name FROM users ORDER BY id").all()).results;
  out.raw = await db.prepare("SELECT id, name FROM users ORDER BY id").raw({ columnNames: true });
  out.session = await db.withSession().prepare("SELECT 1 AS one").first("one");
  try { await db.prepare("SELECT * FROM missing").all(); } catch (e) { out.err = e.message; }
  return Response.json(out);
} };`,
	})
	state := t.TempDir()
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	want := `{"exec":2,"run":[true,1,1,true,0],"batch":[2,2],"batchErr":"D1_ERROR: no such table: nope: SQLITE_ERROR","afterFailedBatch":2,` +
		`"first":{"name":"ann","score":1.5,"data":[7,8]},"firstNone":null,"all":[{"name":"ann"},{"name":"bob"}],` +
		`"raw":[["id","name"],[1,"ann"],[2,"bob"]],"session":1,"err":"D1_ERROR: no such table: missing: SQLITE_ERROR"}`
	if _, body := d.get("/"); body != want {
		t.Errorf("GET / =\n%s\nwant\n%s", body, want)
	}
	if status, body := d.get("/do/" + d1.Class + "/x"); status != 404 {
		t.Errorf("GET /do/%s/x = %d %q, want 404", d1.Class, status, body)
	}
	// The inspector lists the database by its binding, and shows its rows.
	home := getDoc(t, d.base+"/_cellhost")
	sections := find(home, func(n *html.Node) bool { return n.Data == "section" && attr(n, "data-class") == d1.Class })
	if len(sections) != 1 || !strings.Contains(text(sections[0]), "env.DB (db-1)") {
		t.Fatalf("the inspector lacks the D1 database:\n%s", text(home))
	}
	link := attr(find(sections[0], func(n *html.Node) bool { return n.Data == "a" })[0], "href")
	if rows := gridRows(getDoc(t, d.base+link+"?table=users"), 1); len(rows) != 3 || rows[1][1] != "ann" {
		t.Errorf("the inspector's users table: %q", rows)
	}
	d.stop()

	scope := d1.Class + ":" + host.InternalID(d1.Class, "db-1")
	st, err := filestore.New(filepath.Join(state, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := st.List(context.Background(), bucketkey.LTXPrefix(scope), "", 0)
	st.Close()
	if err != nil || len(page.Objects) == 0 {
		t.Fatalf("no LTX file of %s in the bucket (%v)", scope, err)
	}
	if err := os.RemoveAll(filepath.Join(state, "cells")); err != nil {
		t.Fatal(err)
	}
	d = startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	if _, body := d.get("/count"); body != `"ann,bob"` {
		t.Errorf("after a restart without the local cells: GET /count = %s, want \"ann,bob\"", body)
	}
}

// A D1 database an older cellhost kept in <state>/d1/<id>.sqlite moves into
// its cell once, at start, and the file is renamed.
func TestDev_D1MovesLegacyDatabase(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "d", "main": "index.js", "d1_databases": [{"binding": "DB", "database_name": "app", "database_id": "db-1"}]}`,
		"index.js": `export default { async fetch(req, env) {
  if (new URL(req.url).pathname === "/add") await env.DB.prepare("INSERT INTO users (name) VALUES ('cy')").run();
  return Response.json((await env.DB.prepare("SELECT id, name FROM users ORDER BY id").raw()));
} };`,
	})
	state := t.TempDir()
	legacy := filepath.Join(state, "d1", "db-1.sqlite")
	old, err := storage.Open(legacy, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)", "INSERT INTO users (name) VALUES ('ann'), ('bob')", "CREATE INDEX users_name ON users (name)"} {
		c, err := old.Exec(q)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	if err := old.Commit(); err != nil {
		t.Fatal(err)
	}
	old.Close()
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	if _, body := d.get("/add"); body != `[[1,"ann"],[2,"bob"],[3,"cy"]]` {
		t.Errorf("GET /add = %s, want the legacy rows and the new one", body)
	}
	d.stop()
	if !strings.Contains(d.stderr.String(), "moved") {
		t.Errorf("no line about the move:\n%s", d.stderr.String())
	}
	if _, err := os.Stat(legacy); !os.IsNotExist(err) {
		t.Errorf("the legacy file is still there: %v", err)
	}
	if _, err := os.Stat(legacy + ".moved"); err != nil {
		t.Error(err)
	}
	d = startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	if _, body := d.get("/"); body != `[[1,"ann"],[2,"bob"],[3,"cy"]]` {
		t.Errorf("after a restart: GET / = %s", body)
	}
}
