package r2

import (
	"encoding/json"
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
)

// ConfigKey is the wrangler configuration key of R2 buckets.
const ConfigKey = "r2_buckets"

// Config is one r2_buckets entry.
type Config struct {
	Bucket string // bucket_name, else the binding name: objects live at r2/<Bucket>/<key>
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "R2 bucket", Decode: decode, Prepare: prepare})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Binding           string `json:"binding"`
		BucketName        string `json:"bucket_name"`
		PreviewBucketName string `json:"preview_bucket_name"`
		Jurisdiction      string `json:"jurisdiction"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, r := range list {
		if r.Binding == "" {
			return nil, fmt.Errorf("r2_buckets[%d] needs a \"binding\"", i)
		}
		b := r.BucketName
		if b == "" {
			b = r.Binding
		}
		out = append(out, BindingEntry(r.Binding, b))
	}
	return out, nil
}

// BindingEntry is the binding entry of the bucket named bucket bound as env.<name>.
func BindingEntry(name, bucket string) binding.Entry {
	return binding.Entry{Name: name, Show: bucket + " (r2/" + bucket + "/ in the bucket)", Config: Config{Bucket: bucket}}
}

// prepare opens each bucket in the host's bucket.
func prepare(r *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	st, err := r.Bucket()
	if err != nil {
		return nil, fmt.Errorf("r2_buckets %s: %w", entries[0].Name, err)
	}
	bs := make([]*Bucket, len(entries))
	for i, e := range entries {
		if bs[i], err = New(st, e.Config.(Config).Bucket); err != nil {
			return nil, fmt.Errorf("r2_buckets %s: %w", e.Name, err)
		}
	}
	return func(rt *goja.Runtime, env *goja.Object, _ binding.CellCaller) error {
		for i, e := range entries {
			if err := Bind(rt, env, e.Name, bs[i]); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
