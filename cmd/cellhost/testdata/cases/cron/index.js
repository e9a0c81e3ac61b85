// Cron triggers: the scheduled() handlers of the default export and of a
// WorkerEntrypoint, run as workerd runs them when asked through
// ctx.exports.<entrypoint>.scheduled() (service_binding_extra_handlers):
// the controller, the outcome and noRetry(). Each request reports what the
// handlers saw during it (a host may run requests in different isolates).
import { WorkerEntrypoint } from "cloudflare:workers";

const fired = [];
function seen(ep, ctl, extra) {
  fired.push(Object.assign({
    ep, cron: ctl.cron,
    time: typeof ctl.scheduledTime === "number" && ctl.scheduledTime > 1e12 ? "now" : ctl.scheduledTime,
    keys: Object.keys(ctl), type: String(ctl.type), noRetry: typeof ctl.noRetry,
  }, extra));
}

export class Jobs extends WorkerEntrypoint {
  async scheduled(ctl) {
    seen("Jobs", ctl, { env: typeof this.env });
    if (ctl.cron === "fail") throw new Error("job failed on purpose");
    if (ctl.cron === "no-retry") ctl.noRetry();
  }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    const run = (ep, opts) => ctx.exports[ep].scheduled(opts);
    fired.length = 0;
    let out;
    switch (url.pathname) {
      case "/exports":
        out = Object.keys(ctx.exports);
        break;
      case "/default":
        out = [
          await run("default", { cron: "*/5 * * * *", scheduledTime: new Date(60000) }),
          await run("default", { cron: "0 3 * * 1", scheduledTime: 120000 }),
          await run("default", {}),
          await run("default"),
        ];
        break;
      case "/entrypoint":
        out = [
          await run("Jobs", { cron: "*/5 * * * *", scheduledTime: 180000 }),
          await run("Jobs", { cron: "no-retry", scheduledTime: 240000 }),
        ];
        break;
      case "/throws":
        out = [await run("default", { cron: "throw" }), await run("Jobs", { cron: "fail" })];
        break;
      default:
        return new Response("not found", { status: 404 });
    }
    return Response.json({ out, fired });
  },
  async scheduled(ctl, env, ctx) {
    seen("default", ctl, { args: [typeof env, typeof ctx, typeof ctx.waitUntil] });
    if (ctl.cron === "throw") throw new TypeError("scheduled failed on purpose");
  },
};
