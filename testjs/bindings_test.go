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

// bindPlugins sets hc.Bind for a case's KV namespaces and hc.BindInternal
// for its D1 databases (cells of the host), in fresh stores under stateDir,
// as cellhost dev binds them.
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
	hc.Bind = func(rt *goja.Runtime, env *goja.Object) error {
		for i, k := range cfg.KV {
			if err := kv.Bind(rt, env, k.Name, nss[i]); err != nil {
				return err
			}
		}
		return nil
	}
	if len(cfg.D1) > 0 {
		hc.Internal = append(hc.Internal, host.InternalClass{Name: d1.Class, Serve: d1.Serve})
		hc.BindInternal = func(rt *goja.Runtime, env *goja.Object, cells host.CellCaller) error {
			for _, x := range cfg.D1 {
				id := x.ID
				if err := d1.Bind(rt, env, x.Name, func(req []byte, done func([]byte, error)) { cells.CallCell(d1.Class, id, req, done) }); err != nil {
					return err
				}
			}
			return nil
		}
	}
}
