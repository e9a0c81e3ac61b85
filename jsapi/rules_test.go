package jsapi

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGlobRegexp pins globRegexp to npm glob-to-regexp's output with its
// default options (the regular expressions below are what
// globToRegExp(glob).source gives, wrapped in ^...$).
func TestGlobRegexp(t *testing.T) {
	for _, c := range []struct {
		glob, re    string
		match, miss []string
	}{
		{"**/*.txt", `^.*\/.*\.txt$`, []string{"./a.txt", "../x/y.txt", "/abs/b.txt"}, []string{"a.txt", "./a.txt.js"}},
		{"**/*.wasm?module", `^.*\/.*\.wasm\?module$`, []string{"./m.wasm?module"}, []string{"./m.wasm", "./m.wasmXmodule"}},
		{"*.md", `^.*\.md$`, []string{"a.md", "./dir/b.md"}, []string{"a.mdx"}},
		{"data/{a,b}.bin", `^data\/\{a\,b\}\.bin$`, []string{"data/{a,b}.bin"}, []string{"data/a.bin"}},
		{"x+y(1).dat", `^x\+y\(1\)\.dat$`, []string{"x+y(1).dat"}, []string{"xxy1.dat"}},
	} {
		got := globRegexp(c.glob)
		if got != c.re {
			t.Errorf("globRegexp(%q) = %s, want %s", c.glob, got, c.re)
		}
		re := regexp.MustCompile(got)
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%q should match %q", c.glob, m)
			}
		}
		for _, m := range c.miss {
			if re.MatchString(m) {
				t.Errorf("%q should not match %q", c.glob, m)
			}
		}
	}
}

// TestParseRules follows wrangler's parseRules: a rule without
// fallthrough: true ends its type; the defaults come last.
func TestParseRules(t *testing.T) {
	yes, no := true, false
	rules, removed, warns := ParseRules([]ModuleRule{
		{Type: "Text", Globs: []string{"**/*.md"}, Fallthrough: &yes},
		{Type: "Data", Globs: []string{"**/*.dat"}},
		{Type: "CompiledWasm", Globs: []string{"**/*.w"}, Fallthrough: &no},
	})
	var kept []string
	for _, r := range rules {
		kept = append(kept, r.Type+":"+strings.Join(r.Globs, ","))
	}
	if got, want := strings.Join(kept, " "), "Text:**/*.md Data:**/*.dat CompiledWasm:**/*.w Text:**/*.txt,**/*.html,**/*.sql"; got != want {
		t.Errorf("rules = %s, want %s", got, want)
	}
	if len(removed) != 2 || removed[0].Type != "Data" || removed[1].Type != "CompiledWasm" {
		t.Errorf("removed = %v", removed)
	}
	// The Data rule has no fallthrough field: wrangler warns; the wasm rule
	// says fallthrough: false, which silences the warning.
	want := "The module rule {\"type\":\"Data\",\"globs\":[\"**/*.dat\"]} does not have a fallback, the following rules will be ignored:\n {\"type\":\"Data\",\"globs\":[\"**/*.bin\"]} (DEFAULT)\n\nAdd `fallthrough = true` to rule to allow next rule to be used or `fallthrough = false` to silence this warning"
	if len(warns) != 1 || warns[0] != want {
		t.Errorf("warnings = %q, want [%q]", warns, want)
	}
	if rules, removed, warns := ParseRules(nil); len(rules) != 3 || len(removed) != 0 || len(warns) != 0 {
		t.Errorf("defaults only: %v %v %v", rules, removed, warns)
	}
}

// TestModuleRulesConfigured: user rules load files as Text and Data; an
// import that matches only a removed default rule fails the build with
// wrangler's error; an alias resolves from the project root; an alias to
// nothing names both.
func TestModuleRulesConfigured(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("doc.md", "# hi ✓")
	write("raw.txt", "\x01\x02")
	write("old.bin", "x")
	write("lib/impl.js", `export const who = "impl";`)
	write("src/index.js", `import doc from "../doc.md"; import raw from "../raw.txt"; import { who } from "my-lib";
export function probe() { return [doc, raw instanceof ArrayBuffer, new Uint8Array(raw).join("."), who].join("|") }
export default {};`)
	yes := true
	rules := []ModuleRule{{Type: "Text", Globs: []string{"**/*.md"}, Fallthrough: &yes}, {Type: "Data", Globs: []string{"**/*.txt"}}}
	bo := BundleOptions{Rules: rules, Alias: map[string]string{"my-lib": "./lib/impl.js"}, AliasDir: dir}
	if got, want := probeBundle(t, filepath.Join(dir, "src", "index.js"), bo), "# hi ✓|true|1.2|impl"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	write("src/index.js", `import b from "../old.bin"; export default { b };`)
	_, err := BuildBundleWith(filepath.Join(dir, "src", "index.js"), bo)
	want := "The file ../old.bin matched a module rule in your configuration ({\"type\":\"Data\",\"globs\":[\"**/*.bin\"]}), but was ignored because a previous rule with the same type was not marked as `fallthrough = true`."
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("removed rule: got %v, want %q", err, want)
	}
	write("src/index.js", `import x from "my-lib"; export default { x };`)
	bo.Alias = map[string]string{"my-lib": "./lib/missing.js"}
	_, err = BuildBundleWith(filepath.Join(dir, "src", "index.js"), bo)
	if err == nil || !strings.Contains(err.Error(), `alias "my-lib": cannot resolve "./lib/missing.js" from `+dir) {
		t.Errorf("bad alias: got %v", err)
	}
}

// TestCloudflareModules: cloudflare:email, cloudflare:workflows,
// cloudflare:sockets and cloudflare:node load (libraries import them at the
// top); what is not built throws naming itself when called.
func TestCloudflareModules(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	src := `import { EmailMessage } from "cloudflare:email"; import { NonRetryableError } from "cloudflare:workflows";
import { connect } from "cloudflare:sockets"; import { httpServerHandler } from "cloudflare:node";
export function probe() {
  const m = new EmailMessage("a@example.com", "b@example.com", "raw");
  const e = new NonRetryableError("nope"), f = new NonRetryableError("x", "Custom");
  let c; try { connect("127.0.0.1:1"); } catch (err) { c = err.message; }
  let h; try { httpServerHandler({ port: 8080 }); } catch (err) { h = err.message; }
  return [m.from, m.to, Object.keys(m).join(","), e.name, e instanceof Error, f.name, c, h].join("|");
}
export default {};`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "a@example.com|b@example.com|from,to,EmailMessage::raw|NonRetryableError|true|Custom|connect() from cloudflare:sockets (outbound TCP) is not supported by cellhost yet|httpServerHandler() from cloudflare:node is not supported by cellhost yet"
	if got := probeBundle(t, entry, BundleOptions{}); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestNodeStubModules: node:http, node:net and the other modules workerd
// has and cellhost does not run load with workerd's names; their constants
// and pure helpers work, and a call to the rest names itself.
func TestNodeStubModules(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	src := `import http from "node:http"; import net from "node:net"; import { createRequire, isBuiltin } from "node:module"; import dns from "dns";
export function probe() {
  let e; try { http.request("http://example.com"); } catch (err) { e = err.message; }
  const req = createRequire(import.meta.url);
  return [http.STATUS_CODES[418], http.METHODS.includes("PATCH"), net.isIP("10.0.0.1"), net.isIP("::1"), net.isIP("x"), e, typeof dns.lookup, isBuiltin("node:fs"), isBuiltin("left-pad"), typeof req("node:path").join].join("|");
}
export default {};`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "I'm a Teapot|true|4|6|0|request() from node:http is not supported by cellhost yet|function|true|false|function"
	if got := probeBundle(t, entry, BundleOptions{CompatibilityDate: "2026-01-01", CompatibilityFlags: []string{"nodejs_compat"}}); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// TestNodeFsWriteCopiesTheBuffer: fs.writeFileSync keeps a copy of what it
// was given, as Node and workerd do. Buffer.prototype.slice is a view, so
// the file used to stay aliased to the caller's Buffer: a later write to
// the Buffer changed the file (issue 23, item 9).
func TestNodeFsWriteCopiesTheBuffer(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	src := `import fs from "node:fs";
export function probe() {
  const b = Buffer.from("hello");
  fs.writeFileSync("/tmp/a", b);
  b[0] = 0x4a;
  const u = new Uint8Array([104, 105]);
  fs.writeFileSync("/tmp/u", u);
  u[0] = 0x48;
  const v = new Uint8Array([1, 2, 3, 4, 5, 6]);
  fs.writeFileSync("/tmp/v", new DataView(v.buffer, 1, 3));
  v[1] = 9;
  fs.writeFileSync("/tmp/c", "abc");
  const r = fs.readFileSync("/tmp/c");
  r[0] = 0x41;
  return [fs.readFileSync("/tmp/a", "utf8"), fs.readFileSync("/tmp/u", "utf8"), [...fs.readFileSync("/tmp/v")].join(","), fs.readFileSync("/tmp/c", "utf8")].join("|");
}
export default {};`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := "hello|hi|2,3,4|abc"
	if got := probeBundle(t, entry, BundleOptions{CompatibilityDate: "2026-01-01", CompatibilityFlags: []string{"nodejs_compat"}}); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
