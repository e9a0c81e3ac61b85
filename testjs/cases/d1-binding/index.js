// D1 binding: prepare/bind/first/all/raw/run/batch/exec, deterministic meta fields, errors.
function err(e) { return { name: e.name, message: e.message }; }
async function attempt(f) { try { return { ok: await f() }; } catch (e) { return { error: err(e) }; } }
// rows_read of a write counts the rows the statement scanned, as workerd's
// SQLite counts them.
function meta(m) {
  return { changes: m.changes, last_row_id: m.last_row_id, changed_db: m.changed_db, rows_written: m.rows_written, rows_read: m.rows_read };
}
function res(r) { return { success: r.success, results: r.results, meta: meta(r.meta) }; }

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const db = env.DB;
    let out;
    switch (url.pathname) {
      case "/exec": {
        const r = await db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, n REAL, b BLOB);\nINSERT INTO t (name, n) VALUES ('a', 1.5);");
        out = { count: r.count, keys: Object.keys(r).sort() };
        break;
      }
      case "/insert": {
        const st = db.prepare("INSERT INTO t (name, n) VALUES (?, ?)");
        const r1 = await st.bind("b", 2).run();
        const r2 = await st.bind("c", null).run();
        const r3 = await db.prepare("INSERT INTO t (name, n) VALUES (?1, ?2)").bind("d", 4).run();
        out = { r1: res(r1), r2: res(r2), r3: res(r3), keys: Object.keys(r1).sort() };
        break;
      }
      case "/query": {
        out = {
          all: res(await db.prepare("SELECT id, name, n FROM t ORDER BY id").all()),
          first: await db.prepare("SELECT id, name FROM t WHERE id = ?").bind(2).first(),
          firstCol: await db.prepare("SELECT name FROM t WHERE id = ?").bind(3).first("name"),
          firstNone: await db.prepare("SELECT * FROM t WHERE id = 99").first(),
          raw: await db.prepare("SELECT id, name FROM t ORDER BY id").raw(),
          rawCols: await db.prepare("SELECT id, name FROM t WHERE id < 3 ORDER BY id").raw({ columnNames: true }),
          count: await db.prepare("SELECT count(*) AS c FROM t").first("c"),
          bool: await db.prepare("SELECT ? AS x, ? AS y").bind(true, false).first(),
        };
        break;
      }
      case "/batch": {
        const rs = await db.batch([
          db.prepare("UPDATE t SET n = n * 2 WHERE n IS NOT NULL"),
          db.prepare("DELETE FROM t WHERE name = ?").bind("c"),
          db.prepare("SELECT name, n FROM t ORDER BY id"),
        ]);
        out = rs.map((r) => res(r));
        break;
      }
      case "/blob": {
        await db.prepare("UPDATE t SET b = ? WHERE id = 1").bind(new Uint8Array([1, 2, 3]).buffer).run();
        const row = await db.prepare("SELECT b FROM t WHERE id = 1").first();
        out = { b: Array.isArray(row.b) ? row.b : Array.from(new Uint8Array(row.b)), isArray: Array.isArray(row.b) };
        break;
      }
      case "/session": {
        const s = db.withSession();
        const row = await s.prepare("SELECT count(*) AS c FROM t").first();
        const b = await s.batch([s.prepare("SELECT 1 AS one")]);
        const p = db.prepare("SELECT ?1 AS a, ?2 AS b");
        const fresh = db.withSession();
        const primary = db.withSession("first-primary");
        const at = db.withSession(s.getBookmark());
        out = {
          row, batch: b[0].results, bookmarkType: typeof s.getBookmark(),
          bookmarkForm: /^[0-9a-f]{12}-[0-9a-f]{8}$/.test(s.getBookmark()),
          fresh: fresh.getBookmark(), primary: primary.getBookmark(), atSame: at.getBookmark() === s.getBookmark(),
          reuse: [await p.bind(1, 2).first(), await p.bind("x", null).first()],
        };
        break;
      }
      case "/errors": {
        out = {
          noTable: await attempt(() => db.prepare("SELECT * FROM nope").all()),
          noColumn: await attempt(() => db.prepare("SELECT 1 AS a").first("b")),
          constraint: await attempt(() => db.prepare("INSERT INTO t (id, name) VALUES (1, 'dup')").run()),
          batchRollback: await attempt(() => db.batch([
            db.prepare("INSERT INTO t (name) VALUES ('rolled')"),
            db.prepare("INSERT INTO t (id, name) VALUES (1, 'dup')"),
          ])),
          afterRollback: await db.prepare("SELECT count(*) AS c FROM t WHERE name = 'rolled'").first("c"),
          execBad: await attempt(() => db.exec("SELECT 1;\nSELECT * FROM nope;")),
          execOneLine: (await db.exec("SELECT 1; SELECT 2;")).count,
          execNoSemicolons: (await db.exec("SELECT 1\n\nSELECT 2")).count,
          execEmpty: await attempt(() => db.exec("")),
          prepareEmpty: await attempt(() => db.prepare("").all()),
          bindUnsupported: await attempt(() => db.prepare("SELECT ?").bind({}).all()),
          firstNoRowsCol: await db.prepare("SELECT 1 AS a WHERE 0").first("a"),
          syntax: await attempt(() => db.prepare("SELEC 1").all()),
          syntaxLater: await attempt(() => db.prepare("SELECT * FROM t WHERE").all()),
          execSyntax: await attempt(() => db.exec("SELECT 1;\nSELECT FROM;")),
          scanWrite: meta((await db.prepare("UPDATE t SET n = 0 WHERE name = 'nobody'").run()).meta),
          indexedWrite: meta((await db.prepare("UPDATE t SET n = n WHERE id = 1").run()).meta),
        };
        break;
      }
      default:
        return new Response("not found", { status: 404 });
    }
    return Response.json(out);
  },
};
