package r2

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/third_party/goja"
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
	if m.Multipart {
		_ = r.Set("multipart", true)
	}
	if len(m.Checksums) > 0 {
		sums := rt.NewObject()
		for k, v := range m.Checksums {
			_ = sums.Set(k, v)
		}
		_ = r.Set("checksums", sums)
	}
	return r
}

// httpOf reads an R2HTTPMetadata object made by r2.js.
func httpOf(rt *goja.Runtime, v goja.Value) HTTPMetadata {
	h := obj(rt, v)
	return HTTPMetadata{ContentType: str(h, "contentType"), ContentLanguage: str(h, "contentLanguage"),
		ContentDisposition: str(h, "contentDisposition"), ContentEncoding: str(h, "contentEncoding"),
		CacheControl: str(h, "cacheControl"), CacheExpiryMs: num(h, "cacheExpiry")}
}

// customOf reads customMetadata (nil when absent).
func customOf(rt *goja.Runtime, v goja.Value) map[string]string {
	c := obj(rt, v)
	if c == nil {
		return nil
	}
	out := map[string]string{}
	for _, k := range c.Keys() {
		out[k] = c.Get(k).String()
	}
	return out
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
	// R2's errors are plain Errors whose message ends in R2's code.
	errorCtor := rt.Get("Error")
	fail := func(err error) {
		e, nerr := rt.New(errorCtor, rt.ToValue(err.Error()))
		if nerr != nil {
			panic(rt.NewGoError(err))
		}
		panic(e)
	}
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
		// The body was read whole from the store: before it reaches JS,
		// the object's memory limit approves it (the goja fork's
		// allocation hook; issue 23). Refused: V8's RangeError.
		if ok {
			if err := jserr.Allocate(rt, int64(len(o.Body)), goja.AllocArrayBuffer); err != nil {
				jserr.Throw(rt, err)
			}
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
	_ = native.Set("put", func(key string, body goja.Value, http, custom, onlyIf, md5, shaName, sha goja.Value) goja.Value {
		opts := PutOptions{OnlyIf: conditions(rt, onlyIf), MD5: bytesOf(md5), HTTP: httpOf(rt, http), Custom: customOf(rt, custom)}
		if md5 != nil && !goja.IsUndefined(md5) && !goja.IsNull(md5) && opts.MD5 == nil {
			opts.MD5 = []byte{}
		}
		if shaName != nil && !goja.IsUndefined(shaName) {
			opts.SHAName, opts.SHA = shaName.String(), bytesOf(sha)
			if opts.SHA == nil {
				opts.SHA = []byte{}
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
	prefixed := func(method string, err error) {
		if errors.Is(err, ErrNoSuchUpload) || errors.Is(err, ErrInvalidPart) || errors.Is(err, ErrEntityTooSmall) ||
			errors.Is(err, ErrBadUpload) || errors.Is(err, ErrInternal) {
			err = fmt.Errorf("%s: %w", method, err)
		}
		fail(err)
	}
	_ = native.Set("createUpload", func(key string, http, custom goja.Value) string {
		id, err := b.CreateMultipartUpload(ctx, key, httpOf(rt, http), customOf(rt, custom))
		if err != nil {
			prefixed("createMultipartUpload", err)
		}
		return id
	})
	_ = native.Set("uploadPart", func(key, id string, n int, body goja.Value) string {
		etag, err := b.UploadPart(ctx, key, id, n, bytesOf(body))
		if err != nil {
			prefixed("uploadPart", err)
		}
		return etag
	})
	_ = native.Set("abortUpload", func(key, id string) {
		if err := b.AbortMultipartUpload(ctx, key, id); err != nil {
			prefixed("abortMultipartUpload", err)
		}
	})
	_ = native.Set("completeUpload", func(key, id string, parts goja.Value) goja.Value {
		var ps []UploadedPart
		if po := obj(rt, parts); po != nil {
			n := int(num(po, "length"))
			for i := 0; i < n; i++ {
				p := obj(rt, po.Get(strconv.Itoa(i)))
				ps = append(ps, UploadedPart{PartNumber: int(num(p, "partNumber")), ETag: str(p, "etag")})
			}
		}
		o, err := b.CompleteMultipartUpload(ctx, key, id, ps)
		if err != nil {
			prefixed("completeMultipartUpload", err)
		}
		return metaJS(rt, o)
	})
	v, err := fn(goja.Undefined(), native, rt.ToValue(name))
	if err != nil {
		return fmt.Errorf("bind r2 %s: %w", name, err)
	}
	return env.Set(name, v)
}
