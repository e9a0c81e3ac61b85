// @jsquash as its README shows it for Cloudflare Workers: each codec's
// init() given its imported .wasm module. mozjpeg (C, emscripten with
// embind) encodes and decodes JPEG; the PNG codec (Rust, wasm-bindgen)
// encodes and decodes PNG. A Durable Object makes test images, keeps the
// encoded files in SQLite and round-trips them.
import { DurableObject } from "cloudflare:workers";
import encodeJpeg, { init as initJpegEncode } from "@jsquash/jpeg/encode";
import decodeJpeg, { init as initJpegDecode } from "@jsquash/jpeg/decode";
import encodePng, { init as initPngEncode } from "@jsquash/png/encode";
import decodePng, { init as initPngDecode } from "@jsquash/png/decode";
import JPEG_ENC from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm";
import JPEG_DEC from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm";
import PNG_WASM from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm";

let ready;
const init = () =>
  (ready ??= Promise.all([initJpegEncode(JPEG_ENC), initJpegDecode(JPEG_DEC), initPngEncode(PNG_WASM), initPngDecode(PNG_WASM)]));

function pattern(w, h, seed) {
  const data = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      data[i] = (x * 255) / (w - 1);
      data[i + 1] = (y * 255) / (h - 1);
      data[i + 2] = ((x ^ y) * seed) & 255;
      data[i + 3] = 255;
    }
  }
  return { data, width: w, height: h, colorSpace: "srgb" };
}

const hex = async (b) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", b))].map((x) => x.toString(16).padStart(2, "0")).join("");
const sample = (img) => [0, (img.width * img.height) >> 1, img.width * img.height - 1].map((p) => Array.from(img.data.slice(p * 4, p * 4 + 4)));

export class Images extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS files (name TEXT PRIMARY KEY, kind TEXT, bytes BLOB)");
  }
  async make(name, kind, w, h, seed, quality) {
    await init();
    const img = pattern(w, h, seed);
    const file = kind === "jpeg" ? await encodeJpeg(img, { quality }) : await encodePng(img);
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", name, kind, file);
    return { name, kind, bytes: file.byteLength, sha256: await hex(file), magic: Array.from(new Uint8Array(file, 0, 4)) };
  }
  async open(name) {
    await init();
    const row = this.ctx.storage.sql.exec("SELECT kind, bytes FROM files WHERE name = ?", name).toArray()[0];
    if (!row) return { missing: name };
    const img = row.kind === "jpeg" ? await decodeJpeg(row.bytes) : await decodePng(row.bytes);
    return { name, width: img.width, height: img.height, pixels: sample(img), sha256: await hex(img.data) };
  }
  async bad() {
    await init();
    try {
      await decodeJpeg(new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]).buffer);
      return { ok: true };
    } catch (e) {
      return { error: String(e) };
    }
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const p = url.searchParams;
    const stub = env.IMAGES.get(env.IMAGES.idFromName("lib"));
    try {
      switch (url.pathname) {
        case "/make": return Response.json(await stub.make(p.get("name"), p.get("kind"), Number(p.get("w")), Number(p.get("h")), Number(p.get("seed")), Number(p.get("q") ?? 75)));
        case "/open": return Response.json(await stub.open(p.get("name")));
        case "/bad": return Response.json(await stub.bad());
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ error: e.name, message: e.message }, { status: 500 });
    }
  },
};
