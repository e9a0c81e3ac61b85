// A ReadableStream crossing JS RPC (a result, nested in one, an argument):
// its bytes (or strings, as UTF-8) arrive; a sender's error ends it with
// workerd's; a locked stream and structuredClone are refused.
import { DurableObject } from "cloudflare:workers";
const err = (e) => `${e?.name}: ${e?.message}`;
const enc = new TextEncoder();
function bytes(parts) {
  let i = 0;
  return new ReadableStream({ pull(c) { if (i < parts.length) c.enqueue(enc.encode(parts[i++])); else c.close(); } });
}
export class Obj extends DurableObject {
  makeStream(kind) {
    switch (kind) {
      case "bytes": return bytes(["a", "b", "c"]);
      case "byob": { let n = 0; return new ReadableStream({ type: "bytes", pull(c) { if (n++ < 2) c.enqueue(enc.encode("x" + n)); else c.close(); } }); }
      case "strings": return new ReadableStream({ start(c) { c.enqueue("str"); c.close(); } });
      case "nested": return { s: bytes(["n1", "n2"]), n: 1 };
      case "errored": return new ReadableStream({ pull(c) { c.error(new Error("boom")); } });
    }
  }
  async consume(rs) {
    return { isRS: rs instanceof ReadableStream, text: await new Response(rs).text() };
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.OBJ.getByName("a");
    const t = url.searchParams.get("t");
    let out;
    try {
      switch (t) {
        case "arg": out = await stub.consume(bytes(["p", "q"])); break;
        case "arg-locked": { const rs = bytes(["l"]); rs.getReader(); out = await stub.consume(rs); break; }
        case "clone": try { structuredClone(bytes(["c"])); out = "cloned"; } catch (e) { out = err(e); } break;
        case "nested": { const v = await stub.makeStream("nested"); out = { n: v.n, isRS: v.s instanceof ReadableStream, text: await new Response(v.s).text() }; break; }
        default: {
          const rs = await stub.makeStream(t);
          out = { isRS: rs instanceof ReadableStream };
          try { out.text = await new Response(rs).text(); } catch (e) { out.readError = err(e); }
        }
      }
    } catch (e) {
      out = { error: err(e) };
    }
    return Response.json(out);
  },
};
