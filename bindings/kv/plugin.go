package kv

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/plugins"
)

// ConfigKey is the wrangler configuration key of KV namespaces.
const ConfigKey = "kv_namespaces"

// Config is one kv_namespaces entry.
type Config struct {
	ID string // the namespace's id (the binding name when the config has none)
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "KV namespace", Decode: decode, Prepare: prepare})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Binding   string `json:"binding"`
		ID        string `json:"id"`
		PreviewID string `json:"preview_id"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, kv := range list {
		if kv.Binding == "" {
			return nil, fmt.Errorf("kv_namespaces[%d] needs a \"binding\"", i)
		}
		id := kv.ID
		if id == "" {
			id = kv.Binding
		}
		out = append(out, BindingEntry(kv.Binding, id))
	}
	return out, nil
}

// BindingEntry is the binding entry of the namespace id bound as env.<name>.
func BindingEntry(name, id string) binding.Entry {
	return binding.Entry{Name: name, Show: id + " (local)", Config: Config{ID: id}}
}

// prepare opens each namespace once per process: it lives in the bucket
// (a fleet shares it); one kept in <state>/kv by an older cellhost moves
// there on first use.
func prepare(r *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	nss := make([]*Namespace, len(entries))
	for i, e := range entries {
		id := e.Config.(Config).ID
		c, err := r.Shared("kv:"+id, func(st plugins.ObjectStore) (io.Closer, error) {
			legacy := ""
			if r.StateDir != "" {
				legacy = filepath.Join(r.StateDir, "kv", binding.SafeFileName(id)+".sqlite")
			}
			return OpenStore(st, binding.SafeFileName(id), legacy)
		})
		if err != nil {
			return nil, fmt.Errorf("kv_namespaces %s: %w", e.Name, err)
		}
		nss[i] = c.(*Namespace)
	}
	return func(rt *goja.Runtime, env *goja.Object, _ binding.CellCaller) error {
		for i, e := range entries {
			if err := Bind(rt, env, e.Name, nss[i]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
