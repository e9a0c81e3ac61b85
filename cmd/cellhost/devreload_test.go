package main

import (
	"regexp"
	"strings"
	"testing"
)

// A reload names the file that changed, and when the bindings changed (a
// KV namespace added to the config) prints them again; the new binding
// works at once.
func TestDev_ReloadReprintsBindings(t *testing.T) {
	cfg := `{"name": "r", "main": "src/index.js", "compatibility_date": "2026-01-01"%s}`
	mod := `export default { async fetch(req, env) { if (!env.KV) return new Response("no kv"); await env.KV.put("k", "v"); return new Response(await env.KV.get("k")); } };`
	dir := writeProject(t, map[string]string{"wrangler.jsonc": strings.Replace(cfg, "%s", "", 1), "src/index.js": mod})
	d := startDevServer(t, dir, dir, nil)
	if _, body := d.get("/"); body != "no kv" {
		t.Fatalf("GET / = %q", body)
	}
	d.write("wrangler.jsonc", strings.Replace(cfg, "%s", `, "kv_namespaces": [{"binding": "KV", "id": "abc"}]`, 1))
	d.waitReload(false)
	out := d.stdout.String()
	if !regexp.MustCompile(`cellhost dev: reloaded in \d+ ms \(\S*wrangler.jsonc changed\)\nYour worker has access to the following bindings:\n  env.KV  KV namespace  abc \(local\)\n`).MatchString(out) {
		t.Errorf("stdout lacks the reload line and the new bindings:\n%s", out)
	}
	if _, body := d.get("/"); body != "v" {
		t.Errorf("GET / = %q after adding the KV namespace, want v", body)
	}
	// An edit that leaves the bindings as they are does not print them.
	d.write("src/index.js", mod+"\n// edited\n")
	d.waitReload(false)
	out = d.stdout.String()
	if n := strings.Count(out, "Your worker has access to the following bindings:"); n != 1 {
		t.Errorf("bindings printed %d times, want once:\n%s", n, out)
	}
	if !regexp.MustCompile(`reloaded in \d+ ms \(\S*src/index.js changed\)`).MatchString(out) {
		t.Errorf("stdout:\n%s", out)
	}
}

// --help prints each default once, and serve's help says where KV and D1
// live.
func TestRun_HelpDefaults(t *testing.T) {
	var out, errb syncWriter
	if code := run([]string{"dev", "--help"}, &out, &errb); code != 0 {
		t.Fatalf("dev --help: %d %s", code, errb.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "--max-open-databases") || strings.Contains(l, "--max-resident-cells") {
			if strings.Count(l, "default") != 2 || strings.Count(l, "(default ") != 1 {
				t.Errorf("line %q: want one (default N)", l)
			}
		}
	}
	var sout syncWriter
	if code := run([]string{"serve", "--help"}, &sout, &errb); code != 0 {
		t.Fatalf("serve --help: %d", code)
	}
	if s := sout.String(); strings.Contains(s, "a warning says so") || !strings.Contains(s, "KV namespaces (in the fleet's\nbucket") {
		t.Errorf("serve --help:\n%s", s)
	}
}
