package d1

import (
	"encoding/json"
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
)

// ConfigKey is the wrangler configuration key of D1 databases.
const ConfigKey = "d1_databases"

// Config is one d1_databases entry.
type Config struct {
	ID string // database_id, else database_name, else the binding name
}

func init() {
	binding.Register(&binding.Plugin{Key: ConfigKey, Kind: "D1 database", Decode: decode, Prepare: prepare,
		Classes: []binding.Class{{Name: Class, Serve: Serve}}})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Binding         string `json:"binding"`
		DatabaseName    string `json:"database_name"`
		DatabaseID      string `json:"database_id"`
		PreviewID       string `json:"preview_database_id"`
		MigrationsDir   string `json:"migrations_dir"`
		MigrationsTable string `json:"migrations_table"`
	}
	if err := d.List(ConfigKey, raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, db := range list {
		if db.Binding == "" {
			return nil, fmt.Errorf("d1_databases[%d] needs a \"binding\"", i)
		}
		id := db.DatabaseID
		if id == "" {
			id = db.DatabaseName
		}
		if id == "" {
			id = db.Binding
		}
		out = append(out, BindingEntry(db.Binding, id))
	}
	return out, nil
}

// BindingEntry is the binding entry of the database id bound as env.<name>.
func BindingEntry(name, id string) binding.Entry {
	return binding.Entry{Name: name, Show: id + " (local)", Config: Config{ID: id}}
}

// prepare binds each database to its internal cell: it is logged to the
// bucket and a fleet shares it.
func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	return func(rt *goja.Runtime, env *goja.Object, cells binding.CellCaller) error {
		for _, e := range entries {
			id := e.Config.(Config).ID
			if err := Bind(rt, env, e.Name, func(req []byte, done func([]byte, error)) { cells.CallCell(Class, id, req, done) }); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
