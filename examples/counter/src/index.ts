// One counter per name, kept in the object's storage.
//   GET /                  increments the counter "default"
//   GET /?name=alice       increments the counter "alice"
//   GET /do/Counter/alice  reaches the object directly (cellhost only)
import { DurableObject } from "cloudflare:workers";

interface Env {
  COUNTER: DurableObjectNamespace<Counter>;
}

export class Counter extends DurableObject<Env> {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    if (url.searchParams.has("peek")) {
      const n = (await this.ctx.storage.get<number>("n")) ?? 0;
      return Response.json({ n, name: this.ctx.id.name ?? null });
    }
    const n = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, name: this.ctx.id.name ?? null, id: this.ctx.id.toString() });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const name = new URL(request.url).searchParams.get("name") ?? "default";
    return env.COUNTER.getByName(name).fetch(request);
  },
} satisfies ExportedHandler<Env>;
