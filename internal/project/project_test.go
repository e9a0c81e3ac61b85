package project_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/standard"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

const module = `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {}
export class Room extends DurableObject {}
export default { fetch() { return new Response("ok"); } };
`

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHostConfig_BareModule: with no config file, every exported class is
// bound under its own name and the script is named after the file.
func TestHostConfig_BareModule(t *testing.T) {
	dir := t.TempDir()
	cfg, err := wrangler.Resolve(write(t, dir, "app.js", module))
	if err != nil {
		t.Fatal(err)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Clone(hc.Bindings)
	slices.SortFunc(got, func(a, b host.Binding) int { return strings.Compare(a.Name, b.Name) })
	want := []host.Binding{{Name: "Counter", Class: "Counter"}, {Name: "Room", Class: "Room"}}
	if !reflect.DeepEqual(got, want) || hc.Script != "app" || hc.Bundle == nil {
		t.Errorf("bindings %v, script %q, bundle %v; want %v, \"app\", a bundle", got, hc.Script, hc.Bundle != nil, want)
	}
}

// TestHostConfig_FromConfig: a config's bindings, vars, dates and
// limits.cpu_ms reach the host configuration as they are, and only the
// bound classes; a binding to a class the module does not export fails.
func TestHostConfig_FromConfig(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "index.js", module)
	write(t, dir, "wrangler.jsonc", `{
  "name": "app", "main": "index.js", "compatibility_date": "2026-01-01",
  "vars": {"MODE": "test"}, "limits": {"cpu_ms": 60000},
  "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}]
}`)
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hc.Bindings, []host.Binding{{Name: "COUNTER", Class: "Counter"}}) || hc.Script != "app" ||
		hc.CompatibilityDate != "2026-01-01" || hc.CPULimit != time.Minute || hc.Vars["MODE"] != "test" {
		t.Errorf("bindings %v, script %q, date %q, cpu %v, vars %v", hc.Bindings, hc.Script, hc.CompatibilityDate, hc.CPULimit, hc.Vars)
	}

	cfg.Bindings = append(cfg.Bindings, wrangler.Binding{Name: "GONE", Class: "Gone"})
	if _, err := project.HostConfig(cfg); err == nil || !strings.Contains(err.Error(), "Gone") {
		t.Errorf("a binding to a class the module lacks: err %v, want one naming Gone", err)
	}
}

// TestBindPlugins: every registered plugin class becomes a host internal
// class (a node serves them with or without a binding), and the config's
// plugin bindings (here D1) set the host's BindInternal.
func TestBindPlugins(t *testing.T) {
	var want []string
	for _, c := range binding.Classes() {
		want = append(want, c.Name)
	}
	if len(want) == 0 {
		t.Fatal("bindings/standard registered no internal class")
	}
	dir := t.TempDir()
	write(t, dir, "index.js", module)
	write(t, dir, "wrangler.jsonc", `{"name": "app", "main": "index.js", "compatibility_date": "2026-01-01",
  "d1_databases": [{"binding": "DB", "database_name": "db", "database_id": "x"}]}`)
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	res := binding.NewResources(state, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(state, "bucket"))
	})
	defer res.Close()
	var hc host.Config
	if err := project.BindPlugins(cfg, res, &hc); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range hc.Internal {
		got = append(got, c.Name)
	}
	if !reflect.DeepEqual(got, want) || hc.BindInternal == nil {
		t.Errorf("internal classes %v (want %v), BindInternal set %v (want true, for DB)", got, want, hc.BindInternal != nil)
	}
}
