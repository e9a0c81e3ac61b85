// superjson as a wire and storage format: rich values (Date, Map, Set,
// BigInt, RegExp, undefined, NaN/Infinity, -0, URL, Error, nested and
// repeated references, a registered class) are serialized in the worker,
// stored by a SQLite-backed Durable Object in SQL and in its KV storage, read
// back, and described so the transcript shows what survived.
import { DurableObject } from "cloudflare:workers";
import SuperJSON from "superjson";

class Money {
  constructor(cents, currency) { this.cents = cents; this.currency = currency; }
  toString() { return `${(this.cents / 100).toFixed(2)} ${this.currency}`; }
}
SuperJSON.registerClass(Money, { identifier: "Money" });
SuperJSON.registerCustom(
  { isApplicable: (v) => v instanceof Uint8Array, serialize: (v) => Array.from(v).join(","), deserialize: (s) => Uint8Array.from(s.split(",").map(Number)) },
  "bytes",
);

function describe(v, seen = new Set()) {
  if (v === undefined) return "undefined";
  if (v === null) return "null";
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v !== "object") return `${typeof v}:${v}`;
  if (seen.has(v)) return "[circular]";
  seen.add(v);
  if (v instanceof Date) return `Date(${v.toISOString()})`;
  if (v instanceof RegExp) return `RegExp(${v})`;
  if (v instanceof URL) return `URL(${v.href})`;
  if (v instanceof Error) return `${v.name}(${v.message})`;
  if (v instanceof Money) return `Money(${v})`;
  if (v instanceof Uint8Array) return `bytes(${Array.from(v).join(",")})`;
  if (v instanceof Map) return `Map{${[...v].map(([k, x]) => describe(k, seen) + "=>" + describe(x, seen)).join(",")}}`;
  if (v instanceof Set) return `Set{${[...v].map((x) => describe(x, seen)).join(",")}}`;
  if (Array.isArray(v)) return `[${v.map((x) => describe(x, seen)).join(",")}]`;
  return `{${Object.keys(v).map((k) => k + ":" + describe(v[k], seen)).join(",")}}`;
}

function sample(n) {
  const shared = { tag: "shared" };
  return {
    n,
    when: new Date(Date.UTC(2024, 1, 29, 12, 30, 0, 250 + n)),
    big: 2n ** 70n + BigInt(n),
    re: /ab+c/gi,
    nothing: undefined,
    nums: [NaN, Infinity, -Infinity, -0, 1.5],
    map: new Map([["a", 1], [2, new Set(["x", "y"])], [new Date(0), "epoch"]]),
    set: new Set([1, "1", 2n]),
    url: new URL("https://example.com/a?b=c#d"),
    err: new RangeError("too far " + n),
    money: new Money(1999 + n, "EUR"),
    bytes: new Uint8Array([1, 2, 255]),
    left: shared,
    right: shared,
  };
}

export class Store extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS docs (k TEXT PRIMARY KEY, json TEXT NOT NULL, meta TEXT)");
  }
  async save(key, text) {
    const { json, meta } = JSON.parse(text);
    this.sql.exec("INSERT OR REPLACE INTO docs VALUES (?, ?, ?)", key, JSON.stringify(json), meta ? JSON.stringify(meta) : null);
    await this.ctx.storage.put("kv:" + key, text);
    return this.sql.exec("SELECT count(*) AS n FROM docs").one().n;
  }
  async load(key) {
    const row = this.sql.exec("SELECT json, meta FROM docs WHERE k = ?", key).toArray()[0];
    const fromKv = await this.ctx.storage.get("kv:" + key);
    if (!row) return null;
    const v = SuperJSON.deserialize({ json: JSON.parse(row.json), meta: row.meta ? JSON.parse(row.meta) : undefined });
    const w = SuperJSON.parse(fromKv);
    return { sql: describe(v), kv: describe(w), same: describe(v) === describe(w), sharedRef: v.left === v.right };
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.STORE.getByName("docs");
    const key = url.searchParams.get("k") ?? "a";
    try {
      switch (url.pathname) {
        case "/save": {
          const text = SuperJSON.stringify(sample(Number(url.searchParams.get("n") ?? 0)));
          return Response.json({ count: await stub.save(key, text), length: text.length });
        }
        case "/load":
          return Response.json(await stub.load(key));
        case "/wire": {
          const { json, meta } = SuperJSON.serialize(sample(1));
          return Response.json({ json, meta });
        }
        case "/parse":
          return Response.json({ v: describe(SuperJSON.parse(await request.text())) });
        default:
          return new Response("not found", { status: 404 });
      }
    } catch (e) {
      return Response.json({ name: e.name, message: e.message }, { status: 500 });
    }
  },
};
