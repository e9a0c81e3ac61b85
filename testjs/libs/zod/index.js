// zod in a worker and in a SQLite-backed Durable Object: schemas with
// transforms, refinements, discriminated unions, defaults and coercion;
// safeParse issues and prettified errors returned to the client; parsed
// values stored in SQL and read back through another schema; RPC arguments
// validated inside the object; JSON Schema generation.
import { DurableObject } from "cloudflare:workers";
import * as z from "zod";

const Item = z.object({
  sku: z.string().regex(/^[A-Z]{3}-\d{3}$/, "sku must look like ABC-123"),
  qty: z.coerce.number().int().positive().max(99),
  note: z.string().trim().max(20).optional(),
});

const Payment = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("card"), last4: z.string().length(4) }),
  z.object({ kind: z.literal("invoice"), days: z.number().int().default(30) }),
]);

const Order = z
  .object({
    customer: z.email(),
    items: z.array(Item).min(1),
    payment: Payment,
    tags: z.array(z.string().toLowerCase()).default([]),
    rush: z.boolean().default(false),
  })
  .refine((o) => !o.rush || o.items.length <= 2, { message: "rush orders take at most 2 items", path: ["rush"] })
  .transform((o) => ({ ...o, total: o.items.reduce((n, i) => n + i.qty, 0) }));

const Row = z.object({
  id: z.number(),
  customer: z.string(),
  total: z.number(),
  body: z.string().transform((s) => JSON.parse(s)),
});

export class Orders extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY, customer TEXT, total INTEGER, body TEXT)");
  }
  add(input) {
    const r = Order.safeParse(input);
    if (!r.success) {
      return { ok: false, issues: r.error.issues.map((i) => ({ path: i.path.join("."), code: i.code, message: i.message })), pretty: z.prettifyError(r.error) };
    }
    const o = r.data;
    const row = this.sql.exec("INSERT INTO orders (customer, total, body) VALUES (?, ?, ?) RETURNING id", o.customer, o.total, JSON.stringify(o)).one();
    return { ok: true, id: row.id, order: o };
  }
  list() {
    return z.array(Row).parse(this.sql.exec("SELECT id, customer, total, body FROM orders ORDER BY id").toArray());
  }
  rename(id, customer) {
    const args = z.tuple([z.number().int(), z.email()]).parse([id, customer]);
    return this.sql.exec("UPDATE orders SET customer = ? WHERE id = ?", args[1], args[0]).rowsWritten;
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.ORDERS.getByName(url.searchParams.get("shop") ?? "main");
    try {
      if (url.pathname === "/orders" && request.method === "POST") {
        const out = await stub.add(await request.json());
        return Response.json(out, { status: out.ok ? 201 : 400 });
      }
      if (url.pathname === "/orders") return Response.json(await stub.list());
      if (url.pathname === "/rename") {
        return Response.json({ changed: await stub.rename(Number(url.searchParams.get("id")), url.searchParams.get("to")) });
      }
      if (url.pathname === "/schema") return Response.json(z.toJSONSchema(Item));
      if (url.pathname === "/query") {
        const Q = z.object({ page: z.coerce.number().int().min(1).default(1), sort: z.enum(["asc", "desc"]).catch("asc") });
        return Response.json(Q.parse(Object.fromEntries(url.searchParams)));
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ name: e.name, message: e.message }, { status: 500 });
    }
  },
};
