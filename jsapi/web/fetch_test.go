package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// fetchServer is a loopback server for the fetch tests.
func fetchServer(t *testing.T, more chan struct{}, hold chan struct{}) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Method", r.Method)
		w.Header().Set("X-Got", r.Header.Get("X-Send"))
		w.Header().Add("Set-Cookie", "a=1")
		w.Header().Add("Set-Cookie", "b=2")
		w.WriteHeader(201)
		_, _ = w.Write(b)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-more
		_, _ = io.WriteString(w, "second")
	})
	mux.HandleFunc("/hold", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestFetch(t *testing.T) {
	more, hold := make(chan struct{}), make(chan struct{})
	srv := fetchServer(t, more, hold)
	defer close(hold)
	rt, _ := newWebRuntime(t)
	l := newTestLoop(t, rt)
	jstest.Run(t, rt, tryJS)
	_ = rt.Set("base", srv.URL)
	run := func(src string) string {
		t.Helper()
		v, err := rt.RunString(src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		return l.settle(t, rt, v)
	}
	for _, c := range [][2]string{
		{`fetch(base + "/echo", { method: "POST", body: "hi", headers: { "x-send": "v" } }).then(async r => [r.status, r.statusText, r.ok, r.headers.get("x-method"), r.headers.get("x-got"), r.headers.getSetCookie().join("|"), await r.text(), r.url === base + "/echo", r.redirected].join())`,
			"201,Created,true,POST,v,a=1|b=2,hi,true,false"},
		{`fetch(new Request(base + "/echo", { method: "PUT", body: ReadableStream.from([new Uint8Array([115, 116]), new Uint8Array([114])]) })).then(r => r.text())`, "str"},
		{`fetch(base + "/redirect").then(async r => [r.status, r.redirected, r.url === base + "/echo", r.headers.get("x-method")].join())`, "201,true,true,GET"},
		{`fetch(base + "/redirect", { redirect: "manual" }).then(r => [r.status, r.headers.get("location"), r.redirected].join())`, "302,/echo,false"},
		{`attemptAsync(() => fetch(base + "/loop"))`, "TypeError: Too many redirects."},
		{`attemptAsync(() => fetch("ftp://x/"))`, "TypeError: Fetch API cannot load: ftp://x/"},
		{`attemptAsync(() => fetch(base + "/echo", { signal: AbortSignal.abort() }))`, "AbortError: The operation was aborted."},
		{`fetch(base + "/echo", { method: "HEAD" }).then(r => String(r.body))`, "null"},
		{`fetch(base + "/echo", { method: "POST", body: "x" }).then(r => r.body.pipeThrough(new TextDecoderStream()).getReader().read()).then(x => x.value)`, "x"},
	} {
		if got := run(c[0]); got != c[1] {
			t.Errorf("%s\n got  %s\n want %s", c[0], got, c[1])
		}
	}

	// The body streams: the first chunk arrives before the server ends.
	if got := run(`fetch(base + "/drip").then(r => { globalThis.rd = r.body.getReader(); return rd.read(); }).then(x => new TextDecoder().decode(x.value))`); got != "first" {
		t.Fatalf("first chunk: %q", got)
	}
	close(more)
	if got := run(`(async () => { let s = ""; for (;;) { const { value, done } = await rd.read(); if (done) return s; s += new TextDecoder().decode(value); } })()`); got != "second" {
		t.Fatalf("rest: %q", got)
	}

	// An abort while the request is under way rejects with the reason.
	v, err := rt.RunString(`const ac = new AbortController(); const p = attemptAsync(() => fetch(base + "/hold", { signal: ac.signal })); globalThis.abortNow = () => ac.abort(); p`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rt.RunString(`abortNow()`); err != nil {
		t.Fatal(err)
	}
	if got := l.settle(t, rt, v); !strings.HasPrefix(got, "AbortError") {
		t.Fatalf("abort: %s", got)
	}
}
