package web

import (
	"testing"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

func TestWebSmoke(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, src := range []string{
		`JSON.stringify([...new Headers({"X-B": "2", "x-a": "1"})])`,
		`new URL("https://user:pw@Example.COM:443/a/./b/../c%20d?x=1&y=%20z#frag").href`,
		`new URL("../up?q", "http://h.test/dir/sub/page").href`,
		`new Response("x").headers.get("content-type")`,
		`(async () => { const r = new Request("http://x/y", {method: "post", body: "hi"}); return r.method + " " + await r.text() + " " + r.bodyUsed })()`,
		`(async () => { try { await new Request("http://x/", {method:"POST", body:"not json"}).json() } catch (e) { return e.name + ": " + e.message } })()`,
		`try { JSON.parse("{a:1}") } catch (e) { e.message }`,
		`String(structuredClone(new Map([[1, {a: 2}]])).get(1).a)`,
		`crypto.randomUUID().length`,
		`new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62]))`,
	} {
		t.Logf("%s => %v", src, jstest.Run(t, rt, src))
	}
}
