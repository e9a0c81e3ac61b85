// Package unsupported registers a binding plugin for each kind of binding
// wrangler knows and cellhost does not run: the project starts with one
// warning per kind, and each binding is an object whose use throws an
// Error saying so (binding.Throwing).
package unsupported

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cellhost/cellhost/bindings/binding"
)

// Kinds maps the configuration keys this package registers to what one
// binding of the kind is called.
var Kinds = map[string]string{
	"ai": "Workers AI", "analytics_engine_datasets": "Analytics Engine dataset", "vectorize": "Vectorize index",
	"hyperdrive": "Hyperdrive", "browser": "Browser Rendering", "send_email": "Email sender",
	"version_metadata": "version metadata", "dispatch_namespaces": "dispatch namespace",
	"mtls_certificates": "mTLS certificate", "images": "Images", "secrets_store_secrets": "Secrets Store secret",
	"pipelines": "Pipeline",
}

func init() {
	for key, kind := range Kinds {
		binding.Register(Plugin(key, kind))
	}
}

// Plugin returns the plugin of a kind cellhost does not run: its entries
// bind objects that throw, and a configuration naming any gets a warning.
func Plugin(key, kind string) *binding.Plugin {
	return &binding.Plugin{Key: key, Kind: kind,
		Decode: func(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
			out, err := Decode(key, kind, raw)
			if err != nil {
				return nil, err
			}
			if len(out) > 0 {
				names := make([]string, len(out))
				for i, e := range out {
					names[i] = "env." + e.Name
				}
				d.Warn(fmt.Sprintf("%s: %s bindings (%q) are not supported by cellhost yet: %s will throw when used", filepath.Base(d.Path), kind, key, strings.Join(names, ", ")))
			}
			return out, nil
		},
		Prepare: func(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
			return binding.BindThrowing(entries), nil
		}}
}

// Decode lists the bindings of an unsupported kind: each entry's
// "binding" (send_email: "name"), or the object's own "binding". Entries
// without a name are skipped.
func Decode(key, kind string, raw json.RawMessage) ([]binding.Entry, error) {
	var entries []map[string]any
	if key == "queues" {
		var q struct {
			Producers []map[string]any `json:"producers"`
		}
		if err := json.Unmarshal(raw, &q); err != nil {
			return nil, fmt.Errorf("%q: %w", key, err)
		}
		entries = q.Producers
	} else if err := json.Unmarshal(raw, &entries); err != nil {
		var one map[string]any
		if err2 := json.Unmarshal(raw, &one); err2 != nil {
			return nil, fmt.Errorf("%q: want a list or an object: %w", key, err)
		}
		entries = []map[string]any{one}
	}
	var out []binding.Entry
	for _, e := range entries {
		name, _ := e["binding"].(string)
		if key == "send_email" {
			name, _ = e["name"].(string)
		}
		if name == "" {
			continue
		}
		out = append(out, binding.Entry{Name: name, Kind: fmt.Sprintf("%s (%s)", kind, key),
			Throws: fmt.Sprintf("env.%s is %s binding (%s), which cellhost does not support yet", name, article(kind), key)})
	}
	return out, nil
}

// article puts "a" or "an" before kind ("an Email sender", "a Pipeline").
func article(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOUaeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
