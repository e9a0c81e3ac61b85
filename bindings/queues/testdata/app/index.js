import { DurableObject } from "cloudflare:workers";

export class Log extends DurableObject {
  async add(lines) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(...lines);
    await this.ctx.storage.put("log", log);
  }
  async get() {
    return (await this.ctx.storage.get("log")) ?? [];
  }
}

function show(body) {
  if (body instanceof ArrayBuffer) return "bytes:" + [...new Uint8Array(body)].join(",");
  if (body instanceof Map) return "map:" + [...body].map(([k, v]) => k + "=" + v + "(" + typeof v + ")").join(",");
  return typeof body + ":" + JSON.stringify(body);
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const log = env.LOG.get(env.LOG.idFromName("log"));
    if (url.pathname === "/log") return Response.json(await log.get());
    if (url.pathname === "/send") {
      await env.JOBS.send("hello", { contentType: "text" });
      await env.JOBS.send({ a: 1 }, { contentType: "json" });
      await env.JOBS.send(new Uint8Array([1, 2, 3]), { contentType: "bytes" });
      await env.JOBS.send(new Map([["k", 1n]]), { contentType: "v8" });
      await env.JOBS.send(new Map([["k", 1n]]));
      return new Response("sent");
    }
    if (url.pathname === "/batch") {
      await env.JOBS.sendBatch([{ body: "retry-once" }, { body: "always-fail" }, { body: "explicit-ack" }]);
      await env.LATER.send("delayed");
      return new Response("sent");
    }
    if (url.pathname === "/bad") {
      const out = [];
      for (const f of [
        () => env.JOBS.send(1, { contentType: "text" }),
        () => env.JOBS.send("x", { contentType: "xml" }),
        () => env.JOBS.sendBatch([]),
        () => env.JOBS.send("x", { delaySeconds: -1 }),
      ]) {
        try { await f(); out.push("ok"); } catch (e) { out.push(e.name + ": " + e.message); }
      }
      return Response.json(out);
    }
    if (url.pathname.startsWith("/many/")) {
      const n = Number(url.pathname.slice(6));
      for (let i = 0; i < n; i++) await env.JOBS.send("m" + i, { contentType: "text" });
      return new Response("sent " + n);
    }
    return new Response("not found", { status: 404 });
  },
  async queue(batch, env) {
    const log = env.LOG.get(env.LOG.idFromName("log"));
    const lines = [];
    let failed = false;
    for (const m of batch.messages) {
      if (batch.queue === "jobs-dlq") {
        lines.push("dlq " + show(m.body) + " attempts=" + m.attempts);
        continue;
      }
      lines.push("got " + show(m.body) + " attempts=" + m.attempts + " id=" + (typeof m.id === "string" && m.id.length > 0) + " ts=" + (m.timestamp instanceof Date));
      if (m.body === "retry-once" && m.attempts === 1) m.retry();
      else if (m.body === "always-fail") m.retry({ delaySeconds: 0 });
      else if (m.body === "explicit-ack") { m.ack(); failed = true; }
      else m.ack();
    }
    await log.add(lines);
    if (failed) throw new Error("the batch fails after acking explicit-ack");
  },
};
