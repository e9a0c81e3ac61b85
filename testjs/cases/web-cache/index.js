// The Cache API's surface and checks as workerd has them. workerd without
// a cache service rejects every put/match/delete that reaches the cache
// with "No Cache was configured"; this case records only what happens
// before that (cellhost's cache then stores or misses, see
// jsapi/web/cache.go and its tests).
import { DurableObject } from "cloudflare:workers";

function c(f) {
  try {
    return f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}
async function ac(f) {
  try {
    return await f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/surface": {
        out.globals = [typeof Cache, typeof CacheStorage, String(caches), String(caches.default), Object.keys(caches)];
        out.protos = [Object.getOwnPropertyNames(Object.getPrototypeOf(caches)).sort(), Object.getOwnPropertyNames(Object.getPrototypeOf(caches.default)).sort()];
        out.ctors = [c(() => new Cache()), c(() => new CacheStorage())];
        out.same = [caches.default === caches.default, (await caches.open("a")) === (await caches.open("a")), (await caches.open("a")) === caches.default];
        out.open = [await ac(async () => String(await caches.open("x".repeat(1023)))), await ac(() => caches.open("x".repeat(1024))), await ac(async () => String(await caches.open("")))];
        out.unimplemented = [
          await ac(() => caches.default.add("http://x/")),
          await ac(() => caches.default.addAll([])),
          await ac(() => caches.default.matchAll()),
          await ac(() => caches.default.keys()),
        ];
        return Response.json(out);
      }
      case "/checks": {
        const d = caches.default;
        out.matchPost = String(await d.match(new Request("http://x/", { method: "POST" })));
        out.deletePost = await d.delete(new Request("http://x/", { method: "POST" }));
        out.errorResponse = await ac(() => d.put("http://x/", Response.error()));
        out.put304 = await ac(async () => {
          const r = new Response(null, { status: 304 });
          return [String(await d.put("http://x/", r)), r.bodyUsed];
        });
        out.badUrl = await ac(() => d.put("not a url", new Response("x")));
        out.noArgs = await ac(() => d.put());
        out.notResponse = await ac(() => d.put("http://x/", "str"));
        out.vary = await ac(() => d.put("http://x/", new Response("x", { headers: { vary: "Accept, *" } })));
        out.nonGet = await ac(() => d.put(new Request("http://x/", { method: "POST" }), new Response("x", { status: 206 })));
        out.partial = await ac(() => d.put("http://x/", new Response("x", { status: 206 })));
        out.used = await ac(async () => {
          const r = new Response("x");
          await r.text();
          return d.put("http://x/", r);
        });
        out.sync = c(() => {
          const p = d.put("http://x/", new Response("x", { status: 206 }));
          p.catch(() => {});
          return String(p);
        });
        return Response.json(out);
      }
    }
    return new Response("unknown", { status: 404 });
  }
}

export default {
  fetch(request, env) {
    return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request);
  },
};
