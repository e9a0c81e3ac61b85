import { DurableObject, WorkflowEntrypoint } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";

export class Log extends DurableObject {
  async add(line) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(line);
    await this.ctx.storage.put("log", log);
    return log.filter((l) => l === line).length;
  }
  async get() { return (await this.ctx.storage.get("log")) ?? []; }
}

const logOf = (env) => env.LOG.get(env.LOG.idFromName("log"));

export class Flow extends WorkflowEntrypoint {
  async run(event, step) {
    const log = logOf(this.env);
    const a = await step.do("first", async () => {
      await log.add(event.instanceId + " first");
      return { doubled: event.payload.n * 2, at: event.timestamp instanceof Date };
    });
    await step.sleep("nap", "1 second");
    const flaky = await step.do("flaky", { retries: { limit: 3, delay: 10, backoff: "constant" } }, async () => {
      const n = await log.add(event.instanceId + " flaky");
      if (n < 3) throw new Error("flaky " + n);
      return "ok after " + n;
    });
    let fatal;
    try {
      await step.do("fatal", async () => {
        await log.add(event.instanceId + " fatal");
        throw new NonRetryableError("no retry");
      });
    } catch (e) {
      fatal = e.name + ": " + e.message;
    }
    const ev = await step.waitForEvent("approval", { type: "approve", timeout: "1 hour" });
    return { a, flaky, fatal, approved: ev.payload, type: ev.type };
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const id = url.searchParams.get("id");
    try {
      switch (url.pathname) {
        case "/create": {
          const i = await env.FLOW.create({ id, params: { n: 21 } });
          return Response.json(i.id);
        }
        case "/batch": {
          const list = await env.FLOW.createBatch([{ id: id + "-1", params: { n: 1 } }, { id: id + "-2", params: { n: 2 } }]);
          return Response.json(list.map((i) => i.id));
        }
        case "/status":
          return Response.json(await (await env.FLOW.get(id)).status());
        case "/event":
          await (await env.FLOW.get(id)).sendEvent({ type: "approve", payload: url.searchParams.get("v") });
          return Response.json("sent");
        case "/pause": case "/resume": case "/terminate": case "/restart":
          await (await env.FLOW.get(id))[url.pathname.slice(1)]();
          return Response.json(url.pathname.slice(1));
        case "/log":
          return Response.json(await logOf(env).get());
      }
    } catch (e) {
      return Response.json("threw " + e.name + ": " + e.message);
    }
    return new Response("", { status: 404 });
  },
};
