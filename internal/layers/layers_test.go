package layers

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/cellhost/cellhost/"

// rules: a package at or below from (a path relative to the module) must
// not import a project package at or below any of to ("=p": p itself; "":
// any project package but third_party). These are the arrows
// docs/architecture.md forbids; each names why.
var rules = []struct {
	from string
	to   []string
	why  string
}{
	{"plugins", []string{"storage", "ownership", "host", "fleet", "bindings", "jsapi", "cmd", "internal/wrangler", "internal/metrics"}, "the stores are a leaf under storage and ownership"},
	{"bindings", []string{"host", "fleet", "ownership", "cmd", "internal/wrangler", "internal/project"}, "bindings sit above storage and jsapi, below host"},
	{"storage", []string{"bindings", "host", "fleet", "ownership", "cmd"}, "storage is below the bindings and the host"},
	{"ownership", []string{"host", "fleet", "bindings", "jsapi", "cmd"}, "the bucket protocol is a library below host and fleet"},
	{"ltxlog", []string{"host", "fleet", "bindings", "jsapi", "cmd"}, "the commit path sits on storage and ownership, below host"},
	{"jsapi", []string{"storage", "host", "fleet", "ownership", "plugins", "bindings", "cmd", "internal/wrangler", "internal/metrics"}, "the engine knows nothing of cells, stores or the fleet"},
	{"jsapi/web", []string{"=jsapi", "jsapi/node", "jsapi/wasm"}, "jsapi/web cannot import jsapi (knows nothing of DOs)"},
	{"host", []string{"fleet", "cmd", "internal/wrangler", "internal/project"}, "host and fleet meet only in cmd"},
	{"fleet", []string{"host", "cmd", "jsapi", "storage", "bindings"}, "host and fleet meet only in cmd; fleet carries requests as internal/httpmsg, without the engine"},
	{"internal/wrangler", []string{"host", "fleet", "ownership", "ltxlog", "storage", "plugins", "cmd", "internal/project", "internal/vitest", "internal/apptest", "internal/metrics", "testjs"}, "the wrangler config is read, never run: internal/project turns it into a host configuration"},
	{"internal/project", []string{"fleet", "ownership", "cmd", "internal/vitest", "internal/apptest", "testjs"}, "a project becomes one host's configuration; the fleet is wired in cmd"},
	{"internal/metrics", []string{"host", "fleet", "ownership", "storage", "bindings", "jsapi", "cmd"}, "the instruments know the bucket's keys and the stores only; cmd composes them with host and fleet"},
	{"internal/bucketkey", []string{""}, "a leaf"},
	{"internal/queue", []string{""}, "a leaf"},
	{"internal/sqlitex", []string{""}, "a leaf"},
	{"internal/whatwgurl", []string{""}, "a leaf"},
	{"internal/v8json", []string{""}, "a leaf"},
	{"internal/compactjson", []string{""}, "a leaf"},
	{"internal/httpguard", []string{""}, "a leaf"},
	{"internal/wsrelay", []string{""}, "a leaf"},
	{"internal/httpmsg", []string{""}, "a leaf"},
	{"internal/backoff", []string{""}, "a leaf"},
	{"internal/memrelief", []string{""}, "a leaf"},
}

// TestFleetBuildsWithoutTheEngine checks that fleet (its tests included)
// compiles neither goja nor esbuild, not even through a leaf: it carries
// requests between nodes and runs no JS.
func TestFleetBuildsWithoutTheEngine(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "./fleet/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list listed %d packages: not fleet's dependencies", len(deps))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, mod+"third_party/goja") || strings.Contains(d, "evanw/esbuild") || strings.HasPrefix(d, mod+"jsapi") {
			t.Errorf("fleet depends on %s: fleet runs no JS (carry requests as internal/httpmsg)", d)
		}
	}
}

func TestImportLayers(t *testing.T) {
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("no go command: %v", err)
	}
	dec := json.NewDecoder(out)
	type pkg struct {
		ImportPath string
		Imports    []string
	}
	n := 0
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		n++
		from := strings.TrimPrefix(p.ImportPath, mod)
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			to := strings.TrimPrefix(imp, mod)
			if strings.HasPrefix(to, "third_party/") || strings.HasPrefix(to, from+"/") || to == from {
				continue
			}
			for _, r := range rules {
				if !under(from, r.from) {
					continue
				}
				for _, bad := range r.to {
					hit := bad == "" // a leaf: any project package
					if exact, ok := strings.CutPrefix(bad, "="); ok {
						hit = to == exact
					} else if bad != "" {
						hit = under(to, bad) && !under(to, r.from)
					}
					if hit {
						t.Errorf("%s imports %s: %s (docs/architecture.md)", from, to, r.why)
					}
				}
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	if n < 20 {
		t.Fatalf("go list listed %d packages: not the module", n)
	}
}

// under reports whether package path p is dir or below it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
