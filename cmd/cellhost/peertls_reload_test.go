package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestPeerTLS_ReloadRotatesTheCA rotates a fleet's CA on running nodes, by
// SIGHUP and file changes only (no restart): nodes a and b start with
// certificates of CA 1; both CA files then hold CA 1 and CA 2 (reload);
// a gets a CA 2 certificate (reload); a new node that knows only CA 2 then
// reaches a's object (a fresh handshake: a presents its new certificate
// and accepts the new node's); b gets a CA 2 certificate and both drop
// CA 1 (reload), after which a node with a CA 1 certificate is refused.
// A CA file that does not load keeps the material loaded before.
func TestPeerTLS_ReloadRotatesTheCA(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	ca1, ca2 := newTestCA(t, dir, "ca1"), newTestCA(t, dir, "ca2")
	pemOf := func(cas ...*testCA) string {
		var b strings.Builder
		for _, ca := range cas {
			p, err := os.ReadFile(ca.pem)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(p)
		}
		return b.String()
	}
	write := func(file, content string) {
		t.Helper()
		tmp := file + ".tmp"
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	// files of a node: its certificate, key and CA file, fixed paths whose
	// content the rotation replaces.
	type files struct{ cert, key, ca string }
	issue := func(name string, ca *testCA, trust ...*testCA) files {
		t.Helper()
		d := filepath.Join(dir, name+"-tls")
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		c, k := ca.issue(t, dir, name)
		f := files{filepath.Join(d, "cert.pem"), filepath.Join(d, "key.pem"), filepath.Join(d, "ca.pem")}
		for src, dst := range map[string]string{c: f.cert, k: f.key} {
			b, err := os.ReadFile(src)
			if err != nil {
				t.Fatal(err)
			}
			write(dst, string(b))
		}
		write(f.ca, pemOf(trust...))
		return f
	}
	node := func(name string, f files) *serveNode {
		return startServe(t, bin, counterProject(t), "--bucket", bucket, "--state", filepath.Join(dir, name),
			"--internal-listen", "127.0.0.1:0", "--internal-tls-cert", f.cert, "--internal-tls-key", f.key, "--internal-tls-ca", f.ca)
	}
	type logKey struct {
		n    *serveNode
		want string
	}
	reloads := map[logKey]int{} // lines of each kind seen per node
	hup := func(n *serveNode, want string) {
		t.Helper()
		k := logKey{n, want}
		reloads[k]++
		if err := n.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		if !n.logs.waitForN(want, reloads[k], 60*time.Second) {
			t.Fatalf("node %s logged no %q after SIGHUP:\n%s", n.id, want, n.logs)
		}
	}
	client := &http.Client{Timeout: 60 * time.Second}
	count := func(n *serveNode, name string, want int) {
		t.Helper()
		code, r, raw, err := getCounter(client, n.base+"/do/Counter/"+name)
		if err != nil || code != 200 || r.N != want {
			t.Fatalf("%s via %s: %d %q %v, want n=%d", name, n.id, code, raw, err, want)
		}
	}

	fa, fb := issue("a", ca1, ca1), issue("b", ca1, ca1)
	a, b := node("a", fa), node("b", fb)
	count(a, "x", 1)
	count(b, "x", 2) // forwarded to a over TLS (CA 1)
	store := openBucket(t, bucket)
	if rec := ownerOf(t, store, "x"); rec.Node != a.id {
		t.Fatalf("own.json names %s, want a (%s)", rec.Node, a.id)
	}

	// Step 1: both trust CA 1 and CA 2.
	write(fa.ca, pemOf(ca1, ca2))
	write(fb.ca, pemOf(ca1, ca2))
	hup(a, "internal TLS reloaded")
	hup(b, "internal TLS reloaded")
	// Step 2: a's certificate from CA 2.
	na := issue("a2", ca2, ca1, ca2)
	for src, dst := range map[string]string{na.cert: fa.cert, na.key: fa.key} {
		p, _ := os.ReadFile(src)
		write(dst, string(p))
	}
	hup(a, "internal TLS reloaded")
	count(b, "x", 3) // b still reaches a
	// A node that knows only CA 2 reaches a: a fresh handshake both ways.
	c := node("c", issue("c", ca2, ca2))
	count(c, "x", 4)

	// Step 3: b's certificate from CA 2, CA 1 dropped everywhere.
	nb := issue("b2", ca2, ca2)
	for src, dst := range map[string]string{nb.cert: fb.cert, nb.key: fb.key} {
		p, _ := os.ReadFile(src)
		write(dst, string(p))
	}
	write(fa.ca, pemOf(ca2))
	write(fb.ca, pemOf(ca2))
	hup(b, "internal TLS reloaded")
	hup(a, "internal TLS reloaded")
	count(b, "x", 5)
	// A node still on CA 1 (trusting both) is refused by a.
	d := node("d", issue("d", ca1, ca1, ca2))
	if code, _, raw, err := getCounter(client, d.base+"/do/Counter/x"); err == nil && code == 200 {
		t.Fatalf("d, with a CA 1 certificate after the rotation, was answered through a: %q", raw)
	}
	count(a, "x", 6) // d's attempt never ran on the object

	// A CA file that does not load: the material loaded before stays.
	write(fa.ca, "not a certificate\n")
	hup(a, "internal TLS not reloaded")
	count(c, "x", 7)
}

// TestServe_SIGHUPWithoutTLS: a node without TLS files (a systemd unit's
// ExecReload sends SIGHUP to every node) logs that there is nothing to
// reload and keeps serving, instead of dying of SIGHUP's default action.
func TestServe_SIGHUPWithoutTLS(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := fleetBinary(t)
	dir := t.TempDir()
	n := startServe(t, bin, counterProject(t), "--bucket", "file://"+filepath.Join(dir, "bucket"), "--state", filepath.Join(dir, "a"))
	client := &http.Client{Timeout: 60 * time.Second}
	if code, r, raw, err := getCounter(client, n.base+"/do/Counter/h"); err != nil || code != 200 || r.N != 1 {
		t.Fatalf("%d %q %v", code, raw, err)
	}
	if err := n.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !n.logs.waitFor("SIGHUP: nothing to reload", 60*time.Second) {
		t.Fatalf("no log line after SIGHUP:\n%s", n.logs)
	}
	if code, r, raw, err := getCounter(client, n.base+"/do/Counter/h"); err != nil || code != 200 || r.N != 2 {
		t.Fatalf("after SIGHUP: %d %q %v", code, raw, err)
	}
}
