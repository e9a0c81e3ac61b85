package wrangler_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/internal/wrangler"
)

func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
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
	dir := project(t, map[string]string{"wrangler.jsonc": envConfig})
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
	dir := project(t, map[string]string{
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
	dir := project(t, map[string]string{
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
	dir := project(t, map[string]string{"wrangler.jsonc": cfg})
	c, err := wrangler.Load(filepath.Join(dir, "wrangler.jsonc"))
	if err != nil {
		t.Fatalf("Load: %v (an unknown key must be a warning)", err)
	}
	w := strings.Join(c.Warnings, "\n")
	for _, want := range []string{`unknown configuration key "kv_namespacez"`, `"r2_buckets"`, `"queues"`, `"ai"`, `env.OTHER names the worker "another-worker"`} {
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
	for _, s := range c.Stubs {
		stubs = append(stubs, s.Name)
	}
	if want := []string{"AI", "Q", "BUCKET", "OTHER"}; !sameSet(stubs, want) {
		t.Errorf("stubs = %v, want %v", stubs, want)
	}
	if want := []wrangler.KVBinding{{Name: "CACHE", ID: "abc"}, {Name: "NOID", ID: "NOID"}}; !reflect.DeepEqual(c.KV, want) {
		t.Errorf("KV = %v, want %v", c.KV, want)
	}
	if want := []wrangler.D1Binding{{Name: "DB", ID: "1"}}; !reflect.DeepEqual(c.D1, want) {
		t.Errorf("D1 = %v, want %v", c.D1, want)
	}
	if want := []string{"* * * * *"}; !reflect.DeepEqual(c.Crons, want) {
		t.Errorf("crons = %v, want %v", c.Crons, want)
	}
	if want := []wrangler.ServiceBinding{{Name: "SELF", Entrypoint: "Api"}}; !reflect.DeepEqual(c.Services, want) {
		t.Errorf("services = %v, want %v", c.Services, want)
	}
	if a := c.Assets; a == nil || a.Directory != filepath.Join(dir, "public") || a.Binding != "ASSETS" || a.NotFoundHandling != "single-page-application" || a.HTMLHandling != "auto-trailing-slash" {
		t.Errorf("assets = %+v", c.Assets)
	}
}

func TestLoad_Clash(t *testing.T) {
	cfg := `{"name": "app", "main": "index.js", "vars": {"X": 1}, "kv_namespaces": [{"binding": "X", "id": "1"}]}`
	dir := project(t, map[string]string{"wrangler.jsonc": cfg})
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
