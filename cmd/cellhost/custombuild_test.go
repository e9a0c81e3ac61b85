package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const buildConfig = `{"name": "b", "main": "dist/index.js", "compatibility_date": "2026-01-01",
  "build": {"command": "echo to-stderr >&2; if grep -q FAIL worker.js; then echo broken >&2; exit 3; fi; mkdir -p ../dist && cp worker.js ../dist/index.js && echo \"built in $(basename $PWD) for $WRANGLER_COMMAND\"", "cwd": "src"}}`

func buildWorker(v string) string {
	return `export default { fetch() { return new Response("` + v + `"); } }; // ` + v
}

// cellhost dev runs the config's build.command before it starts (in
// build.cwd, its output shown) and again when a file under watch_dir
// changes; a failed build keeps the previous code serving; a build that
// fails at start ends the command with wrangler's message.
func TestDev_CustomBuild(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	dir := writeProject(t, map[string]string{"wrangler.jsonc": buildConfig, "src/worker.js": buildWorker("v1")})
	p := runDevProc(t, dir, nil, "--port", "0", "--state", t.TempDir())
	for _, want := range []string{"[custom build] Running: echo to-stderr >&2; if grep", "[custom build] built in src for dev", "[custom build] to-stderr"} {
		if !p.out.waitFor(want, time.Minute) {
			t.Errorf("output lacks %q:\n%s", want, p.out)
		}
	}
	if _, body, _ := p.get(t, "/"); body != "v1" {
		t.Fatalf("GET / = %q, want v1", body)
	}

	write := func(content string) {
		tmp := filepath.Join(dir, "src", ".worker.js.tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, "src", "worker.js")); err != nil {
			t.Fatal(err)
		}
	}
	write(buildWorker("v2"))
	if !p.out.waitFor("cellhost dev: reloaded", time.Minute) {
		t.Fatalf("no reload after an edit under watch_dir:\n%s", p.out)
	}
	if !strings.Contains(p.out.String(), "The file src/worker.js changed, restarting build...") && !strings.Contains(p.out.String(), "worker.js changed, restarting build...") {
		t.Errorf("no restart line:\n%s", p.out)
	}
	if _, body, _ := p.get(t, "/"); body != "v2" {
		t.Fatalf("GET / = %q after the rebuild, want v2", body)
	}

	write(buildWorker("v3 FAIL"))
	if !p.out.waitFor("✘ [ERROR] Running custom build `echo to-stderr", time.Minute) {
		t.Fatalf("no build failure reported:\n%s", p.out)
	}
	// The build's lines are on stdout, the error on stderr: wait for each.
	for _, want := range []string{"failed (exit status 3). There are likely more logs from your build command above.", "[custom build] broken"} {
		if !p.out.waitFor(want, time.Minute) {
			t.Errorf("failure output lacks %q:\n%s", want, p.out)
		}
	}
	if _, body, _ := p.get(t, "/"); body != "v2" {
		t.Fatalf("GET / = %q after a failed build, want v2 still", body)
	}

	// At start, a failed build ends cellhost dev.
	bad := writeProject(t, map[string]string{"wrangler.jsonc": buildConfig, "src/worker.js": buildWorker("FAIL")})
	q := startDevProc(t, bad, nil, "--port", "0", "--state", t.TempDir())
	if code := q.exited(t); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !q.out.waitFor("cellhost: Running custom build `echo to-stderr", 0) {
		t.Errorf("output:\n%s", q.out)
	}

	// A build that does not write main says so.
	none := writeProject(t, map[string]string{"wrangler.jsonc": strings.Replace(buildConfig, "dist/index.js", "dist/other.js", 1), "src/worker.js": buildWorker("v1")})
	r := startDevProc(t, none, nil, "--port", "0", "--state", t.TempDir())
	if code := r.exited(t); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !r.out.waitFor("does not exist after the custom build", 0) {
		t.Errorf("output:\n%s", r.out)
	}
}
