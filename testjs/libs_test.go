package testjs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// libsDir holds small realistic apps built on popular Durable Object
// libraries, each recorded on workerd (package.json + package-lock.json).
var libsDir = filepath.Join("..", "..", "shared", "conformance", "libs")

// repoLibsDir holds the repository's own library apps (testjs/libs), each
// recorded on workerd with testdata/anchor/record.sh like the shared ones.
var repoLibsDir = "libs"

// libsSlowUnderRace lists the library apps that take minutes under the race
// detector (the instrumented wazero compiler compiling a large module, goja
// parsing a large bundle), with the time measured: `go test -race` skips
// them and .ci/run runs them after it, without -race (they have no
// concurrency of their own for the detector to look at).
var libsSlowUnderRace = map[string]string{
	"resvg":    "160 s under -race (a 2.4 MB module compiled by the instrumented wazero)",
	"tiktoken": "over 220 s under -race (a 1 MB module and 1.1 MB of ranks as JSON)",
}

// libsFailing lists the library apps that do not pass on this branch yet,
// each with the reason; CELLHOST_CONFORMANCE_ALL runs them anyway.
var libsFailing = map[string]string{}

// TestLibs replays each library app's recorded transcript against a real
// Host. CELLHOST_LIBS names a directory whose apps are already installed
// (.ci/run installs them); otherwise each app is installed in a copy with
// `npm ci --offline` (npm's cache only: tests never reach the registry).
func TestLibs(t *testing.T) {
	t.Parallel() // beside TestPeer (see there)
	dir := os.Getenv("CELLHOST_LIBS")
	installed := dir != ""
	if dir == "" {
		dir = libsDir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no library apps at %s: %v", dir, err)
	}
	replayNpmApps(t, dir, entries, installed)
}

// TestRepoLibs replays the repository's own library apps (testjs/libs:
// agents, zod, superjson, jose, @tsndr/cloudflare-worker-jwt, kysely, yjs;
// WebAssembly: tiktoken, @resvg/resvg-wasm, sql.js, @jsquash, yoga-wasm-web,
// hash-wasm), as
// TestLibs does for ../shared's. CELLHOST_REPO_LIBS names a directory of
// them already installed (.ci/run installs them).
func TestRepoLibs(t *testing.T) {
	dir := os.Getenv("CELLHOST_REPO_LIBS")
	installed := dir != ""
	if dir == "" {
		dir = repoLibsDir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	replayNpmApps(t, dir, entries, installed)
}

// TestExamples replays the examples that are recorded cases with npm
// dependencies (examples/<name>/expected.json beside a package.json).
// CELLHOST_EXAMPLES names a directory of those examples already installed
// (.ci/run installs them), as CELLHOST_LIBS does for TestLibs.
func TestExamples(t *testing.T) {
	t.Parallel() // beside TestPeer (see there)
	dir := os.Getenv("CELLHOST_EXAMPLES")
	installed := dir != ""
	if dir == "" {
		dir = filepath.Join("..", "examples")
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var apps []os.DirEntry
	for _, e := range entries {
		_, err1 := os.Stat(filepath.Join(dir, e.Name(), "expected.json"))
		_, err2 := os.Stat(filepath.Join(dir, e.Name(), "package.json"))
		if e.IsDir() && err1 == nil && err2 == nil {
			apps = append(apps, e)
		}
	}
	replayNpmApps(t, dir, apps, installed)
}

// replayNpmApps runs each app of dir as a subtest: installed as it is, or
// copied (without node_modules) and installed from npm's cache with
// `npm ci --offline`. Under CI an app that cannot be installed fails: CI
// installs them beforehand (.ci/run).
func replayNpmApps(t *testing.T, dir string, entries []os.DirEntry, installed bool) {
	npm, npmErr := exec.LookPath("npm")
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			if reason, ok := libsFailing[name]; ok && os.Getenv("CELLHOST_CONFORMANCE_ALL") == "" {
				t.Skip(reason)
			}
			if reason, ok := libsSlowUnderRace[name]; ok && raceEnabled {
				t.Skipf("%s: .ci/run runs it without -race", reason)
			}
			app := filepath.Join(dir, name)
			if !installed {
				if npmErr != nil {
					skipOrFail(t, "npm is not installed: %v", npmErr)
				}
				tmp := t.TempDir()
				if err := copyWithoutModules(tmp, app); err != nil {
					t.Fatalf("copy app: %v", err)
				}
				cmd := exec.Command(npm, "ci", "--offline", "--no-audit", "--no-fund")
				cmd.Dir = tmp
				if out, err := cmd.CombinedOutput(); err != nil {
					skipOrFail(t, "npm ci --offline (the packages are not in npm's cache; `npm ci` in a copy of %s fills it): %v\n%s", app, err, out)
				}
				app = tmp
			}
			c, err := LoadCase(app)
			if err != nil {
				t.Fatal(err)
			}
			base := startHostIn(t, c.Dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := Replay(ctx, base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if diffs := Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from workerd's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}

// copyWithoutModules copies the app at src into dst, leaving out
// node_modules and state directories (which may hold symbolic links).
func copyWithoutModules(dst, src string) error {
	return filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", ".cellhost", ".wrangler":
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

// skipOrFail skips with the message, or fails when CI is set: CI installs
// the apps beforehand, so an app it cannot run is a failure there.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
