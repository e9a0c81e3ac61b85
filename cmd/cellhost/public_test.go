package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/testjs"
)

// publicDir holds what we recorded for six public Durable Object projects
// (testdata/public/README.md names each one's repository, commit, path and
// licence): steps.json and the transcript recorded under `wrangler dev`
// 4.164.0 (testjs/testdata/anchor/record-wrangler.sh --twice <dir>), or
// expected-error.txt, plus log-allow.txt and agents-cross-domain's
// package-lock.json. The projects' own files are not in the repository:
// the test reads them from checkouts named by environment variables.
var publicDir = filepath.Join("testdata", "public")

// publicProject is one public project: where its files are (a checkout
// root from one of the variables, and the path inside it), which of them
// `wrangler dev` reads (the ones the recording was made with), and what
// differs from upstream (README.md, "What differs").
type publicProject struct {
	name  string
	vars  []string // checkout roots, first set one wins; each joined with its prefix
	pre   []string // path prefix inside the checkout, per variable
	path  string   // the project's directory under the prefix
	files []string
	patch func(dir string) error
}

var publicProjects = []publicProject{
	{name: "hello-world-do", vars: []string{"CELLHOST_CF_TEMPLATES"}, pre: []string{""}, path: "hello-world-do-template",
		files: []string{"src/index.ts", "tsconfig.json", "wrangler.json"}},
	{name: "durable-chat", vars: []string{"CELLHOST_CF_TEMPLATES"}, pre: []string{""}, path: "durable-chat-template",
		files: []string{"package.json", "package-lock.json", "public/css/normalize.css", "public/css/skeleton.css", "public/favicon.ico",
			"public/index.html", "public/styles.css", "src/client/index.tsx", "src/client/tsconfig.json", "src/server/index.ts",
			"src/server/tsconfig.json", "src/shared.ts", "tsconfig.json", "wrangler.json"}},
	{name: "multiplayer-globe", vars: []string{"CELLHOST_CF_TEMPLATES"}, pre: []string{""}, path: "multiplayer-globe-template",
		files: []string{"package.json", "package-lock.json", "public/index.html", "public/normalize.css", "src/client/index.tsx",
			"src/client/styles.css", "src/client/tsconfig.json", "src/server/index.ts", "src/server/tsconfig.json", "src/shared.ts",
			"tsconfig.json", "wrangler.json"}},
	// The C3 template ships in the npm package create-cloudflare (its
	// templates/ directory; 2.67.4 carries the files of workers-sdk @
	// f8308360): .ci/run unpacks it and sets CELLHOST_C3_PACKAGE.
	{name: "c3-do-with-assets-ts", vars: []string{"CELLHOST_C3_PACKAGE", "CELLHOST_WORKERS_SDK"}, pre: []string{"", "packages/create-cloudflare"},
		path:  "templates/hello-world-durable-object-with-assets/ts",
		files: []string{"public/index.html", "src/index.ts", "wrangler.jsonc"},
		patch: fillC3Placeholders},
	{name: "durable-objects-app", vars: []string{"CELLHOST_WORKERS_SDK"}, pre: []string{""}, path: "fixtures/durable-objects-app",
		files: []string{"src/index.js", "wrangler.jsonc"}},
	{name: "agents-cross-domain", vars: []string{"CELLHOST_CF_AGENTS"}, pre: []string{""}, path: "examples/cross-domain",
		files: []string{"package.json", "src/server.ts", "wrangler.jsonc"},
		patch: pinAgentsPackage},
}

// fillC3Placeholders does what C3 does when it creates a project from the
// template: fills <WORKER_NAME> and <COMPATIBILITY_DATE> in wrangler.jsonc
// (with the name and date the recording was made with).
func fillC3Placeholders(dir string) error {
	p := filepath.Join(dir, "wrangler.jsonc")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	s := strings.NewReplacer(`"<WORKER_NAME>"`, `"hello-do-assets"`, `"<COMPATIBILITY_DATE>"`, `"2025-10-08"`).Replace(string(b))
	return os.WriteFile(p, []byte(s), 0o644)
}

// pinAgentsPackage replaces upstream's dependencies (the monorepo's
// `agents` as a workspace link, and the React client's tooling) with
// `agents` pinned to 0.32.0, the version our package-lock.json resolves;
// name and version stay upstream's.
func pinAgentsPackage(dir string) error {
	p := filepath.Join(dir, "package.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	var up struct{ Name, Version string }
	if err := json.Unmarshal(b, &up); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	if up.Version == "" {
		up.Version = "0.0.0"
	}
	out, err := json.MarshalIndent(struct {
		Name         string            `json:"name"`
		Private      bool              `json:"private"`
		Type         string            `json:"type"`
		Version      string            `json:"version"`
		Dependencies map[string]string `json:"dependencies"`
	}{up.Name, true, "module", up.Version, map[string]string{"agents": "0.32.0"}}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(p, append(out, '\n'), 0o644); err != nil {
		return err
	}
	lock, err := os.ReadFile(filepath.Join(publicDir, "agents-cross-domain", "package-lock.json"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package-lock.json"), lock, 0o644)
}

// assemble builds the project in dir: its files from the checkout, our
// recordings, then the deviations. It skips, naming the variables, when
// none of them is set.
func (pp publicProject) assemble(t *testing.T, dir string) {
	t.Helper()
	src := ""
	for i, v := range pp.vars {
		if root := os.Getenv(v); root != "" {
			src = filepath.Join(root, pp.pre[i], pp.path)
			break
		}
	}
	if src == "" {
		t.Skipf("%s: set %s to a checkout (testdata/public/README.md names the commit)", pp.name, strings.Join(pp.vars, " or "))
	}
	for _, f := range pp.files {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatalf("%s: %v", strings.Join(pp.vars, "/"), err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := copyProject(dir, filepath.Join(publicDir, pp.name)); err != nil {
		t.Fatal(err)
	}
	if pp.patch != nil {
		if err := pp.patch(dir); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPublicProjects runs each public project under `cellhost dev` (the
// real binary, in a temporary directory assembled from the project's
// checkout and our recordings, as a newcomer runs it: with the project's
// node_modules/.bin first on PATH as `npm run dev` puts it, so the config's
// build.command finds esbuild) and compares its answers with wrangler
// dev's. A project with expected-error.txt fails to start under wrangler
// dev; cellhost must refuse it too, printing each line of the file.
//
// The checkouts: $CELLHOST_CF_TEMPLATES (cloudflare/templates),
// $CELLHOST_WORKERS_SDK (cloudflare/workers-sdk), $CELLHOST_CF_AGENTS
// (cloudflare/agents), each a repository root at the commit README.md
// names, and $CELLHOST_C3_PACKAGE (the unpacked npm package
// create-cloudflare, which .ci/run provides). A project whose variable is
// unset is skipped. npm dependencies are installed with `npm ci --offline`
// from npm's cache.
func TestPublicProjects(t *testing.T) {
	t.Parallel() // only starts the projects, each of which takes a place (parallel)
	entries, err := os.ReadDir(publicDir)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, pp := range publicProjects {
		known[pp.name] = true
	}
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
			if !known[e.Name()] {
				t.Errorf("%s: recordings of a project the test does not know", filepath.Join(publicDir, e.Name()))
			}
		}
	}
	if n != 6 || len(publicProjects) != 6 {
		t.Errorf("%d recorded public projects in %s, %d known, want the six of issue 27", n, publicDir, len(publicProjects))
	}
	for _, pp := range publicProjects {
		t.Run(pp.name, func(t *testing.T) {
			parallel(t)
			name := pp.name
			rec := filepath.Join(publicDir, name)
			dir := t.TempDir()
			pp.assemble(t, dir)
			if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
				installProject(t, dir, name)
			}
			env := []string{"PATH=" + filepath.Join(dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")}
			if want, err := os.ReadFile(filepath.Join(rec, "expected-error.txt")); err == nil {
				p := startDevProc(t, dir, env, "--port", "0", "--state", t.TempDir())
				if code := p.exited(t); code == 0 {
					t.Fatalf("cellhost dev exited 0; wrangler dev refuses this project")
				}
				for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
					if !p.out.waitFor(strings.TrimSpace(line), 0) {
						t.Errorf("the output lacks wrangler's line %q:\n%s", strings.TrimSpace(line), p.out)
					}
				}
				return
			}
			c, err := testjs.LoadCase(dir)
			if err != nil {
				t.Fatal(err)
			}
			p := runDevProc(t, dir, env, "--port", "0", "--state", t.TempDir())
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := testjs.Replay(ctx, p.base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if diffs := testjs.Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from wrangler dev's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}

// copyProject copies the project at src into dst, leaving out node_modules,
// the state directories and what a build writes (public/dist).
func copyProject(dst, src string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			switch {
			case d.Name() == "node_modules", d.Name() == ".cellhost", d.Name() == ".wrangler", rel == filepath.Join("public", "dist"):
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
}

// installProject gives the copy at dir its node_modules with `npm ci
// --offline` (npm's cache must hold the packages).
func installProject(t *testing.T, dir, name string) {
	t.Helper()
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipOrFailCI(t, "npm is not installed: %v", err)
	}
	cmd := exec.Command(npm, "ci", "--offline", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		skipOrFailCI(t, "%s: npm ci --offline (the packages are not in npm's cache; `npm ci` in a copy of the project fills it): %v\n%s", name, err, out)
	}
}

// skipOrFailCI skips with the message, or fails when CI is set (a project
// whose checkout CI has must run there).
func skipOrFailCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
