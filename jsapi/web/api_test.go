package web

import (
	"errors"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// jsCases runs each expression (optionally async) and compares String(result).
func jsCases(t *testing.T, rt *goja.Runtime, cases [][2]string) {
	t.Helper()
	for _, c := range cases {
		if got := jstest.Run(t, rt, c[0]).String(); got != c[1] {
			t.Errorf("%s\n got  %s\n want %s", c[0], got, c[1])
		}
	}
}

const tryJS = `function attempt(f) { try { return String(f()); } catch (e) { return e.name + ": " + e.message; } }
async function attemptAsync(f) { try { return String(await f()); } catch (e) { return e.name + ": " + e.message; } }`

func TestWeb_Headers(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`attempt(() => new Headers([["a", "1", "2"]]))`, "TypeError: To initialize a Headers object from a sequence, each inner sequence must have exactly two elements."},
		{`attempt(() => new Headers({ a: "x\ny" }))`, "TypeError: Invalid header value."},
		{`new Headers({ a: "  padded\t" }).get("A")`, "padded"},
		{`attempt(() => new Headers().get("bad name"))`, "TypeError: Invalid header name."},
		{`attempt(() => new Headers().getAll("x"))`, `TypeError: getAll() can only be used with the header name "Set-Cookie".`},
		{`JSON.stringify([...new Headers(new Headers([["B", "1"], ["a", "2"]])).entries()])`, `[["a","2"],["b","1"]]`},
		{`(() => { const h = new Headers({ x: "1" }); const out = []; h.forEach((v, k, o) => out.push(k + "=" + v + (o === h))); return out.join(); })()`, "x=1true"},
		{`Object.prototype.toString.call(new Headers())`, "[object Headers]"},
		{`attempt(() => Response.redirect("http://x/").headers.set("a", "b"))`, "TypeError: Can't modify immutable headers."},
	})
}

func TestWeb_Request(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`attempt(() => new Request("/relative"))`, "TypeError: Invalid URL: /relative"},
		{`attempt(() => new Request("http://x/", { method: "GET", body: "b" }))`, "TypeError: Request with a GET or HEAD method cannot have a body."},
		{`attempt(() => new Request("http://x/", { method: "bogus" }))`, "TypeError: Invalid HTTP method string: bogus"},
		{`new Request("http://x/", { method: "patch" }).method`, "PATCH"},
		{`new Request(new URL("http://X.test/a b")).url`, "http://x.test/a%20b"},
		{`attempt(() => new Request("http://x/", { redirect: "error" }).redirect)`, `TypeError: Invalid redirect value, must be one of "follow" or "manual" ("error" won't be implemented since it does not make sense at the edge; use "manual" and check the response status code).`},
		{`new Request("http://x/").redirect + " " + new Request("http://x/").signal.aborted`, "follow false"},
		{`new Request("http://x/", { method: "POST", body: new URLSearchParams("a=1&b=2") }).headers.get("content-type")`, "application/x-www-form-urlencoded;charset=UTF-8"},
		{`new Request("http://x/", { method: "POST", body: new Uint8Array([1]) }).headers.get("content-type")`, "null"},
		{`attemptAsync(async () => { const a = new Request("http://x/", { method: "POST", body: "abc" }); const b = new Request(a); return [a.bodyUsed, await b.text(), b.method].join(); })`, "true,abc,POST"},
		{`attemptAsync(async () => { const a = new Request("http://x/", { method: "POST", body: "abc" }); await a.text(); return new Request(a); })`, "TypeError: Cannot reconstruct a Request with a used body."},
		{`attemptAsync(async () => { const a = new Request("http://x/", { method: "POST", body: "abc", headers: { "x-h": "1" } }); const b = new Request("http://y/", a); return [b.url, b.method, b.headers.get("x-h"), await b.text()].join(); })`, "http://y/,POST,1,abc"},
		{`attemptAsync(async () => { const a = new Request("http://x/", { method: "PUT", body: "abc" }); const c = a.clone(); return [await a.text(), await c.text()].join(); })`, "abc,abc"},
		{`attemptAsync(async () => { const r = new Request("http://x/", { method: "POST", body: '{"a":1}' }); return JSON.stringify(await r.json()) + r.bodyUsed; })`, `{"a":1}true`},
		{`attemptAsync(async () => { const r = new Request("http://x/", { method: "POST", body: "" }); await r.arrayBuffer(); return r.text(); })`, "TypeError: Body has already been used. It can only be used once. Use tee() first if you need to read it twice."},
		{`attemptAsync(async () => new Request("http://x/").text())`, ""},
		{`attemptAsync(async () => { const r = new Request("http://x/", { method: "POST", body: "xy" }); const rd = r.body.getReader(); const a = await rd.read(); const b = await rd.read(); return [a.value.length, a.done, b.done, r.bodyUsed].join(); })`, "2,false,true,true"},
		{`attemptAsync(async () => { const r = new Request("http://x/", { method: "POST", body: "xy" }); return new Response(r.body).text(); })`, "xy"},
		{`attemptAsync(async () => new Request("http://x/", { method: "POST", body: "x" }).formData())`, "TypeError: Unrecognized Content-Type header value. FormData can only parse the following MIME types: multipart/form-data, application/x-www-form-urlencoded"},
		{`attempt(() => new Response(new ReadableStream()))`, "[object Response]"},
		{`attempt(() => { const s = new ReadableStream(); s.getReader(); return new Response(s); })`, "TypeError: This ReadableStream is locked to a reader, and cannot be used as a body."},
	})
}

func TestWeb_Response(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`[new Response().status, new Response().statusText, new Response(null, { status: 418 }).statusText, new Response(null, { status: 299 }).statusText, new Response(null, { status: 200, statusText: "Fine" }).statusText].join("|")`, "200|OK|I'm a teapot|Successful|Fine"},
		{`attempt(() => new Response("x", { status: 204 }))`, "TypeError: Response with null body status (101, 204, 205, or 304) cannot have a body."},
		{`new Response("", { status: 204 }).body`, "null"},
		{`attempt(() => new Response(null, { status: 101 }))`, "RangeError: Responses may only be constructed with status codes in the range 200 to 599, inclusive."},
		{`attempt(() => new Response(null, { status: 200, webSocket: {} }))`, "RangeError: Responses with a WebSocket must have status code 101."},
		{`new Response(null, { status: 101, webSocket: { ws: 1 } }).webSocket.ws`, "1"},
		{`attempt(() => new Response(null, { statusText: "a\nb" }))`, "TypeError: Invalid statusText"},
		{`attempt(() => Response.redirect("http://x/", 200))`, "RangeError: 200 is not a redirect status code. It must be one of: 301, 302, 303, 307, or 308."},
		{`attempt(() => Response.redirect("/rel"))`, "TypeError: Unable to parse URL: /rel"},
		{`[Response.redirect("http://x/a b", 301).status, Response.redirect("http://x/a b", 301).headers.get("location")].join()`, "301,http://x/a%20b"},
		{`[Response.error().status, Response.error().type, Response.error().ok].join()`, "0,error,false"},
		{`(() => { const r = Response.json({ a: 1 }, { status: 201, headers: { "x-y": "z" } }); return [r.status, r.headers.get("content-type"), r.headers.get("x-y")].join(); })()`, "201,application/json,z"},
		{`attemptAsync(async () => { const r = new Response("body", { status: 404 }); const c = r.clone(); return [await r.text(), await c.text(), c.status, c.statusText].join(); })`, "body,body,404,Not Found"},
		{`attemptAsync(async () => { const r = new Response("x"); await r.text(); return r.clone(); })`, "TypeError: Body has already been used. It can only be used once. Use tee() first if you need to read it twice."},
		{`attemptAsync(async () => new Uint8Array(await new Response(new Uint8Array([1, 2, 3]).subarray(1)).arrayBuffer()).join())`, "2,3"},
		{`attemptAsync(async () => (await new Response("héllo").bytes()).length)`, "6"},
		{`attemptAsync(async () => new Response(42).text())`, "42"},
		{`new Response({}).headers.get("content-type")`, "text/plain;charset=UTF-8"},
		{`new Response("x") instanceof Response && !(new Response("x") instanceof Request)`, "true"},
	})
}

func TestWeb_bridge(t *testing.T) {
	rt, _ := newWebRuntime(t)
	req, err := NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://h.test/p?q=1", Header: [][2]string{{"X-A", "1"}, {"x-a", "2"}, {"host", "h.test"}}, Body: []byte{0, 1, 0xff}})
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("req", req)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`[req.method, req.url, req.headers.get("x-a"), req.headers.get("host")].join("|")`, "POST|http://h.test/p?q=1|1, 2|h.test"},
		{`attempt(() => req.headers.set("x", "y"))`, "TypeError: Can't modify immutable headers."},
	})
	out, err := ExportRequest(rt, req)
	if err != nil {
		t.Fatal(err)
	}
	if out.Method != "POST" || out.URL != "http://h.test/p?q=1" || string(out.Body) != "\x00\x01\xff" || len(out.Header) != 2 {
		t.Errorf("ExportRequest = %+v", out)
	}
	if _, err := ExportRequest(rt, req); err == nil || !strings.Contains(err.Error(), "Body has already been used") {
		t.Errorf("second ExportRequest: %v", err)
	}
	if _, err := ExportResponse(rt, rt.ToValue("nope")); err == nil || !strings.HasPrefix(err.Error(), "TypeError: ") {
		t.Errorf("ExportResponse of a string: %v", err)
	}
	res, err := NewResponse(rt, &HTTPResponse{Status: 299, StatusText: "Custom", Header: [][2]string{{"Set-Cookie", "a=1"}, {"set-cookie", "b=2"}}, Body: []byte("hi")})
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("res", res)
	jsCases(t, rt, [][2]string{
		{`[res.status, res.statusText, res.headers.getSetCookie().join(";")].join("|")`, "299|Custom|a=1;b=2"},
	})
	back, err := ExportResponse(rt, res)
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != 299 || back.StatusText != "Custom" || string(back.Body) != "hi" || len(back.Header) != 2 || back.WebSocket != nil {
		t.Errorf("ExportResponse = %+v", back)
	}
	// RequestFromArgs: a URL and init, and a JS error for a bad URL
	r, err := RequestFromArgs(rt, rt.ToValue("http://do.internal/inner?x=1"), nil)
	if err != nil || r.Method != "GET" || r.URL != "http://do.internal/inner?x=1" || r.Body != nil {
		t.Errorf("RequestFromArgs = %+v, %v", r, err)
	}
	_, err = RequestFromArgs(rt, rt.ToValue("/rel"), nil)
	var ex *goja.Exception
	if !errors.As(err, &ex) || jserr.Text(ex.Value()) != "TypeError: Invalid URL: /rel" {
		t.Errorf("RequestFromArgs(/rel) = %v", err)
	}
	// without InstallWeb
	if _, err := NewRequest(goja.New(), &HTTPRequest{URL: "http://x/"}); err == nil {
		t.Error("NewRequest without InstallWeb succeeded")
	}
}

func TestWeb_TextCodec(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`new TextDecoder().decode(new Uint8Array([0xe2, 0x82, 0x61, 0xf0, 0x9f, 0x98]))`, "\ufffda\ufffd"},
		{`new TextDecoder().decode(new Uint8Array([0xed, 0xa0, 0x80]))`, "\ufffd\ufffd\ufffd"},
		{`(() => { const d = new TextDecoder(); return d.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0xe2, 0x9c]), { stream: true }) + d.decode(new Uint8Array([0x93])); })()`, "✓"},
		{`new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41])).length`, "2"},
		{`new TextDecoder("utf-16le").decode(new Uint8Array([0x41, 0, 0x3d, 0xd8, 0, 0xde]))`, "A😀"},
		{`new TextDecoder("latin1").encoding + new TextDecoder("latin1").decode(new Uint8Array([0xe9]))`, "windows-1252é"},
		{`attempt(() => new TextDecoder("klingon"))`, `RangeError: "klingon" is not a valid encoding.`},
		// Legacy encodings (x/text's htmlindex), as node's ICU decodes them.
		{`new TextDecoder("shift_jis").decode(new Uint8Array([0x82, 0xa0])) + new TextDecoder("koi8-r").decode(new Uint8Array([0xc1]))`, "あа"},
		{`new TextDecoder("GBK").encoding + " " + new TextDecoder(" Shift-JIS\n").encoding`, "gbk shift_jis"},
		{`(() => { const d = new TextDecoder("shift_jis"); return d.decode(new Uint8Array([0x82]), { stream: true }) + "|" + d.decode(new Uint8Array([0xa0])); })()`, "|あ"},
		{`attempt(() => new TextDecoder("\u00a0utf-8"))`, "RangeError: \"\u00a0utf-8\" is not a valid encoding."},
		{`attempt(() => new TextDecoder("iso-2022-kr"))`, `RangeError: "iso-2022-kr" is not a valid encoding.`},
		{`attempt(() => new TextDecoder("shift_jis", { fatal: true }).decode(new Uint8Array([0xa0, 0xa0])))`, "TypeError: Failed to decode input."},
		// A lead byte and a second byte that cannot continue it are errors at once.
		{`(() => { const d = new TextDecoder(); return JSON.stringify([d.decode(new Uint8Array([0xf0]), { stream: true }), d.decode(new Uint8Array([0x8f]), { stream: true }), d.decode()]); })()`, "[\"\",\"\ufffd\ufffd\",\"\"]"},
		{`new TextEncoder().encode("a\ud800b").join()`, "97,239,191,189,98"},
		{`JSON.stringify(new TextEncoder().encodeInto("😀x", new Uint8Array(3)))`, `{"read":0,"written":0}`},
		{`attempt(() => atob("YQ=a"))`, "InvalidCharacterError: atob() called with invalid base64-encoded data. (Only whitespace, '+', '/', alphanumeric ASCII, and up to two terminal '=' signs when the input data length is divisible by 4 are allowed.)"},
		{`atob("YR==").charCodeAt(0)`, "97"},
		{`attempt(() => atob())`, "TypeError: Failed to execute 'atob' on 'WorkerGlobalScope': 1 argument required, but only 0 present."},
		{`btoa(undefined) + btoa(null)`, "dW5kZWZpbmVkbnVsbA=="},
	})
}

func TestWeb_URL(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`new URL("http://x/dir/").pathname`, "/dir/"},
		{`new URL("HTTP://X/./..//a").href`, "http://x//a"},
		{`new URL("http://[::1]:8080/").host`, "[::1]:8080"},
		{`new URL("http://[2001:db8:0:0:1:0:0:1]/").hostname`, "[2001:db8::1:0:0:1]"},
		{`new URL("http://0x7f.1/").hostname`, "127.0.0.1"},
		{`attempt(() => new URL("http://256.256.256.256/"))`, "TypeError: Invalid URL string."},
		{`new URL("file:///C:/a/../b").href`, "file:///C:/b"},
		{`new URL("mailto:someone@x.test").pathname`, "someone@x.test"},
		{`new URL("blob:https://a.test/uuid").origin`, "https://a.test"},
		{`new URL("data:text/plain,hi").origin`, "null"},
		{`new URL("non-spec://h/p?q#f").host`, "h"},
		{`new URL("?x=1", "http://h/a/b").href`, "http://h/a/b?x=1"},
		{`new URL("//other/p", "https://h/").href`, "https://other/p"},
		{`(() => { const u = new URL("http://h/p?a=1"); u.searchParams.append("b", "2 3"); return u.href + " " + u.search; })()`, "http://h/p?a=1&b=2+3 ?a=1&b=2+3"},
		{`(() => { const u = new URL("http://h/p?a=1"); const sp = u.searchParams; u.search = "?z=9"; return sp.get("z") + sp.has("a"); })()`, "9false"},
		{`(() => { const u = new URL("http://h/p?a=1"); u.searchParams.delete("a"); return u.href; })()`, "http://h/p"},
		{`(() => { const u = new URL("http://u:p@h:81/p#f"); u.port = "80"; u.hostname = "other"; u.pathname = "a b"; u.hash = ""; u.username = "n@me"; u.protocol = "https"; return u.href; })()`, "https://n%40me:p@other/a%20b"},
		{`(() => { const u = new URL("http://h/"); u.protocol = "foo"; return u.protocol; })()`, "http:"},
		{`attempt(() => { const u = new URL("http://h/"); u.href = "nope"; })`, "TypeError: Invalid URL string."},
		{`JSON.stringify({ u: new URL("http://h") })`, `{"u":"http://h/"}`},
		{`URL.canParse("/x", "http://h") + " " + (URL.parse("nope") === null)`, "true true"},
		{`new URLSearchParams([["a", "1"], ["b", "2"]]).toString()`, "a=1&b=2"},
		{`new URLSearchParams("?a=%zz&%E2%9C%93=%FF").toString()`, "a=%25zz&%E2%9C%93=%EF%BF%BD"},
		{`(() => { const p = new URLSearchParams("a=1&b=2&a=3"); p.set("a", "x"); return p.toString(); })()`, "a=x&b=2"},
		{`[...new URLSearchParams("a=1&b=2").keys()].join()`, "a,b"},
	})
}

func TestWeb_console(t *testing.T) {
	rt, out := newWebRuntime(t)
	jstest.Run(t, rt, `
		console.log("a", 1, -0, "b", true, null, undefined, 5n, Symbol("s"));
		console.info("%s is %d years and %i, %f, %j %o %%", "Bob", 42.5, 42.5, "1.5", { a: 1 }, [1]);
		console.warn({ a: { b: { c: { d: 1 } } }, s: "q'q", arr: [1, , 3], "x-y": 2 });
		console.error(new Map([["k", 1]]), new Set([1]), [], {}, new Uint8Array([1, 2]));
		console.debug(function named() {}, () => 1, class K {}, new (class P { constructor() { this.x = 1; } })());
		const c = { n: 1 }; c.self = c; console.log(c);
		console.log(new Date(0), /re/g, Object.create(null));
	`)
	want := strings.Join([]string{
		"a 1 -0 b true null undefined 5n Symbol(s)",
		"Bob is 42.5 years and 42, 1.5, {\"a\":1} [ 1 ] %",
		"{ a: { b: { c: [Object] } }, s: 'q\\'q', arr: [ 1, <1 empty item>, 3 ], 'x-y': 2 }",
		"Map(1) { 'k' => 1 } Set(1) { 1 } [] {} Uint8Array(2) [ 1, 2 ]",
		"[Function: named] [Function (anonymous)] [class K] P { x: 1 }",
		"{ n: 1, self: [Circular *1] }",
		"1970-01-01T00:00:00.000Z /re/g [Object: null prototype] {}",
		"",
	}, "\n")
	if got := out.String(); got != want {
		t.Errorf("console output:\n%s\nwant:\n%s", got, want)
	}
}

func TestWeb_misc(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`typeof Symbol.asyncIterator + (Symbol.dispose === Symbol.for("Symbol.dispose"))`, "symboltrue"},
		{`/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID())`, "true"},
		{`crypto.getRandomValues(new Uint32Array(4)).length`, "4"},
		{`attempt(() => crypto.getRandomValues(new Float64Array(1)))`, "TypeMismatchError: ArrayBufferView argument to getRandomValues() must be an integer-typed view."},
		{`attempt(() => crypto.getRandomValues(new Uint8Array(65537)))`, "QuotaExceededError: getRandomValues() only accepts buffers of size <= 64K but provided 65537 bytes."},
		{`attemptAsync(async () => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode("abc")))].slice(0, 4).join())`, "186,120,22,191"},
		{`attemptAsync(() => crypto.subtle.sign("HMAC", null, null))`, "TypeError: Failed to execute 'sign' on 'SubtleCrypto': parameter 2 is not of type 'CryptoKey'."},
		{`(() => { const ac = new AbortController(); let seen = ""; ac.signal.addEventListener("abort", (e) => { seen = e.type; }); ac.abort(); return [ac.signal.aborted, seen, ac.signal.reason.name].join(); })()`, "true,abort,AbortError"},
		{`attempt(() => AbortSignal.abort("why").throwIfAborted())`, "undefined: undefined"},
		{`attempt(() => new AbortSignal())`, "TypeError: Illegal constructor"},
		{`attemptAsync(async () => { const order = []; queueMicrotask(() => order.push(2)); order.push(1); await null; await null; return order.join(); })`, "1,2"},
		{`attempt(() => queueMicrotask(1))`, "TypeError: Failed to execute 'queueMicrotask': parameter 1 is not of type 'Function'."},
		{`(() => { const e = new DOMException("m", "NotFoundError"); return [e.name, e.message, e.code, e instanceof Error, String(e)].join(); })()`, "NotFoundError,m,8,true,NotFoundError: m"},
		{`(() => { const t = new EventTarget(); let n = 0; const f = () => n++; t.addEventListener("x", f, { once: true }); t.dispatchEvent(new Event("x")); t.dispatchEvent(new Event("x")); return n; })()`, "1"},
		{`structuredClone(new Map([[1, 2]])).get(1)`, "2"},
		{`navigator.userAgent`, "Cloudflare-Workers"},
		{`Math.abs(performance.now() - Date.now()) < 1000 && performance.timeOrigin === 0`, "true"},
	})
	if err := Install(rt, Options{}); err == nil {
		t.Error("second InstallWeb succeeded")
	}
	e := jserr.Object(rt, "InvalidStateError", "bad state")
	rt.Set("e", e)
	jsCases(t, rt, [][2]string{{`[e.name, e.message, e instanceof DOMException, e.code].join()`, "InvalidStateError,bad state,true,11"}})
	e = jserr.Object(rt, "RangeError", "r")
	rt.Set("e", e)
	jsCases(t, rt, [][2]string{{`e instanceof RangeError && e.message === "r"`, "true"}})
}
