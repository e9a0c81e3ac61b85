// The size limit of a stored value, a key and an SQL string or blob: SQLite's
// length limit on workerd (SQLITE_LIMIT_LENGTH, on one string or blob and on
// one table row), probed at the first size refused. Each step reports the
// length read back or the error.
import { DurableObject } from "cloudflare:workers";

const show = (f) => {
  try {
    return { ok: f() ?? null };
  } catch (e) {
    return { err: `${e.name}: ${e.message}` };
  }
};

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get("n"));
    const kind = url.searchParams.get("kind");
    const s = this.ctx.storage;
    let r;
    switch (kind) {
      case "kv": // a string value under a one-character key (sync API)
        r = show(() => {
          s.kv.put("k", "x".repeat(n));
          return s.kv.get("k").length;
        });
        break;
      case "put": // the async API, bytes
        try {
          await s.put("b", new Uint8Array(n));
          r = { ok: (await s.get("b")).byteLength };
        } catch (e) {
          r = { err: `${e.name}: ${e.message}` };
        }
        break;
      case "key":
        r = show(() => {
          s.kv.put("y".repeat(n), 1);
          return s.kv.list({ prefix: "yyyy" }).size;
        });
        break;
      case "string": // an SQL string parameter
        r = show(() => s.sql.exec("SELECT length(?) AS l", "x".repeat(n)).one().l);
        break;
      case "blob": // an SQL blob stored in a table
        s.sql.exec("CREATE TABLE IF NOT EXISTS t (v)");
        r = show(() => {
          s.sql.exec("INSERT INTO t VALUES (?)", new Uint8Array(n));
          return s.sql.exec("SELECT length(v) AS l FROM t ORDER BY rowid DESC LIMIT 1").one().l;
        });
        break;
      case "zeroblob":
        r = show(() => s.sql.exec("SELECT length(zeroblob(?)) AS l", n).one().l);
        break;
      case "after": // the refused writes wrote nothing; the object goes on
        r = { ok: [s.kv.get("k")?.length ?? null, (await s.get("b"))?.byteLength ?? null, s.sql.exec("SELECT count(*) AS c FROM t").one().c] };
        break;
    }
    return Response.json({ kind, n, ...r });
  }
}

export default {
  fetch(request, env) {
    return env.OBJ.getByName("a").fetch(request);
  },
};
