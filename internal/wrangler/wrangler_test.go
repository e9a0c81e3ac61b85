package wrangler_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/bindings/assets"
	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/bindings/kv"
	"github.com/cellhost/cellhost/bindings/r2"
	"github.com/cellhost/cellhost/bindings/service"
	_ "github.com/cellhost/cellhost/bindings/standard"
	"github.com/cellhost/cellhost/internal/wrangler"
)

// write puts the files (name → content) into a fresh directory.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLoad_Accepted decodes the same configuration written in each of the
// three formats, with comments and trailing commas where JSONC allows them.
func TestLoad_Accepted(t *testing.T) {
	want := func(dir string) *wrangler.Config {
		return &wrangler.Config{
			Name:               "counter",
			Main:               filepath.Join(dir, "src/index.js"),
			CompatibilityDate:  "2026-01-01",
			CompatibilityFlags: []string{"nodejs_compat"},
			Bindings:           []wrangler.Binding{{Name: "COUNTER", Class: "Counter"}, {Name: "ROOM", Class: "Room"}},
			Vars:               map[string]any{"GREETING": "hi", "LIMIT": float64(3)},
		}
	}
	for _, tt := range []struct{ file, content string }{
		{"wrangler.jsonc", `{
  // a comment
  "name": "counter",
  "main": "src/index.js",
  "compatibility_date": "2026-01-01",
  "compatibility_flags": ["nodejs_compat"],
  "durable_objects": { "bindings": [
    { "name": "COUNTER", "class_name": "Counter" },
    { "name": "ROOM", "class_name": "Room" }, // trailing comma
  ] },
  "migrations": [{ "tag": "v1", "new_sqlite_classes": ["Counter", "Room"] }],
  "vars": { "GREETING": "hi", "LIMIT": 3 },
}`},
		{"wrangler.json", `{"name": "counter", "main": "src/index.js", "compatibility_date": "2026-01-01",
 "compatibility_flags": ["nodejs_compat"],
 "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}, {"name": "ROOM", "class_name": "Room"}]},
 "vars": {"GREETING": "hi", "LIMIT": 3}}`},
		{"wrangler.toml", `name = "counter"
main = "src/index.js"
compatibility_date = "2026-01-01"
compatibility_flags = ["nodejs_compat"]

[[durable_objects.bindings]]
name = "COUNTER"
class_name = "Counter"

[[durable_objects.bindings]]
name = "ROOM"
class_name = "Room"

[[migrations]]
tag = "v1"
new_sqlite_classes = ["Counter", "Room"]

[vars]
GREETING = "hi"
LIMIT = 3
`},
	} {
		t.Run(tt.file, func(t *testing.T) {
			dir := write(t, map[string]string{tt.file: tt.content})
			got, err := wrangler.Load(filepath.Join(dir, tt.file))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			w := want(dir)
			w.Path, w.Dir = filepath.Join(dir, tt.file), dir
			if !reflect.DeepEqual(got, w) {
				t.Errorf("Load =\n%+v\nwant\n%+v", got, w)
			}
		})
	}
}

// TestLoad_DeployKeysSilent: deployment keys are accepted without a word
// (they are normal in a wrangler config); the name defaults to the
// directory's.
func TestLoad_DeployKeysSilent(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.json": `{"main": "i.js", "account_id": "x", "routes": [], "workers_dev": true}`})
	cfg, err := wrangler.Load(filepath.Join(dir, "wrangler.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != filepath.Base(dir) {
		t.Errorf("name = %q, want the directory's %q", cfg.Name, filepath.Base(dir))
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings = %q, want none for deployment keys", cfg.Warnings)
	}
}

// TestLoad_Rejected: every malformed or unsupported configuration is an
// error that names what is wrong.
func TestLoad_Rejected(t *testing.T) {
	for _, tt := range []struct {
		name, file, content string
		want                []string // substrings of the error
	}{
		{"unknown nested key", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A", "clas": 1}]}}`, []string{`"clas"`}},
		{"no main", "wrangler.json", `{"name": "x"}`, []string{`"main" is missing`}},
		{"not an object", "wrangler.json", `[1, 2]`, []string{"must be an object"}},
		{"bad JSONC", "wrangler.jsonc", `{"main": }`, []string{"wrangler.jsonc"}},
		{"bad TOML", "wrangler.toml", "main = \n", []string{"wrangler.toml"}},
		{"wrong type", "wrangler.json", `{"main": 3}`, []string{"main"}},
		{"binding without class", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A"}]}}`, []string{"bindings[0]", `"class_name"`}},
		{"binding to another script", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A", "script_name": "other"}]}}`, []string{"script_name", `"other"`}},
		{"binding twice", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A"}, {"name": "A", "class_name": "B"}]}}`, []string{"env.A", "twice"}},
		{"var and binding", "wrangler.json", `{"main": "i.js", "vars": {"A": 1}, "durable_objects": {"bindings": [{"name": "A", "class_name": "A"}]}}`, []string{"env.A", "var"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := write(t, map[string]string{tt.file: tt.content})
			cfg, err := wrangler.Load(filepath.Join(dir, tt.file))
			if err == nil {
				t.Fatalf("Load = %+v, want an error", cfg)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}

// TestFind_Order: wrangler.jsonc wins over wrangler.json over
// wrangler.toml, as wrangler looks for them.
func TestFind_Order(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.toml": "", "wrangler.json": "{}"})
	if got := wrangler.Find(dir); got != filepath.Join(dir, "wrangler.json") {
		t.Errorf("Find = %q, want wrangler.json", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "wrangler.jsonc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := wrangler.Find(dir); got != filepath.Join(dir, "wrangler.jsonc") {
		t.Errorf("Find = %q, want wrangler.jsonc", got)
	}
	if got := wrangler.Find(t.TempDir()); got != "" {
		t.Errorf("Find in an empty directory = %q, want none", got)
	}
}

// TestResolve: a directory needs a config whose main exists; a module file
// stands alone, named after itself.
func TestResolve(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.json": `{"main": "src/w.js"}`, "other/mod.ts": "export default {}"})
	if _, err := wrangler.Resolve(dir); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("Resolve with a missing entry module = %v, want an error saying so", err)
	}
	write2 := filepath.Join(dir, "src", "w.js")
	if err := os.MkdirAll(filepath.Dir(write2), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(write2, []byte("export default {}"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := wrangler.Resolve(dir)
	if err != nil || cfg.Main != write2 {
		t.Errorf("Resolve(dir) = %+v, %v; want main %s", cfg, err, write2)
	}
	mod := filepath.Join(dir, "other", "mod.ts")
	cfg, err = wrangler.Resolve(mod)
	if err != nil || cfg.Path != "" || cfg.Name != "mod" || cfg.Main != mod {
		t.Errorf("Resolve(module) = %+v, %v; want a bare module named mod", cfg, err)
	}
	// A config file is read as -c/--config reads it.
	if cfg, err := wrangler.Resolve(filepath.Join(dir, "wrangler.json")); err != nil || cfg.Path != filepath.Join(dir, "wrangler.json") || cfg.Main != write2 {
		t.Errorf("Resolve(config file) = %+v, %v", cfg, err)
	}
	for _, bad := range []string{filepath.Join(dir, "nope"), filepath.Join(dir, "other", "x.toml"), t.TempDir()} {
		if _, err := wrangler.Resolve(bad); err == nil {
			t.Errorf("Resolve(%s) = nil error, want one", bad)
		}
	}
}

// An unknown top-level key is a warning naming it, not an error.
func TestLoad_UnknownKeyWarns(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.json": `{"main": "i.js", "kv_namespacez": [], "zzz": 1}`})
	cfg, err := wrangler.Load(filepath.Join(dir, "wrangler.json"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `unknown configuration key "kv_namespacez", "zzz"`) {
		t.Errorf("warnings = %q", cfg.Warnings)
	}
}

const envConfig = `{
  "name": "app", "main": "index.js", "compatibility_date": "2026-01-01",
  "vars": {"MODE": "top", "N": 1},
  "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]},
  "env": {
    "staging": {"vars": {"MODE": "staging"}, "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]}},
    "named": {"name": "other", "compatibility_date": "2026-02-02"}
  }
}`

func TestLoadWith_Env(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.jsonc": envConfig})
	path := filepath.Join(dir, "wrangler.jsonc")

	top, err := wrangler.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if top.Name != "app" || top.Vars["MODE"] != "top" || len(top.Warnings) != 0 {
		t.Errorf("no --env: name %q, vars %v, warnings %q; want app, top level vars, no warnings", top.Name, top.Vars, top.Warnings)
	}

	st, err := wrangler.LoadWith(path, wrangler.Options{Env: "staging"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Name != "app-staging" || !reflect.DeepEqual(st.Vars, map[string]any{"MODE": "staging"}) || len(st.Bindings) != 1 || st.CompatibilityDate != "2026-01-01" {
		t.Errorf("--env staging: name %q, vars %v, bindings %v, date %q", st.Name, st.Vars, st.Bindings, st.CompatibilityDate)
	}

	nm, err := wrangler.LoadWith(path, wrangler.Options{Env: "named"})
	if err != nil {
		t.Fatal(err)
	}
	if nm.Name != "other" || nm.CompatibilityDate != "2026-02-02" || len(nm.Vars) != 0 || len(nm.Bindings) != 0 {
		t.Errorf("--env named: name %q, date %q, vars %v, bindings %v: want the section's name and date, no inherited vars or bindings", nm.Name, nm.CompatibilityDate, nm.Vars, nm.Bindings)
	}
	if w := strings.Join(nm.Warnings, "\n"); !strings.Contains(w, `"vars" is set at the top level but not in env.named`) {
		t.Errorf("--env named warnings = %q, want one about vars not inherited", w)
	}

	_, err = wrangler.LoadWith(path, wrangler.Options{Env: "prod"})
	if err == nil || !strings.Contains(err.Error(), "no env.prod section (it has: named, staging)") {
		t.Errorf("--env prod: err = %v, want one naming the sections", err)
	}
}

func TestLoadWith_Secrets(t *testing.T) {
	cfg := `{"name": "app", "main": "index.js", "vars": {"A": "var", "B": "var"}, "env": {"prod": {"vars": {"A": "prod"}}}}`
	dir := write(t, map[string]string{
		"wrangler.jsonc": cfg,
		".dev.vars":      "# a comment\nB=secret-b\nTOKEN=\"quoted value\"\n",
		".dev.vars.prod": "TOKEN=prod-token\n",
		"index.js":       "",
	})
	path := filepath.Join(dir, "wrangler.jsonc")

	c, err := wrangler.LoadWith(path, wrangler.Options{Vars: []string{"A:from-cli", "URL:http://x:1/"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"A": "from-cli", "B": "secret-b", "TOKEN": "quoted value", "URL": "http://x:1/"}
	if !reflect.DeepEqual(c.Vars, want) {
		t.Errorf("vars = %v, want %v", c.Vars, want)
	}
	if !reflect.DeepEqual(c.Secrets, []string{"B", "TOKEN"}) || c.SecretsFile != ".dev.vars" {
		t.Errorf("secrets = %v from %q, want [B TOKEN] from .dev.vars", c.Secrets, c.SecretsFile)
	}
	if !reflect.DeepEqual(c.CLIVars, []string{"A", "URL"}) {
		t.Errorf("CLI vars = %v", c.CLIVars)
	}

	p, err := wrangler.LoadWith(path, wrangler.Options{Env: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"A": "prod", "TOKEN": "prod-token"}; !reflect.DeepEqual(p.Vars, want) || p.SecretsFile != ".dev.vars.prod" {
		t.Errorf("--env prod: vars = %v from %q, want %v from .dev.vars.prod only", p.Vars, p.SecretsFile, want)
	}

	if _, err := wrangler.LoadWith(path, wrangler.Options{Vars: []string{"NOCOLON"}}); err == nil || !strings.Contains(err.Error(), "want KEY:VALUE") {
		t.Errorf("--var NOCOLON: err = %v", err)
	}
}

// Without .dev.vars, .env and .env.<env> are read.
func TestLoadWith_DotEnv(t *testing.T) {
	dir := write(t, map[string]string{
		"wrangler.toml": "name = \"app\"\nmain = \"index.js\"\n[env.dev]\n",
		".env":          "A=1\nB=2\n",
		".env.dev":      "B=3\n",
	})
	c, err := wrangler.LoadWith(filepath.Join(dir, "wrangler.toml"), wrangler.Options{Env: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"A": "1", "B": "3"}; !reflect.DeepEqual(c.Vars, want) {
		t.Errorf("vars = %v, want %v", c.Vars, want)
	}
}

// Unknown keys and binding kinds cellhost lacks are warnings, never a
// refusal to start; the bindings become stubs.
func TestLoad_UnknownKeysWarn(t *testing.T) {
	cfg := `{
  "$schema": "node_modules/wrangler/config-schema.json",
  "name": "app", "main": "index.js", "account_id": "x", "routes": [],
  "kv_namespacez": [],
  "d1_databases": [{"binding": "DB", "database_name": "d", "database_id": "1"}],
  "r2_buckets": [{"binding": "BUCKET", "bucket_name": "b"}],
  "queues": {"producers": [{"binding": "Q", "queue": "q"}], "consumers": [{"queue": "q"}]},
  "ai": {"binding": "AI"},
  "services": [{"binding": "OTHER", "service": "another-worker"}, {"binding": "SELF", "service": "app", "entrypoint": "Api"}],
  "kv_namespaces": [{"binding": "CACHE", "id": "abc"}, {"binding": "NOID"}],
  "triggers": {"crons": ["* * * * *"]},
  "assets": {"directory": "public", "binding": "ASSETS", "not_found_handling": "single-page-application"}
}`
	dir := write(t, map[string]string{"wrangler.jsonc": cfg})
	c, err := wrangler.Load(filepath.Join(dir, "wrangler.jsonc"))
	if err != nil {
		t.Fatalf("Load: %v (an unknown key must be a warning)", err)
	}
	w := strings.Join(c.Warnings, "\n")
	for _, want := range []string{`unknown configuration key "kv_namespacez"`, `"ai"`, `env.OTHER names the worker "another-worker"`} {
		if !strings.Contains(w, want) {
			t.Errorf("warnings lack %q:\n%s", want, w)
		}
	}
	for _, quiet := range []string{"$schema", "account_id", "routes"} {
		if strings.Contains(w, quiet) {
			t.Errorf("warnings mention the deployment key %q:\n%s", quiet, w)
		}
	}
	var stubs []string
	for _, u := range c.Plugins {
		for _, e := range u.Entries {
			if e.Throws != "" {
				stubs = append(stubs, e.Name)
			}
		}
	}
	if r := c.Entries("r2_buckets"); len(r) != 1 || r[0].Name != "BUCKET" || r[0].Config != (r2.Config{Bucket: "b"}) {
		t.Errorf("R2 = %+v, want BUCKET on bucket b", r)
	}
	if q := c.Entries("queues"); len(q) != 2 || q[0].Name != "Q" || q[1].Kind != "Queue consumer" {
		t.Errorf("queues = %+v, want the producer env.Q and a consumer", q)
	}
	if want := []string{"AI", "OTHER"}; !sameSet(stubs, want) {
		t.Errorf("stubs = %v, want %v", stubs, want)
	}
	if want := []binding.Entry{kv.BindingEntry("CACHE", "abc"), kv.BindingEntry("NOID", "NOID")}; !reflect.DeepEqual(c.Entries("kv_namespaces"), want) {
		t.Errorf("KV = %v, want %v", c.Entries("kv_namespaces"), want)
	}
	if want := []binding.Entry{d1.BindingEntry("DB", "1")}; !reflect.DeepEqual(c.Entries("d1_databases"), want) {
		t.Errorf("D1 = %v, want %v", c.Entries("d1_databases"), want)
	}
	if want := []string{"* * * * *"}; !reflect.DeepEqual(c.Crons, want) {
		t.Errorf("crons = %v, want %v", c.Crons, want)
	}
	if sv := c.Entries("services"); len(sv) != 2 || sv[1].Name != "SELF" || sv[1].Config != (service.Config{Entrypoint: "Api"}) {
		t.Errorf("services = %v, want OTHER (throwing) and SELF on Api", sv)
	}
	if a := assets.Of(c.Entries("assets")); a == nil || a.Directory != filepath.Join(dir, "public") || a.Binding != "ASSETS" || a.NotFoundHandling != "single-page-application" || a.HTMLHandling != "auto-trailing-slash" {
		t.Errorf("assets = %+v", a)
	}
}

func TestLoad_Clash(t *testing.T) {
	cfg := `{"name": "app", "main": "index.js", "vars": {"X": 1}, "kv_namespaces": [{"binding": "X", "id": "1"}]}`
	dir := write(t, map[string]string{"wrangler.jsonc": cfg})
	if _, err := wrangler.Load(filepath.Join(dir, "wrangler.jsonc")); err == nil || !strings.Contains(err.Error(), "env.X is bound twice") {
		t.Errorf("err = %v, want env.X is bound twice", err)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// build is read as wrangler's normalizeAndValidateBuild reads it: cwd and
// watch_dir (a string or an array, default ./src) against the config's
// directory; main need not exist before the build ran.
func TestLoad_CustomBuild(t *testing.T) {
	for _, tc := range []struct {
		build   string
		cwd     string
		watch   []string
		wantErr string
	}{
		{`{"command": "npm run build"}`, ".", []string{"src"}, ""},
		{`{"command": "make", "cwd": "client", "watch_dir": "lib"}`, "client", []string{"lib"}, ""},
		{`{"command": "make", "watch_dir": ["a", "b/c"]}`, ".", []string{"a", "b/c"}, ""},
		{`{"command": "make", "watch_dir": 3}`, "", nil, `Expected "build.watch_dir" to be of type string or an array of strings but got 3`},
		{`{"watch_dir": "x"}`, "", nil, ""}, // no command: no build
	} {
		dir := write(t, map[string]string{"wrangler.json": `{"name": "b", "main": "dist/index.js", "build": ` + tc.build + `}`})
		cfg, err := wrangler.Resolve(dir)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: err = %v, want %q", tc.build, err, tc.wantErr)
			}
			continue
		}
		if tc.cwd == "" {
			if err == nil || !strings.Contains(err.Error(), "does not exist") {
				t.Errorf("%s: err = %v: without a command main must exist", tc.build, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.build, err)
		}
		var watch []string
		for _, w := range tc.watch {
			watch = append(watch, filepath.Join(dir, w))
		}
		if cfg.Build == nil || cfg.Build.Cwd != filepath.Join(dir, tc.cwd) || !reflect.DeepEqual(cfg.Build.WatchDirs, watch) {
			t.Errorf("%s: build = %+v", tc.build, cfg.Build)
		}
		if err := cfg.CheckMain(); err == nil || !strings.Contains(err.Error(), "does not exist after the custom build") {
			t.Errorf("%s: CheckMain = %v", tc.build, err)
		}
		if len(cfg.Warnings) != 0 {
			t.Errorf("%s: warnings %v", tc.build, cfg.Warnings)
		}
	}
}
