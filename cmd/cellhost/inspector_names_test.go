package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/cellhost/cellhost/host"
)

// TestDev_InspectorNamesObjects runs the real `cellhost dev`: objects made
// with getByName and idFromName are listed with their names although
// none set an alarm (the only time an object's database names it), an
// object reached by id has none, and after a restart, with no request
// made, the names are still shown (state/objects.sqlite, 0600). An object
// the host constructed whose database is gone is still listed, as having
// none, with a page of its own. Before, the names column was empty for
// all of them and such an object was not listed.
func TestDev_InspectorNamesObjects(t *testing.T) {
	parallel(t)
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "names", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "Counter"}]},
		  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}]}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    if (new URL(req.url).pathname === "/write") await this.ctx.storage.put("n", 1);
    return new Response("ok");
  }
}
export default {
  async fetch(req, env) {
    const u = new URL(req.url), name = u.searchParams.get("name");
    if (u.pathname === "/byid") return env.C.get(env.C.idFromName(name)).fetch(req);
    if (u.pathname === "/unique") {
      const id = env.C.newUniqueId();
      await env.C.get(id).fetch(req);
      return new Response(id.toString());
    }
    return env.C.getByName(name).fetch(req);
  },
};`,
	})
	state := t.TempDir()
	p := runDevProc(t, dir, nil, "--port", "0", "--state", state)
	for _, path := range []string{"/?name=alice", "/byid?name=bob", "/write?name=carol"} {
		if code, body, _ := p.get(t, path); code != 200 || body != "ok" {
			t.Fatalf("GET %s = %d %q", path, code, body)
		}
	}
	_, unique, _ := p.get(t, "/unique")
	id := func(name string) string { return host.IDFromName("names", "Counter", name) }
	want := map[string]string{id("alice"): "alice", id("bob"): "bob", id("carol"): "carol", unique: ""}

	// rows returns the inspector's objects of Counter: id prefix -> name, db column.
	rows := func(base string) map[string][2]string {
		t.Helper()
		home := getDoc(t, base+"/_cellhost")
		out := map[string][2]string{}
		for _, tr := range find(home, func(n *html.Node) bool { return n.Data == "tr" && attr(n, "class") == "object" }) {
			var name, db string
			for _, td := range find(tr, func(n *html.Node) bool { return n.Data == "td" }) {
				switch attr(td, "class") {
				case "name":
					name = text(td)
				case "db":
					db = text(td)
				}
			}
			a := find(tr, func(n *html.Node) bool { return n.Data == "a" })
			if len(a) != 1 {
				t.Fatalf("an object row without its link: %q", text(tr))
			}
			out[strings.TrimPrefix(attr(a[0], "href"), "/_cellhost/object/Counter/")] = [2]string{name, db}
		}
		return out
	}
	check := func(when string, got map[string][2]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %d objects listed, want %d: %q", when, len(got), len(want), got)
		}
		for id, name := range want {
			if g, ok := got[id]; !ok || g[0] != name {
				t.Errorf("%s: object %.16s… (%q) listed as %q (listed: %v)", when, id, name, g, ok)
			}
		}
	}
	check("while running", rows(p.base))
	p.stop()

	st, err := os.Stat(filepath.Join(state, "objects.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("objects.sqlite mode %v, want 0600", st.Mode().Perm())
	}
	// alice's database goes (it never wrote): she is still listed.
	files, _ := filepath.Glob(filepath.Join(state, "cells", "Counter", id("alice")+".sqlite*"))
	if len(files) == 0 {
		t.Fatalf("alice has no database files in %s", state)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil {
			t.Fatal(err)
		}
	}

	p = runDevProc(t, dir, nil, "--port", "0", "--state", state)
	got := rows(p.base)
	check("after a restart", got)
	if db := got[id("alice")][1]; db != "none (never wrote)" {
		t.Errorf("alice's database column %q, want %q", db, "none (never wrote)")
	}
	if db := got[id("carol")][1]; !strings.HasSuffix(db, " bytes") {
		t.Errorf("carol's database column %q", db)
	}
	page := getDoc(t, p.base+"/_cellhost/object/Counter/"+id("alice"))
	if n := find(page, func(n *html.Node) bool { return attr(n, "class") == "nodb" }); len(n) != 1 || !strings.Contains(text(page), "name: alice") {
		t.Errorf("alice's page: %q", text(page))
	}
	resp, err := http.Get(p.base + "/_cellhost/object/Counter/" + id("nobody"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("an object never constructed: %d, want 404", resp.StatusCode)
	}
}
