package jsapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
)

// fifoScheduler runs timers in order of due time when drained (a virtual
// clock: no real waiting).
type fifoScheduler struct {
	now   time.Duration
	queue []struct {
		at time.Duration
		f  func()
		ok *bool
	}
}

func (s *fifoScheduler) AfterFunc(d time.Duration, f func()) func() {
	live := true
	s.queue = append(s.queue, struct {
		at time.Duration
		f  func()
		ok *bool
	}{s.now + d, f, &live})
	return func() { live = false }
}

func (s *fifoScheduler) drain() {
	for len(s.queue) > 0 {
		best := 0
		for i, q := range s.queue {
			if q.at < s.queue[best].at {
				best = i
			}
		}
		q := s.queue[best]
		s.queue = append(s.queue[:best], s.queue[best+1:]...)
		s.now = q.at
		if *q.ok {
			q.f()
		}
	}
}

// runNodeModule bundles src with the compatibility settings, runs probe()
// and, when it returns a promise, the timers until it settles.
func runNodeModule(t *testing.T, src, date string, flags ...string) string {
	t.Helper()
	b, err := buildNode(t, src, date, flags...)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	if err := InstallWeb(rt, WebOptions{}); err != nil {
		t.Fatal(err)
	}
	s := &fifoScheduler{}
	InstallTimers(rt, s)
	w, err := NewWorker(rt, WorkerOptions{Bundle: b, Vars: map[string]any{"GREETING": "hi", "N": 1.0}})
	if err != nil {
		t.Fatal(err)
	}
	probe, _ := goja.AssertFunction(w.Exports.Get("probe"))
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	s.drain()
	if p, ok := v.Export().(*goja.Promise); ok {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			return p.Result().String()
		case goja.PromiseStateRejected:
			return "rejected: " + p.Result().String()
		default:
			t.Fatal("probe's promise is still pending")
		}
	}
	return v.String()
}

func buildNode(t *testing.T, src, date string, flags ...string) (*Bundle, error) {
	t.Helper()
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(src+"\nexport default {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return BuildBundleWith(entry, BundleOptions{CompatibilityDate: date, CompatibilityFlags: flags})
}

// TestNodeCompat_modules: each node:* module gives Node's documented
// results under nodejs_compat.
func TestNodeCompat_modules(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"buffer", `import { Buffer } from "node:buffer"; export function probe() { return [Buffer.from("hello").toString("base64"), Buffer.from("aGk=", "base64").toString(), Buffer.concat([Buffer.from("a"), Buffer.from("b")]).toString("hex"), Buffer.isBuffer(Buffer.alloc(1)), Buffer.from("hello").subarray(1, 3).toString(), Buffer.byteLength("€"), Buffer.from("abcabc").indexOf("ca"), JSON.stringify(Buffer.from([1, 2]))].join() }`, `aGVsbG8=,hi,6162,true,el,3,2,{"type":"Buffer","data":[1,2]}`},
		{"buffer encodings as Node names them", `import { Buffer } from "node:buffer"; export function probe() { const out = []; const b = Buffer.from("hi?>", "utf8"); out.push(b.toString("base64url"), b.toString("BASE64"), b.toString("Hex"), Buffer.from("aGk_Pg", "base64url").toString("UTF8"), Buffer.from("6869", "HEX").toString()); try { Buffer.from("x", "bogus"); out.push("no throw") } catch (e) { out.push(e.name + ": " + e.message + " " + e.code) } try { b.toString("bogus"); out.push("no throw") } catch (e) { out.push(e.message) } const w = Buffer.alloc(4); out.push(w.write("6162", "hex"), w.toString("latin1", 0, 2), w.write("ab", 2, "utf8"), w.toString()); return out.join("|") }`, "aGk_Pg|aGk/Pg==|68693f3e|hi?>|hi|TypeError: Unknown encoding: bogus ERR_UNKNOWN_ENCODING|Unknown encoding: bogus|2|ab|2|abab"},
		{"generatePrime is bounded as in workerd", `import { generatePrimeSync } from "node:crypto"; export function probe() { const out = []; try { generatePrimeSync(8193); out.push("no throw") } catch (e) { out.push(e.name + ": " + e.message) } out.push(generatePrimeSync(64).byteLength); return out.join("|") }`, "RangeError: generatePrime size exceeds maximum (8192 bits)|8"},
		{"createDiffieHellman is bounded as in workerd", `import { createDiffieHellman } from "node:crypto"; export function probe() { const out = []; try { createDiffieHellman(10001); out.push("no throw") } catch (e) { out.push(e.name + ": " + e.message) } try { createDiffieHellman(new Uint8Array(1251)); out.push("no throw") } catch (e) { out.push(e.name + ": " + e.message) } return out.join("|") }`, "RangeError: DiffieHellman init failed: requested prime size too large|RangeError: DiffieHellman init failed: key is too large"},
		{"AsyncLocalStorage options and workerd's async ids", `import async_hooks from "node:async_hooks"; export function probe() { const als = new async_hooks.AsyncLocalStorage({ defaultValue: 1, name: "foo" }); const plain = new async_hooks.AsyncLocalStorage(); return [als.name, als.getStore(), als.run(2, () => als.getStore()), als.run(undefined, () => als.getStore()), als.getStore(), plain.name === "", plain.getStore(), async_hooks.executionAsyncId(), async_hooks.triggerAsyncId(), Object.getPrototypeOf(async_hooks.executionAsyncResource()), typeof async_hooks.createHook({}).enable().disable].join() }`, "foo,1,2,,1,true,,0,0,,function"},
		{"RSA key generation is bounded as in workerd", `import { generateKeyPairSync } from "node:crypto"; export function probe() { try { generateKeyPairSync("rsa", { modulusLength: 16385 }); return "no throw" } catch (e) { return e.name + ": " + e.message } }`, "RangeError: RSA modulusLength exceeds maximum (16384)"},
		{"events", `import { EventEmitter, once } from "node:events"; export async function probe() { const e = new EventEmitter(); const out = []; e.on("x", (v) => out.push("on" + v)); e.once("x", (v) => out.push("once" + v)); e.emit("x", 1); e.emit("x", 2); const p = once(e, "y"); e.emit("y", 3, 4); out.push((await p).join("+")); out.push(e.listenerCount("x")); return out.join() }`, "on1,once1,on2,3+4,1"},
		{"events default", `import EventEmitter from "node:events"; class C extends EventEmitter {} export function probe() { const c = new C(); let got; c.on("a", v => got = v); c.emit("a", 7); try { c.emit("error", new Error("boom")) } catch (e) { return got + "," + e.message } }`, "7,boom"},
		{"path", `import path from "node:path"; export function probe() { return [path.join("/a/b", "../c", "d.txt"), path.resolve("/foo/bar", "./baz"), path.extname("index.coffee.md"), path.basename("/foo/bar/baz/asdf/quux.html", ".html"), path.dirname("/foo/bar/baz/asdf/quux"), path.relative("/data/orandea/test/aaa", "/data/orandea/impl/bbb"), path.normalize("/foo/bar//baz/asdf/quux/.."), path.isAbsolute("qux/")].join() }`, "/a/c/d.txt,/foo/bar/baz,.md,quux,/foo/bar/baz/asdf,../../impl/bbb,/foo/bar/baz/asdf,false"},
		{"path parse", `import { parse, format } from "node:path"; export function probe() { const p = parse("/home/user/dir/file.txt"); return [p.root, p.dir, p.base, p.ext, p.name, format({ dir: "/home/user/dir", base: "file.txt" })].join() }`, "/,/home/user/dir,file.txt,.txt,file,/home/user/dir/file.txt"},
		{"util", `import util from "node:util"; export async function probe() { const f = util.promisify((a, cb) => cb(null, a * 2)); return [util.format("%s:%d", "a", 42), await f(21), util.types.isPromise(Promise.resolve()), util.inspect({ a: [1, "x"] }), util.isDeepStrictEqual({ a: 1 }, { a: 1 })].join("|") }`, "a:42|42|true|{ a: [ 1, 'x' ] }|true"},
		{"string_decoder", `import { StringDecoder } from "node:string_decoder"; import { Buffer } from "node:buffer"; export function probe() { const d = new StringDecoder("utf8"); return d.write(Buffer.from([0xE2])) + "|" + d.write(Buffer.from([0x82, 0xAC])) + "|" + d.end() }`, "|€|"},
		{"assert", `import assert from "node:assert"; export function probe() { const out = []; assert.deepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }); try { assert.strictEqual(1, 2) } catch (e) { out.push(e.name, e.code) } try { assert.deepStrictEqual([1], ["1"]) } catch (e) { out.push(e.code) } assert.throws(() => { throw new TypeError("x") }, TypeError); try { assert(false, "nope") } catch (e) { out.push(e.message) } return out.join() }`, "AssertionError,ERR_ASSERTION,ERR_ASSERTION,nope"},
		{"crypto", `import crypto from "node:crypto"; export function probe() { return [crypto.createHash("sha256").update("abc").digest("hex"), crypto.createHmac("sha256", "key").update("The quick brown fox jumps over the lazy dog").digest("hex"), crypto.createHash("md5").update("a").update("bc", "utf8").digest("base64"), crypto.timingSafeEqual(Buffer.from("ab"), Buffer.from("ab")), crypto.randomBytes(16).length, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()), crypto.webcrypto === globalThis.crypto].join() }`, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad,f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8,kAFQmDzST7DWlj99KOF/cg==,true,16,true,true"},
		{"crypto errors", `import { timingSafeEqual, createHash } from "node:crypto"; export function probe() { const out = []; try { timingSafeEqual(Buffer.from("a"), Buffer.from("ab")) } catch (e) { out.push(e.name, e.code) } try { createHash("nope") } catch (e) { out.push(e.name, e.message) } return out.join() }`, "TypeError,,Error,Digest method not supported"},
		{"AsyncLocalStorage follows await and timers", `import { AsyncLocalStorage } from "node:async_hooks"; const als = new AsyncLocalStorage(); async function step(tag) { await null; const a = als.getStore(); await new Promise(r => setTimeout(r, 5)); const b = als.getStore(); await new Promise(r => setImmediate(r)); return tag + ":" + a + "/" + b + "/" + als.getStore() } export async function probe() { const r = await Promise.all([als.run("one", () => step("x")), als.run("two", () => step("y"))]); return r.join() + "," + als.getStore() }`, "x:one/one/one,y:two/two/two,undefined"},
		{"AsyncLocalStorage then and nesting", `import { AsyncLocalStorage } from "node:async_hooks"; const a = new AsyncLocalStorage(), b = new AsyncLocalStorage(); export function probe() { return a.run(1, () => b.run(2, () => Promise.resolve().then(() => a.getStore() + "," + b.getStore() + "," + a.exit(() => a.getStore())))) }`, "1,2,undefined"},
		{"url", `import url from "node:url"; export function probe() { const p = url.parse("https://user:pw@example.com:8080/p/a/t/h?query=string#hash", true); return [new url.URL("https://a/b") instanceof URL, url.fileURLToPath("file:///tmp/a%20b.txt"), url.pathToFileURL("/tmp/a b#c.txt").href, p.host, p.auth, p.pathname, p.query.query, p.hash, url.format(new URL("https://a:b@xn--bcher-kva.example/p?q#f"), { auth: false, fragment: false, unicode: true }), url.resolve("/one/two/three", "four"), url.resolve("http://example.com/one", "/two")].join("|") }`, "true|/tmp/a b.txt|file:///tmp/a%20b%23c.txt|example.com:8080|user:pw|/p/a/t/h|string|#hash|https://bücher.example/p?q|/one/two/four|http://example.com/two"},
		{"querystring", `import qs from "node:querystring"; export function probe() { const o = qs.parse("foo=bar&abc=xyz&abc=123&sp=a+b%20c"); return [o.foo, o.abc.join("/"), o.sp, qs.stringify({ foo: "bar", baz: ["qux", "quux"], corge: "" }), qs.escape("a b!")].join("|") }`, "bar|xyz/123|a b c|foo=bar&baz=qux&baz=quux&corge=|a%20b!"},
		{"os", `import os from "node:os"; export function probe() { return os.EOL === "\n" && typeof os.platform() }`, "string"},
		{"diagnostics_channel", `import dc from "node:diagnostics_channel"; export function probe() { const c = dc.channel("x"); let got; c.subscribe((m, n) => got = n + ":" + m.v); c.publish({ v: 1 }); return got + "," + dc.hasSubscribers("x") }`, "x:1,true"},
		{"process", `import process from "node:process"; export function probe() { return [typeof process.nextTick, process.env.GREETING, process.env.N, process === globalThis.process].join() }`, "function,hi,,true"},
		{"bare names", `import path from "path"; import { Buffer } from "buffer"; export function probe() { return path.join("a", "b") + Buffer.from("x").toString("hex") }`, "a/b78"},
		{"require", `const path = require("node:path"); const { EventEmitter } = require("events"); export function probe() { return path.sep + typeof EventEmitter }`, "/function"},
		{"globals", `export function probe() { return [typeof Buffer, typeof process, typeof setImmediate, typeof globalThis.require].join() }`, "function,object,function,undefined"},
		{"nextTick is a microtask", `export async function probe() { const out = []; Promise.resolve().then(() => out.push("p")); process.nextTick(() => out.push("t")); await new Promise(r => setTimeout(r, 1)); return out.join() }`, "p,t"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runNodeModule(t, c.src, "2026-01-01", "nodejs_compat"); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// TestNodeCompat_flags: what the compatibility date and flags enable, and
// workerd's error for a module that is not there.
func TestNodeCompat_flags(t *testing.T) {
	globals := `export function probe() { return [typeof process, typeof setImmediate].join() }`
	for _, c := range []struct {
		name, date string
		flags      []string
		want       string
	}{
		{"no flag", "2026-01-01", nil, "undefined,undefined"},
		{"v1 before 2024-09-23", "2024-09-22", []string{"nodejs_compat"}, "undefined,undefined"},
		{"v2 by date", "2024-09-23", []string{"nodejs_compat"}, "object,function"},
		{"v2 by flag", "2024-01-01", []string{"nodejs_compat_v2"}, "object,function"},
		{"v2 turned off", "2026-01-01", []string{"nodejs_compat", "no_nodejs_compat_v2"}, "undefined,undefined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runNodeModule(t, globals, c.date, c.flags...); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
	t.Run("als only", func(t *testing.T) {
		got := runNodeModule(t, `import { AsyncLocalStorage } from "node:async_hooks"; export function probe() { return new AsyncLocalStorage().run(5, function () { return new AsyncLocalStorage().getStore() + "," + typeof Buffer }) }`, "2026-01-01", "nodejs_als")
		if got != "undefined,undefined" {
			t.Errorf("got %q", got)
		}
	})
	for _, c := range []struct {
		name, src string
		flags     []string
		want      string
	}{
		{"node module without the flag", `import { Buffer } from "node:buffer"; export const probe = () => Buffer;`, nil, `No such module "node:buffer".`},
		{"buffer under nodejs_als", `import { Buffer } from "node:buffer"; export const probe = () => Buffer;`, []string{"nodejs_als"}, `No such module "node:buffer".`},
		{"module cellhost lacks", `import cp from "node:child_process"; export const probe = () => cp;`, []string{"nodejs_compat"}, `No such module "node:child_process".`},
		{"bare module cellhost lacks", `import rl from "readline"; export const probe = () => rl;`, []string{"nodejs_compat"}, `No such module "node:readline".`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := buildNode(t, c.src, "2026-01-01", c.flags...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestModuleRules: wrangler's default rules: .txt/.html/.sql as Text, .bin
// as Data (an ArrayBuffer), .wasm (also ?module) as CompiledWasm: a
// WebAssembly.Module; a .wasm file that does not compile fails the build,
// naming the file.
func TestModuleRules(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"a.sql": "SELECT 1;", "b.html": "<p>hi</p>", "c.txt": "text", "d.bin": "\x00\x01\xff"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := filepath.Join(dir, "index.js")
	src := `import a from "./a.sql"; import b from "./b.html"; import c from "./c.txt"; import d from "./d.bin";
export function probe() { return [a, b, c, d instanceof ArrayBuffer, [...new Uint8Array(d)].join(".")].join("|") }
export default {};`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := probeBundle(t, entry, BundleOptions{}), "SELECT 1;|<p>hi</p>|text|true|0.1.255"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
	add := []byte{0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 7, 1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f, 3, 2, 1, 0, 7, 7, 1, 3, 0x61, 0x64, 0x64, 0, 0, 0x0a, 9, 1, 7, 0, 0x20, 0, 0x20, 1, 0x6a, 0x0b}
	if err := os.WriteFile(filepath.Join(dir, "e.wasm"), add, 0o644); err != nil {
		t.Fatal(err)
	}
	src = `import m from "./e.wasm"; import n from "./e.wasm?module";
export function probe() { return [m instanceof WebAssembly.Module, n instanceof WebAssembly.Module, new WebAssembly.Instance(m).exports.add(2, 3)].join("|") }
export default {};`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := probeBundle(t, entry, BundleOptions{}), "true|true|5"; got != want {
		t.Errorf("wasm import: got %q, want %q", got, want)
	}
	if err := os.WriteFile(filepath.Join(dir, "e.wasm"), []byte("\x00asm\x01\x00\x00\x00\x01"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := BuildBundleWith(entry, BundleOptions{})
	if err == nil || !strings.Contains(err.Error(), "e.wasm: WebAssembly.Module(): ") {
		t.Errorf("invalid wasm import: got %v", err)
	}
}

// TestNodeFlaggedModules: node:child_process, worker_threads, console and
// sqlite load only under their enable_nodejs_<name>_module flag, as in
// workerd; what cannot work there throws Node's
// ERR_METHOD_NOT_IMPLEMENTED after Node's argument checks; node:sys is
// node:util, node:path/win32 is path.win32, and node:cluster is a primary
// without workers.
func TestNodeFlaggedModules(t *testing.T) {
	if _, err := buildNode(t, `import cp from "node:child_process"; export const probe = () => cp;`, "2026-01-01", "nodejs_compat"); err == nil || !strings.Contains(err.Error(), `No such module "node:child_process".`) {
		t.Errorf("child_process without its flag: %v", err)
	}
	src := `import cp from "node:child_process"; import wt from "node:worker_threads"; import sqlite from "node:sqlite";
		import con from "node:console"; import sys from "node:sys"; import util from "node:util"; import win32 from "node:path/win32"; import cluster from "node:cluster";
		export function probe() {
		const code = (f) => { try { f(); return "none"; } catch (e) { return e.code || e.message; } };
		return [code(() => cp.exec(1)), code(() => cp.exec("ls", () => {})), code(() => cp.spawnSync("ls", ["-l"], "x")), code(() => cp.spawn()), code(() => new cp.ChildProcess()),
			code(() => new wt.Worker()), wt.isMainThread, wt.threadId, code(() => new sqlite.DatabaseSync()), sqlite.constants.SQLITE_RECURSIVE,
			code(() => con.Console()), typeof con.profile, sys === util, typeof win32.resolve,
			cluster.isPrimary, code(() => cluster.fork()), new cluster.Worker().disconnect().isDead(), typeof cluster.on].join() }`
	want := "ERR_INVALID_ARG_TYPE,ERR_METHOD_NOT_IMPLEMENTED,ERR_INVALID_ARG_TYPE,ERR_METHOD_NOT_IMPLEMENTED,ERR_METHOD_NOT_IMPLEMENTED,ERR_METHOD_NOT_IMPLEMENTED,true,0,Illegal constructor,33,ERR_METHOD_NOT_IMPLEMENTED,function,true,function,true,ERR_METHOD_NOT_IMPLEMENTED,true,function"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat", "enable_nodejs_child_process_module", "enable_nodejs_worker_threads_module", "enable_nodejs_sqlite_module", "enable_nodejs_console_module"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
