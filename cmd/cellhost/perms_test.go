package main

import (
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDev_FilesArePrivate: whatever the umask (0 here), every file
// `cellhost dev` writes under its state directory (the file bucket's
// .cellhost-store.db and its WAL and shared memory, which hold the fleet
// secret and every object's log; the objects' databases; KV; node-id;
// the lock) is 0600 and every directory 0700. Before, the store and
// node-id were 0644 (issue 23.7).
func TestDev_FilesArePrivate(t *testing.T) {
	old := unix.Umask(0)
	defer unix.Umask(old)
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "p", "main": "index.js", "durable_objects": {"bindings": [{"name": "C", "class_name": "Counter"}]},
		  "kv_namespaces": [{"binding": "KV", "id": "k1"}],
		  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Counter"]}]}`,
		"index.js": `import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(req) {
    this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (x)");
    await this.ctx.storage.put("n", 1);
    return new Response("ok");
  }
}
export default { async fetch(req, env) { await env.KV.put("k", "v"); return new Response("w"); } };`,
	})
	state := filepath.Join(t.TempDir(), "state")
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = state })
	if _, body := d.get("/do/Counter/alice"); body != "ok" {
		t.Fatalf("GET /do/Counter/alice = %q", body)
	}
	if _, body := d.get("/"); body != "w" {
		t.Fatalf("GET / = %q", body)
	}
	var files []string
	err := filepath.WalkDir(state, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(state, p)
		want := fs.FileMode(0o600)
		if e.IsDir() {
			want = 0o700
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", rel, info.Mode().Perm(), want)
		}
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("checked %d paths: %v", len(files), files)
	all := strings.Join(files, " ")
	for _, want := range []string{".cellhost-store.db-wal", "node-id", "LOCK", ".sqlite"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s among the files checked: %s", want, all)
		}
	}
}
