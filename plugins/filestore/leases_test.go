package filestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/plugins"
)

// errClass names the outcome of a store call, for comparing a lease key's
// answers with a database key's.
func errClass(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, plugins.ErrPreconditionFailed):
		return "precondition"
	case errors.Is(err, plugins.ErrNotFound):
		return "not found"
	}
	return "error: " + err.Error()
}

// TestLeases_SameAnswersAsTheDatabase runs one sequence of conditional
// writes on a lease key (a file of its own) and on a database key: every
// answer, body and ETag relation must be the same.
func TestLeases_SameAnswersAsTheDatabase(t *testing.T) {
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(key string) []string {
		if _, ok := leaseFile(key); ok != strings.HasPrefix(key, "nodes/") {
			t.Fatalf("leaseFile(%q) = %v", key, ok)
		}
		var log []string
		note := func(what string, err error) { log = append(log, what+": "+errClass(err)) }
		_, err := s.Put(ctx, key, []byte("x"), plugins.PutOptions{IfMatch: `"nope"`})
		note("if-match on missing", err)
		e1, err := s.Put(ctx, key, []byte("one"), plugins.PutOptions{IfNoneMatch: true})
		note("create", err)
		_, err = s.Put(ctx, key, []byte("two"), plugins.PutOptions{IfNoneMatch: true})
		note("create again", err)
		h, err := s.Head(ctx, key)
		note("head", err)
		log = append(log, fmt.Sprint("head is create's etag: ", h == e1))
		e2, err := s.Put(ctx, key, []byte("two"), plugins.PutOptions{IfMatch: e1})
		note("cas", err)
		_, err = s.Put(ctx, key, []byte("three"), plugins.PutOptions{IfMatch: e1})
		note("stale cas", err)
		body, etag, err := s.Get(ctx, key)
		note("get", err)
		log = append(log, fmt.Sprintf("body %q, etag is cas's: %v", body, etag == e2))
		got := s.GetMany(ctx, []string{"other/key", key})
		log = append(log, fmt.Sprintf("get many: %q %v %s", got[1].Body, got[1].ETag == e2, errClass(got[1].Err)))
		note("delete stale", s.Delete(ctx, key, e1))
		note("delete", s.Delete(ctx, key, e2))
		_, _, err = s.Get(ctx, key)
		note("get deleted", err)
		note("delete missing", s.Delete(ctx, key, ""))
		note("delete missing if-match", s.Delete(ctx, key, e2))
		e3, err := s.Put(ctx, key, []byte("four"), plugins.PutOptions{})
		note("put", err)
		body, etag, err = s.Get(ctx, key)
		log = append(log, fmt.Sprintf("get: %q %v %s", body, etag == e3, errClass(err)))
		return log
	}
	lease, db := run("nodes/node_a.json"), run("other/node_a.json")
	if strings.Join(lease, "\n") != strings.Join(db, "\n") {
		t.Errorf("lease key:\n%s\n\ndatabase key:\n%s", strings.Join(lease, "\n"), strings.Join(db, "\n"))
	}
	fi, err := os.Stat(filepath.Join(s.root, leaseDirName, hexName("nodes/node_a.json")+leaseExt))
	if err != nil {
		t.Fatalf("the lease is not in its own file: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("lease file mode %v, want 0600", fi.Mode().Perm())
	}
}

func hexName(key string) string { n, _ := leaseFile(key); return n }

// TestLeases_NotHeldUpByAStoppedRound: a process stopped inside a round
// of the database holds SQLite's write lock for the whole directory
// (here: another Store on the directory, held inside its round by the
// hook, as SIGSTOP holds a process). Another node's lease renewal must
// still land: before, it waited for the lock and the node fenced itself
// (with the lease in the database this test hangs until its timeout).
func TestLeases_NotHeldUpByAStoppedRound(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	stopped := openStore(t, dir)
	healthy := openStore(t, dir)
	etag, err := healthy.Put(ctx, "nodes/node_b.json", []byte("lease 1"), plugins.PutOptions{IfNoneMatch: true})
	if err != nil {
		t.Fatal(err)
	}

	inRound, release := make(chan struct{}), make(chan struct{})
	stopped.w.hook = func(o *op) error {
		close(inRound)
		<-release
		return nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := stopped.Put(ctx, "cells/C:1/ltx/e1/1", []byte("ltx"), plugins.PutOptions{})
		done <- err
	}()
	<-inRound // the stopped store holds the write lock now

	etag2, err := healthy.Put(ctx, "nodes/node_b.json", []byte("lease 2"), plugins.PutOptions{IfMatch: etag})
	if err != nil {
		t.Fatalf("renewal while another store holds the database's write lock: %v", err)
	}
	body, got, err := stopped.Get(ctx, "nodes/node_b.json")
	if err != nil || string(body) != "lease 2" || got != etag2 {
		t.Errorf("the other store reads %q, %s, %v; want the renewal", body, got, err)
	}
	page, err := stopped.List(ctx, "nodes/", "", 0)
	if err != nil || len(page.Objects) != 1 || page.Objects[0].ETag != etag2 {
		t.Errorf("List(nodes/) = %+v, %v", page, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestLeases_LockPerKey: a writer holding one lease key's lock (a node
// stopped in its own renewal) holds up no other key, and a writer of the
// same key gives up when its context ends, writing nothing.
func TestLeases_LockPerKey(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	a := openStore(t, dir)
	b := openStore(t, dir)
	etag, err := a.Put(ctx, "nodes/node_a.json", []byte("a1"), plugins.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held, err := a.leases.lock(ctx, "nodes/node_a.json", hexName("nodes/node_a.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	if _, err := b.Put(ctx, "nodes/node_b.json", []byte("b1"), plugins.PutOptions{IfNoneMatch: true}); err != nil {
		t.Fatalf("another key's write: %v", err)
	}
	wctx, cancel := context.WithCancel(ctx)
	contended := 0
	b.leases.hookContended = func(key string) {
		if key != "nodes/node_a.json" {
			t.Errorf("contended on %s", key)
		}
		if contended++; contended == 3 {
			cancel()
		}
	}
	_, err = b.Put(wctx, "nodes/node_a.json", []byte("a2"), plugins.PutOptions{IfMatch: etag})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("write of the held key = %v, want context.Canceled", err)
	}
	if body, got, err := b.Get(ctx, "nodes/node_a.json"); err != nil || string(body) != "a1" || got != etag {
		t.Errorf("after the abandoned write: %q, %s, %v; want a1 unchanged", body, got, err)
	}
	held.Close()
	b.leases.hookContended = nil
	if _, err := b.Put(ctx, "nodes/node_a.json", []byte("a2"), plugins.PutOptions{IfMatch: etag}); err != nil {
		t.Fatalf("after the holder let go: %v", err)
	}
}

// TestLeases_ListMerges: listings that cover nodes/ merge the lease files
// into the database's keys in byte order, page by page, and skip rows an
// older cellhost left under lease keys.
func TestLeases_ListMerges(t *testing.T) {
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := []string{"a", "nodes/a.json", "nodes/a.json/x", "nodes/b.json", "nodes/c/d", "nodes/z.json", "nodes0", "z"}
	for _, k := range keys {
		if _, err := s.Put(ctx, k, []byte(k), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// An older cellhost's row under a lease key, in the database.
	if _, err := s.w.conn.ExecContext(ctx, `INSERT INTO objects (key, etag, body) VALUES ('nodes/old.json', '"x"', x'')`); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{"", "n", "nodes/", "nodes/a"} {
		for _, limit := range []int{1, 2, 3, 100} {
			var got []string
			after := ""
			for range 20 {
				page, err := s.List(ctx, prefix, after, limit)
				if err != nil {
					t.Fatal(err)
				}
				if len(page.Objects) > limit {
					t.Fatalf("List(%q, %q, %d): %d objects", prefix, after, limit, len(page.Objects))
				}
				for _, o := range page.Objects {
					got = append(got, o.Key)
					if o.Size != int64(len(o.Key)) {
						t.Errorf("%s: size %d", o.Key, o.Size)
					}
				}
				if page.NextStartAfter == "" {
					break
				}
				after = page.NextStartAfter
			}
			var want []string
			for _, k := range keys {
				if strings.HasPrefix(k, prefix) {
					want = append(want, k)
				}
			}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("List(%q) by %d: %v, want %v", prefix, limit, got, want)
			}
		}
	}
}

// TestLeases_DeleteLeavesNoFiles: deleting a lease removes its file and its
// lock file (dead-node GC and Close delete leases; nothing may pile up in
// .cellhost-leases, one lock file per node id ever seen, as before).
func TestLeases_DeleteLeavesNoFiles(t *testing.T) {
	if !removeLockFiles {
		t.Skip("lock files stay on this platform")
	}
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, k := range []string{"nodes/node_a.json", "nodes/node_b.json"} {
		etag, err := s.Put(ctx, k, []byte("lease"), plugins.PutOptions{IfNoneMatch: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, k, etag); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(ctx, "nodes/node_c.json", ""); err != nil { // never written
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(s.root, leaseDirName))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind: %s", e.Name())
	}
}

// TestLeases_LockAfterItsFileWasRemoved: a writer that opened a lease's lock
// file and waits for it while the holder deletes the lease (removing the
// lock file) must not go on with the removed file's lock, which a third
// writer opening the name anew would not contend with: it locks the file
// now at the name.
func TestLeases_LockAfterItsFileWasRemoved(t *testing.T) {
	if !removeLockFiles {
		t.Skip("lock files stay on this platform")
	}
	ctx := context.Background()
	dir := t.TempDir()
	a := openStore(t, dir)
	b := openStore(t, dir)
	const key = "nodes/node_a.json"
	name := hexName(key)
	held, err := a.leases.lock(ctx, key, name)
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	var once sync.Once
	b.leases.hookContended = func(string) { once.Do(func() { close(waiting) }) }
	got := make(chan *os.File, 1)
	go func() {
		f, err := b.leases.lock(ctx, key, name)
		if err != nil {
			t.Error(err)
		}
		got <- f
	}()
	<-waiting // b has opened the lock file and found it held
	if err := os.Remove(a.leases.path(name, lockExt)); err != nil {
		t.Fatal(err)
	}
	held.Close() // a's delete is over
	f := <-got
	if f == nil {
		return
	}
	defer f.Close()
	mine, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	now, err := os.Stat(a.leases.path(name, lockExt))
	if err != nil || !os.SameFile(mine, now) {
		t.Fatalf("b holds the lock of a removed lock file (the name now: %v)", err)
	}
	// A third writer contends with b.
	other, err := os.OpenFile(a.leases.path(name, lockExt), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if ok, err := tryFlock(other); err != nil || ok {
		t.Errorf("a third writer got the lock b holds (%v, %v)", ok, err)
	}
}

// TestLeases_KilledWriterLeavesNoTmp: a writer killed between writing its
// temporary file and renaming it leaves the file behind; the key's next
// write (or its delete) removes it, and another key's are left alone.
func TestLeases_KilledWriterLeavesNoTmp(t *testing.T) {
	ctx := context.Background()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	dir := filepath.Join(s.root, leaseDirName)
	a, b := hexName("nodes/node_a.json"), hexName("nodes/node_b.json")
	for _, n := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(dir, n+leaseTmp+"0123456789abcdef"), []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	etag, err := s.Put(ctx, "nodes/node_a.json", []byte("lease"), plugins.PutOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tmps := func() (names []string) {
		all, _ := filepath.Glob(filepath.Join(dir, "*"+leaseTmp+"*"))
		for _, p := range all {
			names = append(names, filepath.Base(p))
		}
		return names
	}
	if got := tmps(); len(got) != 1 || !strings.HasPrefix(got[0], b) {
		t.Errorf("after a write of node_a: %v, want node_b's only", got)
	}
	if err := s.Delete(ctx, "nodes/node_a.json", etag); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "nodes/node_b.json", ""); err != nil {
		t.Fatal(err)
	}
	if got := tmps(); len(got) != 0 {
		t.Errorf("after the deletes: %v", got)
	}
}

// TestLeases_OldFormatTmpRemovedOnceOld: the key-less temporary files of
// an older cellhost (".tmp-<16 hex>", left by a writer killed before its
// rename) are removed when a Store opens the directory and when a lease is
// deleted, but only once older than oldTmpAge: a younger one may be a live
// writer's (its mtime is set ahead here, so the check does not depend on
// how long the test takes); files of other names are left alone.
func TestLeases_OldFormatTmpRemovedOnceOld(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, leaseDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	files := []struct {
		name  string
		mtime time.Time
		kept  bool
	}{
		{leaseTmp + "0123456789abcdef", now.Add(-2 * oldTmpAge), false},
		{leaseTmp + "fedcba9876543210", now.Add(time.Hour), true},      // young: maybe a live writer's
		{leaseTmp + "0123456789abcdeg", now.Add(-2 * oldTmpAge), true}, // not 16 hex digits
		{leaseTmp + "0123456789abcdef0", now.Add(-2 * oldTmpAge), true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, []byte("half"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, f.mtime, f.mtime); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		for _, f := range files {
			_, err := os.Stat(filepath.Join(dir, f.name))
			if got := err == nil; got != f.kept {
				t.Errorf("%s: %s there: %v, want %v", when, f.name, got, f.kept)
			}
		}
	}
	s, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	check("after New")

	// The young one ages past the bound; a delete (dead-node GC's) removes it.
	old := now.Add(-2 * oldTmpAge)
	if err := os.Chtimes(filepath.Join(dir, files[1].name), old, old); err != nil {
		t.Fatal(err)
	}
	files[1].kept = false
	if _, err := s.Put(ctx, "nodes/node_a.json", []byte("lease"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "nodes/node_a.json", ""); err != nil {
		t.Fatal(err)
	}
	check("after a delete")
}
