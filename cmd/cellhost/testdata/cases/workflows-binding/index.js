import { DurableObject, WorkflowEntrypoint } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";

export class Log extends DurableObject {
  async add(line) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(line);
    await this.ctx.storage.put("log", log);
    return log.filter((l) => l === line).length;
  }
  async get() {
    return ((await this.ctx.storage.get("log")) ?? []).sort();
  }
}

const logOf = (env) => env.LOG.get(env.LOG.idFromName("log"));

export class Flow extends WorkflowEntrypoint {
  async run(event, step) {
    const log = logOf(this.env);
    const first = await step.do("first", async () => {
      await log.add(event.instanceId + " first");
      return { doubled: event.payload.n * 2, date: event.timestamp instanceof Date, id: event.instanceId };
    });
    await step.sleep("nap", "1 second");
    const flaky = await step.do("flaky", { retries: { limit: 2, delay: 100, backoff: "constant" } }, async () => {
      const n = await log.add(event.instanceId + " flaky");
      if (n < 2) throw new Error("flaky " + n);
      return "ok after " + n;
    });
    let fatal;
    try {
      await step.do("fatal", { retries: { limit: 3, delay: 100 } }, async () => {
        await log.add(event.instanceId + " fatal");
        throw new NonRetryableError("no retry");
      });
    } catch (e) {
      fatal = e.name + ": " + e.message;
    }
    const ev = await step.waitForEvent("approval", { type: "approve", timeout: "1 hour" });
    return { first, flaky, fatal, approved: ev.payload, type: ev.type, evDate: ev.timestamp instanceof Date };
  }
}

async function show(f) {
  try {
    return await f();
  } catch (e) {
    return "threw " + e.name + ": " + e.message;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const id = url.searchParams.get("id");
    const inst = () => env.FLOW.get(id);
    switch (url.pathname) {
      case "/shape":
        return Response.json({ create: typeof env.FLOW.create, createBatch: typeof env.FLOW.createBatch, get: typeof env.FLOW.get });
      case "/create":
        return Response.json(await show(async () => {
          const i = await env.FLOW.create({ id, params: { n: 21 } });
          return { id: i.id, methods: ["status", "pause", "resume", "terminate", "restart", "sendEvent"].map((m) => typeof i[m]) };
        }));
      case "/batch":
        return Response.json(await show(async () => (await env.FLOW.createBatch([{ id: id + "-1", params: { n: 1 } }, { id: id + "-2", params: { n: 2 } }])).map((i) => i.id)));
      case "/status":
        return Response.json(await show(async () => {
          const s = await (await inst()).status();
          return { status: s.status, output: s.output, error: s.error };
        }));
      case "/event":
        return Response.json(await show(async () => (await inst()).sendEvent({ type: "approve", payload: { ok: true } }).then((v) => String(v))));
      case "/terminate":
        return Response.json(await show(async () => (await inst()).terminate().then((v) => String(v))));
      case "/restart":
        return Response.json(await show(async () => (await inst()).restart().then((v) => String(v))));
      case "/log":
        return Response.json(await logOf(env).get());
    }
    return new Response("not found", { status: 404 });
  },
};
