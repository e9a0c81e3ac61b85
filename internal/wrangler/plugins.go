package wrangler

import (
	"context"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/storage"
)

// BindPlugins sets hc.Internal to every registered binding plugin's
// internal cell classes (known even without a binding, so that a node
// answers a peer's forwarded call and wakes a cell the wake index names)
// and hc.BindInternal to the configuration's bindings, prepared with res.
func (cfg *Config) BindPlugins(res *binding.Resources, hc *host.Config) error {
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
