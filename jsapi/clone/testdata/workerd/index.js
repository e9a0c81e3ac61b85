// The worker record.sh runs on workerd to make the V8 serialization fixture:
// one Durable Object stores every value of values.js under its name, then
// reports how it reads each back (describe) and the size limits it meets.
import { VALUES, READ_ONLY } from "./values.js";

export function describe(v, seen = new Map(), path = "$") {
  if (v === undefined) return { type: "undefined" };
  if (v === null) return { type: "null" };
  const t = typeof v;
  if (t === "number") {
    if (Number.isNaN(v)) return { type: "number", value: "NaN" };
    if (Object.is(v, -0)) return { type: "number", value: "-0" };
    if (!Number.isFinite(v)) return { type: "number", value: String(v) };
    return { type: "number", value: v };
  }
  if (t === "bigint") return { type: "bigint", value: v.toString() };
  if (t === "string") return { type: t, value: v, units: v.length, codes: v.length < 20 ? [...v].map((c) => c.codePointAt(0)) : undefined };
  if (t === "boolean") return { type: t, value: v };
  if (t !== "object") return { type: t };
  if (seen.has(v)) return { ref: seen.get(v) };
  seen.set(v, path);
  const proto = Object.getPrototypeOf(v);
  const ctor = proto === null ? "null-proto" : proto.constructor?.name;
  const own = Object.keys(v);
  if (v instanceof Date) return { type: "Date", time: Number.isNaN(v.getTime()) ? "NaN" : v.getTime() };
  if (v instanceof RegExp) return { type: "RegExp", source: v.source, flags: v.flags, lastIndex: v.lastIndex };
  if (typeof Blob === "function" && v instanceof Blob) return { type: Object.prototype.toString.call(v), blobType: v.type, size: v.size };
  if (typeof Headers === "function" && v instanceof Headers) {
    let mutable = true;
    try {
      v.append("x-probe", "1");
      v.delete("x-probe");
    } catch (e) {
      mutable = `${e.name}: ${e.message}`;
    }
    return { type: "Headers", entries: [...v], setCookie: v.getSetCookie(), mutable };
  }
  if (typeof DOMException === "function" && v instanceof DOMException) {
    return { type: "DOMException", isError: v instanceof Error, name: v.name, message: v.message, code: v.code, hasStack: typeof v.stack === "string", ownKeys: Object.getOwnPropertyNames(v).filter((k) => k !== "stack").sort(), keys: Object.keys(v).filter((k) => k !== "stack"), stackEnumerable: Object.keys(v).includes("stack"), cause: "cause" in v ? describe(v.cause, seen, `${path}.cause`) : undefined };
  }
  if (v instanceof Error) {
    const d = { type: ctor, name: v.name, message: v.message, ownKeys: Object.getOwnPropertyNames(v).filter((k) => k !== "stack").sort(), hasStack: typeof v.stack === "string" };
    if ("cause" in v) d.cause = describe(v.cause, seen, `${path}.cause`);
    for (const k of own) d["prop_" + k] = describe(v[k], seen, `${path}.${k}`);
    return d;
  }
  if (v instanceof Map) return { type: "Map", entries: [...v].map(([k, x], i) => [describe(k, seen, `${path}.key${i}`), describe(x, seen, `${path}.val${i}`)]) };
  if (v instanceof Set) return { type: "Set", values: [...v].map((x, i) => describe(x, seen, `${path}[${i}]`)) };
  if (v instanceof ArrayBuffer) return { type: "ArrayBuffer", bytes: [...new Uint8Array(v)], resizable: v.resizable === true };
  if (v instanceof DataView) return { type: "DataView", byteOffset: v.byteOffset, byteLength: v.byteLength, buffer: describe(v.buffer, seen, `${path}.buffer`) };
  if (ArrayBuffer.isView(v)) return { type: ctor, byteOffset: v.byteOffset, values: [...v].map((x) => (typeof x === "bigint" ? x.toString() : Object.is(x, -0) ? "-0" : x)), buffer: describe(v.buffer, seen, `${path}.buffer`) };
  if (Array.isArray(v)) {
    return {
      type: "Array",
      length: v.length,
      present: Array.from({ length: v.length }, (_, i) => i in v),
      items: Array.from(v, (x, i) => (i in v ? describe(x, seen, `${path}[${i}]`) : "hole")),
      extraKeys: own.filter((k) => !/^\d+$/.test(k)),
      extra: Object.fromEntries(own.filter((k) => !/^\d+$/.test(k)).map((k) => [k, describe(v[k], seen, `${path}.${k}`)])),
    };
  }
  const out = { type: ctor, keys: own, props: {} };
  if (ctor === "String" || ctor === "Number" || ctor === "Boolean" || ctor === "BigInt") out.primitive = describe(v.valueOf(), seen, `${path}.valueOf`);
  for (const k of own) out.props[k] = describe(v[k], seen, `${path}.${k}`);
  return out;
}

async function attempt(f) {
  try {
    const r = await f();
    return r === undefined ? "ok" : r;
  } catch (e) {
    return `${e.name}: ${e.message}`;
  }
}

export class Store {
  constructor(ctx) {
    this.ctx = ctx;
  }
  async fetch(request) {
    const url = new URL(request.url);
    const s = this.ctx.storage;
    if (url.pathname === "/write") {
      const results = {};
      for (const [k, f] of Object.entries({ ...VALUES, ...READ_ONLY })) results[k] = await attempt(() => s.put(k, f()));
      // an alarm far ahead (2100-01-01), for cellhost import
      await s.setAlarm(4102444800000);
      // a SQL table and index beside the KV values, for cellhost import
      s.sql.exec("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)");
      s.sql.exec("CREATE INDEX IF NOT EXISTS items_name ON items (name)");
      s.sql.exec("INSERT OR REPLACE INTO items VALUES (1, 'é one', 1.5, x'00ff'), (2, NULL, -2, NULL)");
      return Response.json(results);
    }
    if (url.pathname === "/read") {
      const out = {};
      for (const [k, v] of await s.list()) out[k] = describe(v);
      return Response.json(out);
    }
    if (url.pathname === "/sql") {
      return Response.json(s.sql.exec("SELECT id, name, score, hex(data) AS data FROM items ORDER BY id").toArray());
    }
    if (url.pathname === "/limits") {
      // Storage values and WebSocket attachments near the limits, in bytes
      // of the serialized value ("x".repeat(n) takes n + 3 or n + 4 bytes).
      const out = {};
      for (const n of [131068, 131072, 2097148, 2097152, 33554432]) {
        out[`put_${n}`] = await attempt(() => s.put(`limit_${n}`, "x".repeat(n)));
        await s.delete(`limit_${n}`);
      }
      const [client, server] = Object.values(new WebSocketPair());
      this.ctx.acceptWebSocket(server);
      for (const n of [2044, 2045, 16379, 16380]) {
        out[`attachment_${n}`] = await attempt(() => server.serializeAttachment("x".repeat(n)));
      }
      out.attachment_fn = await attempt(() => server.serializeAttachment({ f: () => 1 }));
      server.close(1000, "done");
      return Response.json(out);
    }
    return new Response("not found", { status: 404 });
  }
  alarm() {}
  webSocketMessage() {}
  webSocketClose() {}
}

export default {
  async fetch(request, env) {
    // The limits probe writes megabytes: it runs in an object of its own,
    // whose file record.sh leaves out of the fixture.
    const name = new URL(request.url).pathname === "/limits" ? "limits" : "fixture";
    return env.STORE.get(env.STORE.idFromName(name)).fetch(request);
  },
};
