package web

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

func TestCacheTTL(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	date := now.Format(http.TimeFormat)
	for _, c := range []struct {
		name    string
		status  int
		headers []string
		want    time.Duration
	}{
		{"no headers", 200, nil, 0},
		{"max-age", 200, []string{"Cache-Control", "max-age=60"}, time.Minute},
		{"s-maxage wins", 200, []string{"cache-control", "max-age=60, s-maxage=10"}, 10 * time.Second},
		{"age subtracted", 200, []string{"cache-control", "max-age=60", "age", "20"}, 40 * time.Second},
		{"expires", 200, []string{"date", date, "expires", now.Add(time.Hour).Format(http.TimeFormat)}, time.Hour},
		{"last-modified heuristic", 200, []string{"date", date, "last-modified", now.Add(-100 * time.Second).Format(http.TimeFormat)}, 10 * time.Second},
		{"no-store", 200, []string{"cache-control", "no-store, max-age=60"}, 0},
		{"private", 200, []string{"cache-control", "private, max-age=60"}, 0},
		{"no-cache", 200, []string{"cache-control", "no-cache, max-age=60"}, 0},
		{"set-cookie", 200, []string{"cache-control", "max-age=60", "set-cookie", "a=1"}, 0},
		{"private=set-cookie drops the cookie", 200, []string{"cache-control", "max-age=60, private=Set-Cookie", "set-cookie", "a=1"}, time.Minute},
		{"404 with max-age", 404, []string{"cache-control", "max-age=5"}, 5 * time.Second},
		{"500 is never stored", 500, []string{"cache-control", "max-age=5"}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, hs := cacheTTL(c.status, c.headers, now)
			if got != c.want {
				t.Errorf("ttl = %v, want %v", got, c.want)
			}
			for i := 0; i+1 < len(hs); i += 2 {
				if hs[i] == "set-cookie" {
					t.Errorf("stored headers keep set-cookie: %q", hs)
				}
			}
		})
	}
}

func TestCacheStorage_expiryAndEviction(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewCacheStorage(10, func() time.Time { return now })
	k := func(u string) cacheKey { return cacheKey{url: u} }
	hs := []string{"cache-control", "max-age=60"}
	if !c.put(k("a"), 200, "OK", hs, []byte("12345")) || !c.put(k("b"), 200, "OK", hs, []byte("12345")) {
		t.Fatal("put refused")
	}
	if c.match(k("a")) == nil || c.match(k("b")) == nil {
		t.Fatal("both fit in 10 bytes")
	}
	c.put(k("c"), 200, "OK", hs, []byte("1"))
	if c.match(k("a")) != nil || c.match(k("b")) == nil || c.match(k("c")) == nil {
		t.Error("the oldest entry is not the one evicted")
	}
	if (cacheKey{cache: "n:x", url: "b"}) == k("b") || c.match(cacheKey{cache: "n:x", url: "b"}) != nil {
		t.Error("a named cache sees the default cache's entry")
	}
	now = now.Add(time.Minute)
	if c.match(k("b")) != nil {
		t.Error("entry matched at its expiry")
	}
	if c.delete(k("c")) || c.bytes != 0 {
		t.Errorf("delete of expired entry reported true or left %d bytes", c.bytes)
	}
}

// TestCache_JS: put, match and delete through caches.default and
// caches.open on two runtimes sharing one store.
func TestCache_JS(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	store := NewCacheStorage(1<<20, func() time.Time { return now })
	install := func(rt *goja.Runtime, console io.Writer) error {
		return Install(rt, Options{Console: console, Cache: store})
	}
	rt1, _ := jstest.NewRuntime(t, install)
	rt2, _ := jstest.NewRuntime(t, install)
	jstest.Run(t, rt1, tryJS)
	jstest.Run(t, rt2, tryJS)
	jsCases(t, rt1, [][2]string{
		{`attemptAsync(async () => { const r = new Response("hello", { status: 203, statusText: "Made", headers: { "cache-control": "max-age=60", "x-a": "1" } }); await caches.default.put("http://h.test/a", r); return r.bodyUsed; })`, "true"},
		{`attemptAsync(() => caches.default.put(new Request("http://h.test/nostore"), new Response("x", { headers: { "cache-control": "no-store" } })))`, "undefined"},
		{`attemptAsync(async () => { const c = await caches.open("named"); await c.put("http://h.test/a", new Response("named", { headers: { "cache-control": "max-age=60" } })); return "ok"; })`, "ok"},
	})
	jsCases(t, rt2, [][2]string{
		{`attemptAsync(async () => { const m = await caches.default.match("http://h.test/a"); return [m.status, m.statusText, m.headers.get("x-a"), m.headers.get("cf-cache-status"), await m.text()].join(); })`, "203,Made,1,HIT,hello"},
		{`attemptAsync(async () => { const m = await caches.default.match(new Request("http://h.test/a", { headers: { accept: "x" } })); return m.status; })`, "203"},
		{`attemptAsync(async () => String(await caches.default.match("http://h.test/nostore")))`, "undefined"},
		{`attemptAsync(async () => await (await (await caches.open("named")).match("http://h.test/a")).text())`, "named"},
		{`attemptAsync(async () => String(await caches.default.match(new Request("http://h.test/a", { method: "POST" }), { ignoreMethod: true })))`, "[object Response]"},
		{`attemptAsync(async () => [await caches.default.delete("http://h.test/a"), await caches.default.delete("http://h.test/a"), String(await caches.default.match("http://h.test/a"))].join())`, "true,false,undefined"},
	})
	now = now.Add(time.Hour)
	jsCases(t, rt1, [][2]string{
		{`attemptAsync(async () => String(await (await caches.open("named")).match("http://h.test/a")))`, "undefined"},
	})
}
