package web

import (
	"testing"
)

// One line per area, with the values workerd gives.
func TestWeb_smoke(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jsCases(t, rt, [][2]string{
		{`JSON.stringify([...new Headers({"X-B": "2", "x-a": "1"})])`, `[["x-a","1"],["x-b","2"]]`},
		{`new URL("https://user:pw@Example.COM:443/a/./b/../c%20d?x=1&y=%20z#frag").href`, "https://user:pw@example.com/a/c%20d?x=1&y=%20z#frag"},
		{`new URL("../up?q", "http://h.test/dir/sub/page").href`, "http://h.test/dir/up?q"},
		{`new Response("x").headers.get("content-type")`, "text/plain;charset=UTF-8"},
		{`(async () => { const r = new Request("http://x/y", {method: "post", body: "hi"}); return r.method + " " + await r.text() + " " + r.bodyUsed })()`, "POST hi true"},
		{`(async () => { try { await new Request("http://x/", {method:"POST", body:"not json"}).json() } catch (e) { return e.name + ": " + e.message } })()`, `SyntaxError: Unexpected token 'o', "not json" is not valid JSON`},
		{`try { JSON.parse("{a:1}") } catch (e) { e.message }`, "Expected property name or '}' in JSON at position 1 (line 1 column 2)"},
		{`String(structuredClone(new Map([[1, {a: 2}]])).get(1).a)`, "2"},
		{`/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID())`, "true"},
		{`new TextDecoder().decode(new Uint8Array([0x61, 0xff, 0x62]))`, "a\ufffdb"},
	})
}
