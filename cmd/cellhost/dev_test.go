package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// writeProject writes files (name → content) into a new directory.
func writeProject(t *testing.T, files map[string]string) string {
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

const okConfig = `{
  // comments are allowed
  "name": "t", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]},
}`

const okModule = `export class C { async fetch() { return new Response("c"); } }
export default { fetch() { return new Response("w"); } };`

func TestRun_BadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		args  func(dir string) []string
		want  string // substring of the one-line error
	}{
		{"MissingDir", nil, func(dir string) []string { return []string{"dev", filepath.Join(dir, "nope")} }, "no such file or directory"},
		{"NoConfig", map[string]string{"index.js": okModule}, func(dir string) []string { return []string{"dev", dir} }, "no wrangler.jsonc, wrangler.json or wrangler.toml"},
		{"MissingEntry", map[string]string{"wrangler.jsonc": okConfig}, func(dir string) []string { return []string{"dev", dir} }, "index.js does not exist"},
		{"SyntaxError", map[string]string{"wrangler.jsonc": okConfig, "index.js": "export class C {\n  fetch( {\n}"}, func(dir string) []string { return []string{"dev", dir} }, "index.js:3:"},
		{"UnexportedClass", map[string]string{"wrangler.jsonc": okConfig, "index.js": `export default { fetch() {} }`}, func(dir string) []string { return []string{"dev", dir} }, `Your Worker depends on the following Durable Objects, which are not exported in your entrypoint file: C.`},
		{"UnknownEnv", map[string]string{"wrangler.jsonc": okConfig, "index.js": okModule}, func(dir string) []string { return []string{"dev", dir, "--env", "prod"} }, `--env prod: wrangler.jsonc has no "env" sections`},
		{"BadVar", map[string]string{"wrangler.jsonc": okConfig, "index.js": okModule}, func(dir string) []string { return []string{"dev", dir, "--var", "X"} }, `--var "X": want KEY:VALUE`},
		{"UnsupportedNodeModule", map[string]string{"wrangler.jsonc": okConfig, "index.js": `import cp from "node:child_process";` + okModule}, func(dir string) []string { return []string{"dev", dir} }, `No such module "node:child_process".`},
		{"DefaultIsDurableObject", map[string]string{"wrangler.jsonc": `{"name":"t","main":"index.js"}`, "index.js": `import { DurableObject } from "cloudflare:workers"; export default class X extends DurableObject {}`}, func(dir string) []string { return []string{"dev", dir} }, "the default export is a Durable Object class"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeProject(t, tt.files)
			var stdout, stderr bytes.Buffer
			code := run(append(tt.args(dir), "--port", "0"), &stdout, &stderr)
			if code == 0 {
				t.Fatalf("exit code 0, want non-zero; stderr: %s", stderr.String())
			}
			// The error is the last line; a build error has esbuild's
			// code frame above it.
			msg := stderr.String()
			lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
			if last := lines[len(lines)-1]; !strings.HasPrefix(last, "cellhost: ") || !strings.Contains(last, tt.want) {
				t.Errorf("stderr = %q, want a last line cellhost: error containing %q", msg, tt.want)
			}
			if strings.Contains(msg, "goroutine ") || strings.Contains(msg, ".go:") {
				t.Errorf("stderr looks like a Go stack trace: %q", msg)
			}
		})
	}
}

func TestRun_PortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	dir := writeProject(t, map[string]string{"wrangler.jsonc": okConfig, "index.js": okModule})
	var stdout, stderr bytes.Buffer
	if code := run([]string{"dev", dir, "--port", port}, &stdout, &stderr); code == 0 {
		t.Fatal("exit code 0 on a port in use")
	}
	if want := "the port is in use"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
}

// TestRunDev_ServesAndStops serves a bare module (no config: every exported
// class is a DO class) and stops on context cancel.
func TestRunDev_ServesAndStops(t *testing.T) {
	dir := writeProject(t, map[string]string{"mod.ts": `export class Box { async fetch(r: Request) { return new Response("box"); } }
export default { async fetch() { return new Response("worker"); } };`})
	d := startDevServer(t, dir, filepath.Join(dir, "mod.ts"), nil)
	if _, body := d.get("/do/Box/one"); body != "box" {
		t.Errorf("GET /do/Box/one = %q, want %q", body, "box")
	}
	d.stop()
	if _, err := os.Stat(filepath.Join(dir, ".cellhost")); err != nil {
		t.Errorf("state directory not created beside the module: %v", err)
	}
}

func TestRun_VersionAndHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version"}, &stdout, &stderr); code != 0 || !strings.HasPrefix(stdout.String(), "cellhost ") || !strings.Contains(stdout.String(), "go1.") {
		t.Errorf("--version: code %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	for _, cmd := range [][]string{{"--help"}, {"dev", "--help"}, {"diagnose", "--help"}} {
		stdout.Reset()
		if code := run(cmd, &stdout, &stderr); code != 0 {
			t.Errorf("%v: code %d", cmd, code)
		}
		if !strings.Contains(stdout.String(), "Examples:\n  cellhost ") {
			t.Errorf("%v shows no examples:\n%s", cmd, stdout.String())
		}
	}
}
