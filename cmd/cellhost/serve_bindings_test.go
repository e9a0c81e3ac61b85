package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const serveBindingsModule = `import { WorkerEntrypoint } from "cloudflare:workers";
export class Api extends WorkerEntrypoint {
  async add(a, b) { return a + b; }
}
export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    switch (url.pathname) {
      case "/vars": return new Response([env.FROM_CONFIG, env.SECRET, env.FROM_FLAG].join("|"));
      case "/r2/put": await env.FILES.put("k", "shared " + url.searchParams.get("v")); return new Response("ok");
      case "/r2/get": { const o = await env.FILES.get("k"); return new Response(o ? await o.text() : "none"); }
      case "/svc": return new Response(String(await env.API.add(2, 3)));
      case "/kv": return new Response(String(typeof env.CACHE.get));
      case "/kv/put": await env.CACHE.put("k", url.searchParams.get("v")); return new Response("ok");
      case "/kv/get": return new Response(String(await env.CACHE.get("k")));
      case "/d1/put": {
        await env.DB.exec("CREATE TABLE IF NOT EXISTS notes (v TEXT)");
        const r = await env.DB.prepare("INSERT INTO notes VALUES (?)").bind(url.searchParams.get("v")).run();
        return new Response(String(r.meta.changes));
      }
      case "/d1/get": return new Response(String(await env.DB.prepare("SELECT group_concat(v) AS v FROM (SELECT v FROM notes ORDER BY rowid)").first("v")));
    }
    return new Response("worker");
  },
};`

// TestServe_Bindings: a serve node reads vars, .dev.vars and --var as dev
// does, binds R2 and KV in the fleet's bucket (what node a puts, node b
// reads), service bindings to the worker's entrypoints, and D1 databases
// as cells of the fleet: what node a writes, node b reads (forwarded to
// the owner), and b's writes reach the same database; once a is killed
// (kill -9), b takes the database over from the bucket with every write.
func TestServe_Bindings(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	project := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "sb", "main": "index.js", "compatibility_date": "2026-01-01",
  "vars": {"FROM_CONFIG": "cfg", "FROM_FLAG": "cfg"},
  "r2_buckets": [{"binding": "FILES", "bucket_name": "files"}],
  "kv_namespaces": [{"binding": "CACHE", "id": "cache"}],
  "d1_databases": [{"binding": "DB", "database_name": "app", "database_id": "app-db"}],
  "services": [{"binding": "API", "service": "sb", "entrypoint": "Api"}]}`,
		"index.js":  serveBindingsModule,
		".dev.vars": "SECRET=from-dev-vars\n",
	})
	a := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "a"), "--var", "FROM_FLAG:flag")
	b := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "b"))
	for _, c := range []struct {
		node       *serveNode
		path, want string
	}{
		{a, "/vars", "cfg|from-dev-vars|flag"},
		{b, "/vars", "cfg|from-dev-vars|cfg"},
		{a, "/r2/put?v=1", "ok"},
		{b, "/r2/get", "shared 1"},
		{b, "/svc", "5"},
		{a, "/kv", "function"},
		{a, "/kv/put?v=from-a", "ok"},
		{b, "/kv/get", "from-a"},
		{a, "/d1/put?v=one", "1"},
		{b, "/d1/get", "one"},
		{b, "/d1/put?v=two", "1"},
		{a, "/d1/get", "one,two"},
	} {
		if status, body := getText(t, c.node.base+c.path); status != 200 || body != c.want {
			t.Errorf("GET %s = %d %q, want %q", c.path, status, body, c.want)
		}
	}
	for _, n := range []*serveNode{a, b} {
		if strings.Contains(n.logs.String(), "stored on this node only") {
			t.Errorf("a warning that a binding is node-local:\n%s", n.logs)
		}
	}
	// a owns the database (it served the first query). Until a's lease
	// expires (fleetTTL) b's queries fail; then b takes the cell over.
	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = a.cmd.Wait()
	killed := time.Now()
	deadline := killed.Add(30 * time.Second)
	for failed := 0; ; failed++ {
		status, body := getText(t, b.base+"/d1/get")
		if status == 200 && body == "one,two" {
			t.Logf("kill -9 of the owner -> b read the database after %v (lease TTL %v), %d failed queries meanwhile", time.Since(killed).Round(time.Millisecond), fleetTTL, failed)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("b after a's kill: GET /d1/get = %d %q, want \"one,two\" within 30 s\n%s", status, body, b.logs)
		}
	}
}

// TestServe_DeployedBindings: a deployment carries the vars and the R2,
// KV, D1 and service bindings; a node without a project binds them.
func TestServe_DeployedBindings(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	project := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "sb", "main": "index.js", "compatibility_date": "2026-01-01",
  "vars": {"FROM_CONFIG": "cfg", "FROM_FLAG": "cfg"},
  "r2_buckets": [{"binding": "FILES", "bucket_name": "files"}],
  "kv_namespaces": [{"binding": "CACHE", "id": "cache"}],
  "d1_databases": [{"binding": "DB", "database_name": "app", "database_id": "app-db"}],
  "services": [{"binding": "API", "service": "sb", "entrypoint": "Api"}]}`,
		"index.js":  serveBindingsModule,
		".dev.vars": "SECRET=from-dev-vars\n",
	})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"deploy", project, "--bucket", bucket}, &stdout, &stderr); code != 0 {
		t.Fatalf("deploy: %s", stderr.String())
	}
	a := startServe(t, bin, "--bucket", bucket, "--state", filepath.Join(dir, "a"))
	for _, c := range []struct{ path, want string }{
		{"/vars", "cfg|from-dev-vars|cfg"},
		{"/r2/put?v=2", "ok"},
		{"/r2/get", "shared 2"},
		{"/svc", "5"},
		{"/kv", "function"},
		{"/d1/put?v=deployed", "1"},
		{"/d1/get", "deployed"},
	} {
		if status, body := getText(t, a.base+c.path); status != 200 || body != c.want {
			t.Errorf("GET %s = %d %q, want %q\n%s", c.path, status, body, c.want, a.logs)
		}
	}
}
