package web

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// The per-runtime URL caches stay bounded and never keep long URLs.
func TestWeb_urlCachesBounded(t *testing.T) {
	rt, _ := newWebRuntime(t)
	st := stateOf(rt)
	for i := 0; i < 3*cacheMax; i++ {
		u := "http://h.test/p?i=" + strconv.Itoa(i)
		v, err := NewRequest(rt, &HTTPRequest{URL: u})
		if err != nil {
			t.Fatal(err)
		}
		rt.Set("req", v)
		if got := jstest.Run(t, rt, `new URL(req.url).searchParams.get("i")`).String(); got != strconv.Itoa(i) {
			t.Fatalf("i = %s, want %d", got, i)
		}
	}
	if len(st.hrefs) > cacheMax || len(st.records) > cacheMax {
		t.Errorf("caches hold %d hrefs and %d records, want at most %d", len(st.hrefs), len(st.records), cacheMax)
	}
	long := "http://h.test/" + strings.Repeat("a", cacheMaxLen)
	v, err := NewRequest(rt, &HTTPRequest{URL: long})
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("req", v)
	if got := jstest.Run(t, rt, `new URL(req.url).pathname.length`).ToInteger(); got != int64(len(long)-len("http://h.test")) {
		t.Errorf("pathname length %d", got)
	}
	if _, ok := st.hrefs[long]; ok {
		t.Error("a long URL was cached")
	}
	if _, ok := st.records[long]; ok {
		t.Error("a long URL's record was cached")
	}
}

// Requests and responses cross between runtimes on different goroutines
// (as between shards): header lists and Go bodies must not be shared in a
// way the race detector sees.
func TestWeb_bridgeAcrossRuntimes(t *testing.T) {
	const rounds = 200
	toB := make(chan *HTTPResponse)
	toA := make(chan *HTTPResponse)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(2)
	go func() { // A makes responses in JS, sends them, and reads what comes back
		defer wg.Done()
		defer close(toB)
		rt := goja.New()
		if err := Install(rt, Options{}); err != nil {
			errs <- err
			return
		}
		mk, _ := goja.AssertFunction(mustRun(rt, `(function (i) {
			const r = new Response("body " + i, { headers: { "X-I": String(i), "set-cookie": "a=" + i } });
			r.headers.append("x-i", "again");
			return r;
		})`))
		check, _ := goja.AssertFunction(mustRun(rt, `(function (r, i) {
			r.headers.get("x-i");
			const c = r.clone();
			return c.text().then(() => r.text());
		})`))
		for i := 0; i < rounds; i++ {
			v, err := mk(goja.Undefined(), rt.ToValue(i))
			if err != nil {
				errs <- err
				return
			}
			out, err := ExportResponse(rt, v)
			if err != nil {
				errs <- err
				return
			}
			toB <- out
			back, ok := <-toA
			if !ok {
				return // B failed
			}
			rv, err := NewResponse(rt, back)
			if err != nil {
				errs <- err
				return
			}
			if _, err := check(goja.Undefined(), rv, rt.ToValue(i)); err != nil {
				errs <- err
				return
			}
			if string(back.Body) != "body "+strconv.Itoa(i) {
				errs <- errors.New("round " + strconv.Itoa(i) + ": body " + string(back.Body))
				return
			}
		}
	}()
	go func() { // B reads each response in JS and returns it
		defer wg.Done()
		defer close(toA)
		rt := goja.New()
		if err := Install(rt, Options{}); err != nil {
			errs <- err
			return
		}
		fwd, _ := goja.AssertFunction(mustRun(rt, `(function (r) {
			const h = [...r.headers];
			return new Response(r.body, { status: r.status, headers: h });
		})`))
		for out := range toB {
			v, err := NewResponse(rt, out)
			if err != nil {
				errs <- err
				return
			}
			r, err := fwd(goja.Undefined(), v)
			if err != nil {
				errs <- err
				return
			}
			back, err := ExportResponse(rt, r)
			if err != nil {
				errs <- err
				return
			}
			toA <- back
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func mustRun(rt *goja.Runtime, src string) goja.Value {
	v, err := rt.RunString(src)
	if err != nil {
		panic(err)
	}
	return v
}

// A request's cf from Go (HTTPRequest.CF) is parsed only when the program
// reads it: an unread cf leaves with the very JSON it came with (spacing
// and key order kept, so nothing re-stringified it); a read one is one
// object, whose changes leave with the request; a clone gets its own copy;
// new Request(req) shares it, as before.
func TestWeb_requestCFLazy(t *testing.T) {
	rt, _ := newWebRuntime(t)
	const cf = `{"z": 1,  "a": {"b": [1, 2]}}`
	in := func() goja.Value {
		v, err := NewRequest(rt, &HTTPRequest{URL: "http://h.test/", CF: cf})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	out := func(v goja.Value) string {
		r, err := ExportRequest(rt, v)
		if err != nil {
			t.Fatal(err)
		}
		return r.CF
	}
	if got := out(in()); got != cf {
		t.Errorf("unread cf left as %q, want %q", got, cf)
	}
	rt.Set("req", in())
	if got := mustRun(rt, `req.cf === req.cf && req.cf.a.b[1] === 2 && Object.keys(req.cf).join()`).String(); got != "z,a" {
		t.Errorf("read cf: %s", got)
	}
	mustRun(rt, `req.cf.added = true`)
	if got := out(rt.Get("req")); got != `{"z":1,"a":{"b":[1,2]},"added":true}` {
		t.Errorf("changed cf left as %q", got)
	}
	rt.Set("req", in())
	if got := mustRun(rt, `const c = req.clone(); c.cf.z = 2; [req.cf.z, c.cf.z, c.cf !== req.cf].join()`).String(); got != "1,2,true" {
		t.Errorf("clone: %s", got)
	}
	rt.Set("req", in())
	if got := mustRun(rt, `const n = new Request(req); n.cf === req.cf && n.cf.a.b.length`).String(); got != "2" {
		t.Errorf("new Request(req): %s", got)
	}
	rt.Set("req", in())
	if got := out(mustRun(rt, `req.clone()`)); got != cf {
		t.Errorf("clone of an unread cf left as %q", got)
	}
}
