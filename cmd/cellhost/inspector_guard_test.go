package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestDev_InspectorGuards: the inspector answers only a loopback Host (or
// the --inspector-host name) and pages of its own origin, never a
// script's fetch(), and its SQL console refuses ATTACH and PRAGMA
// assignments. Before, a DNS-rebinding page could read every object's data
// and ATTACH any file of the machine (issue 23.8).
func TestDev_InspectorGuards(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "i", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "Counter"}]},
		  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}]}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    const u = new URL(req.url);
    if (u.pathname.endsWith("/peek")) {
      // The object reaches for the inspector, by address and by name.
      const out = [];
      for (const h of [u.host, "localhost:" + u.port]) {
        const r = await fetch("http://" + h + "/_cellhost");
        out.push(r.status + " " + (await r.text()).trim());
      }
      return new Response(out.join("|"));
    }
    await this.ctx.storage.put("n", 1);
    return new Response("ok");
  }
}
export default { fetch() { return new Response("w"); } };`,
	})
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.inspectorHost = "devbox.internal" })
	if _, body := d.get("/do/Counter/alice"); body != "ok" {
		t.Fatalf("GET /do/Counter/alice = %q", body)
	}
	u, _ := url.Parse(d.base)
	do := func(host, origin string) (int, string) {
		req, _ := http.NewRequest("GET", d.base+"/_cellhost", nil)
		req.Host = host
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	for _, tt := range []struct {
		host, origin string
		status       int
		why          string
	}{
		{u.Host, "", 200, ""},
		{"localhost:" + u.Port(), "", 200, ""},
		{"devbox.internal:" + u.Port(), "", 200, ""},
		{"[::1]:" + u.Port(), "", 200, ""},
		{u.Host, "http://" + u.Host, 200, ""},
		{"attacker.example:" + u.Port(), "", 403, "the inspector answers only on a loopback address (localhost, 127.0.0.1, [::1]); pass --inspector-host attacker.example to allow this name"},
		{u.Host, "http://attacker.example", 403, "the inspector answers only pages of its own origin"},
		{u.Host, "http://localhost:3000", 403, "the inspector answers only pages of its own origin"},
	} {
		status, body := do(tt.host, tt.origin)
		if status != tt.status || (tt.why != "" && body != tt.why) {
			t.Errorf("Host %s, Origin %q: %d %q, want %d %q", tt.host, tt.origin, status, body, tt.status, tt.why)
		}
	}
	const refused = "403 a script cannot reach the inspector"
	if _, body := d.get("/do/Counter/alice/peek"); body != refused+"|"+refused {
		t.Errorf("the object's fetch of the inspector: %q", body)
	}
	home := getDoc(t, d.base+"/_cellhost")
	var link string
	for _, a := range find(home, func(n *html.Node) bool { return n.Data == "a" }) {
		if strings.Contains(attr(a, "href"), "/object/Counter/") {
			link = attr(a, "href")
		}
	}
	if link == "" {
		t.Fatal("no object link")
	}
	for _, q := range []string{"ATTACH '" + dir + "/x.db' AS x", "PRAGMA query_only = 0"} {
		res := postDoc(t, d.base+link, q)
		if errs := find(res, func(n *html.Node) bool { return attr(n, "class") == "err" }); len(errs) != 1 || !strings.Contains(text(errs[0]), "not authorized") {
			t.Errorf("%s in the console was not refused", q)
		}
	}
	if res := postDoc(t, d.base+link, "SELECT count(*) FROM _cf_KV"); len(gridRows(res, 1)) != 2 {
		t.Errorf("a read in the console failed")
	}
}
