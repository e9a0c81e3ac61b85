package ratelimit

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/bindings/binding"
)

func TestLimiter_Windows(t *testing.T) {
	now := time.Unix(1000, 0) // a window boundary for 10 s
	l := NewLimiter(Config{Namespace: "1", Limit: 2, Period: 10 * time.Second}, func() time.Time { return now })
	got := []bool{l.Limit("a"), l.Limit("a"), l.Limit("a"), l.Limit("b")}
	if want := []bool{true, true, false, true}; !equal(got, want) {
		t.Errorf("first window: %v, want %v", got, want)
	}
	now = now.Add(9 * time.Second)
	if l.Limit("a") {
		t.Error("a third call in the same window succeeded")
	}
	now = now.Add(time.Second) // the next window
	if !l.Limit("a") {
		t.Error("the next window still refuses")
	}
}

func equal(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestDecode(t *testing.T) {
	d := &binding.Decoder{Path: "wrangler.jsonc"}
	p := binding.Lookup(ConfigKey)
	es, err := p.Decode(d, json.RawMessage(`[{"name": "L", "namespace_id": "1001", "simple": {"limit": 5, "period": 60}}]`))
	if err != nil || len(es) != 1 || es[0].Config != (Config{Namespace: "1001", Limit: 5, Period: time.Minute}) {
		t.Fatalf("Decode = %+v, %v", es, err)
	}
	for raw, want := range map[string]string{
		`[{"name": "L", "namespace_id": "1", "simple": {"limit": 5, "period": 30}}]`: "ratelimits[0].simple.period is 30: want 10 or 60 (seconds)",
		`[{"name": "L", "simple": {"limit": 5, "period": 60}}]`:                      `ratelimits[0] needs "name", "namespace_id" and "simple"`,
		`[{"name": "L", "namespace_id": "1", "simple": {"limit": 0, "period": 60}}]`: "ratelimits[0].simple.limit is 0: want a positive number",
	} {
		if _, err := p.Decode(d, json.RawMessage(raw)); err == nil || err.Error() != want {
			t.Errorf("Decode(%s) = %v, want %s", raw, err, want)
		}
	}
}

func TestBinding(t *testing.T) {
	p := binding.Lookup(ConfigKey)
	es, err := p.Decode(&binding.Decoder{}, json.RawMessage(`[{"name": "L", "namespace_id": "test-binding", "simple": {"limit": 1, "period": 60}}]`))
	if err != nil {
		t.Fatal(err)
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
	var out []string
	_ = rt.Set("out", func(s string) { out = append(out, s) })
	if _, err := rt.RunString(`
		(async () => {
			out(JSON.stringify(await env.L.limit({key: "k"})));
			out(JSON.stringify(await env.L.limit({key: "k"})));
			try { await env.L.limit({}); } catch (e) { out(e.name + ": " + e.message); }
		})()`); err != nil {
		t.Fatal(err)
	}
	want := `{"success":true}|{"success":false}|TypeError: limit() needs an object with a string key`
	if got := strings.Join(out, "|"); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
