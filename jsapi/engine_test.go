package jsapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// runModule bundles src as a worker's entry module (the path cellhost runs
// every worker by), evaluates it in a fresh runtime set up as a shard's is,
// and returns String(probe()) of its exported probe function.
func runModule(t *testing.T, src string, bo BundleOptions) string {
	t.Helper()
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := BuildBundleWith(entry, bo)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	rt.SetMaxCallStackSize(8192)
	if err := InstallWeb(rt, WebOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	probe, ok := goja.AssertFunction(w.Exports.Get("probe"))
	if !ok {
		t.Fatal("probe is not exported")
	}
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}

// TestEngine_IssueOneLiners: each program of issue 18 (and 13's stack and
// string-length items) gives workerd's result through esbuild and goja.
func TestEngine_IssueOneLiners(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"class fields named like modifiers", `class A { get = 1; set = 2; static = 3; async = 4 } const a = new A(); return [a.get, a.set, a.static, a.async].join()`, "1,2,3,4"},
		{"proxy apply args owned", `const p = new Proxy(function(){}, { apply: (t, th, a) => a }); const a = p("one"); Math.max(7, 8); return a[0]`, "one"},
		{"proxy construct args owned", `const P = new Proxy(function(){}, { construct: (t, a) => ({ a }) }); const o = new P("one"); Math.max(7, 8); return o.a[0]`, "one"},
		{"unicode property escape", `return /\p{L}/u.test("a")`, "true"},
		{"TypedArray.from string", `return Uint8Array.from("ab", c => c.charCodeAt(0)).join()`, "97,98"},
		{"process.env.NODE_ENV", `return process.env.NODE_ENV`, "development"},
		{"caught stack overflow", `function f() { return f() + 1 } try { f() } catch (e) { return String(e) } return "no error"`, "RangeError: Maximum call stack size exceeded"},
		{"string length cap", `try { "ab".repeat(2 ** 28) } catch (e) { return String(e) } return "no error"`, "RangeError: Invalid string length"},
		{"iterator helpers", `return [1, 2, 3, 4].values().filter(x => x % 2 === 0).map(x => x * 10).toArray().join()`, "20,40"},
		{"Iterator.from", `return Iterator.from({ next() { return { done: true } } }).toArray().length`, "0"},
		{"Set methods", `return [...new Set([1, 2]).union(new Set([3]))].join()`, "1,2,3"},
		{"Promise.withResolvers", `const { promise, resolve } = Promise.withResolvers(); resolve(1); return promise instanceof Promise`, "true"},
		{"Object.groupBy", `return JSON.stringify(Object.groupBy([1, 2, 3], x => x % 2 ? "odd" : "even"))`, `{"odd":[1,3],"even":[2]}`},
		{"Map.groupBy", `return Map.groupBy([1, 2, 3], x => x % 2).get(1).join()`, "1,3"},
		{"Array.fromAsync", `return typeof Array.fromAsync([1]).then`, "function"},
		{"captureStackTrace", `const o = {}; Error.captureStackTrace(o); const d = Object.getOwnPropertyDescriptor(o, "stack"); return [typeof o.stack, d.enumerable, d.writable, o.stack.split("\n")[0]].join()`, "string,false,,Error"},
		{"captureStackTrace set", `const o = {}; Error.captureStackTrace(o); o.stack = 4; const d = Object.getOwnPropertyDescriptor(o, "stack"); return [o.stack, typeof d.get, typeof d.set, d.configurable].join()`, "4,function,function,true"},
		{"captureStackTrace header", `class E extends Error { constructor(m) { super(m); this.name = "E"; Error.captureStackTrace(this, E) } } return new E("boom").stack.split("\n")[0]`, "E: boom"},
		{"captureStackTrace constructorOpt", `function outer() { return inner() } function inner() { const o = {}; Error.captureStackTrace(o, inner); return o.stack } return outer().split("\n").filter(l => l.includes("inner")).length + "," + outer().split("\n")[1].trim().startsWith("at outer")`, "0,true"},
		{"polyfills not enumerable", `return Object.keys(Iterator.prototype).length + "," + Object.keys(Promise).length`, "0,0"},
		{"native Promise kept", `return String(Promise).includes("[native code]")`, "true"},
		{"resizable ArrayBuffer", `const b = new ArrayBuffer(2, { maxByteLength: 8 }); const t = new Uint8Array(b), f = new Uint8Array(b, 0, 2), d = new DataView(b); t[1] = 7; b.resize(6); const a = [b.resizable, b.maxByteLength, t.length, f.length, d.byteLength, t[1]]; b.resize(1); a.push(t.length, f.length); try { f.fill(0) } catch (e) { a.push(e.name) } try { b.resize(9) } catch (e) { a.push(e.name) } return a.join()`, "true,8,6,2,6,7,1,0,TypeError,RangeError"},
		{"regexp v flag", `const re = /[\p{L}]+/v; return [re.test("héllo"), re.unicodeSets, re.flags, "aBcD".match(/\p{Lu}/gv).join("")].join()`, "true,true,v,BD"},
		{"transfer keeps resizable", `const b = new ArrayBuffer(2, { maxByteLength: 8 }).transfer(4); return [b.resizable, b.maxByteLength, b.byteLength, new ArrayBuffer(1).transfer().resizable].join()`, "true,8,4,false"},
		// The stack of an error thrown after await names the awaiting async
		// callers, as V8's does ("at async f (...)"). toString runs after
		// the promise jobs.
		// goja patch 21: a Go panic (index out of range) that killed cellhost dev (issue 24).
		{"anonymous class with static block and eval", `var m = {}; var S = class { static { m.x = 1; } f() { eval("1"); } }; class K { static y = m.x + 1; g() { return eval("m.x") } } return [m.x, K.y, new K().g()].join()`, "1,2,1"},
		{"async stack frames", `let out = "none"; async function inner() { await null; throw new Error("boom") } async function middle() { await inner() } async function outer() { try { await middle() } catch (e) { out = e.stack } } outer(); return { toString() { return out.split("\n").filter(Boolean).map(l => l.trim().replace(/ \(.*/, "")).join("|") } }`, "Error: boom|at inner|at async middle|at async outer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := runModule(t, "export function probe() { "+c.body+" }\nexport default {};\n", BundleOptions{})
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestBuildBundle_wranglerOptions: the bundle is built as wrangler builds
// it: NODE_ENV and the configuration's define are replaced, the "workerd"
// and "browser" conditions and the package.json "browser" field win, .js is
// parsed as JSX, and names survive.
func TestBuildBundle_wranglerOptions(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("node_modules/cond/package.json", `{"name":"cond","exports":{".":{"workerd":"./workerd.js","node":"./node.js","default":"./default.js"}}}`)
	write("node_modules/cond/workerd.js", `export const which = "workerd";`)
	write("node_modules/cond/node.js", `export const which = "node";`)
	write("node_modules/cond/default.js", `export const which = "default";`)
	write("node_modules/brow/package.json", `{"name":"brow","main":"./main.js","browser":"./browser.js"}`)
	write("node_modules/brow/main.js", `export const which = "main";`)
	write("node_modules/brow/browser.js", `export const which = "browser";`)
	write("index.js", `import { which as cond } from "cond";
import { which as brow } from "brow";
const h = (tag) => tag;
const el = <div/>;
const named = (() => { const fn = function() {}; return fn.name; })();
export function probe() {
  return [process.env.NODE_ENV, typeof DEBUG_FLAG === "boolean" ? "defined" : DEBUG_FLAG, cond, brow, navigator.userAgent, typeof el, named].join();
}
export default {};
`)
	// JSX without a pragma compiles to React.createElement: give it one.
	write("index.js", strings.Replace(mustRead(t, filepath.Join(dir, "index.js")), "const el = <div/>;", "const React = { createElement: (t) => t };\nconst el = <div/>;", 1))
	b, err := BuildBundleWith(filepath.Join(dir, "index.js"), BundleOptions{NodeEnv: "production", Define: map[string]string{"DEBUG_FLAG": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Code, "process.env") {
		t.Error("the bundle still reads process.env")
	}
	rt := goja.New()
	if err := InstallWeb(rt, WebOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	probe, _ := goja.AssertFunction(w.Exports.Get("probe"))
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "production,defined,workerd,browser,Cloudflare-Workers,string,fn"; got != want {
		t.Errorf("probe() = %s, want %s", got, want)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
