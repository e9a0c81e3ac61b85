// Request and Response objects crossing JS RPC (arguments, results, nested
// in them), as workerd serializes them (api/http.c++: the URL, then the
// initializer dict with the body as a ReadableStream), and what it refuses:
// a used body, an AbortSignal, a WebSocket, structuredClone of a body.
import { DurableObject } from "cloudflare:workers";
const err = (e) => `${e?.name}: ${e?.message}`;
async function descRes(r) {
  return { isResponse: r instanceof Response, status: r.status, statusText: r.statusText, type: r.type, ok: r.ok, redirected: r.redirected, url: r.url,
    headers: [...r.headers], bodyUsed: r.bodyUsed, hasBody: r.body !== null, ws: r.webSocket === null ? null : typeof r.webSocket, text: await r.text() };
}
async function descReq(r) {
  return { isRequest: r instanceof Request, method: r.method, url: r.url, headers: [...r.headers], redirect: r.redirect, hasBody: r.body !== null,
    signal: typeof r.signal, cf: r.cf ?? null, text: await r.text() };
}
export class Obj extends DurableObject {
  async echoRequest(req) { return await descReq(req); }
  async requestBack(req) { return req; }
  makeResponse(kind) {
    switch (kind) {
      case "plain": return new Response("made", { status: 201, statusText: "Made", headers: { "x-a": "1", "set-cookie": "a=1" } });
      case "json": return Response.json({ a: 1 });
      case "redirect": return Response.redirect("https://example.com/to", 302);
      case "error": return Response.error();
      case "empty": return new Response(null, { status: 204 });
      case "stream": {
        let i = 0;
        return new Response(new ReadableStream({ pull(c) { if (i < 3) c.enqueue(new TextEncoder().encode("chunk" + i++)); else c.close(); } }));
      }
      case "nested": return { r: new Response("nested"), list: [new Request("https://x/a")] };
      case "ws": { const p = new WebSocketPair(); p[1].accept(); return new Response(null, { status: 101, webSocket: p[0] }); }
      case "used": { const r = new Response("used"); r.text(); return r; }
      case "headers": return new Headers({ "x-h": "1" });
    }
  }
  async fetch(request) { return new Response("fetch"); }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.OBJ.getByName("a");
    const t = url.searchParams.get("t");
    let out;
    try {
      switch (t) {
        case "req":
          out = await stub.echoRequest(new Request("https://x.test/y?z=1", { method: "POST", headers: { a: "1", "content-type": "text/plain" }, body: "hello", redirect: "follow" }));
          break;
        case "req-get": out = await stub.echoRequest(new Request("https://x.test/get")); break;
        case "req-incoming": { const d = await stub.echoRequest(request); out = { method: d.method, url: d.url, redirect: d.redirect, hasBody: d.hasBody }; break; }
        case "req-back": out = await descReq(await stub.requestBack(new Request("https://x.test/back", { method: "PUT", body: "back" }))); break;
        case "req-used": { const r = new Request("https://x.test/", { method: "POST", body: "x" }); await r.text(); out = await stub.echoRequest(r); break; }
        case "req-signal": out = await stub.echoRequest(new Request("https://x.test/", { signal: new AbortController().signal })); break;
        case "req-stream": {
          const r = new Request("https://x.test/s", { method: "POST", body: new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("streamed")); c.close(); } }) });
          out = await stub.echoRequest(r); break;
        }
        case "nested": { const v = await stub.makeResponse("nested"); out = { r: await descRes(v.r), list: await Promise.all(v.list.map(descReq)) }; break; }
        case "headers": { const h = await stub.makeResponse("headers"); out = { isHeaders: h instanceof Headers, h: [...h] }; break; }
        case "clone-req": try { structuredClone(new Request("https://x.test/")); out = "cloned"; } catch (e) { out = err(e); } break;
        case "clone-res": try { structuredClone(new Response("x")); out = "cloned"; } catch (e) { out = err(e); } break;
        default: out = await descRes(await stub.makeResponse(t));
      }
    } catch (e) {
      out = { error: err(e) };
    }
    return Response.json(out);
  },
};
