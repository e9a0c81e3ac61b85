// tiktoken (Rust compiled with wasm-bindgen) as its README shows it for
// Cloudflare Workers: the lite build, its .wasm imported as a module
// (CompiledWasm), the cl100k_base ranks as JSON. A Durable Object tokenizes
// documents, stores their token counts in SQLite and splits text into
// chunks of a token budget; the worker encodes and decodes directly.
import { DurableObject } from "cloudflare:workers";
import wasm from "tiktoken/lite/tiktoken_bg.wasm";
import model from "tiktoken/encoders/cl100k_base.json";
import { init, Tiktoken } from "tiktoken/lite/init";

let enc;
async function encoder() {
  if (!enc) {
    await init((imports) => WebAssembly.instantiate(wasm, imports));
    enc = new Tiktoken(model.bpe_ranks, model.special_tokens, model.pat_str);
  }
  return enc;
}

export class Docs extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS docs (name TEXT PRIMARY KEY, tokens INTEGER, chars INTEGER)");
  }
  async add(name, text) {
    const e = await encoder();
    const n = e.encode(text).length;
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO docs VALUES (?, ?, ?)", name, n, text.length);
    return { name, tokens: n };
  }
  list() {
    return this.ctx.storage.sql.exec("SELECT name, tokens, chars FROM docs ORDER BY tokens DESC, name").toArray();
  }
  async chunks(text, budget) {
    const e = await encoder();
    const ids = e.encode(text);
    const out = [];
    const dec = new TextDecoder();
    for (let i = 0; i < ids.length; i += budget) out.push(dec.decode(e.decode(ids.slice(i, i + budget))));
    return { tokens: ids.length, chunks: out };
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const stub = env.DOCS.get(env.DOCS.idFromName("lib"));
    try {
      switch (url.pathname) {
        case "/encode": {
          const e = await encoder();
          const text = await req.text();
          const ids = e.encode(text);
          return Response.json({ ids: Array.from(ids), back: new TextDecoder().decode(e.decode(ids)) === text, special: Array.from(e.encode("<|endoftext|>hi", "all")), typed: Object.prototype.toString.call(ids) });
        }
        case "/special": {
          const e = await encoder();
          try { e.encode("<|endoftext|>"); return Response.json({ ok: true }); } catch (err) { return Response.json({ error: String(err) }); }
        }
        case "/add": return Response.json(await stub.add(url.searchParams.get("name"), await req.text()));
        case "/list": return Response.json(await stub.list());
        case "/chunks": return Response.json(await stub.chunks(await req.text(), Number(url.searchParams.get("budget"))));
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ error: e.name, message: e.message }, { status: 500 });
    }
  },
};
