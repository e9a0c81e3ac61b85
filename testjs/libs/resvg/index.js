// @resvg/resvg-wasm (Rust compiled with wasm-bindgen) as its README shows it
// for Cloudflare Workers: initWasm with the imported module, then
// new Resvg(svg, options).render().asPng(). A Durable Object renders badge
// SVGs to PNG, keeps each render's size and digest in SQLite and serves the
// PNG bytes; the worker reports bounding boxes and the normalized SVG.
import { DurableObject } from "cloudflare:workers";
import { initWasm, Resvg } from "@resvg/resvg-wasm";
import wasm from "@resvg/resvg-wasm/index_bg.wasm";

let ready;
const init = () => (ready ??= initWasm(wasm));

const badge = (color, width, n) => `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="40" viewBox="0 0 ${width} 40">
  <defs><linearGradient id="g" x1="0" x2="0" y1="0" y2="1"><stop offset="0" stop-color="#fff" stop-opacity=".3"/><stop offset="1" stop-opacity=".2"/></linearGradient></defs>
  <rect rx="6" width="${width}" height="40" fill="${color}"/>
  <rect rx="6" width="${width}" height="40" fill="url(#g)"/>
  ${Array.from({ length: n }, (_, i) => `<circle cx="${20 + i * 18}" cy="20" r="7" fill="#fff" stroke="#222" stroke-width="2"/>`).join("")}
  <path d="M${width - 30} 10 l10 20 l10 -20 z" fill="#ffd700"/>
</svg>`;

const hex = async (bytes) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", bytes))].map((b) => b.toString(16).padStart(2, "0")).join("");

async function render(svg, opts) {
  await init();
  const r = new Resvg(svg, opts);
  const img = r.render();
  const png = img.asPng();
  const out = { width: img.width, height: img.height, bytes: png.length, sha256: await hex(png), signature: Array.from(png.slice(1, 4), (c) => String.fromCharCode(c)).join("") };
  // Pixels: the center of the first circle is white, the corner outside the rounded rect transparent.
  const px = img.pixels;
  const at = (x, y) => Array.from(px.slice((y * img.width + x) * 4, (y * img.width + x) * 4 + 4));
  out.pixels = { circle: at(Math.round(20 * img.width / r.width), Math.round(img.height / 2)), corner: at(0, 0) };
  img.free();
  r.free();
  return { out, png };
}

export class Badges extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS renders (name TEXT PRIMARY KEY, width INTEGER, height INTEGER, bytes INTEGER, sha256 TEXT, png BLOB)");
  }
  async make(name, color, width, n, scale) {
    const { out, png } = await render(badge(color, width, n), { fitTo: { mode: "zoom", value: scale }, background: "rgba(0,0,0,0)" });
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO renders VALUES (?, ?, ?, ?, ?, ?)", name, out.width, out.height, out.bytes, out.sha256, png);
    return out;
  }
  list() {
    return this.ctx.storage.sql.exec("SELECT name, width, height, bytes, sha256 FROM renders ORDER BY name").toArray();
  }
  png(name) {
    const row = this.ctx.storage.sql.exec("SELECT png FROM renders WHERE name = ?", name).toArray()[0];
    return row ? new Uint8Array(row.png) : null;
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const p = url.searchParams;
    const stub = env.BADGES.get(env.BADGES.idFromName("lib"));
    try {
      switch (url.pathname) {
        case "/make": return Response.json(await stub.make(p.get("name"), p.get("color"), Number(p.get("width")), Number(p.get("n")), Number(p.get("scale"))));
        case "/list": return Response.json(await stub.list());
        case "/png": {
          const png = await stub.png(p.get("name"));
          return png ? new Response(png, { headers: { "content-type": "image/png" } }) : new Response("none", { status: 404 });
        }
        case "/inspect": {
          await init();
          const r = new Resvg(badge("#09c", 120, 3));
          const bbox = r.getBBox();
          const inner = r.innerBBox();
          return Response.json({ width: r.width, height: r.height, bbox: bbox && [bbox.x, bbox.y, bbox.width, bbox.height], inner: inner && [inner.x, inner.y, inner.width, inner.height], svg: r.toString().length, images: r.imagesToResolve() });
        }
        case "/bad": {
          await init();
          try { new Resvg("<svg"); return Response.json({ ok: true }); } catch (e) { return Response.json({ error: String(e) }); }
        }
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ error: e.name, message: e.message }, { status: 500 });
    }
  },
};
