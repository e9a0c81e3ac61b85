package main

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildOld builds cmd/cellhost of the commit rev (git archive of this
// repository, built in a temporary directory) and returns the binary.
func buildOld(t *testing.T, rev string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", "../..", rev, src)
	if out, err := archive.CombinedOutput(); err != nil {
		t.Fatalf("git archive %s: %v\n%s", rev, err, out)
	}
	bin := filepath.Join(t.TempDir(), "cellhost-old")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cellhost")
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build of %s: %v\n%s", rev, err, out)
	}
	return bin
}

// waitCount sends GETs to u until one answers 200 (bounded), and returns
// its count: after a kill, the object moves once the dead owner's lease
// has expired.
func waitCount(t *testing.T, client *http.Client, u string) int {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		status, r, raw, err := getCounter(client, u)
		if err == nil && status == 200 {
			return r.N
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no 200 within 90 s (last %d %q %v)", u, status, raw, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestUpgrade_MixedFleet runs a node of an older build (the commit in
// CELLHOST_UPGRADE_FROM, built from `git archive`) and a node of this
// build on one bucket, as during a rolling upgrade: each forwards to the
// other, and an object moves from the old node to the new one and from
// the new one to another old one when its owner is killed, every count
// continuing. Run it with
//
//	CELLHOST_UPGRADE_FROM=<previous release or landed commit> go test ./cmd/cellhost -run TestUpgrade
func TestUpgrade_MixedFleet(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	rev := os.Getenv("CELLHOST_UPGRADE_FROM")
	if rev == "" || testing.Short() {
		t.Skip("set CELLHOST_UPGRADE_FROM to the commit of the previous build (git archive; builds it)")
	}
	old := buildOld(t, rev)
	out, _ := exec.Command(old, "--version").Output()
	t.Logf("old build: %s (%s)", strings.TrimSpace(string(out)), rev)
	bin := fleetBinary(t)
	dir, project := t.TempDir(), counterProject(t)
	bucket := "file://" + filepath.Join(dir, "bucket")
	start := func(b, name string) *serveNode {
		return startServe(t, b, project, "--bucket", bucket, "--state", filepath.Join(dir, name))
	}
	oldA, newB := start(old, "a"), start(bin, "b")
	client := &http.Client{Timeout: 30 * time.Second}
	store := openBucket(t, bucket)

	// x is the old node's, y the new node's; each is reached through both.
	for _, c := range []struct {
		obj         string
		first, then *serveNode
	}{{"x", oldA, newB}, {"y", newB, oldA}} {
		if n := waitCount(t, client, c.first.base+"/do/Counter/"+c.obj); n != 1 {
			t.Fatalf("%s: first count %d", c.obj, n)
		}
		if n := waitCount(t, client, c.then.base+"/do/Counter/"+c.obj); n != 2 {
			t.Fatalf("%s through the other build: count %d, want 2", c.obj, n)
		}
		if rec := ownerOf(t, store, c.obj); rec.Node != c.first.id {
			t.Fatalf("%s: own.json names %s, want %s", c.obj, rec.Node, c.first.id)
		}
	}
	// Through the worker's stub as well (an RPC-free fetch through a stub).
	if status, _, raw, err := getCounter(client, oldA.base+"/?name=y"); err != nil || status != 200 {
		t.Fatalf("old node's worker to the new node's object: %d %q %v", status, raw, err)
	}

	// Old -> new: kill the old owner of x; the new node takes it over.
	kill := func(n *serveNode) {
		if err := n.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = n.cmd.Wait()
	}
	kill(oldA)
	if n := waitCount(t, client, newB.base+"/do/Counter/x"); n != 3 {
		t.Fatalf("x on the new node after the old owner died: %d, want 3", n)
	}
	// New -> old: another old node joins, the new one dies; y and x move
	// to the old build.
	oldC := start(old, "c")
	kill(newB)
	if n := waitCount(t, client, oldC.base+"/do/Counter/y"); n != 4 {
		t.Fatalf("y on the old node after the new owner died: %d, want 4", n)
	}
	if n := waitCount(t, client, oldC.base+"/do/Counter/x"); n != 4 {
		t.Fatalf("x on the old node after the new owner died: %d, want 4", n)
	}
	for _, obj := range []string{"x", "y"} {
		if rec := ownerOf(t, store, obj); rec.Node != oldC.id {
			t.Errorf("%s: own.json names %s, want the old node %s", obj, rec.Node, oldC.id)
		}
	}
}
