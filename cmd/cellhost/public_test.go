package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/testjs"
)

// publicDir holds six public Durable Object projects, vendored unchanged
// (testdata/public/README.md names each one's repository, commit, path and
// licence), each with the transcript recorded under `wrangler dev` 4.164.0
// (testjs/testdata/anchor/record-wrangler.sh --twice <dir>).
var publicDir = filepath.Join("testdata", "public")

// TestPublicProjects runs each public project under `cellhost dev` (the
// real binary, in a copy of the project, as a newcomer runs it: with the
// project's node_modules/.bin first on PATH as `npm run dev` puts it, so
// the config's build.command finds esbuild) and compares its answers with
// wrangler dev's. A project with expected-error.txt fails to start under
// wrangler dev; cellhost must refuse it too, printing each line of the file.
//
// Projects with npm dependencies are installed from npm's cache (`npm ci
// --offline`), or taken installed from $CELLHOST_PUBLIC_PROJECTS (.ci/run
// installs them there before the tests).
func TestPublicProjects(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(publicDir)
	if err != nil {
		t.Fatal(err)
	}
	installedDir := os.Getenv("CELLHOST_PUBLIC_PROJECTS")
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src := filepath.Join(publicDir, name)
			dir := t.TempDir()
			if err := copyProject(dir, src); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(src, "package.json")); err == nil {
				installProject(t, dir, name, installedDir)
			}
			env := []string{"PATH=" + filepath.Join(dir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")}
			if want, err := os.ReadFile(filepath.Join(src, "expected-error.txt")); err == nil {
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
	if n != 6 {
		t.Errorf("%d public projects in %s, want the six of issue 27", n, publicDir)
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

// installProject gives the copy at dir its node_modules: a symbolic link to
// the installed one under installedDir/name, or `npm ci --offline`.
func installProject(t *testing.T, dir, name, installedDir string) {
	t.Helper()
	if installedDir != "" {
		nm := filepath.Join(installedDir, name, "node_modules")
		if _, err := os.Stat(nm); err != nil {
			t.Fatalf("CELLHOST_PUBLIC_PROJECTS: %v", err)
		}
		if err := os.Symlink(nm, filepath.Join(dir, "node_modules")); err != nil {
			t.Fatal(err)
		}
		return
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipOrFailCI(t, "npm is not installed: %v", err)
	}
	cmd := exec.Command(npm, "ci", "--offline", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		skipOrFailCI(t, "npm ci --offline (the packages are not in npm's cache; `npm ci` in a copy of %s fills it): %v\n%s", filepath.Join(publicDir, name), err, out)
	}
}

// skipOrFailCI skips with the message, or fails when CI is set (.ci/run
// installs the projects beforehand, so one it cannot run is a failure).
func skipOrFailCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
