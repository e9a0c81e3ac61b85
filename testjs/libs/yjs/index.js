// yjs in a SQLite-backed Durable Object, as collaborative editors run it:
// clients (simulated in the worker with their own Y.Doc and fixed client
// ids) send binary updates; the object applies them to its Y.Doc, appends
// each update to a SQL table, compacts them into one merged update in KV
// storage, and answers state vectors and diffs; a hibernating WebSocket
// receives binary updates and broadcasts them; after eviction the document
// is rebuilt from storage.
import { DurableObject } from "cloudflare:workers";
import * as Y from "yjs";

const b64 = (u8) => btoa(String.fromCharCode(...u8));
const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

function client(id) {
  const d = new Y.Doc();
  d.clientID = id;
  return d;
}

export class Doc extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec("CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, bytes BLOB NOT NULL)");
    this.doc = new Y.Doc();
    this.doc.clientID = 1;
    ctx.blockConcurrencyWhile(async () => {
      const merged = await ctx.storage.get("merged");
      if (merged) Y.applyUpdate(this.doc, new Uint8Array(merged));
      for (const r of this.sql.exec("SELECT bytes FROM updates ORDER BY seq")) Y.applyUpdate(this.doc, new Uint8Array(r.bytes));
    });
  }
  apply(update) {
    const u = new Uint8Array(update);
    Y.applyUpdate(this.doc, u);
    this.sql.exec("INSERT INTO updates (bytes) VALUES (?)", u);
    for (const ws of this.ctx.getWebSockets()) ws.send(u);
    return this.snapshot();
  }
  async compact() {
    const n = this.sql.exec("SELECT count(*) AS n FROM updates").one().n;
    await this.ctx.storage.put("merged", Y.encodeStateAsUpdate(this.doc));
    this.sql.exec("DELETE FROM updates");
    return { compacted: n, bytes: Y.encodeStateAsUpdate(this.doc).length };
  }
  stateVector() { return Y.encodeStateVector(this.doc); }
  diff(sv) { return Y.encodeStateAsUpdate(this.doc, new Uint8Array(sv)); }
  snapshot() {
    const text = this.doc.getText("body").toString();
    const list = this.doc.getArray("todos").toJSON();
    const meta = this.doc.getMap("meta").toJSON();
    return { text, list, meta, pending: this.sql.exec("SELECT count(*) AS n FROM updates").one().n };
  }
  async fetch(request) {
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(ws, message) {
    if (typeof message === "string") {
      ws.send(JSON.stringify(this.snapshot()));
      return;
    }
    const u = new Uint8Array(message);
    Y.applyUpdate(this.doc, u);
    this.sql.exec("INSERT INTO updates (bytes) VALUES (?)", u);
    ws.send(JSON.stringify({ applied: u.length > 0, text: this.doc.getText("body").toString() }));
  }
  webSocketClose(ws, code, reason) {
    ws.close(code, reason);
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.DOCS.getByName(url.searchParams.get("doc") ?? "notes");
    const q = (k) => url.searchParams.get(k);
    try {
      switch (url.pathname) {
        case "/edit": {
          // a client that first syncs from the object, then edits
          const c = client(Number(q("client")));
          Y.applyUpdate(c, new Uint8Array(await stub.diff(new Uint8Array([0]))));
          const before = Y.encodeStateVector(c);
          c.transact(() => {
            const t = c.getText("body");
            if (q("delete")) t.delete(Number(q("at")), Number(q("delete")));
            if (q("insert")) t.insert(Math.min(Number(q("at") ?? t.length), t.length), q("insert"));
            if (q("todo")) c.getArray("todos").push([{ title: q("todo"), done: false }]);
            if (q("key")) c.getMap("meta").set(q("key"), q("value"));
          });
          return Response.json(await stub.apply(Y.encodeStateAsUpdate(c, before)));
        }
        case "/concurrent": {
          // two offline clients edit the same start state; both updates merge
          const base = new Uint8Array(await stub.diff(new Uint8Array([0])));
          const a = client(100), b = client(200);
          Y.applyUpdate(a, base); Y.applyUpdate(b, base);
          a.getText("body").insert(0, "[A]");
          b.getText("body").insert(0, "[B]");
          a.getMap("meta").set("owner", "a");
          b.getMap("meta").set("owner", "b");
          await stub.apply(Y.encodeStateAsUpdate(a));
          return Response.json(await stub.apply(Y.encodeStateAsUpdate(b)));
        }
        case "/compact": return Response.json(await stub.compact());
        case "/sv": return Response.json({ sv: b64(new Uint8Array(await stub.stateVector())) });
        case "/snapshot": return Response.json(await stub.snapshot());
        case "/update": {
          const c = client(Number(q("client")));
          c.getText("body").insert(0, q("insert"));
          return new Response(b64(Y.encodeStateAsUpdate(c)));
        }
        case "/ws": return stub.fetch(request);
        default: return new Response("not found", { status: 404 });
      }
    } catch (e) {
      return Response.json({ name: e.name, message: e.message }, { status: 500 });
    }
  },
};
