// Package greet is an example of a third-party binding plugin: the
// configuration key "greetings" binds env.<binding>, whose
// hello(name) resolves to "<greeting>, <name>! (visit <n>)", n counted
// durably per name in an internal cell of class example.Greet (one cell
// per greeting set: stored, logged to the bucket and shared by a fleet like
// any object). A binary gets it by importing this package (see ../main.go).
//
//	"greetings": [{"binding": "GREETER", "greeting": "Hello"}]
package greet

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/storage"
)

// Class is the internal cell class counting the visits.
const Class = "example.Greet"

type config struct{ greeting string }

func init() {
	binding.Register(&binding.Plugin{Key: "greetings", Kind: "Greeter", Decode: decode, Prepare: prepare,
		Classes: []binding.Class{{Name: Class, Serve: serve}}})
}

func decode(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
	var list []struct {
		Binding  string `json:"binding"`
		Greeting string `json:"greeting"`
	}
	if err := d.List("greetings", raw, &list); err != nil {
		return nil, err
	}
	var out []binding.Entry
	for i, x := range list {
		if x.Binding == "" || x.Greeting == "" {
			return nil, fmt.Errorf("greetings[%d] needs both \"binding\" and \"greeting\"", i)
		}
		out = append(out, binding.Entry{Name: x.Binding, Show: strconv.Quote(x.Greeting), Config: config{x.Greeting}})
	}
	return out, nil
}

// serve counts one visit of the name req in the cell's database and
// answers the new count.
func serve(db *storage.DB, req []byte) ([]byte, bool) {
	key := []string{"visits:" + string(req)}
	vals, err := db.Get(key)
	if err != nil {
		return []byte("error: " + err.Error()), false
	}
	n := 0
	if len(vals) == 1 && vals[0] != nil {
		n, _ = strconv.Atoi(string(vals[0]))
	}
	n++
	if err := db.Put(key, [][]byte{[]byte(strconv.Itoa(n))}); err != nil {
		return []byte("error: " + err.Error()), true
	}
	return []byte(strconv.Itoa(n)), true
}

func prepare(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
	return func(rt *goja.Runtime, env *goja.Object, cells binding.CellCaller) error {
		for _, e := range entries {
			greeting := e.Config.(config).greeting
			o := rt.NewObject()
			_ = o.Set("hello", func(name string) goja.Value {
				p, resolve, reject := rt.NewPromise()
				cells.CallCell(Class, greeting, []byte(name), func(resp []byte, err error) {
					if err != nil {
						_ = reject(rt.NewGoError(err))
						return
					}
					_ = resolve(fmt.Sprintf("%s, %s! (visit %s)", greeting, name, resp))
				})
				return rt.ToValue(p)
			})
			if err := env.Set(e.Name, o); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
