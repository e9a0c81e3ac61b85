package unsupported_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/unsupported"
)

// A kind cellhost lacks: one warning naming every binding, each bound to
// an object that throws with the reason when used.
func TestUnsupported(t *testing.T) {
	p := binding.Lookup("send_email")
	if p == nil {
		t.Fatal("send_email is not registered")
	}
	var warnings []string
	d := &binding.Decoder{Path: "/p/wrangler.jsonc", Warn: func(m string) { warnings = append(warnings, m) }}
	es, err := p.Decode(d, json.RawMessage(`[{"name": "MAIL"}, {"name": "OTHER", "destination_address": "x@y"}, {}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`wrangler.jsonc: Email sender bindings ("send_email") are not supported by cellhost yet: env.MAIL, env.OTHER will throw when used`}
	if !reflect.DeepEqual(warnings, want) {
		t.Errorf("warnings = %q, want %q", warnings, want)
	}
	bind, err := p.Prepare(nil, es)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	env := rt.NewObject()
	if err := bind(rt, env, nil); err != nil {
		t.Fatal(err)
	}
	_ = rt.Set("env", env)
	v, err := rt.RunString(`try { env.MAIL.send({}); "no throw" } catch (e) { e.message }`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "env.MAIL is an Email sender binding (send_email), which cellhost does not support yet (used: env.MAIL.send)" {
		t.Errorf("use threw %q", got)
	}
	if _, err := p.Decode(d, json.RawMessage(`"x"`)); err == nil {
		t.Error("a string value was accepted")
	}
}
