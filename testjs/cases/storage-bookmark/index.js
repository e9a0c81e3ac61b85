// storage.getCurrentBookmark() as workerd's local storage answers it (a
// counter of calls per instance, in the bookmark format), and the
// point-in-time recovery methods it rejects.
import { DurableObject } from 'cloudflare:workers';
export class P extends DurableObject {
  async bm(write) {
    const s = this.ctx.storage;
    const out = [];
    out.push(await s.getCurrentBookmark());
    out.push(await s.getCurrentBookmark());
    if (write) s.put('k', write);
    out.push(await s.getCurrentBookmark());
    s.sql.exec('CREATE TABLE IF NOT EXISTS t (x)');
    s.sql.exec('INSERT INTO t VALUES (1)');
    out.push(await s.getCurrentBookmark());
    out.push(typeof s.getBookmarkForTime, typeof s.onNextSessionRestoreBookmark, typeof s.waitForBookmark);
    try { out.push(await s.getBookmarkForTime(Date.now())); } catch (e) { out.push(String(e)); }
    try { out.push(await s.onNextSessionRestoreBookmark(out[0])); } catch (e) { out.push(String(e)); }
    return out;
  }
}
export default {
  async fetch(req, env) {
    const stub = env.ns.get(env.ns.idFromName('a'));
    const out = [];
    out.push(await stub.bm(0));
    out.push(await stub.bm(1));
    out.push(await stub.bm(0));
    return Response.json(out);
  }
};
