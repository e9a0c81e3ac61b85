// nodejs_compat as libraries use it: node:buffer, events, path, util,
// string_decoder, assert, crypto, async_hooks (AsyncLocalStorage across
// await, timers and setImmediate), os, process and the Node globals; bare
// built-in names; stub.fetch() redirects; transactionSync's error.
import { DurableObject } from "cloudflare:workers";
import { Buffer } from "node:buffer";
import { EventEmitter, once } from "node:events";
import path from "node:path";
import posixPath from "path";
import util from "node:util";
import { StringDecoder } from "node:string_decoder";
import assert from "node:assert";
import crypto from "node:crypto";
import { AsyncLocalStorage } from "node:async_hooks";
import process from "node:process";
import url from "node:url";
import qs from "node:querystring";

const als = new AsyncLocalStorage();

function caught(fn) {
  try {
    fn();
    return "no error";
  } catch (e) {
    return { name: e.name, code: e.code ?? null, message: e.message };
  }
}

async function tagged(tag) {
  await null;
  const a = als.getStore();
  await new Promise((r) => setTimeout(r, 5));
  const b = als.getStore();
  await new Promise((r) => setImmediate(r));
  return `${tag}:${a}/${b}/${als.getStore()}`;
}

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/start": return Response.redirect("https://x/see-other", 302);
      case "/see-other": return new Response(null, { status: 303, headers: { location: "/end?q=1" } });
      case "/end": return Response.json({ method: request.method, path: url.pathname + url.search, body: request.body === null ? null : await request.text() });
      case "/tx": {
        const thrown = new RangeError("mine");
        thrown.extra = 42;
        try {
          this.ctx.storage.transactionSync(() => {
            this.ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (x)");
            throw thrown;
          });
        } catch (e) {
          return Response.json({ same: e === thrown, extra: e.extra, name: e.name });
        }
        return Response.json("no error");
      }
    }
    return new Response("unknown", { status: 404 });
  }
}

export default {
  async fetch(request, env) {
    const p = new URL(request.url).pathname;
    switch (p) {
      case "/buffer": {
        const b = Buffer.from("héllo wörld");
        return Response.json({
          base64: b.toString("base64"), hex: Buffer.from("hi").toString("hex"), len: b.length,
          fromB64: Buffer.from("aGk=", "base64").toString(), concat: Buffer.concat([Buffer.from("a"), Buffer.from("b")]).toString(),
          isBuffer: [Buffer.isBuffer(b), Buffer.isBuffer(new Uint8Array(1))], byteLength: Buffer.byteLength("€"),
          sub: b.subarray(1, 3).toString("hex"), json: Buffer.from([1, 2]).toJSON(), eq: Buffer.from("x").equals(Buffer.from("x")),
          idx: Buffer.from("abcabc").indexOf("ca"), u32: Buffer.from([1, 2, 3, 4]).readUInt32BE(0), global: globalThis.Buffer === Buffer,
        });
      }
      case "/events": {
        const e = new EventEmitter();
        const out = [];
        e.on("x", (v) => out.push("on" + v));
        e.once("x", (v) => out.push("once" + v));
        e.emit("x", 1);
        e.emit("x", 2);
        const waiting = once(e, "y");
        e.emit("y", 3, 4);
        out.push((await waiting).join("+"));
        return Response.json({ out, count: e.listenerCount("x"), names: e.eventNames(), unhandled: caught(() => e.emit("error", new Error("boom"))) });
      }
      case "/path":
        return Response.json({
          join: path.join("/a/b", "../c", "d.txt"), resolve: path.resolve("/foo/bar", "./baz"), ext: path.extname("index.coffee.md"),
          base: path.basename("/foo/bar/quux.html", ".html"), dir: path.dirname("/foo/bar/baz"), rel: path.relative("/data/orandea/test/aaa", "/data/orandea/impl/bbb"),
          norm: path.normalize("/foo/bar//baz/asdf/quux/.."), parse: path.parse("/home/user/dir/file.txt"), sep: path.sep, bare: posixPath === path,
        });
      case "/util": {
        const f = util.promisify((a, cb) => cb(null, a * 2));
        return Response.json({
          format: util.format("%s:%d:%j", "a", 42, { x: 1 }), promisified: await f(21), isPromise: util.types.isPromise(Promise.resolve()),
          deep: util.isDeepStrictEqual({ a: [1] }, { a: [1] }), inherits: typeof util.inherits,
        });
      }
      case "/decoder": {
        const d = new StringDecoder("utf8");
        return Response.json([d.write(Buffer.from([0xe2])), d.write(Buffer.from([0x82, 0xac])), d.end()]);
      }
      case "/assert":
        return Response.json({
          strict: caught(() => assert.strictEqual(1, 2, "one is not two")), ok: caught(() => assert(false, "nope")),
          deep: caught(() => assert.deepStrictEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })),
          deepFail: caught(() => assert.deepStrictEqual([1], ["1"], "differs")).code, throws: caught(() => assert.throws(() => { throw new TypeError("x"); }, TypeError)),
        });
      case "/crypto":
        return Response.json({
          sha256: crypto.createHash("sha256").update("abc").digest("hex"), sha1b64: crypto.createHash("sha1").update("a").update("bc").digest("base64"),
          md5: crypto.createHash("md5").update(Buffer.from("abc")).digest("hex"), sha512len: crypto.createHash("sha512").update("").digest().length,
          hmac: crypto.createHmac("sha256", "key").update("The quick brown fox jumps over the lazy dog").digest("hex"),
          safe: crypto.timingSafeEqual(Buffer.from("ab"), Buffer.from("ab")), unsafeLen: caught(() => crypto.timingSafeEqual(Buffer.from("a"), Buffer.from("ab"))), badHash: caught(() => crypto.createHash("nope")),
          random: crypto.randomBytes(16).length, uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(crypto.randomUUID()),
          webcrypto: crypto.webcrypto === globalThis.crypto,
        });
      case "/als": {
        const r = await Promise.all([als.run("one", () => tagged("x")), als.run("two", () => tagged("y"))]);
        return Response.json({ r, outside: als.getStore() ?? null, exit: als.run(1, () => als.exit(() => als.getStore() ?? null)) });
      }
      case "/process":
        return Response.json({
          env: process.env.GREETING, global: globalThis.process === process, nextTick: typeof process.nextTick,
          immediate: typeof setImmediate, platform: typeof process.platform,
        });
      case "/url": {
        const p = url.parse("https://user:pw@example.com:8080/p/a/t/h?query=string#hash", true);
        return Response.json({
          same: url.URL === URL, file: url.fileURLToPath("file:///tmp/a%20b.txt"), toFile: url.pathToFileURL("/tmp/a b#c.txt").href,
          parsed: [p.protocol, p.host, p.auth, p.hostname, p.port, p.pathname, p.search, p.query.query, p.hash, p.path],
          format: url.format(new URL("https://a:b@example.com/p?q#f"), { auth: false, fragment: false }),
          resolve: [url.resolve("/one/two/three", "four"), url.resolve("http://example.com/one", "/two")],
          qs: [qs.parse("foo=bar&abc=xyz&abc=123&sp=a+b%20c"), qs.stringify({ foo: "bar", baz: ["qux", "quux"], corge: "" }), qs.escape("a b!")],
        });
      }
      case "/ticks": {
        const out = [];
        Promise.resolve().then(() => out.push("promise"));
        process.nextTick(() => out.push("nextTick"));
        queueMicrotask(() => out.push("microtask"));
        await new Promise((r) => setTimeout(r, 10));
        return Response.json(out);
      }
      case "/redirect": {
        const stub = env.OBJ.getByName("r");
        const followed = await stub.fetch("https://x/start", { method: "POST", body: "payload" });
        const manual = await stub.fetch("https://x/start", { redirect: "manual" });
        return Response.json({ followed: [followed.status, await followed.json()], manual: [manual.status, manual.headers.get("location")] });
      }
      case "/tx":
        return env.OBJ.getByName("t").fetch("https://x/tx");
    }
    return new Response("not found", { status: 404 });
  },
};
