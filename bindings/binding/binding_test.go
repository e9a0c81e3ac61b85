package binding_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/storage"
)

func testPlugin(key string) *binding.Plugin {
	return &binding.Plugin{Key: key, Kind: "Test thing",
		Decode: func(d *binding.Decoder, raw json.RawMessage) ([]binding.Entry, error) {
			var list []struct {
				Binding string `json:"binding"`
			}
			if err := d.List(key, raw, &list); err != nil {
				return nil, err
			}
			var out []binding.Entry
			for _, x := range list {
				out = append(out, binding.Entry{Name: x.Binding, Config: x.Binding})
			}
			return out, nil
		},
		Classes: []binding.Class{{Name: "test." + key, Serve: func(*storage.DB, []byte) ([]byte, bool) { return nil, false }}},
		Prepare: func(_ *binding.Resources, entries []binding.Entry) (binding.Bind, error) {
			return func(rt *goja.Runtime, env *goja.Object, _ binding.CellCaller) error {
				for _, e := range entries {
					_ = env.Set(e.Name, "bound "+e.Config.(string))
				}
				return nil
			}, nil
		}}
}

func TestRegister(t *testing.T) {
	binding.Register(testPlugin("test_things"))
	if p := binding.Lookup("test_things"); p == nil || p.Kind != "Test thing" {
		t.Fatalf("Lookup = %v", p)
	}
	found := false
	for _, c := range binding.Classes() {
		found = found || c.Name == "test.test_things"
	}
	if !found {
		t.Errorf("Classes() lacks test.test_things")
	}
	for _, bad := range []*binding.Plugin{testPlugin("test_things"), {Key: "x"}, nil} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%v) did not panic", bad)
				}
			}()
			binding.Register(bad)
		}()
	}
}

func TestDecodeAndPrepare(t *testing.T) {
	p := testPlugin("test_prepare")
	d := &binding.Decoder{Path: "/x/wrangler.jsonc"}
	if _, err := p.Decode(d, json.RawMessage(`[{"binding": "A", "nope": 1}]`)); err == nil || !strings.Contains(err.Error(), `"test_prepare"`) || !strings.Contains(err.Error(), `unknown field "nope"`) {
		t.Errorf("unknown field: err = %v, want the key and the field named", err)
	}
	entries, err := p.Decode(d, json.RawMessage(`[{"binding": "A"}, {"binding": "B"}]`))
	if err != nil {
		t.Fatal(err)
	}
	bind, err := binding.Prepare(binding.NewResources("", nil, nil), []binding.Use{{Plugin: p, Entries: entries}})
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	env := rt.NewObject()
	if err := bind(rt, env, nil); err != nil {
		t.Fatal(err)
	}
	if got := env.Get("A").String() + "," + env.Get("B").String(); got != "bound A,bound B" {
		t.Errorf("env = %s", got)
	}
	if b, err := binding.Prepare(binding.NewResources("", nil, nil), nil); b != nil || err != nil {
		t.Errorf("Prepare(nothing) = %v, %v; want nil, nil", b, err)
	}
}

func TestResources_NoBucket(t *testing.T) {
	r := binding.NewResources("", nil, nil)
	if _, err := r.Bucket(); err == nil {
		t.Error("Bucket() without a bucket or an opener succeeded")
	}
	want := errors.New("cannot open")
	r = binding.NewResources("", nil, func() (plugins.ObjectStore, error) { return nil, want })
	if _, err := r.Bucket(); !errors.Is(err, want) {
		t.Errorf("Bucket() = %v, want the opener's error", err)
	}
}

// A throwing binding throws on use with the reason and the property, and
// is not a thenable and serialises as {}.
func TestThrowing(t *testing.T) {
	rt := goja.New()
	v, err := binding.Throwing(rt, "AI", "env.AI is a Workers AI binding (ai), which cellhost does not support yet")
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Set("x", v)
	got, err := rt.RunString(`
		let out = [];
		try { x.run("m"); } catch (e) { out.push(e.constructor.name + ": " + e.message); }
		out.push(String(x.then), JSON.stringify({x}));
		out.join("|")`)
	if err != nil {
		t.Fatal(err)
	}
	want := "Error: env.AI is a Workers AI binding (ai), which cellhost does not support yet (used: env.AI.run)|undefined|{\"x\":{}}"
	if got.String() != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSafeFileName(t *testing.T) {
	for in, want := range map[string]string{"abc-1_2.x": "abc-1_2.x", "a/b": "a_b", "": "_", "..": "_", "é": "_"} {
		if got := binding.SafeFileName(in); got != want {
			t.Errorf("SafeFileName(%q) = %q, want %q", in, got, want)
		}
	}
}
