package kv_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/bindings/kv"
	"github.com/cellhost/cellhost/jsapi/web"
	"github.com/cellhost/cellhost/third_party/goja"
)

// TestBind_valuesAskTheAllocationHook: a value read from the store is
// approved by the object's memory limit (the runtime's allocation hook)
// before it reaches JS, as text or as bytes; refused, the script gets V8's
// RangeError (on the old code the 2 MiB values were handed over unseen).
func TestBind_valuesAskTheAllocationHook(t *testing.T) {
	n, err := kv.Open(filepath.Join(t.TempDir(), "ns.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	for key, size := range map[string]int{"big": 2 << 20, "small": 1 << 10} {
		if err := n.Put(key, kv.Entry{Value: bytes.Repeat([]byte("v"), size)}); err != nil {
			t.Fatal(err)
		}
	}
	rt := goja.New()
	if err := web.Install(rt, web.Options{}); err != nil { // kv.js uses TextEncoder
		t.Fatal(err)
	}
	env := rt.NewObject()
	if err := kv.Bind(rt, env, "KV", n); err != nil {
		t.Fatal(err)
	}
	_ = rt.Set("env", env)
	rt.SetAllocationHook(func(bytes int64, _ goja.AllocationKind) bool { return bytes <= 1<<20 })
	for src, want := range map[string]string{
		`env.KV.get("big", "arrayBuffer").then(v => v.byteLength)`: "RangeError: Array buffer allocation failed",
		`env.KV.get("big")`:                                          "RangeError: Invalid string length",
		`env.KV.get("big", {type: "text"})`:                          "RangeError: Invalid string length",
		`env.KV.get("small", "arrayBuffer").then(v => v.byteLength)`: "1024",
		`env.KV.get("small").then(v => v.length)`:                    "1024",
	} {
		v, err := rt.RunString(`(async () => { try { return String(await (` + src + `)) } catch (e) { return e.name + ": " + e.message } })()`)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		p := v.Export().(*goja.Promise)
		if p.State() != goja.PromiseStateFulfilled {
			t.Fatalf("%s: promise %v", src, p.State())
		}
		if got := p.Result().String(); got != want {
			t.Errorf("%s = %.80s, want %s", src, got, want)
		}
	}
}
