package main

import (
	"crypto/tls"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const flagsModule = `export class C { fetch() { return new Response("c"); } }
export default { fetch(req, env) { return Response.json({ url: req.url, name: env.NAME ?? null, d: typeof DEFINED === "undefined" ? null : DEFINED, fromFile: env.FROM_FILE ?? null }); } };`

// Every `wrangler dev` flag is accepted: those cellhost honours do what
// they mean (-c, --cwd, --persist-to, --env-file, --define, --local,
// --test-scheduled, --local-protocol https), the others print one
// warning line each; the config's dev.port/dev.ip/dev.local_protocol apply
// when their flags are not given; -v prints the version, as wrangler's.
func TestDev_WranglerFlags(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	dir := writeProject(t, map[string]string{
		"conf/other.jsonc": `{"name": "t", "main": "../index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "C", "class_name": "C"}]}}`,
		"index.js":  flagsModule,
		"vars.env":  "FROM_FILE=yes\n",
		"README.md": "not a config",
	})
	state := filepath.Join(t.TempDir(), "persist")
	p := runDevProc(t, t.TempDir(), nil, "--cwd", dir, "-c", "conf/other.jsonc", "--port", "0", "--persist-to", state,
		"--env-file", "vars.env", "--define", `DEFINED:"yes"`, "--local", "--test-scheduled", "--live-reload",
		"--inspector-port", "9229", "--ip", "127.0.0.1", "--minify", "--tsconfig", "x.json", "-r", "--log-level", "warn")
	_, body, _ := p.get(t, "/")
	if !strings.Contains(body, `"fromFile":"yes"`) || !strings.Contains(body, `"d":"yes"`) {
		t.Errorf("GET / = %s", body)
	}
	if _, err := os.Stat(filepath.Join(state, "LOCK")); err != nil {
		if entries, _ := os.ReadDir(state); len(entries) == 0 {
			t.Errorf("--persist-to: nothing in %s", state)
		}
	}
	out := p.out.String()
	for _, want := range []string{
		"▲ [WARNING] --inspector-port: cellhost has no DevTools protocol; its inspector is the /_cellhost page on the dev port; ignored",
		"▲ [WARNING] --live-reload: cellhost reloads the worker, not the browser; refresh the page; ignored",
		"▲ [WARNING] --minify: the code runs unminified (errors keep their lines); ignored",
		"▲ [WARNING] --tsconfig: esbuild reads the tsconfig.json next to your sources; ignored",
		"▲ [WARNING] --remote: cellhost runs everything on this machine; running locally; ignored",
		"▲ [WARNING] --log-level warn: cellhost shows its warnings and errors at every level; ignored",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("output lacks the line %q once:\n%s", want, out)
		}
	}
	for _, never := range []string{"--local", "--test-scheduled", "--define", "--cwd"} {
		if strings.Contains(out, never+":") {
			t.Errorf("a warning about %s, which is honoured:\n%s", never, out)
		}
	}

	// dev.port, dev.ip and dev.local_protocol from the config.
	port := freePort(t)
	cdir := writeProject(t, map[string]string{"wrangler.jsonc": `{"name": "t", "main": "index.js", "compatibility_date": "2026-01-01",
  "dev": {"port": ` + strconv.Itoa(port) + `, "ip": "127.0.0.1", "local_protocol": "https", "inspector_port": 9229}}`, "index.js": flagsModule})
	q := runDevProc(t, cdir, nil, "--state", t.TempDir())
	if want := "https://127.0.0.1:" + strconv.Itoa(port); q.base != want {
		t.Fatalf("served on %s, want %s", q.base, want)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Get(q.base + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.TLS == nil || !strings.Contains(string(b), `"url":"http`) {
		t.Errorf("GET over TLS: %s", b)
	}

	// -v is --version, as in wrangler.
	v := startDevProc(t, cdir, nil, "-v")
	if code := v.exited(t); code != 0 || !strings.HasPrefix(v.out.String(), "cellhost ") {
		t.Errorf("dev -v: exit %d, %q", code, v.out)
	}
	// A bad value is an error.
	bad := startDevProc(t, cdir, nil, "--local-protocol", "ftp")
	if code := bad.exited(t); code != 1 || !strings.Contains(bad.out.String(), `cellhost: --local-protocol "ftp": want http or https`) {
		t.Errorf("exit %d: %s", code, bad.out)
	}
}
