package jsapi

import (
	"strings"
	"testing"
)

// TestNodeFs_linksAndCp: node:fs's symbolic and hard links, cp with its
// options and Node's error codes, opendir, access modes, and the callback
// form's rule (a bad argument throws at the call, what the file system
// answers goes to the callback), as workerd's node:fs gives them: entries
// listed in the order made, modes that chmod does not change (workerd
// keeps none), statfs all zeros.
func TestNodeFs_linksAndCp(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"symlinks", `import fs from "node:fs"; export function probe() {
			fs.writeFileSync("/tmp/a", "foo"); fs.mkdirSync("/tmp/d"); fs.writeFileSync("/tmp/d/x", "in d");
			fs.symlinkSync("/tmp/a", "/tmp/la"); fs.symlinkSync("d", "/tmp/ld"); fs.symlinkSync("/tmp/none", "/tmp/broken");
			const out = [fs.readFileSync("/tmp/la", "utf8"), fs.lstatSync("/tmp/la").isSymbolicLink(), fs.statSync("/tmp/la").isFile(),
				fs.readlinkSync("/tmp/ld"), fs.readFileSync("/tmp/ld/x", "utf8"), fs.realpathSync("/tmp/ld/x"), fs.existsSync("/tmp/broken"), fs.lstatSync("/tmp/broken").isSymbolicLink()];
			try { fs.readlinkSync("/tmp/a") } catch (e) { out.push(e.code) }
			try { fs.symlinkSync("/tmp/a", "/tmp/la") } catch (e) { out.push(e.code) }
			fs.symlinkSync("/tmp/loop2", "/tmp/loop1"); fs.symlinkSync("/tmp/loop1", "/tmp/loop2");
			try { fs.readFileSync("/tmp/loop1") } catch (e) { out.push(e.code) }
			return out.join() }`,
			"foo,true,true,d,in d,/tmp/d/x,false,true,EINVAL,EEXIST,ELOOP"},
		{"hard links share the file", `import fs from "node:fs"; export function probe() {
			fs.writeFileSync("/tmp/a", "one"); fs.linkSync("/tmp/a", "/tmp/b"); fs.writeFileSync("/tmp/b", "two");
			const out = [fs.readFileSync("/tmp/a", "utf8"), fs.statSync("/tmp/a").nlink, fs.statSync("/tmp/a").ino === fs.statSync("/tmp/b").ino];
			fs.unlinkSync("/tmp/a"); out.push(fs.readFileSync("/tmp/b", "utf8"), fs.statSync("/tmp/b").nlink);
			return out.join() }`,
			"two,2,true,two,1"},
		{"cp", `import fs from "node:fs"; export function probe() {
			const code = (f) => { try { f(); return "none" } catch (e) { return e.code } };
			fs.writeFileSync("/tmp/a", "foo"); fs.mkdirSync("/tmp/b"); fs.writeFileSync("/tmp/b/e", "bar"); fs.mkdirSync("/tmp/e");
			fs.symlinkSync("/tmp/a", "/tmp/c"); fs.symlinkSync("/tmp/b", "/tmp/d");
			const out = [];
			fs.cpSync("/tmp/a", "/tmp/new/dir/f"); out.push(fs.readFileSync("/tmp/new/dir/f", "utf8"));
			fs.writeFileSync("/tmp/g", "orig"); fs.cpSync("/tmp/a", "/tmp/g", { force: false }); out.push(fs.readFileSync("/tmp/g", "utf8"));
			out.push(code(() => fs.cpSync("/tmp/a", "/tmp/g", { force: false, errorOnExist: true })));
			out.push(code(() => fs.cpSync("/tmp/a", "/tmp/b")));
			out.push(code(() => fs.cpSync("/tmp/b", "/tmp/h")));
			out.push(code(() => fs.cpSync("/tmp/b", "/tmp/a", { recursive: true })));
			out.push(code(() => fs.cpSync("/tmp/c", "/tmp/e")));
			out.push(code(() => fs.cpSync("/tmp/b", "/tmp/b/sub", { recursive: true })));
			out.push(code(() => fs.cpSync("/tmp/nope", "/tmp/x")));
			out.push(code(() => fs.cpSync("/tmp/a", "/tmp/x", { force: "yes" })));
			out.push(code(() => fs.cpSync("/tmp/a", "/tmp/x", { filter: () => true })));
			out.push(code(() => fs.cpSync("/tmp/a", "/tmp/x", { mode: 4 })));
			fs.cpSync("/tmp/b", "/tmp/h", { recursive: true }); out.push(fs.readFileSync("/tmp/h/e", "utf8"));
			fs.cpSync("/tmp/c", "/tmp/k"); out.push(fs.lstatSync("/tmp/k").isSymbolicLink());
			fs.cpSync("/tmp/c", "/tmp/m", { dereference: true }); out.push(fs.lstatSync("/tmp/m").isFile());
			fs.cpSync("/tmp/a", "/tmp/d"); out.push(fs.lstatSync("/tmp/d").isFile());
			return out.join() }`,
			"foo,orig,ERR_FS_CP_EEXIST,ERR_FS_CP_NON_DIR_TO_DIR,ERR_FS_EISDIR,ERR_FS_CP_DIR_TO_NON_DIR,ENOTDIR,ERR_FS_CP_EINVAL,ENOENT,ERR_INVALID_ARG_TYPE,ERR_UNSUPPORTED_OPERATION,ERR_INVALID_ARG_VALUE,bar,true,true,true"},
		{"callback form: bad arguments throw, file errors reach the callback", `import fs from "node:fs"; export async function probe() {
			const out = [];
			try { fs.cp("/tmp/a", "/tmp/b", { filter: "x" }, () => out.push("called")) } catch (e) { out.push("threw " + e.code) }
			try { fs.access("/", -1, () => out.push("called")) } catch (e) { out.push("threw " + e.code) }
			await new Promise((r) => fs.cp("/tmp/nope", "/tmp/b", (e) => { out.push("cb " + e.code); r() }));
			await fs.promises.cp("/tmp/a", "/tmp/b", { mode: 4 }).catch((e) => out.push("rejected " + e.code));
			return out.join() }`,
			"threw ERR_INVALID_ARG_TYPE,threw ERR_OUT_OF_RANGE,cb ENOENT,rejected ERR_INVALID_ARG_VALUE"},
		{"access modes and errno", `import fs from "node:fs"; export function probe() {
			const code = (f) => { try { f(); return "ok" } catch (e) { return e.code + e.errno } };
			return [code(() => fs.accessSync("/tmp", fs.constants.W_OK)), code(() => fs.accessSync("/dev/null", fs.constants.W_OK)), code(() => fs.accessSync("/bundle", fs.constants.W_OK)),
				code(() => fs.accessSync("/tmp", fs.constants.X_OK)), code(() => fs.accessSync("/", fs.constants.R_OK)), code(() => fs.accessSync("/", 8)), code(() => fs.accessSync("/", 1n))].join() }`,
			"ok,ok,ENOENT-2,ENOENT-2,ok,ERR_OUT_OF_RANGEundefined,ERR_INVALID_ARG_TYPEundefined"},
		{"opendir, statfs, chmod, utimes", `import fs from "node:fs"; export async function probe() {
			fs.mkdirSync("/tmp/o/p", { recursive: true }); fs.writeFileSync("/tmp/o/f", "x");
			const d = fs.opendirSync("/tmp/o"); const names = []; for (let e; (e = d.readSync()) !== null;) names.push(e.name + (e.isDirectory() ? "/" : "")); d.closeSync();
			const it = []; for await (const e of await fs.promises.opendir("/tmp/o")) it.push(e.name);
			fs.chmodSync("/tmp/o/f", 0o600); fs.utimesSync("/tmp/o/f", 1000, 2000);
			const st = fs.statSync("/tmp/o/f");
			return [names.join(" "), it.join(" "), (st.mode & 0o777).toString(8), st.mtimeMs, fs.statfsSync("/tmp").bsize, typeof fs.lchmodSync, typeof fs.futimesSync, fs.readdirSync("/tmp/o", { recursive: true }).join(" ")].join() }`,
			"p/ f,p f,666,2000000,0,function,function,p f"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := runNodeModule(t, c.src, "2026-01-01", "nodejs_compat"); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// TestNodeFs_glob: globSync, glob and promises.glob match with minimatch
// (Node's own matcher) over /tmp: brace and extglob patterns, ** into dot
// directories as workerd's does, exclude as patterns or a function, and
// Dirents with withFileTypes.
func TestNodeFs_glob(t *testing.T) {
	src := `import fs from "node:fs"; export async function probe() {
		for (const d of ["/tmp/g/a/.hid/x", "/tmp/g/a/b/c", "/tmp/g/a/bc"]) fs.mkdirSync(d, { recursive: true });
		for (const f of ["/tmp/g/a/.hid/x/f", "/tmp/g/a/b/c/f", "/tmp/g/a/bc/f", "/tmp/g/a/.b"]) fs.writeFileSync(f, "x");
		const cwd = "/tmp/g", s = (a) => [...a].sort().join(" ");
		const out = [s(fs.globSync("a/**/f", { cwd })), s(fs.globSync("a//{b,bc}/*", { cwd })), s(fs.globSync("./**/.b", { cwd })),
			s(fs.globSync("a/+(b|bc)", { cwd })), s(fs.globSync("a/**", { cwd, exclude: ["**/.hid/**", "**/.hid"] })),
			s(fs.globSync("a/*", { cwd, exclude: (p) => p.endsWith("bc") })), fs.globSync("a/b/c", { cwd, withFileTypes: true }).map((d) => d.name + d.isDirectory()).join(),
			s(fs.globSync(["a/bc", "a/b"], { cwd }))];
		out.push(s(await new Promise((r, j) => fs.glob("a/*/f", { cwd }, (e, m) => (e ? j(e) : r(m))))));
		const it = []; for await (const m of fs.promises.glob("a/b*", { cwd })) it.push(m); out.push(s(it));
		return out.join("|") }`
	want := "a/.hid/x/f a/b/c/f a/bc/f|a/b/c a/bc/f|a/.b|a/b a/bc|a a/.b a/b a/b/c a/b/c/f a/bc a/bc/f|a/.b a/.hid a/b|ctrue|a/b a/bc|a/bc/f|a/b a/bc"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNodeTest_mock: node:test's mock tracker records calls (arguments,
// results, errors, this), swaps implementations (for good, once, for n
// calls) and restores mocked methods; a bare "test" stays an npm name.
func TestNodeTest_mock(t *testing.T) {
	src := `import { mock } from "node:test"; export function probe() {
		const out = [];
		const f = mock.fn((a, b) => a + b);
		f(1, 2); f.call("ctx", 3, 4);
		out.push(f.mock.callCount(), f.mock.calls[1].arguments.join("+"), f.mock.calls[1].result, f.mock.calls[1].this);
		f.mock.mockImplementationOnce(() => "once"); out.push(f(0, 0), f(5, 5));
		const bad = mock.fn(() => { throw new TypeError("no") }); try { bad() } catch {} out.push(bad.mock.calls[0].error.message);
		const obj = { n: 1, get v() { return 10 }, inc(x) { return this.n + x } };
		const m = mock.method(obj, "inc"); out.push(obj.inc(2), m.mock.callCount(), m.mock.calls[0].this === obj);
		mock.method(obj, "inc", () => 99, { times: 1 }); out.push(obj.inc(1), obj.inc(1));
		mock.getter(obj, "v", () => 20); out.push(obj.v);
		mock.restoreAll(); out.push(obj.inc(2), obj.v, typeof obj.inc.mock);
		f.mock.resetCalls(); out.push(f.mock.callCount());
		return out.join() }`
	want := "2,3+4,7,ctx,once,10,no,3,1,true,99,2,20,3,10,undefined,0"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if _, err := buildNode(t, `import t from "test"; export const x = t;`, "2026-01-01", "nodejs_compat"); err == nil || strings.Contains(err.Error(), "node:test") {
		t.Errorf("a bare \"test\" import should be left to npm resolution (no such package here), got %v", err)
	}
}

// TestNodeFs_streams: createReadStream and createWriteStream as Node's fs
// streams: they open on construction ('open' with the descriptor, then
// 'ready'), read between start and end (inclusive) in highWaterMark
// chunks, count bytesRead and bytesWritten, write at start, take a custom
// fs, close the descriptor when done, and check their options with Node's
// error codes; fsPromises.open answers a FileHandle.
func TestNodeFs_streams(t *testing.T) {
	src := `import fs from "node:fs"; export async function probe() {
		const out = [];
		fs.writeFileSync("/tmp/r", "0123456789");
		const r = fs.createReadStream("/tmp/r", { start: 2, end: 7, highWaterMark: 4, encoding: "utf8" });
		r.on("open", (fd) => out.push("open " + typeof fd + " " + r.pending));
		const chunks = [];
		for await (const c of r) chunks.push(c);
		out.push(chunks.join("|"), r.bytesRead, r.destroyed);
		const opens = [];
		const custom = { open: (...a) => { opens.push(a[0]); return fs.open(...a); }, write: fs.write, close: fs.close };
		const w = fs.createWriteStream("/tmp/w", { fs: custom });
		await new Promise((res, rej) => { w.on("error", rej); w.write("abc"); w.end("def", res); });
		out.push(fs.readFileSync("/tmp/w", "utf8"), w.bytesWritten, opens.join());
		const w2 = fs.createWriteStream("/tmp/w", { flags: "r+", start: 1 });
		await new Promise((res) => w2.end("XY", res));
		out.push(fs.readFileSync("/tmp/w", "utf8"));
		const code = (f) => { try { f(); return "none"; } catch (e) { return e.code; } };
		out.push(code(() => fs.createReadStream("/tmp/r", { start: 5, end: 2 })), code(() => fs.createReadStream("/tmp/r", { start: "1" })),
			code(() => fs.createWriteStream("/tmp/w", { fs: { write: 1 } })));
		const missing = fs.createReadStream("/tmp/none");
		out.push(await new Promise((res) => missing.on("error", (e) => res(e.code))));
		const fh = await fs.promises.open("/tmp/w", "r");
		out.push(fh.constructor.name, (await fh.readFile("utf8")));
		await fh.close();
		out.push(await fh.stat().catch((e) => e.code));
		// A stream still opens with the deprecated open() method deleted.
		delete fs.ReadStream.prototype.open;
		const again = [];
		for await (const c of fs.createReadStream("/tmp/r", { encoding: "utf8" })) again.push(c);
		out.push(again.join(""));
		return out.join(",") }`
	want := "open number false,2345|67,6,true,abcdef,6,/tmp/w,aXYdef,ERR_OUT_OF_RANGE,ERR_INVALID_ARG_TYPE,ERR_INVALID_ARG_TYPE,ENOENT,FileHandle,aXYdef,EBADF,0123456789"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNodeStream_legacyModules: node:_stream_readable and the other
// legacy names answer node:stream's classes (by default and by name, as
// workerd's modules export them), duplexPair (newer than readable-stream)
// pipes each side into the other, and a StringDecoder of null decodes
// UTF-8 as Node's does.
func TestNodeStream_legacyModules(t *testing.T) {
	src := `import { Readable, Writable, Duplex, Transform, PassThrough, duplexPair } from "node:stream";
		import R from "node:_stream_readable"; import { StringDecoder } from "node:string_decoder";
		export async function probe() {
		const out = [R === Readable, (await import("node:_stream_readable")).Readable === Readable,
			(await import("node:_stream_writable")).Writable === Writable, (await import("node:_stream_duplex")).default === Duplex,
			(await import("node:_stream_transform")).Transform === Transform, (await import("node:_stream_passthrough")).PassThrough === PassThrough];
		const [a, b] = duplexPair();
		const got = new Promise((res) => b.on("data", (c) => res(c.toString())));
		a.write("ping");
		out.push(await got, new StringDecoder(null).encoding);
		return out.join() }`
	want := "true,true,true,true,true,true,ping,utf8"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNodeBuffer_offsetsAndLegacy: Buffer's readers and writers check the
// offset as Node's do (type, integer, range with the last valid offset,
// a buffer too short for the value), where an offset of Infinity once
// reached goja_nodejs's slice bounds and stopped the shard; SlowBuffer,
// utf8Slice and its kin, buf.parent and buf.offset, and Buffer.from of an
// object's valueOf and of toJSON's shape; a Buffer method on a receiver
// that only inherits from Buffer.prototype throws (+Buffer.prototype never
// returned before).
func TestNodeBuffer_offsetsAndLegacy(t *testing.T) {
	src := `import { Buffer, SlowBuffer, isUtf8, isAscii } from "node:buffer"; export function probe() {
		const b = Buffer.from([1, 2, 3, 4]);
		const err = (f) => { try { return "ok " + f(); } catch (e) { return e.code + ": " + e.message; } };
		return [err(() => b.readInt32LE(Infinity)), err(() => b.readUInt16BE(3)), err(() => b.readInt8(1.5)), err(() => b.readFloatLE("0")),
			err(() => Buffer.alloc(2).readDoubleBE(0)), err(() => b.readIntLE(0, 7)), err(() => b.readUIntBE(1, 3)), err(() => b.writeUInt16LE(1, 2 ** 40)),
			err(() => b.readUInt32BE()), typeof SlowBuffer(3).readUInt8, Buffer.from("héllo").utf8Slice(1, 3), b.hexSlice(), b.parent === b.buffer, b.offset,
			Buffer.from(new String("str")).toString(), Buffer.from(b.toJSON()).equals(b), err(() => +Buffer.prototype).split(":")[0],
			Buffer.from([1, 2, 3, 4]).swap16().toString("hex"), Buffer.from([1, 2, 3, 4]).swap32().toString("hex"), err(() => Buffer.alloc(3).swap16()),
			err(() => isUtf8("x")), isAscii(new Uint8Array([1, 200]))].join("\n") }`
	want := `ERR_OUT_OF_RANGE: The value of "offset" is out of range. It must be >= 0 and <= 0. Received Infinity
ERR_OUT_OF_RANGE: The value of "offset" is out of range. It must be >= 0 and <= 2. Received 3
ERR_OUT_OF_RANGE: The value of "offset" is out of range. It must be an integer. Received 1.5
ERR_INVALID_ARG_TYPE: The "offset" argument must be of type number. Received type string ('0')
ERR_BUFFER_OUT_OF_BOUNDS: Attempt to access memory outside buffer bounds
ERR_OUT_OF_RANGE: The value of "byteLength" is out of range. It must be >= 1 and <= 6. Received 7
ok 131844
ERR_OUT_OF_RANGE: The value of "offset" is out of range. It must be >= 0 and <= 2. Received 1_099_511_627_776
ok 16909060
function
é
01020304
true
0
str
true
undefined
02010403
04030201
ERR_INVALID_BUFFER_SIZE: Buffer size must be a multiple of 16-bits
ERR_INVALID_ARG_TYPE: The "input" argument must be an instance of ArrayBuffer, Buffer, or TypedArray. Received type string ('x')
false`
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNodeEvents_captureRejections: with captureRejections, a listener's
// rejected promise reaches the emitter's 'error' listener (or its
// Symbol.for("nodejs.rejection") method), as in Node; node:stream's
// classes pass the option through.
func TestNodeEvents_captureRejections(t *testing.T) {
	src := `import { EventEmitter } from "node:events"; import { Readable } from "node:stream"; export async function probe() {
		const out = [];
		const e = new EventEmitter({ captureRejections: true });
		const got = new Promise((res) => e.on("error", (err) => res(err.message)));
		e.on("x", async () => { throw new Error("boom"); });
		e.emit("x");
		out.push(await got);
		const f = new EventEmitter({ captureRejections: true });
		const viaSymbol = new Promise((res) => { f[Symbol.for("nodejs.rejection")] = (err, type) => res(type + " " + err.message); });
		f.on("y", async () => { throw new Error("bang"); });
		f.emit("y");
		out.push(await viaSymbol);
		const r = new Readable({ captureRejections: true, read() {} });
		const destroyed = new Promise((res) => r.on("error", (err) => res(err.message + " " + r.destroyed)));
		r.on("data", async () => { throw new Error("kaboom"); });
		r.push("hello");
		out.push(await destroyed);
		try { new EventEmitter({ captureRejections: 1 }); } catch (err) { out.push(err.code); }
		return out.join() }`
	want := "boom,y bang,kaboom true,ERR_INVALID_ARG_TYPE"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// TestNodeBuffer_utf8Replacement: invalid UTF-8 decodes with one U+FFFD for
// each maximal invalid subpart, as V8 (and the WHATWG decoder) do, so a
// StringDecoder fed the bytes in pieces and Buffer.toString agree (workerd's
// string-decoder fuzz test compares the two).
func TestNodeBuffer_utf8Replacement(t *testing.T) {
	src := `import { Buffer } from "node:buffer"; import { StringDecoder } from "node:string_decoder"; export function probe() {
		const b = Buffer.from([0xe2, 0x82, 0x41, 0xff, 0xf0, 0x9f, 0x98]);
		const d = new StringDecoder("utf8");
		const pieces = d.write(b.subarray(0, 2)) + d.write(b.subarray(2)) + d.end();
		return [JSON.stringify(b.toString()), pieces === b.toString(), b.toString("utf8", 2, 3), Buffer.from("héllo").toString(undefined, 1, 3)].join() }`
	want := "\"\ufffdA\ufffd\ufffd\",true,A,é"
	if got := runNodeModule(t, src, "2026-01-01", "nodejs_compat"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
