package kv

import (
	_ "embed"
	"fmt"
	"unicode/utf8"

	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/third_party/goja"
)

//go:embed kv.js
var kvJS string

var kvProgram = goja.MustCompile("cellhost:kv", kvJS, true)

// Bind sets env[name] to a KvNamespace object of rt backed by n. Call it
// on rt's goroutine (host.Config.Bind). The storage calls run synchronously
// on that goroutine; the methods return promises, as Workers KV's do.
func Bind(rt *goja.Runtime, env *goja.Object, name string, n *Namespace) error {
	fv, err := rt.RunProgram(kvProgram)
	if err != nil {
		return fmt.Errorf("bind kv %s: %w", name, err)
	}
	fn, _ := goja.AssertFunction(fv)
	native := rt.NewObject()
	fail := func(err error) { panic(rt.NewGoError(err)) }
	_ = native.Set("get", func(key string, text bool) goja.Value {
		e, ok, err := n.Get(key)
		if err != nil {
			fail(err)
		}
		if !ok {
			return goja.Null()
		}
		// The value was read whole from the store (up to KV's 25 MiB):
		// before it reaches JS, the object's memory limit approves it
		// (the goja fork's allocation hook; issue 23), as it approves a
		// body's copy. Refused: V8's RangeError for a string or a buffer
		// it cannot make.
		kind := goja.AllocArrayBuffer
		if text {
			kind = goja.AllocString
		}
		if err := jserr.Allocate(rt, int64(len(e.Value)), kind); err != nil {
			jserr.Throw(rt, err)
		}
		o := rt.NewObject()
		if text {
			s := string(e.Value)
			if !utf8.ValidString(s) {
				s = string([]rune(s)) // invalid bytes become U+FFFD, as TextDecoder does
			}
			_ = o.Set("value", s)
		} else {
			_ = o.Set("value", rt.NewArrayBuffer(e.Value))
		}
		if e.Metadata != "" {
			_ = o.Set("metadata", e.Metadata)
		} else {
			_ = o.Set("metadata", goja.Null())
		}
		return o
	})
	_ = native.Set("put", func(key string, value goja.Value, expiration int64, metadata string) {
		var b []byte
		switch v := value.Export().(type) {
		case string:
			b = []byte(v)
		case []byte:
			b = append([]byte{}, v...)
		default:
			panic(rt.NewTypeError("KV put() accepts only strings, ArrayBuffers, ArrayBufferViews, and ReadableStreams as values."))
		}
		if err := n.Put(key, Entry{Value: b, Expiration: expiration, Metadata: metadata}); err != nil {
			fail(err)
		}
	})
	_ = native.Set("delete", func(key string) {
		if err := n.Delete(key); err != nil {
			fail(err)
		}
	})
	_ = native.Set("list", func(prefix, cursor string, limit int) goja.Value {
		keys, next, err := n.List(prefix, cursor, limit)
		if err != nil {
			fail(err)
		}
		out := make([]any, len(keys))
		for i, k := range keys {
			o := rt.NewObject()
			_ = o.Set("name", k.Name)
			if k.Expiration != 0 {
				_ = o.Set("expiration", k.Expiration)
			}
			if k.Metadata != "" {
				_ = o.Set("metadata", k.Metadata)
			}
			out[i] = o
		}
		r := rt.NewObject()
		_ = r.Set("keys", rt.NewArray(out...))
		_ = r.Set("cursor", next)
		return r
	})
	_ = native.Set("now", func() int64 { return n.now() })
	v, err := fn(goja.Undefined(), native, rt.ToValue(name))
	if err != nil {
		return fmt.Errorf("bind kv %s: %w", name, err)
	}
	return env.Set(name, v)
}
