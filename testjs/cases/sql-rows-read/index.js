// cursor.rowsRead as workerd counts it (its SQLite's VDBE counter): one per
// seek, rewind, last and step of a b-tree cursor, and for count(*) answered
// from the b-tree's entry count (SQLite's OP_Count) every entry counted.
// Only the last statement of a multi-statement exec counts.
// Not here, because cellhost counts them differently: a loop nested in
// another (workerd positions the inner cursor once per outer row, cellhost
// counts its positioning once) and CREATE INDEX (workerd 12 for 5 rows,
// cellhost 10).
import { DurableObject } from 'cloudflare:workers';
export class P extends DurableObject {
  q() {
    const sql = this.ctx.storage.sql;
    const out = [];
    const run = (q, ...b) => {
      try {
        const c = sql.exec(q, ...b);
        const rows = c.raw().toArray();
        out.push([q, rows, c.rowsRead, c.rowsWritten]);
      } catch (e) { out.push([q, String(e)]); }
    };
    run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, n INTEGER)');
    run('SELECT count(*) FROM t');
    run("INSERT INTO t (v, n) VALUES ('a', 1), ('b', 2), ('c', 3), ('d', 4), ('e', 5)");
    run("INSERT INTO t (v, n) VALUES (?, ?)", 'f', 6);
    run('SELECT count(*) FROM t');
    run('SELECT count(*) AS n FROM t');
    run('select COUNT(*) from t');
    run('SELECT count(1) FROM t');
    run('SELECT count(v) FROM t');
    run('SELECT count(*) + 1 FROM t');
    run('SELECT count(*) FROM t WHERE id > 2');
    run('SELECT count(*) FROM t WHERE n > 2');
    run('SELECT (SELECT count(*) FROM t) AS n');
    run('SELECT * FROM (SELECT count(*) FROM t)');
    run('SELECT (SELECT count(*) FROM t) + (SELECT count(*) FROM t)');
    run('SELECT count(*), 1 FROM t');
    run('SELECT count(*) FROM t GROUP BY n > 3');
    run('SELECT count(*) FROM t; SELECT 1');
    run('SELECT 1; SELECT count(*) FROM t');
    run('SELECT v FROM t WHERE id = 3');
    run('SELECT v FROM t WHERE n = 3');
    run('SELECT max(id) FROM t');
    run('SELECT * FROM t ORDER BY id DESC LIMIT 1');
    run("UPDATE t SET v = 'z' WHERE id = 2");
    run("UPDATE t SET v = 'y' WHERE n >= 5");
    run('DELETE FROM t WHERE id = 1');
    run('CREATE INDEX tn ON t (n); SELECT 1');
    run('SELECT count(*) FROM t');
    run('SELECT count(*) FROM t WHERE n > 2');
    run('SELECT v FROM t WHERE n = 3');
    run("INSERT INTO t (v, n) VALUES ('g', 7)");
    run('CREATE TABLE w (k TEXT PRIMARY KEY, x) WITHOUT ROWID');
    run("INSERT INTO w VALUES ('a', 1), ('b', 2)");
    run('SELECT count(*) FROM w');
    run('INSERT INTO w SELECT v, n FROM t WHERE id > 4');
    run('DELETE FROM w');
    run('SELECT count(*) FROM w');
    run('DELETE FROM t');
    run('SELECT count(*) FROM t');
    return out;
  }
}
export default {
  async fetch(req, env) {
    return Response.json(await env.ns.get(env.ns.idFromName('a')).q());
  }
};
