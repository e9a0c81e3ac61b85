// Package project turns a wrangler configuration (internal/wrangler, which
// only reads and validates the file) into a host configuration: it bundles
// the entry module, checks the classes the bindings name, and wires the
// binding plugins and their internal cell classes into host.Config. It is
// the one place where the wrangler config meets the host, so the config
// reader stays below host (internal/layers TestImportLayers).
package project

import (
	"context"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
	"github.com/cellhost/cellhost/third_party/goja"
)

// HostConfig bundles the entry module and returns the host configuration for
// the project (every field but StateDir and Log). With no config file, every
// exported class becomes a Durable Object class bound under its own name.
func HostConfig(cfg *wrangler.Config) (host.Config, error) {
	bundle, err := jsapi.BuildBundleWith(cfg.Main, cfg.BundleOptions())
	if err != nil {
		return host.Config{}, err
	}
	bindings := make([]host.Binding, 0, len(cfg.Bindings))
	required := make([]string, 0, len(cfg.Bindings))
	for _, b := range cfg.Bindings {
		bindings = append(bindings, host.Binding{Name: b.Name, Class: b.Class})
		required = append(required, b.Class)
	}
	cpu := cfg.CPULimit
	if cpu <= 0 {
		cpu = jsapi.DefaultModuleCPULimit
	}
	classes, err := jsapi.CheckWorkerLimits(bundle, required, cpu, jsapi.DefaultModuleMemoryLimit)
	if err != nil {
		return host.Config{}, err
	}
	if cfg.Path == "" {
		for _, c := range classes {
			bindings = append(bindings, host.Binding{Name: c, Class: c})
		}
	}
	return host.Config{
		Bundle: bundle, Script: cfg.Name, Bindings: bindings, Vars: cfg.Vars,
		CompatibilityDate: cfg.CompatibilityDate, CompatibilityFlags: cfg.CompatibilityFlags,
		Limits: host.Limits{CPULimit: cfg.CPULimit},
	}, nil
}

// BindPlugins sets hc.Internal to every registered binding plugin's
// internal cell classes (known even without a binding, so that a node
// answers a peer's forwarded call and wakes a cell the wake index names)
// and hc.BindInternal to the configuration's bindings, prepared with res.
func BindPlugins(cfg *wrangler.Config, res *binding.Resources, hc *host.Config) error {
	hc.Internal = append(hc.Internal, InternalClasses()...)
	bind, err := binding.Prepare(res, cfg.Plugins)
	if err != nil {
		return err
	}
	if bind != nil {
		hc.BindInternal = func(rt *goja.Runtime, env *goja.Object, cells host.CellCaller) error {
			return bind(rt, env, cells)
		}
	}
	return nil
}

// InternalClasses are the registered plugins' classes as the host's.
func InternalClasses() []host.InternalClass {
	var out []host.InternalClass
	for _, c := range binding.Classes() {
		ic := host.InternalClass{Name: c.Name, Serve: c.Serve}
		if alarm := c.Alarm; alarm != nil {
			ic.Alarm = func(db *storage.DB, now time.Time) func(context.Context, host.InternalWorker) {
				after := alarm(db, now)
				if after == nil {
					return nil
				}
				return func(ctx context.Context, w host.InternalWorker) { after(ctx, w) }
			}
		}
		if start := c.Start; start != nil {
			ic.Start = func(ctx context.Context, w host.InternalWorker) { start(ctx, w) }
		}
		out = append(out, ic)
	}
	return out
}
