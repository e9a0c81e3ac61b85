// node:stream and node:zlib under nodejs_compat: Readable/Writable/
// Transform/PassThrough, pipeline (callback and promise), finished,
// Readable.from, async iteration, object mode, backpressure signals, errors
// through a pipeline; zlib's sync, callback and promise forms (gzip,
// deflate, deflateRaw, brotli, unzip), stream forms through pipeline,
// crc32, constants, and its error codes on bad input. A Durable Object
// stores compressed documents in SQL and serves them back decompressed.
import { DurableObject } from "cloudflare:workers";
import { Readable, Writable, Transform, PassThrough, Duplex, pipeline, finished } from "node:stream";
import * as streamPromises from "node:stream/promises";
import zlib from "node:zlib";
import { promisify } from "node:util";
import { Buffer } from "node:buffer";

const TEXT = "The quick brown fox jumps over the lazy dog. ".repeat(40);

function collect(readable) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    readable.on("data", (c) => chunks.push(typeof c === "string" ? Buffer.from(c) : c));
    readable.on("end", () => resolve(Buffer.concat(chunks)));
    readable.on("error", reject);
  });
}

const upper = () => new Transform({
  transform(chunk, enc, cb) { cb(null, chunk.toString().toUpperCase()); },
});

export class Archive extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS docs (name TEXT PRIMARY KEY, gz BLOB, raw_len INTEGER)");
  }
  async put(name, text) {
    const gz = await promisify(zlib.gzip)(Buffer.from(text), { level: 9 });
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO docs VALUES (?, ?, ?)", name, gz, text.length);
    return { stored: gz.length < text.length, magic: gz.subarray(0, 2).toString("hex") };
  }
  get(name) {
    const row = this.ctx.storage.sql.exec("SELECT gz, raw_len FROM docs WHERE name = ?", name).toArray()[0];
    if (!row) return null;
    const text = zlib.gunzipSync(Buffer.from(row.gz)).toString();
    return { ok: text.length === row.raw_len, head: text.slice(0, 20) };
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const out = {};
    const step = async (name, fn) => {
      try { out[name] = await fn(); } catch (e) { out[name] = { error: e.name, message: e.message, code: e.code ?? null, errno: e.errno ?? null }; }
    };
    switch (url.pathname) {
      case "/stream": {
        await step("readableFrom", async () => (await collect(Readable.from(["a", "b", "c"]))).toString());
        await step("asyncIter", async () => { const got = []; for await (const c of Readable.from([1, 2, 3])) got.push(c); return got; });
        await step("transform", async () => (await collect(Readable.from(["ab", "cd"]).pipe(upper()))).toString());
        await step("pipelineCb", () => new Promise((resolve) => {
          const chunks = [];
          pipeline(Readable.from(["x", "y"]), upper(), new Writable({ write(c, e, cb) { chunks.push(c.toString()); cb(); } }), (err) => resolve({ err: err ? err.message : null, chunks }));
        }));
        await step("pipelinePromise", async () => {
          const chunks = [];
          await streamPromises.pipeline(Readable.from(["p", "q"]), new PassThrough(), new Writable({ write(c, e, cb) { chunks.push(c.toString()); cb(); } }));
          return chunks;
        });
        await step("pipelineError", async () => {
          const bad = new Transform({ transform(c, e, cb) { cb(new Error("boom in transform")); } });
          await streamPromises.pipeline(Readable.from(["z"]), bad, new PassThrough());
          return "no error";
        });
        await step("objectMode", async () => {
          const got = [];
          const r = new Readable({ objectMode: true, read() {} });
          r.push({ n: 1 }); r.push({ n: 2 }); r.push(null);
          for await (const o of r) got.push(o.n);
          return got;
        });
        await step("backpressure", () => {
          const w = new Writable({ highWaterMark: 4, write(c, e, cb) { setTimeout(cb, 0); } });
          const first = w.write("12"), second = w.write("345");
          return { first, second, length: w.writableLength, hwm: w.writableHighWaterMark, needDrain: w.writableNeedDrain };
        });
        await step("finished", () => new Promise((resolve) => {
          const r = Readable.from(["only"]);
          finished(r, (err) => resolve({ err: err ? err.message : null, ended: r.readableEnded }));
          r.resume();
        }));
        await step("duplex", async () => {
          const d = new Duplex({ read() { this.push("from-duplex"); this.push(null); }, write(c, e, cb) { cb(); } });
          return (await collect(d)).toString();
        });
        await step("destroyed", () => {
          const r = new Readable({ read() {} });
          r.destroy(new Error("gone"));
          return { destroyed: r.destroyed, errored: r.errored ? r.errored.message : null };
        });
        await step("types", () => ({ readable: typeof Readable, isStream: Readable.prototype instanceof (Object.getPrototypeOf(Readable)), hwm: new Readable().readableHighWaterMark, objHwm: new Readable({ objectMode: true }).readableHighWaterMark }));
        return Response.json(out);
      }
      case "/zlib": {
        const input = Buffer.from(TEXT);
        await step("roundtrips", () => ({
          gzip: zlib.gunzipSync(zlib.gzipSync(input)).equals(input),
          deflate: zlib.inflateSync(zlib.deflateSync(input)).equals(input),
          raw: zlib.inflateRawSync(zlib.deflateRawSync(input)).equals(input),
          brotli: zlib.brotliDecompressSync(zlib.brotliCompressSync(input)).equals(input),
          unzipGzip: zlib.unzipSync(zlib.gzipSync(input)).equals(input),
          unzipDeflate: zlib.unzipSync(zlib.deflateSync(input)).equals(input),
        }));
        await step("headers", () => ({
          gzip: zlib.gzipSync(input).subarray(0, 4).toString("hex"),
          deflate: zlib.deflateSync(input).subarray(0, 2).toString("hex"),
          deflate1: zlib.deflateSync(input, { level: 1 }).subarray(0, 2).toString("hex"),
          deflate9: zlib.deflateSync(input, { level: 9 }).subarray(0, 2).toString("hex"),
          smaller: zlib.deflateSync(input).length < input.length,
        }));
        await step("knownBytes", () => ({
          inflate: zlib.inflateSync(Buffer.from("eJzLSM3JyVcozy/KSQEAGgsEXQ==", "base64")).toString(),
          gunzip: zlib.gunzipSync(Buffer.from("H4sIAAAAAAAAA8tIzcnJVyjPL8pJAQCFEUoNCwAAAA==", "base64")).toString(),
          inflateRaw: zlib.inflateRawSync(Buffer.from("y0jNyclXKM8vykkBAA==", "base64")).toString(),
          brotli: zlib.brotliDecompressSync(Buffer.from("CwWAaGVsbG8gd29ybGQD", "base64")).toString(),
        }));
        await step("crc32", () => [zlib.crc32("hello world"), zlib.crc32(Buffer.from("abc")), zlib.crc32("def", zlib.crc32("abc"))]);
        await step("callback", () => new Promise((resolve) => zlib.deflate("callback data", (err, buf) => resolve({ err, back: zlib.inflateSync(buf).toString() }))));
        await step("promisified", async () => (await promisify(zlib.gunzip)(await promisify(zlib.gzip)("promised"))).toString());
        await step("streamed", async () => {
          const gz = await collect(Readable.from([Buffer.from("part one, "), Buffer.from("part two")]).pipe(zlib.createGzip()));
          const back = await collect(Readable.from([gz]).pipe(zlib.createGunzip()));
          return back.toString();
        });
        await step("streamPipeline", async () => {
          const chunks = [];
          await streamPromises.pipeline(Readable.from([TEXT]), zlib.createDeflate(), zlib.createInflate(), new Writable({ write(c, e, cb) { chunks.push(c); cb(); } }));
          return Buffer.concat(chunks).toString() === TEXT;
        });
        await step("badHeader", () => zlib.inflateSync(Buffer.from("not zlib data")));
        await step("badGzip", () => zlib.gunzipSync(Buffer.from("not gzip data")));
        await step("truncated", () => zlib.inflateSync(zlib.deflateSync(input).subarray(0, 20)));
        await step("badChecksum", () => { const b = Buffer.from(zlib.deflateSync(Buffer.from("checksum"))); b[b.length - 1] ^= 0xff; return zlib.inflateSync(b); });
        await step("badCallback", () => new Promise((resolve) => zlib.gunzip(Buffer.from("xx"), (err) => resolve({ error: err.name, message: err.message, code: err.code, errno: err.errno }))));
        await step("constants", () => ({ Z_BEST_COMPRESSION: zlib.constants.Z_BEST_COMPRESSION, Z_SYNC_FLUSH: zlib.constants.Z_SYNC_FLUSH, BROTLI_PARAM_QUALITY: zlib.constants.BROTLI_PARAM_QUALITY, Z_DATA_ERROR: zlib.constants.Z_DATA_ERROR }));
        return Response.json(out);
      }
      case "/archive": {
        const stub = env.ARCHIVE.getByName("a");
        return Response.json({ put: await stub.put("fox", TEXT), get: await stub.get("fox"), missing: await stub.get("none") });
      }
      default:
        return new Response("not found", { status: 404 });
    }
  },
};
