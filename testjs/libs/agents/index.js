// The Cloudflare Agents SDK as its docs show it: an Agent subclass with
// initialState/setState, the sql tagged template, schedule() and
// getSchedules(), a @callable() method reached over RPC (getAgentByName) and
// over the agent WebSocket protocol, and routeAgentRequest in front.
// Recorded with record-wrangler.sh: `workerd serve` lacks cloudflare:email,
// which agents imports.
import { Agent, routeAgentRequest, getAgentByName, callable } from "agents";

export class Counter extends Agent {
  initialState = { count: 0, log: [] };
  async onRequest(request) {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/inc")) {
      this.setState({ count: this.state.count + 1, log: [...this.state.log, "inc"] });
    }
    this.sql`CREATE TABLE IF NOT EXISTS hits (n INTEGER)`;
    this.sql`INSERT INTO hits VALUES (${this.state.count})`;
    const rows = this.sql`SELECT count(*) AS c FROM hits`;
    return Response.json({ state: this.state, hits: rows[0].c, name: this.name });
  }
  @callable()
  add(n) {
    this.setState({ ...this.state, count: this.state.count + n });
    return this.state.count;
  }
  async plan() {
    const s = await this.schedule(3600, "tick", { why: "later" });
    const all = this.getSchedules();
    return { type: s.type, callback: s.callback, payload: s.payload, count: all.length };
  }
  tick(payload) {}
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/rpc") {
      const stub = await getAgentByName(env.Counter, "rpc-one");
      return Response.json({ added: await stub.add(5), again: await stub.add(2), plan: await stub.plan() });
    }
    return (await routeAgentRequest(request, env)) ?? new Response("no agent", { status: 404 });
  },
};
