package wrangler_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/host"
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
			Bindings:           []host.Binding{{Name: "COUNTER", Class: "Counter"}, {Name: "ROOM", Class: "Room"}},
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

// TestLoad_IgnoredKeysWarn: deployment keys are accepted, each with a
// warning naming it; the name defaults to the directory's.
func TestLoad_IgnoredKeysWarn(t *testing.T) {
	dir := write(t, map[string]string{"wrangler.json": `{"main": "i.js", "account_id": "x", "routes": [], "workers_dev": true}`})
	cfg, err := wrangler.Load(filepath.Join(dir, "wrangler.json"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Name != filepath.Base(dir) {
		t.Errorf("name = %q, want the directory's %q", cfg.Name, filepath.Base(dir))
	}
	if len(cfg.Warnings) != 3 {
		t.Fatalf("warnings = %q, want one per ignored key", cfg.Warnings)
	}
	for i, k := range []string{"account_id", "routes", "workers_dev"} { // sorted
		if !strings.Contains(cfg.Warnings[i], `"`+k+`"`) {
			t.Errorf("warning %d = %q, want it to name %q", i, cfg.Warnings[i], k)
		}
	}
}

// TestLoad_Rejected: every malformed or unsupported configuration is an
// error that names what is wrong.
func TestLoad_Rejected(t *testing.T) {
	for _, tt := range []struct {
		name, file, content string
		want                []string // substrings of the error
	}{
		{"unknown top-level keys", "wrangler.json", `{"main": "i.js", "kv_namespacez": [], "zzz": 1}`, []string{`"kv_namespacez", "zzz"`}},
		{"unknown nested key", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A", "clas": 1}]}}`, []string{`"clas"`}},
		{"no main", "wrangler.json", `{"name": "x"}`, []string{`"main" is missing`}},
		{"not an object", "wrangler.json", `[1, 2]`, []string{"must be an object"}},
		{"bad JSONC", "wrangler.jsonc", `{"main": }`, []string{"wrangler.jsonc"}},
		{"bad TOML", "wrangler.toml", "main = \n", []string{"wrangler.toml"}},
		{"wrong type", "wrangler.json", `{"main": 3}`, []string{"main"}},
		{"binding without class", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A"}]}}`, []string{"bindings[0]", `"class_name"`}},
		{"binding to another script", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A", "script_name": "other"}]}}`, []string{"script_name", `"other"`}},
		{"binding twice", "wrangler.json", `{"main": "i.js", "durable_objects": {"bindings": [{"name": "A", "class_name": "A"}, {"name": "A", "class_name": "B"}]}}`, []string{`"A"`, "twice"}},
		{"var and binding", "wrangler.json", `{"main": "i.js", "vars": {"A": 1}, "durable_objects": {"bindings": [{"name": "A", "class_name": "A"}]}}`, []string{`"A"`, "var"}},
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
	for _, bad := range []string{filepath.Join(dir, "nope"), filepath.Join(dir, "wrangler.json"), t.TempDir()} {
		if _, err := wrangler.Resolve(bad); err == nil {
			t.Errorf("Resolve(%s) = nil error, want one", bad)
		}
	}
}
