package testjs

import (
	"path/filepath"
	"testing"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins/d1"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/kv"
)

// bindPlugins sets hc.Bind for a case's KV namespaces and D1 databases, in
// fresh stores under stateDir, as cellhost dev binds them.
func bindPlugins(t *testing.T, cfg *wrangler.Config, hc *host.Config, stateDir string) {
	t.Helper()
	if len(cfg.KV) == 0 && len(cfg.D1) == 0 {
		return
	}
	// KV namespaces live in a bucket, as under cellhost dev.
	bucket, err := filestore.New(filepath.Join(stateDir, "bucket"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bucket.Close() })
	nss := make([]*kv.Namespace, len(cfg.KV))
	for i, k := range cfg.KV {
		n, err := kv.OpenStore(bucket, k.Name, "")
		if err != nil {
			t.Fatalf("kv_namespaces %s: %v", k.Name, err)
		}
		nss[i] = n
	}
	dbs := make([]*d1.Database, len(cfg.D1))
	for i, x := range cfg.D1 {
		db, err := d1.Open(filepath.Join(stateDir, "d1-"+x.Name+".sqlite"))
		if err != nil {
			t.Fatalf("d1_databases %s: %v", x.Name, err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[i] = db
	}
	hc.Bind = func(rt *goja.Runtime, env *goja.Object) error {
		for i, k := range cfg.KV {
			if err := kv.Bind(rt, env, k.Name, nss[i]); err != nil {
				return err
			}
		}
		for i, x := range cfg.D1 {
			if err := d1.Bind(rt, env, x.Name, dbs[i]); err != nil {
				return err
			}
		}
		return nil
	}
}
