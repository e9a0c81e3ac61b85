package web

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"

	"github.com/cellhost/cellhost/jsapi/clone"
)

func BenchmarkInstallWeb(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := Install(goja.New(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClone_object(b *testing.B) {
	rt, _ := newWebRuntime(b)
	v := jstest.Run(b, rt, `({ id: 12345, name: "some name", tags: ["a", "b", "c"], nested: { x: 1.5, y: [1, 2, 3], when: new Date(0) }, m: new Map([["k", 1]]) })`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		data, err := clone.Serialize(rt, v)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := clone.Deserialize(rt, data); err != nil {
			b.Fatal(err)
		}
	}
}

// benchFn compiles src (a function expression) on a fresh web runtime.
func benchFn(b *testing.B, src string) (*goja.Runtime, goja.Callable) {
	b.Helper()
	rt, _ := newWebRuntime(b)
	f, ok := goja.AssertFunction(jstest.Run(b, rt, "("+src+")"))
	if !ok {
		b.Fatalf("%s: not a function", src)
	}
	return rt, f
}

// benchSettled returns a promise's value (goja has run its jobs when the
// outermost call returned) or v itself.
func benchSettled(b *testing.B, v goja.Value) goja.Value {
	if o, ok := v.(*goja.Object); ok {
		if p, ok := o.Export().(*goja.Promise); ok {
			if p.State() != goja.PromiseStateFulfilled {
				b.Fatalf("promise not fulfilled: %v", p.Result())
			}
			return p.Result()
		}
	}
	return v
}

// benchReq is a typical incoming request (what host/http.go hands over).
func benchReq() *HTTPRequest {
	return &HTTPRequest{Method: "GET", URL: "http://bench/x?name=alice", Header: [][2]string{
		{"accept", "*/*"}, {"user-agent", "bench/1.0"}, {"accept-encoding", "gzip"},
	}}
}

func BenchmarkWeb_NewRequest(b *testing.B) {
	rt, _ := newWebRuntime(b)
	r := benchReq()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewRequest(rt, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_NewResponseGo(b *testing.B) {
	rt, _ := newWebRuntime(b)
	r := &HTTPResponse{Status: 200, Header: [][2]string{{"content-type", "application/json"}}, Body: []byte(`{"n":1,"name":"alice"}`)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := NewResponse(rt, r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_ExportRequest(b *testing.B) {
	rt, _ := newWebRuntime(b)
	r := benchReq()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := NewRequest(rt, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ExportRequest(rt, v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWeb_NewResponseText is `new Response("hi ...")` alone.
func BenchmarkWeb_NewResponseText(b *testing.B) {
	_, f := benchFn(b, `function () { return new Response("hi /x"); }`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f(goja.Undefined()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_ExportResponse(b *testing.B) {
	rt, f := benchFn(b, `function () { return new Response("hi /x"); }`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := f(goja.Undefined())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ExportResponse(rt, v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_ResponseJSON(b *testing.B) {
	_, f := benchFn(b, `function (n) { return Response.json({ n, name: "alice" }); }`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f(goja.Undefined()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_URLPathname(b *testing.B) {
	rt, f := benchFn(b, `function (u) { return new URL(u).pathname; }`)
	u := rt.ToValue("http://bench/x?name=alice")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f(goja.Undefined(), u); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_URLSearchParam(b *testing.B) {
	rt, f := benchFn(b, `function (u) { return new URL(u).searchParams.get("name") ?? "default"; }`)
	u := rt.ToValue("http://bench/x?name=alice")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f(goja.Undefined(), u); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_Headers(b *testing.B) {
	_, f := benchFn(b, `function () {
		const h = new Headers({ "Content-Type": "text/plain", "X-A": "1", "x-b": "2" });
		h.set("x-c", "3");
		let n = h.get("content-type").length + (h.has("x-a") ? 1 : 0);
		for (const [k, v] of h) n += k.length + v.length;
		return n;
	}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := f(goja.Undefined()); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_RequestHeadersGet(b *testing.B) {
	rt, f := benchFn(b, `function (req) { return req.headers.get("user-agent"); }`)
	r := benchReq()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := NewRequest(rt, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f(goja.Undefined(), v); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWeb_RequestJSON(b *testing.B) {
	rt, f := benchFn(b, `async function (req) { const o = await req.json(); return o.n; }`)
	r := &HTTPRequest{Method: "POST", URL: "http://bench/x", Header: [][2]string{{"content-type", "application/json"}}, Body: []byte(`{"n":1,"name":"alice"}`)}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := NewRequest(rt, r)
		if err != nil {
			b.Fatal(err)
		}
		res, err := f(goja.Undefined(), v)
		if err != nil {
			b.Fatal(err)
		}
		benchSettled(b, res)
	}
}

// BenchmarkWeb_StatelessFetch is host/BenchmarkHost_StatelessFetch's JS
// work without the loop: NewRequest, the handler, ExportResponse.
func BenchmarkWeb_StatelessFetch(b *testing.B) {
	rt, f := benchFn(b, `function (req) { return new Response("hi " + new URL(req.url).pathname); }`)
	r := &HTTPRequest{Method: "GET", URL: "http://bench/x"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		v, err := NewRequest(rt, r)
		if err != nil {
			b.Fatal(err)
		}
		res, err := f(goja.Undefined(), v)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ExportResponse(rt, res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWeb_CounterPath is the bridge work of one counter increment of
// examples/counter through the worker (storage left out): the worker reads
// the name from the URL and forwards the request to the object
// (ExportRequest, NewRequest), the object looks for ?peek and answers with
// Response.json, which crosses back (ExportResponse, NewResponse) and is
// returned by the worker (ExportResponse).
func BenchmarkWeb_CounterPath(b *testing.B) {
	rt, worker := benchFn(b, `function (req) { return new URL(req.url).searchParams.get("name") ?? "default"; }`)
	obj, ok := goja.AssertFunction(jstest.Run(b, rt, `(function (request, n) {
		const url = new URL(request.url);
		if (url.searchParams.has("peek")) return null;
		return Response.json({ n, name: "alice", id: "0123456789abcdef" });
	})`))
	if !ok {
		b.Fatal("not a function")
	}
	r := &HTTPRequest{Method: "GET", URL: "http://bench/"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		req, err := NewRequest(rt, r)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := worker(goja.Undefined(), req); err != nil {
			b.Fatal(err)
		}
		fwd, err := ExportRequest(rt, req)
		if err != nil {
			b.Fatal(err)
		}
		oreq, err := NewRequest(rt, fwd)
		if err != nil {
			b.Fatal(err)
		}
		res, err := obj(goja.Undefined(), oreq, rt.ToValue(i))
		if err != nil {
			b.Fatal(err)
		}
		out, err := ExportResponse(rt, res)
		if err != nil {
			b.Fatal(err)
		}
		back, err := NewResponse(rt, out)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ExportResponse(rt, back); err != nil {
			b.Fatal(err)
		}
	}
}
