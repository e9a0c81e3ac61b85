package main

import (
	"path/filepath"

	"github.com/cellhost/cellhost/bindings/assets"
	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/bindings/kv"
	"github.com/cellhost/cellhost/bindings/r2"
	"github.com/cellhost/cellhost/bindings/service"
	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// bindingSet holds what the binding plugins (bindings/binding) keep across
// reloads and deployments (KV namespaces, the bucket), and fills a
// host.Config's Internal and BindInternal from a project's bindings.
type bindingSet struct{ res *binding.Resources }

// newBindingSet keeps the plugins' resources in bucket (the host's); with
// none (--durability local), in <stateDir>/bucket, opened on first use
// and closed by close.
func newBindingSet(stateDir string, bucket plugins.ObjectStore) *bindingSet {
	return &bindingSet{res: binding.NewResources(stateDir, bucket, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(stateDir, "bucket"))
	})}
}

// bind sets hc.Internal and hc.BindInternal for the project's bindings
// (wrangler.Config.BindPlugins).
func (b *bindingSet) bind(cfg *wrangler.Config, hc *host.Config) error {
	return project.BindPlugins(cfg, b.res, hc)
}

func (b *bindingSet) close() { b.res.Close() }

// assetServer is the assets the project serves before the worker.
type assetServer = assets.Server

func newAssetServer(cfg *wrangler.Config) *assetServer {
	return assets.NewServer(assets.Of(cfg.Entries(assets.ConfigKey)))
}

// safeFileName keeps letters, digits, '-', '_' and '.' of an id.
func safeFileName(id string) string { return binding.SafeFileName(id) }

// deployedBindings records the bindings a deployment carries (KV, D1, R2
// and service bindings to the worker's own entrypoints; nil for none),
// in the deployment format of fleet.
func deployedBindings(cfg *wrangler.Config) *fleet.DeployedBindings {
	x := &fleet.DeployedBindings{}
	for _, e := range cfg.Entries(kv.ConfigKey) {
		x.KV = append(x.KV, fleet.DeployedResource{Name: e.Name, ID: e.Config.(kv.Config).ID})
	}
	for _, e := range cfg.Entries(d1.ConfigKey) {
		x.D1 = append(x.D1, fleet.DeployedResource{Name: e.Name, ID: e.Config.(d1.Config).ID})
	}
	for _, e := range cfg.Entries(r2.ConfigKey) {
		x.R2 = append(x.R2, fleet.DeployedBucket{Name: e.Name, Bucket: e.Config.(r2.Config).Bucket})
	}
	for _, e := range cfg.Entries(service.ConfigKey) {
		if c, ok := e.Config.(service.Config); ok {
			x.Services = append(x.Services, fleet.DeployedService{Name: e.Name, Entrypoint: c.Entrypoint})
		}
	}
	if len(x.KV)+len(x.D1)+len(x.R2)+len(x.Services) == 0 {
		return nil
	}
	return x
}

// deployedPlugins is the bindings of deployment d as the plugins' entries.
func deployedPlugins(d *fleet.Deployment) []binding.Use {
	x := d.Extra
	if x == nil {
		return nil
	}
	var uses []binding.Use
	add := func(key string, entries []binding.Entry) {
		if len(entries) > 0 {
			uses = append(uses, binding.Use{Plugin: binding.Lookup(key), Entries: entries})
		}
	}
	var es []binding.Entry
	for _, k := range x.D1 {
		es = append(es, d1.BindingEntry(k.Name, k.ID))
	}
	add(d1.ConfigKey, es)
	es = nil
	for _, k := range x.KV {
		es = append(es, kv.BindingEntry(k.Name, k.ID))
	}
	add(kv.ConfigKey, es)
	es = nil
	for _, k := range x.R2 {
		es = append(es, r2.BindingEntry(k.Name, k.Bucket))
	}
	add(r2.ConfigKey, es)
	es = nil
	for _, k := range x.Services {
		es = append(es, service.BindingEntry(d.Script, k.Name, k.Entrypoint))
	}
	add(service.ConfigKey, es)
	return uses
}
