// KV namespace binding: get/put/delete/list, metadata, value types, errors.
function err(e) { return { name: e.name, message: e.message }; }
async function attempt(f) { try { return { ok: await f() }; } catch (e) { return { error: err(e) }; } }
function names(r) { return { keys: r.keys, list_complete: r.list_complete, hasCursor: typeof r.cursor === "string" }; }

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const kv = env.KV;
    let out;
    switch (url.pathname) {
      case "/put": {
        await kv.put("a", "1");
        await kv.put("b/1", "x");
        await kv.put("b/2", "y", { metadata: { n: 2, tag: "two" } });
        await kv.put("b/3", JSON.stringify({ z: [1, 2] }));
        await kv.put("bin", new Uint8Array([0, 1, 255]));
        out = { done: true };
        break;
      }
      case "/get": {
        out = {
          a: await kv.get("a"),
          missing: await kv.get("nope"),
          json: await kv.get("b/3", "json"),
          jsonOpt: await kv.get("b/3", { type: "json" }),
          buf: Array.from(new Uint8Array(await kv.get("bin", "arrayBuffer"))),
          bufIsAB: (await kv.get("bin", { type: "arrayBuffer" })) instanceof ArrayBuffer,
          text: await kv.get("b/1", { type: "text" }),
        };
        break;
      }
      case "/meta": {
        const w = await kv.getWithMetadata("b/2");
        const n = await kv.getWithMetadata("b/1");
        const m = await kv.getWithMetadata("nope");
        out = {
          withMeta: { value: w.value, metadata: w.metadata },
          noMeta: { value: n.value, metadata: n.metadata },
          missing: { value: m.value, metadata: m.metadata },
          json: (await kv.getWithMetadata("b/3", "json")).value,
        };
        break;
      }
      case "/bulk": {
        const g = await kv.get(["a", "b/1", "nope"]);
        const j = await kv.get(["b/3"], "json");
        const w = await kv.getWithMetadata(["b/2", "nope"]);
        out = { isMap: g instanceof Map, get: Object.fromEntries(g), json: Object.fromEntries(j), meta: Object.fromEntries(w) };
        break;
      }
      case "/list": {
        const all = await kv.list();
        const pre = await kv.list({ prefix: "b/" });
        const p1 = await kv.list({ prefix: "b/", limit: 2 });
        const p2 = await kv.list({ prefix: "b/", limit: 2, cursor: p1.cursor });
        const none = await kv.list({ prefix: "zzz" });
        out = { all: names(all), pre: names(pre), p1: names(p1), p2: names(p2), none: names(none) };
        break;
      }
      case "/delete": {
        const r = await kv.delete("a");
        const r2 = await kv.delete("never-there");
        out = { r: r === undefined, r2: r2 === undefined, a: await kv.get("a"), keys: (await kv.list()).keys.map((k) => k.name) };
        break;
      }
      case "/overwrite": {
        await kv.put("b/2", "y2");
        const w = await kv.getWithMetadata("b/2");
        out = { value: w.value, metadata: w.metadata };
        break;
      }
      case "/errors": {
        out = {
          ttlLow: await attempt(() => kv.put("t", "v", { expirationTtl: 10 })),
          ttlNaN: await attempt(() => kv.put("t", "v", { expirationTtl: "abc" })),
          expPast: await attempt(() => kv.put("t", "v", { expiration: 1000 })),
          badType: await attempt(() => kv.get("a", "nope")),
          emptyKey: await attempt(() => kv.get("")),
          dotKey: await attempt(() => kv.put(".", "v")),
          dotdotKey: await attempt(() => kv.put("..", "v")),
          longKey: await attempt(() => kv.get("k".repeat(513))),
          limitZero: await attempt(() => kv.list({ limit: 0 })),
          limitBig: await attempt(() => kv.list({ limit: 1001 })),
          limitNeg: await attempt(() => kv.list({ limit: -1 })),
          limitFrac: await attempt(async () => (await kv.list({ limit: 1.5 })).keys.length),
          ttlZero: await attempt(() => kv.put("t", "v", { expirationTtl: 0 })),
          ttlNeg: await attempt(() => kv.put("t", "v", { expirationTtl: -5 })),
          ttlFrac: await attempt(() => kv.put("t", "v", { expirationTtl: 59.9 })),
          badTypeFound: await attempt(() => kv.get("b/1", "nope")),
          badTypeMeta: await attempt(() => kv.getWithMetadata("b/1", { type: "nope" })),
          ttlOk: await attempt(async () => { await kv.put("t", "v", { expirationTtl: 3600 }); return await kv.get("t"); }),
        };
        break;
      }
      default:
        return new Response("not found", { status: 404 });
    }
    return Response.json(out);
  },
};
