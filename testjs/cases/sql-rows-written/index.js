// cursor.rowsWritten as workerd counts it (its SQLite's VDBE counter):
// table and index b-tree inserts, the AUTOINCREMENT sequence row, schema
// rows, counted deletes; only the last statement of a multi-statement exec.
import { DurableObject } from 'cloudflare:workers';
export class P extends DurableObject {
  q() {
    const sql = this.ctx.storage.sql;
    const out = [];
    const run = (q, ...b) => {
      try {
        const c = sql.exec(q, ...b);
        const rows = c.toArray();
        out.push([q, rows.length, c.rowsWritten]);
      } catch (e) { out.push([q, String(e)]); }
    };
    run('CREATE TABLE t (a INTEGER, b TEXT)');
    run("INSERT INTO t VALUES (1, 'x'), (2, 'y')");
    run("INSERT INTO t VALUES (3, 'z'); SELECT 1");
    run("SELECT 1; INSERT INTO t VALUES (4, 'z')");
    run("INSERT INTO t VALUES (5, 'z'); INSERT INTO t VALUES (6, 'z'), (7, 'q')");
    run('CREATE INDEX tb ON t (b)');
    run('CREATE UNIQUE INDEX ta ON t (a)');
    run('CREATE TABLE u (x INTEGER PRIMARY KEY AUTOINCREMENT, y TEXT UNIQUE, z TEXT UNIQUE)');
    run('CREATE TABLE v (x INTEGER PRIMARY KEY AUTOINCREMENT)');
    run('CREATE TABLE w (x TEXT PRIMARY KEY, y TEXT UNIQUE) WITHOUT ROWID');
    run('CREATE TABLE x1 (a); INSERT INTO x1 VALUES (1)');
    run('INSERT INTO x1 VALUES (1); CREATE TABLE x2 (a)');
    run('ALTER TABLE x1 ADD COLUMN b TEXT');
    run('ALTER TABLE "x2" ADD c TEXT');
    run('DROP INDEX tb');
    run('DROP TABLE x1');
    run('DROP TABLE t');
    run('CREATE TABLE m (a INTEGER PRIMARY KEY, b)');
    run("INSERT INTO m VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    run('SELECT * FROM m; SELECT 1');
    run('SELECT 1; SELECT * FROM m');
    run('SELECT * FROM m WHERE a = 2; SELECT * FROM m WHERE a = 3');
    run("UPDATE m SET b = 'z' WHERE a = 1; SELECT * FROM m");
    run('CREATE VIEW vv AS SELECT 1');
    run('DROP VIEW vv');
    return out;
  }
}
export default {
  async fetch(req, env) {
    return Response.json(await env.ns.get(env.ns.idFromName('a')).q());
  }
};
