package clone_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/web"
)

func roundTrip(t *testing.T, rt *goja.Runtime, expr string) goja.Value {
	t.Helper()
	v := jstest.Run(t, rt, expr)
	b, err := clone.Serialize(rt, v)
	if err != nil {
		t.Fatalf("Serialize(%s): %v", expr, err)
	}
	out, err := clone.Deserialize(rt, b)
	if err != nil {
		t.Fatalf("Deserialize(%s): %v", expr, err)
	}
	return out
}

func TestClone_roundTrip(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, c := range []struct{ expr, check string }{
		{`"a\uD800b"`, `v === "a\uD800b" && v.length === 3`},
		{`"\uD83D\uDE00 é"`, `v === "😀 é"`},
		{`-0`, `Object.is(v, -0)`},
		{`2 ** 53`, `v === 2 ** 53`},
		{`-(2 ** 60)`, `v === -(2 ** 60)`},
		{`0.1`, `v === 0.1`},
		{`-123n`, `v === -123n`},
		{`0n`, `v === 0n`},
		{`true`, `v === true`},
		{`[undefined, null]`, `v.length === 2 && 0 in v && v[0] === undefined && v[1] === null`},
		{`Object.assign([1, 2], {x: "y"})`, `v.x === "y" && v.length === 2`},
		{`(() => { const a = []; a[5] = 1; return a; })()`, `v.length === 6 && !(0 in v) && v[5] === 1`},
		{`(() => { const a = []; a.length = 4294967295; a[7] = 1; return a; })()`, `v.length === 4294967295 && v[7] === 1`},
		{`({ "__proto__": 1, ["constructor"]: 2 })`, `Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).join() === "constructor"`},
		{`JSON.parse('{"__proto__": {"polluted": 1}}')`, `v.polluted === undefined && Object.getOwnPropertyNames(v).includes("__proto__")`},
		{`({ 2: "b", 1: "a", z: 1, a: 2 })`, `Object.keys(v).join() === "1,2,z,a"`},
		{`new Set([NaN, -0, "x"])`, `v.has(NaN) && v.has(0) && v.size === 3`},
		{`(() => { const m = new Map(); m.set(m, m); return m; })()`, `v.get(v) === v`},
		{`(() => { const ab = new ArrayBuffer(8); return [new Uint8Array(ab, 2, 3), new Int16Array(ab, 4, 2), ab]; })()`,
			`v[0].buffer === v[2] && v[1].buffer === v[2] && v[0].byteOffset === 2 && v[1].length === 2`},
		{`new BigInt64Array([-1n, 2n])`, `v[0] === -1n && v[1] === 2n`},
		{`new Uint8ClampedArray([300])`, `v[0] === 255 && v instanceof Uint8ClampedArray`},
		{`new Float32Array([1.5])`, `v[0] === 1.5`},
		{`(() => { const e = new TypeError("bad", { cause: 7 }); return e; })()`, `v instanceof TypeError && v.message === "bad" && v.cause === 7 && typeof v.stack === "string"`},
		{`(() => { class Q extends Error { constructor(m) { super(m); this.name = "Q"; } } return new Q("x"); })()`, `v.constructor === Error && v.message === "x"`},
		{`new Error()`, `v instanceof Error && v.message === "" && !Object.prototype.hasOwnProperty.call(v, "message")`},
		{`(() => { const e = new DOMException("m", "DataCloneError"); e.extra = 1; return e; })()`, `v instanceof DOMException && v.name === "DataCloneError" && v.message === "m" && v.code === 25 && typeof v.stack === "string" && v.extra === undefined`},
		{`new Headers([["x-a", "1"], ["Content-Type", "text/plain"], ["x-a", "2"]])`, `v instanceof Headers && [...v].join(";") === "content-type,text/plain;x-a,1, 2"`},
		{`new Number(-0)`, `typeof v === "object" && Object.is(v.valueOf(), -0)`},
		{`new Boolean(false)`, `typeof v === "object" && v.valueOf() === false`},
		{`Object(5n)`, `typeof v === "object" && v.valueOf() === 5n`},
		{`/[a-z]+/imsuy`, `v.source === "[a-z]+" && v.flags === "imsuy"`},
		{`new Date(-1)`, `v.getTime() === -1`},
		{`Object.create(null)`, `Object.getPrototypeOf(v) === Object.prototype`},
		{`({ get x() { return 42; } })`, `Object.getOwnPropertyDescriptor(v, "x").value === 42`},
	} {
		v := roundTrip(t, rt, c.expr)
		rt.Set("v", v)
		if ok := jstest.Run(t, rt, c.check); !ok.ToBoolean() {
			t.Errorf("round trip of %s: check %s failed", c.expr, c.check)
		}
	}
}

func TestClone_errors(t *testing.T) {
	rt, _ := newWebRuntime(t)
	for _, c := range []struct{ expr, name, msg string }{
		{`() => 1`, "DataCloneError", "() => 1 could not be cloned."},
		{`({ a: { b: (a) => a } })`, "DataCloneError", "(a) => a could not be cloned."},
		{`Symbol("s")`, "DataCloneError", "Symbol(s) could not be cloned."},
		{`new WeakMap()`, "DataCloneError", "#<WeakMap> could not be cloned."},
		{`new WeakSet()`, "DataCloneError", "#<WeakSet> could not be cloned."},
		{`[Promise.resolve(1)]`, "DataCloneError", "#<Promise> could not be cloned."},
		{`new Proxy({}, {})`, "DataCloneError", "#<Object> could not be cloned."},
		{`[][Symbol.iterator]()`, "DataCloneError", "#<Object> could not be cloned."},
		{`new Request("http://x/", { method: "POST", body: "b" })`, "DataCloneError", `ReadableStream can only be serialized for RPC.`},
		{`new TextEncoder()`, "DataCloneError", `Could not serialize object of type "TextEncoder". This type does not support serialization.`},
		{`[new URL("http://x/")]`, "DataCloneError", `Could not serialize object of type "URL". This type does not support serialization.`},
		{`new File(["x"], "f.txt")`, "DataCloneError", `Could not serialize object of type "File". This type does not support serialization.`},
		{`new FormData()`, "DataCloneError", `Could not serialize object of type "FormData". This type does not support serialization.`},
		{`new URLPattern({ pathname: "/x" })`, "DataCloneError", `Could not serialize object of type "URLPattern". This type does not support serialization.`},
		{`caches.default`, "DataCloneError", `Could not serialize object of type "Cache". This type does not support serialization.`},
		{`new AbortController().signal`, "DataCloneError", `Could not serialize object of type "AbortSignal". This type does not support serialization.`},
		{`new Response("")`, "DataCloneError", `ReadableStream can only be serialized for RPC.`},
		{`new Request("http://x/", { signal: new AbortController().signal })`, "DataCloneError", `AbortSignal serialization is not enabled.`},
	} {
		v := jstest.Run(t, rt, c.expr)
		_, err := clone.Serialize(rt, v)
		var ce *jserr.Error
		if !errors.As(err, &ce) || ce.Name != c.name || ce.Message != c.msg {
			t.Errorf("Serialize(%s) = %v, want %s: %s", c.expr, err, c.name, c.msg)
		}
	}
	// a throwing getter surfaces as the JS exception
	v := jstest.Run(t, rt, `({ get x() { throw new RangeError("from getter"); } })`)
	_, err := clone.Serialize(rt, v)
	var ex *goja.Exception
	if !errors.As(err, &ex) || jserr.Text(ex.Value()) != "RangeError: from getter" {
		t.Errorf("getter error: %v", err)
	}
	// structuredClone throws a DOMException that is an Error
	got := jstest.Run(t, rt, `try { structuredClone({ f() {} }); "no" } catch (e) { [e.name, e.message, e instanceof Error, e instanceof DOMException, e.code].join("|") }`).String()
	if want := "DataCloneError|f() {} could not be cloned.|true|true|25"; got != want {
		t.Errorf("structuredClone error = %q, want %q", got, want)
	}
}

func TestClone_depthLimit(t *testing.T) {
	rt, _ := newWebRuntime(t)
	v := jstest.Run(t, rt, `let o = {}; for (let i = 0; i < 6000; i++) o = { o }; o`)
	if _, err := clone.Serialize(rt, v); err == nil {
		t.Fatal("Serialize of a 6000-deep object succeeded")
	}
	// hand-made deep input: 100000 nested one-element arrays
	b := []byte{clone.V8Version, clone.V8Write}
	for i := 0; i < 100000; i++ {
		b = append(b, clone.TagDense, 1)
	}
	b = append(b, clone.TagNull)
	for i := 0; i < 100000; i++ {
		b = append(b, clone.TagEndDense, 0, 1)
	}
	if _, err := clone.Deserialize(rt, b); !errors.Is(err, clone.ErrCorrupt) {
		t.Fatalf("Deserialize deep input: %v", err)
	}
}

func TestClone_corrupt(t *testing.T) {
	rt, _ := newWebRuntime(t)
	good, err := clone.Serialize(rt, jstest.Run(t, rt, `({ a: [1, "x", new Map([[1, 2]])], d: new Date(5), u: new Uint8Array([1, 2]) })`))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(good); i++ {
		if _, err := clone.Deserialize(rt, good[:i]); err == nil {
			t.Errorf("truncated input of %d bytes decoded", i)
		}
	}
	if _, err := clone.Deserialize(rt, append([]byte{clone.V8Version, 16}, good[2:]...)); err == nil {
		t.Error("unknown version decoded")
	}
	if _, err := clone.Deserialize(rt, append(append([]byte{}, good...), 1)); err == nil {
		t.Error("trailing bytes accepted")
	}
	h := []byte{clone.V8Version, clone.V8Write}
	for _, b := range [][]byte{
		append(h, clone.TagRef, 0),
		append(h, clone.TagObject, clone.TagStr, 1, 'a', clone.TagRef, 5, clone.TagEndObj, 1),
		append(h, clone.TagObject, clone.TagStr, 1, 'a', clone.TagNull, clone.TagEndObj, 2),
		append(h, clone.TagBuffer, 2, 0, 0, clone.TagView, 'B', 1, 4, 0),
		append(h, clone.TagBuffer, 3, 0, 0, 0, clone.TagView, 'W', 1, 1, 0),
		append(h, clone.TagDense, 0xff, 0xff, 0xff, 0xff, 0x0f),
		append(h, clone.TagRegExp, clone.TagStr, 1, '(', 0),
		append(h, clone.TagRegExp, clone.TagStr, 1, 'a', 0x80, 0x80, 0x04),
		append(h, clone.TagError, 9, '.'),
		append(h, 'c', 3, 0, 0, 0),
		append(h, 'Z', 3),
		append(h, '\\', 11),
	} {
		if _, err := clone.Deserialize(rt, b); !errors.Is(err, clone.ErrCorrupt) {
			t.Errorf("Deserialize(%x) = %v, want clone.ErrCorrupt", b, err)
		}
	}
}

func FuzzDeserialize(f *testing.F) {
	rt, _ := newWebRuntime(f)
	for _, expr := range []string{
		`({ a: [1, , 3], b: "héllo", c: new Map([[1, new Set([2n])]]), d: new Date(0), e: /x/g })`,
		`(() => { const ab = new ArrayBuffer(8); const o = { ab, v: new Uint16Array(ab, 2, 3), dv: new DataView(ab, 1) }; o.self = o; return o; })()`,
		`[new RangeError("r"), new String("s"), new Number(1), new Boolean(true), Object(3n), -0, NaN, "a\uD800"]`,
		`[new Request("https://x/p?q", { headers: { a: "1" }, redirect: "manual" }), new Response(null, { status: 204, statusText: "None", headers: { b: "2" } }), Response.error()]`,
	} {
		b, err := clone.Serialize(rt, jstest.Run(f, rt, expr))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(legacyObject)
	// every value workerd stored, in both error forms
	for _, fx := range fixtures {
		for _, b := range loadFixture(f, fx.name, fx.enhanced).stored {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := clone.Deserialize(rt, b)
		if err != nil {
			return
		}
		// whatever decodes must encode again
		if _, err := clone.Serialize(rt, v); err != nil {
			t.Fatalf("re-serialize: %v", err)
		}
	})
}

// TestClone_errorToJS: a codec error becomes, through jserr.ToJS, the
// DOMException workerd throws.
func TestClone_errorToJS(t *testing.T) {
	rt, _ := newWebRuntime(t)
	_, err := clone.Serialize(rt, jstest.Run(t, rt, `({ f: () => 1 })`))
	rt.Set("e", jserr.ToJS(rt, err))
	got := jstest.Run(t, rt, `[e.name, e.message, e instanceof DOMException, e instanceof Error].join("|")`).String()
	if want := "DataCloneError|() => 1 could not be cloned.|true|true"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, err = clone.Deserialize(rt, []byte{clone.V8Version, clone.V8Write, 0x7f})
	if !errors.Is(err, clone.ErrCorrupt) || jserr.Text(jserr.ToJS(rt, err)) != "DataCloneError: Unable to deserialize cloned data." {
		t.Errorf("Deserialize error: %v", err)
	}
}

func newWebRuntime(t testing.TB) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	return jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return web.Install(rt, web.Options{Console: console})
	})
}

// legacyObject is {a: 1, s: "é"} in cellhost's first format (version byte
// 1), as storage written before values were V8's holds it.
var legacyObject = []byte{0x01, 0x11, 2, 0x06, 1, 'a', 0x04, 2, 0x06, 1, 's', 0x06, 2, 0xc3, 0xa9}

// TestClone_legacyFormat: values cellhost stored before it wrote V8's
// format still read, and are written in V8's from then on.
func TestClone_legacyFormat(t *testing.T) {
	rt, _ := newWebRuntime(t)
	v, err := clone.Deserialize(rt, legacyObject)
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("v", v)
	if got := jstest.Run(t, rt, `JSON.stringify(v)`).String(); got != `{"a":1,"s":"é"}` {
		t.Errorf("legacy value read as %s", got)
	}
	b, err := clone.Serialize(rt, v)
	if err != nil {
		t.Fatal(err)
	}
	want := []byte{0xff, 0x0f, 'o', '"', 1, 'a', 'I', 2, '"', 1, 's', '"', 1, 0xe9, '{', 2}
	if !bytes.Equal(b, want) {
		t.Errorf("re-serialized as %x, want %x", b, want)
	}
}

// TestClone_headerless: workerd's first storage values had no header
// (version 13 is assumed, as workerd assumes it): they read.
func TestClone_headerless(t *testing.T) {
	rt, _ := newWebRuntime(t)
	b := []byte{'o', '"', 1, 'a', 'B', 2, 7, 8, 'V', 'B', 0, 2, '{', 1}
	v, err := clone.Deserialize(rt, b)
	if err != nil {
		t.Fatal(err)
	}
	rt.Set("v", v)
	if got := jstest.Run(t, rt, `v.a instanceof Uint8Array && v.a.join()`).String(); got != "7,8" {
		t.Errorf("headerless value read as %s", got)
	}
}
