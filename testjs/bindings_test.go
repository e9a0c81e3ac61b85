package testjs

import (
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/standard"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// bindPlugins binds a case's bindings through the binding plugins
// (bindings/binding), as cellhost dev does: their resources in a fresh
// bucket under stateDir, internal cells (D1 databases) in the host.
func bindPlugins(t *testing.T, cfg *wrangler.Config, hc *host.Config, stateDir string) {
	t.Helper()
	res := binding.NewResources(stateDir, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(stateDir, "bucket"))
	})
	t.Cleanup(res.Close)
	if err := cfg.BindPlugins(res, hc); err != nil {
		t.Fatal(err)
	}
}
