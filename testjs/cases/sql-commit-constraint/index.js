// A COMMIT that fails a deferred foreign key resets the object: the call
// that made it and every later call through the same stub fail with
// workerd's error (remote only on the first fetch, never
// durableObjectReset); a new stub reaches a fresh instance.
import { DurableObject } from 'cloudflare:workers';
export class P extends DurableObject {
  fk() {
    const sql = this.ctx.storage.sql;
    sql.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid REFERENCES p (id)); PRAGMA defer_foreign_keys = ON');
    sql.exec('INSERT INTO c VALUES (1)');
    return 'ok';
  }
  n() { return 1; }
  async fetch(req) {
    const sql = this.ctx.storage.sql;
    sql.exec('CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid REFERENCES p (id));');
    await new Promise((r) => setTimeout(r, 1));
    this.ctx.storage.transactionSync(() => {
      sql.exec('PRAGMA defer_foreign_keys=ON;');
      sql.exec('INSERT INTO c VALUES (2)');
    });
    return Response.json({ ok: true });
  }
}
const show = (e) => ({ s: String(e), name: e && e.name, reset: e && e.durableObjectReset, remote: e && e.remote, keys: e && Object.keys(e) });
export default {
  async fetch(req, env) {
    const stub = env.ns.get(env.ns.idFromName('a'));
    const out = {};
    try { out.fk = await stub.fk(); } catch (e) { out.fk = show(e); }
    try { out.again = await stub.n(); } catch (e) { out.again = show(e); }
    const stub2 = env.ns.get(env.ns.idFromName('a'));
    try { out.fresh = await stub2.n(); } catch (e) { out.fresh = show(e); }
    const stub3 = env.ns.get(env.ns.idFromName('b'));
    try { out.f = await (await stub3.fetch('http://x/')).json(); } catch (e) { out.f = show(e); }
    try { out.f2 = await (await stub3.fetch('http://x/')).json(); } catch (e) { out.f2 = show(e); }
    return Response.json(out);
  }
};
