// Package service is the "services" binding plugin: service bindings to
// this worker's own entrypoints (a loopback stub, jsapi.ServiceStub). A
// binding to another worker, which cellhost does not run, is an object
// that throws when used, with a warning when the configuration loads.
package service

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi"
)

// ConfigKey is the wrangler configuration key of service bindings.
const ConfigKey = "services"

// Config is one services entry bound to this worker.
type Config struct {
	Entrypoint string // the exported WorkerEntrypoint class; "" for the default export
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "Service", Decode: decode, Prepare: prepare})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Binding     string `json:"binding"`
		Service     string `json:"service"`
		Entrypoint  string `json:"entrypoint"`
		Environment string `json:"environment"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, sv := range list {
		if sv.Binding == "" || sv.Service == "" {
			return nil, fmt.Errorf("services[%d] needs both \"binding\" and \"service\"", i)
		}
		if sv.Service != d.Worker {
			d.Warn(fmt.Sprintf("%s: service binding env.%s names the worker %q; cellhost runs only %q, so it will throw when used", filepath.Base(d.Path), sv.Binding, sv.Service, d.Worker))
			out = append(out, binding.Entry{Name: sv.Binding, Kind: "service binding (services)",
				Throws: fmt.Sprintf("env.%s is a service binding to the worker %q, which cellhost does not run: cellhost runs one worker (%q), and service bindings reach its own entrypoints only", sv.Binding, sv.Service, d.Worker)})
			continue
		}
		out = append(out, BindingEntry(d.Worker, sv.Binding, sv.Entrypoint))
	}
	return out, nil
}

// BindingEntry is the entry of env.<name> bound to the entrypoint of
// worker ("" for its default export).
func BindingEntry(worker, name, entrypoint string) binding.Entry {
	ep := entrypoint
	if ep == "" {
		ep = "default"
	}
	return binding.Entry{Name: name, Show: worker + "#" + ep, Config: Config{Entrypoint: entrypoint}}
}

func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	throwing := binding.BindThrowing(entries)
	return func(rt *goja.Runtime, env *goja.Object, cells binding.CellCaller) error {
		for _, e := range entries {
			c, ok := e.Config.(Config)
			if !ok {
				continue
			}
			v, err := jsapi.ServiceStub(rt, "env."+e.Name, c.Entrypoint)
			if err != nil {
				return fmt.Errorf("bind service %s: %w", e.Name, err)
			}
			_ = env.Set(e.Name, v)
		}
		return throwing(rt, env, cells)
	}, nil
}
