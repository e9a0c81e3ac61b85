package r2

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/dop251/goja"
)

//go:embed r2.js
var r2JS string

var r2Program = goja.MustCompile("cellhost:r2", r2JS, true)

func str(o *goja.Object, name string) string {
	if o == nil {
		return ""
	}
	v := o.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

func num(o *goja.Object, name string) int64 {
	if o == nil {
		return 0
	}
	v := o.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	return v.ToInteger()
}

func obj(rt *goja.Runtime, v goja.Value) *goja.Object {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	return v.ToObject(rt)
}

func bytesOf(v goja.Value) []byte {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	if ab, ok := v.Export().(goja.ArrayBuffer); ok {
		return append([]byte{}, ab.Bytes()...)
	}
	if b, ok := v.Export().([]byte); ok {
		return append([]byte{}, b...)
	}
	return []byte(v.String())
}

func conditions(rt *goja.Runtime, v goja.Value) Conditions {
	o := obj(rt, v)
	return Conditions{EtagMatches: str(o, "etagMatches"), EtagDoesNotMatch: str(o, "etagDoesNotMatch"),
		UploadedBeforeMs: num(o, "uploadedBefore"), UploadedAfter: num(o, "uploadedAfter")}
}

func metaJS(rt *goja.Runtime, o *Object) *goja.Object {
	r := rt.NewObject()
	m := o.Meta
	_ = r.Set("key", o.Key)
	_ = r.Set("version", m.Version)
	_ = r.Set("size", m.Size)
	_ = r.Set("etag", m.ETag)
	_ = r.Set("uploaded", m.UploadedMs)
	h := rt.NewObject()
	for _, f := range [][2]string{{"contentType", m.HTTP.ContentType}, {"contentLanguage", m.HTTP.ContentLanguage},
		{"contentDisposition", m.HTTP.ContentDisposition}, {"contentEncoding", m.HTTP.ContentEncoding}, {"cacheControl", m.HTTP.CacheControl}} {
		if f[1] != "" {
			_ = h.Set(f[0], f[1])
		}
	}
	if m.HTTP.CacheExpiryMs != 0 {
		_ = h.Set("cacheExpiry", m.HTTP.CacheExpiryMs)
	}
	_ = r.Set("http", h)
	c := rt.NewObject()
	for k, v := range m.Custom {
		_ = c.Set(k, v)
	}
	_ = r.Set("custom", c)
	return r
}

// Bind sets env[name] to an R2Bucket object of rt backed by b. Call it on
// rt's goroutine (host.Config.Bind). The store calls run synchronously on
// that goroutine; the methods return promises, as R2's do.
func Bind(rt *goja.Runtime, env *goja.Object, name string, b *Bucket) error {
	fv, err := rt.RunProgram(r2Program)
	if err != nil {
		return fmt.Errorf("bind r2 %s: %w", name, err)
	}
	fn, _ := goja.AssertFunction(fv)
	ctx := context.Background()
	native := rt.NewObject()
	fail := func(err error) { panic(rt.NewGoError(err)) }
	_ = native.Set("get", func(key string, onlyIf, rng goja.Value) goja.Value {
		var r *Range
		if ro := obj(rt, rng); ro != nil {
			r = &Range{Offset: num(ro, "offset"), Length: -1, Suffix: num(ro, "suffix")}
			if l := ro.Get("length"); l != nil && !goja.IsUndefined(l) {
				r.Length = l.ToInteger()
			}
		}
		o, ok, applied, err := b.Get(ctx, key, conditions(rt, onlyIf), r)
		if err != nil {
			fail(err)
		}
		if o == nil {
			return goja.Null()
		}
		m := metaJS(rt, o)
		if ok {
			_ = m.Set("body", rt.NewArrayBuffer(o.Body))
			ro := rt.NewObject()
			_ = ro.Set("offset", applied.Offset)
			_ = ro.Set("length", applied.Length)
			_ = m.Set("range", ro)
		}
		return m
	})
	_ = native.Set("head", func(key string) goja.Value {
		o, err := b.Head(ctx, key)
		if err != nil {
			fail(err)
		}
		if o == nil {
			return goja.Null()
		}
		return metaJS(rt, o)
	})
	_ = native.Set("put", func(key string, body goja.Value, http, custom, onlyIf, md5 goja.Value) goja.Value {
		opts := PutOptions{OnlyIf: conditions(rt, onlyIf), MD5: bytesOf(md5)}
		if md5 != nil && !goja.IsUndefined(md5) && !goja.IsNull(md5) && opts.MD5 == nil {
			opts.MD5 = []byte{}
		}
		h := obj(rt, http)
		opts.HTTP = HTTPMetadata{ContentType: str(h, "contentType"), ContentLanguage: str(h, "contentLanguage"),
			ContentDisposition: str(h, "contentDisposition"), ContentEncoding: str(h, "contentEncoding"),
			CacheControl: str(h, "cacheControl"), CacheExpiryMs: num(h, "cacheExpiry")}
		if c := obj(rt, custom); c != nil {
			opts.Custom = map[string]string{}
			for _, k := range c.Keys() {
				opts.Custom[k] = c.Get(k).String()
			}
		}
		o, err := b.Put(ctx, key, bytesOf(body), opts)
		if err != nil {
			fail(err)
		}
		if o == nil {
			return goja.Null()
		}
		return metaJS(rt, o)
	})
	_ = native.Set("delete", func(keys []string) {
		if err := b.Delete(ctx, keys); err != nil {
			fail(err)
		}
	})
	_ = native.Set("list", func(opts goja.Value) goja.Value {
		o := obj(rt, opts)
		lo := ListOptions{Prefix: str(o, "prefix"), Delimiter: str(o, "delimiter"), Cursor: str(o, "cursor"),
			StartAfter: str(o, "startAfter"), Limit: int(num(o, "limit"))}
		res, err := b.List(ctx, lo)
		if err != nil {
			fail(err)
		}
		objs := make([]any, len(res.Objects))
		for i, x := range res.Objects {
			objs[i] = metaJS(rt, x)
		}
		prefixes := make([]any, len(res.DelimitedPrefixes))
		for i, p := range res.DelimitedPrefixes {
			prefixes[i] = p
		}
		r := rt.NewObject()
		_ = r.Set("objects", rt.NewArray(objs...))
		_ = r.Set("delimitedPrefixes", rt.NewArray(prefixes...))
		_ = r.Set("truncated", res.Truncated)
		if res.Truncated {
			_ = r.Set("cursor", res.Cursor)
		}
		return r
	})
	v, err := fn(goja.Undefined(), native, rt.ToValue(name))
	if err != nil {
		return fmt.Errorf("bind r2 %s: %w", name, err)
	}
	return env.Set(name, v)
}
