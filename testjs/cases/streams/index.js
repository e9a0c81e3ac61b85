// WHATWG streams as workerd has them: bodies as streams (readers, BYOB,
// tee, pipeThrough), TransformStream, the encoder/decoder and compression
// streams, IdentityTransformStream, FixedLengthStream, and their errors;
// request bodies read as streams and streamed responses, in the worker and
// through a Durable Object stub.
import { DurableObject } from "cloudflare:workers";

async function caught(fn) {
  try {
    return await fn();
  } catch (e) {
    return { name: e.name, message: e.message };
  }
}
async function readText(rs) {
  return new Response(rs).text();
}
async function collect(rs) {
  const out = [];
  const r = rs.getReader();
  for (;;) {
    const { value, done } = await r.read();
    if (done) return out;
    out.push(value);
  }
}

const checks = {
  async basics() {
    const r = new Response("hello");
    const b = r.body;
    return {
      isStream: b instanceof ReadableStream,
      same: r.body === b,
      locked: b.locked,
      used: r.bodyUsed,
      text: await r.text(),
      usedAfter: r.bodyUsed,
      nullBody: new Response(null).body,
      globals: ["ReadableStream", "WritableStream", "TransformStream", "ReadableStreamDefaultReader", "ReadableStreamBYOBReader", "WritableStreamDefaultWriter", "ByteLengthQueuingStrategy", "CountQueuingStrategy", "TextEncoderStream", "TextDecoderStream", "CompressionStream", "DecompressionStream", "IdentityTransformStream", "FixedLengthStream"].map((n) => typeof globalThis[n]).join(),
    };
  },
  async readers() {
    const r = new Response("abcdef");
    const reader = r.body.getReader();
    const first = await reader.read();
    const second = await reader.read();
    const byob = new Response("abcdef").body.getReader({ mode: "byob" });
    const part = await byob.read(new Uint8Array(4));
    return {
      first: [first.done, first.value.constructor.name, new TextDecoder().decode(first.value)],
      second: [second.done, second.value === undefined],
      byob: [part.done, part.value.byteLength <= 4, part.value.constructor.name],
    };
  },
  async locked() {
    const r = new Response("x");
    r.body.getReader();
    return {
      text: await caught(() => r.text()),
      reader: await caught(() => r.body.getReader()),
      used: r.bodyUsed,
    };
  },
  async used() {
    const r = new Response("x");
    await r.body.getReader().read();
    return { used: r.bodyUsed, text: await caught(() => r.text()) };
  },
  async tee() {
    const r = new Response("tee me");
    const [a, b] = r.body.tee();
    return { used: r.bodyUsed, a: await readText(a), b: await readText(b) };
  },
  async clone() {
    const r = new Response(ReadableStream.from([new TextEncoder().encode("cl"), new TextEncoder().encode("one")]));
    const c = r.clone();
    return [await r.text(), await c.text()];
  },
  async from() {
    const chunks = await collect(ReadableStream.from(["a", "b", "c"]));
    return chunks;
  },
  async transform() {
    const ts = new TransformStream({
      transform(chunk, c) {
        c.enqueue(chunk.toUpperCase());
      },
    });
    const w = ts.writable.getWriter();
    w.write("a");
    w.write("b");
    w.close();
    return collect(ts.readable);
  },
  async textStreams() {
    const enc = ReadableStream.from(["héllo ", "wörld"]).pipeThrough(new TextEncoderStream());
    const dec = new Response(enc).body.pipeThrough(new TextDecoderStream());
    return { text: (await collect(dec)).join(""), encoding: new TextEncoderStream().encoding, decEncoding: new TextDecoderStream().encoding };
  },
  async compression() {
    const out = {};
    for (const f of ["gzip", "deflate", "deflate-raw"]) {
      const z = await new Response(new Response("abc".repeat(1000)).body.pipeThrough(new CompressionStream(f))).arrayBuffer();
      const back = await new Response(new Response(z).body.pipeThrough(new DecompressionStream(f))).text();
      out[f] = [z.byteLength < 100, back.length];
    }
    out.badFormat = await caught(() => new CompressionStream("br"));
    out.badData = await caught(() => new Response(new Response("not gzip at all").body.pipeThrough(new DecompressionStream("gzip"))).text());
    return out;
  },
  async identity() {
    const { readable, writable } = new IdentityTransformStream();
    const w = writable.getWriter();
    const text = readText(readable);
    w.write(new TextEncoder().encode("id"));
    w.close();
    const t2 = new IdentityTransformStream();
    const read = caught(() => t2.readable.getReader().read().then((r) => r.done));
    const write = await caught(() => t2.writable.getWriter().write("str").then(() => "written"));
    return { text: await text, write, read: await read };
  },
  async fixed() {
    const a = new FixedLengthStream(3);
    const all = new Response(a.readable).arrayBuffer();
    const wa = a.writable.getWriter();
    wa.write(new Uint8Array([1, 2, 3]));
    wa.close();
    const ok = (await all).byteLength;
    const b = new FixedLengthStream(1);
    const manyRead = caught(() => new Response(b.readable).arrayBuffer().then((x) => x.byteLength));
    const tooMany = await caught(() => b.writable.getWriter().write(new Uint8Array([1, 2])).then(() => "written"));
    const c = new FixedLengthStream(5);
    const rest = caught(() => new Response(c.readable).arrayBuffer().then((x) => x.byteLength));
    const wc = c.writable.getWriter();
    await wc.write(new Uint8Array([1]));
    const tooFew = await caught(() => wc.close().then(() => "closed"));
    return { ok, tooMany, manyRead: await manyRead, tooFew, fewRead: await rest };
  },
  async notBytes() {
    return caught(() => new Response(ReadableStream.from(["str"])).text());
  },
  async lockedBody() {
    const s = new ReadableStream();
    s.getReader();
    return caught(() => new Response(s));
  },
};

export class Obj extends DurableObject {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/obj/stream") {
      let i = 0;
      return new Response(new ReadableStream({
        pull(c) {
          if (i === 3) return c.close();
          c.enqueue(new TextEncoder().encode("part" + i++ + ";"));
        },
      }));
    }
    if (path === "/obj/echo") {
      return new Response(request.body);
    }
    return new Response(JSON.stringify({ body: await request.text() }));
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const path = url.pathname;
    if (path.startsWith("/check/")) {
      const name = path.slice(7);
      return Response.json(await caught(() => checks[name]()));
    }
    if (path === "/upload") {
      let n = 0;
      let chunks = 0;
      const reader = request.body.getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        n += value.byteLength;
        chunks++;
      }
      return Response.json({ bytes: n, someChunks: chunks > 0 });
    }
    if (path === "/gzip") {
      return new Response(request.body.pipeThrough(new CompressionStream("gzip")).pipeThrough(new DecompressionStream("gzip")));
    }
    if (path === "/stream") {
      const enc = new TextEncoder();
      return new Response(ReadableStream.from(["one ", "two ", "three"]).pipeThrough(new TextEncoderStream()), { headers: { "content-type": "text/plain" } });
    }
    if (path.startsWith("/obj/")) {
      const stub = env.OBJ.getByName("a");
      const res = await stub.fetch(request);
      return new Response(JSON.stringify({ status: res.status, isStream: res.body instanceof ReadableStream, text: await res.text() }));
    }
    return new Response("not found", { status: 404 });
  },
};
