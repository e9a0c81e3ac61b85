// The entry of a workerd test file run on cellhost: it re-exports the test
// module (its Durable Object classes and entrypoints are the worker's) and
// answers the runner's two requests, as workerd's test runner drives a test
// service: /__wdtest/list names the exports with a test() method (the
// module namespace's order, which is V8's and workerd's), and
// /__wdtest/run?t=name calls exports[name].test(controller, env, ctx) as
// its own event. Every other request goes to the module's default export,
// so a service binding to the worker itself reaches it.
import * as mod from "__WDTEST_MAIN__";
export * from "__WDTEST_MAIN__";

function message(e) {
  if (e instanceof Error) return String(e.stack || e);
  try { return "Uncaught " + String(e); } catch { return "Uncaught (unprintable value)"; }
}

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__wdtest/list") {
      const names = Object.keys(mod).filter((k) => mod[k] != null && typeof mod[k].test === "function" && typeof mod[k] === "object");
      return Response.json(names);
    }
    if (url.pathname === "/__wdtest/run") {
      const name = url.searchParams.get("t");
      try {
        await mod[name].test({}, env, ctx);
        return Response.json({ ok: true });
      } catch (e) {
        return Response.json({ ok: false, message: message(e) });
      }
    }
    const d = mod.default;
    if (d == null) return new Response("the test module has no default export (" + request.url + ")", { status: 500 });
    if (typeof d === "function") return new d(ctx, env).fetch(request);
    if (typeof d.fetch !== "function") return new Response("the test module's default export has no fetch()", { status: 500 });
    return d.fetch(request, env, ctx);
  },
};
