// hash-wasm carries its wasm as base64 and compiles it when first used
// (WebAssembly.compile of bytes made at run time), which workerd refuses:
// every hash-wasm function rejects with workerd's CompileError. (After that
// refusal hash-wasm's lock for that algorithm stays taken and its next call
// never settles, on workerd as here, so each algorithm is called once.) The
// object reports the refusal, falls back to crypto.subtle and keeps the
// digests it made in SQLite.
import { DurableObject } from "cloudflare:workers";
import { sha256, md5, argon2id, blake3, createSHA256, sha1, sha384, sha512 } from "hash-wasm";

const err = (e) => ({ name: e.name, message: e.message, wasm: e instanceof WebAssembly.CompileError });
async function attempt(f) {
  try { return { ok: await f() }; } catch (e) { return { error: err(e) }; }
}
const hex = (b) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");

export class Hasher extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS digests (input TEXT PRIMARY KEY, how TEXT, digest TEXT)");
  }
  async digest(input, alg) {
    const f = { "SHA-1": sha1, "SHA-384": sha384, "SHA-512": sha512 }[alg];
    let r = await attempt(() => f(input)), how = "hash-wasm";
    if (r.error) {
      how = "crypto.subtle after " + r.error.name + ": " + r.error.message;
      r = { ok: hex(await crypto.subtle.digest(alg, new TextEncoder().encode(input))) };
    }
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO digests VALUES (?, ?, ?)", input, how, r.ok);
    return this.ctx.storage.sql.exec("SELECT * FROM digests ORDER BY input").toArray();
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    if (url.pathname === "/direct") {
      return Response.json({
        sha256: await attempt(() => sha256("abc")),
        md5: await attempt(() => md5("abc")),
        blake3: await attempt(() => blake3("abc")),
        argon2id: await attempt(() => argon2id({ password: "pw", salt: new Uint8Array(16), parallelism: 1, iterations: 1, memorySize: 64, hashLength: 16 })),
        stream: await attempt(async () => (await createSHA256()).update("a").digest()),
      });
    }
    if (url.pathname === "/digest") return Response.json(await env.H.get(env.H.idFromName("one")).digest(url.searchParams.get("s"), url.searchParams.get("alg")));
    return new Response("not found", { status: 404 });
  },
};
