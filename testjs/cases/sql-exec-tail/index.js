// What may follow the last statement of sql.exec(): C whitespace only
// (\v and \f included); a trailing comment or semicolon is one more
// statement, which has none.
import { DurableObject } from 'cloudflare:workers';
export class P extends DurableObject {
  q() {
    const sql = this.ctx.storage.sql;
    const out = {};
    for (const q of ["SELECT 1;", "SELECT 1; ", "SELECT 1; -- done", "SELECT 1 -- done", "SELECT 1;\n/* done */\n", "SELECT 1 /* c */ ;", "\vSELECT 1", "SELECT 1;\v\f\r\n\t ", "SELECT 1;;", "SELECT 1; ;", "-- only", "", "SELECT 1; SELECT 2; -- x\n"]) {
      try { out[JSON.stringify(q)] = sql.exec(q).toArray(); } catch (e) { out[JSON.stringify(q)] = String(e); }
    }
    return out;
  }
}
export default {
  async fetch(req, env) {
    return Response.json(await env.ns.get(env.ns.idFromName('a')).q());
  }
};
