// A log of events per name, kept in the object's SQL storage; each write does
// a KV put, an INSERT and a count(*) over the growing table.
//   GET /?name=alice         appends an event to "alice" and returns the count
//   GET /?name=alice&peek=1  returns the count without writing (500 if the KV
//                            copy of the count disagrees with the table)
//   GET /do/Events/alice     reaches the object directly (cellhost only)
import { DurableObject } from "cloudflare:workers";

interface Env {
  EVENTS: DurableObjectNamespace<Events>;
}

export class Events extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec(
      "CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, path TEXT NOT NULL, agent TEXT)",
    );
  }

  count(): number {
    return this.ctx.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM events").one().n;
  }

  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = this.ctx.id.name ?? null;
    if (url.searchParams.has("peek")) {
      const n = this.count();
      const kv = (await this.ctx.storage.get<number>("n")) ?? 0;
      if (kv !== n) return Response.json({ error: "KV count differs from the table", n, kv, name }, { status: 500 });
      return Response.json({ n, name });
    }
    this.ctx.storage.sql.exec(
      "INSERT INTO events (at, path, agent) VALUES (?, ?, ?)",
      Date.now(),
      url.pathname + url.search,
      request.headers.get("user-agent"),
    );
    const n = this.count();
    await this.ctx.storage.put("n", n);
    return Response.json({ n, name });
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const name = new URL(request.url).searchParams.get("name") ?? "default";
    return env.EVENTS.getByName(name).fetch(request);
  },
} satisfies ExportedHandler<Env>;
