import { DurableObject } from "cloudflare:workers";

export class Log extends DurableObject {
  async add(lines) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(...lines);
    await this.ctx.storage.put("log", log);
  }
  async take() {
    const log = (await this.ctx.storage.get("log")) ?? [];
    await this.ctx.storage.put("log", []);
    return log.sort();
  }
}

function show(body) {
  if (body instanceof ArrayBuffer) return "ArrayBuffer:" + [...new Uint8Array(body)].join(",");
  if (body instanceof Map) return "Map:" + [...body].map(([k, v]) => k + "=" + v + "(" + typeof v + ")").join(",");
  if (body instanceof Date) return "Date:" + body.toISOString();
  return typeof body + ":" + JSON.stringify(body);
}

// A send's result, its timestamp (a Date) reduced to a deterministic text.
function fmt(v) {
  const t = v?.metadata?.metrics?.oldestMessageTimestamp;
  return JSON.stringify(v, (k, x) => (k === "oldestMessageTimestamp" ? (t instanceof Date ? "a Date" : typeof t) : x));
}

async function errorOf(f) {
  try {
    await f();
    return "ok";
  } catch (e) {
    return e.name + ": " + e.message;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const log = env.LOG.get(env.LOG.idFromName("log"));
    switch (url.pathname) {
      case "/shape":
        return Response.json({
          tag: Object.prototype.toString.call(env.Q),
          send: typeof env.Q.send,
          sendBatch: typeof env.Q.sendBatch,
          sendResult: fmt(await env.Q.send("shape", { contentType: "text" })),
          batchResult: fmt(await env.Q.sendBatch([{ body: "shape2", contentType: "text" }])),
        });
      case "/send":
        await env.Q.send("hello", { contentType: "text" });
        await env.Q.send({ a: [1, 2] }, { contentType: "json" });
        await env.Q.send(new Uint8Array([1, 2, 3]), { contentType: "bytes" });
        await env.Q.send(new Map([["k", 1n]]));
        await env.Q.send(new Date(0), { contentType: "v8" });
        return Response.json("sent");
      case "/batch":
        await env.Q.sendBatch([{ body: "retry-once" }, { body: "always-fail" }, { body: "fine" }]);
        return Response.json("sent");
      case "/bad":
        return Response.json([
          await errorOf(() => env.Q.send(1, { contentType: "text" })),
          await errorOf(() => env.Q.send("x", { contentType: "xml" })),
          await errorOf(() => env.Q.send(() => 1, { contentType: "v8" })),
          await errorOf(() => env.Q.sendBatch([])),
          await errorOf(() => env.Q.send(undefined)),
        ]);
      case "/throw":
        await env.Q.sendBatch([{ body: "throw-1" }, { body: "throw-2" }], { delaySeconds: 0 });
        return Response.json("sent");
      case "/log":
        return Response.json(await log.take());
    }
    return new Response("not found", { status: 404 });
  },
  async queue(batch, env) {
    const log = env.LOG.get(env.LOG.idFromName("log"));
    const lines = [];
    let fail = false;
    for (const m of batch.messages) {
      lines.push(`${batch.queue} ${show(m.body)} attempts=${m.attempts} id=${typeof m.id}/${m.id.length > 0} ts=${m.timestamp instanceof Date}`);
      if (batch.queue.endsWith("-dlq")) continue;
      if (m.body === "retry-once" && m.attempts === 1) m.retry();
      else if (m.body === "always-fail") m.retry();
      else if (String(m.body).startsWith("throw") && m.attempts === 1) fail = true;
      else m.ack();
    }
    await log.add(lines);
    if (fail) throw new Error("the handler throws: the whole batch is retried");
  },
};
