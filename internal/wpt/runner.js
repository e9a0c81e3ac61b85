// The worker that runs one WPT test file per request, through cellhost's
// pipeline: this module is bundled by esbuild as a worker's entry, runs on a
// shard's runtime with cellhost's globals, and the test's promises and
// timers run on the shard's event loop. Like workerd's harness
// (src/wpt/harness), it evaluates the harness and the test file's sources
// as scripts (indirect eval) in the worker's global scope; the harness is
// WPT's own testharness.js, in its shell environment.
import { HARNESS, FILES, RESOURCES } from "./data.js";

export default {
  async fetch(request) {
    const name = new URL(request.url).searchParams.get("file");
    const file = FILES[name];
    if (!file) return new Response("no such test file: " + name, { status: 404 });
    const testURL = "http://web-platform.test:8000/" + name;
    globalThis.self = globalThis;
    globalThis.location = new URL(testURL);
    globalThis.GLOBAL = { isWindow: () => false, isWorker: () => true, isShadowRealm: () => false };
    // The test's resources (fetch("resources/x.json")) come from the files
    // vendored beside it: workerd's harness serves them the same way.
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url, testURL).href;
      if (Object.hasOwn(RESOURCES, url)) {
        return new Response(RESOURCES[url], { headers: { "content-type": url.endsWith(".json") ? "application/json" : "text/plain" } });
      }
      return realFetch(input, init);
    };
    const results = [];
    let finish;
    const finished = new Promise((resolve) => { finish = resolve; });
    // testharness.js picks its environment by the global's class: hidden
    // while it loads, cellhost's ServiceWorkerGlobalScope and
    // WorkerGlobalScope (workerd's shape, jsapi/globalscope.go) would select
    // a worker environment, which talks to a client over message ports;
    // workerd's harness runs the tests as the shell environment does.
    const hidden = ["ServiceWorkerGlobalScope", "WorkerGlobalScope"].map((k) => [k, Object.getOwnPropertyDescriptor(globalThis, k)]);
    for (const [k, d] of hidden) if (d) delete globalThis[k];
    try {
      (0, eval)(HARNESS);
    } finally {
      for (const [k, d] of hidden) if (d) Object.defineProperty(globalThis, k, d);
    }
    add_result_callback((t) => results.push({ name: t.name, status: t.status, message: t.message ? String(t.message) : "" }));
    add_completion_callback((tests, status) => finish({ status: status.status, message: status.message ? String(status.message) : "" }));
    try {
      // Each a script of its own, as each is a <script> in a browser: a
      // class or let at the top of one (wasm-module-builder.js's
      // WasmModuleBuilder, kWasmI32) is seen by the next through the
      // global lexical scope. The Go test gives the runtime's own script
      // evaluation (__wpt_script); without it, indirect eval, whose
      // top-level lexical declarations stay inside the eval.
      const run = globalThis.__wpt_script ?? ((src) => (0, eval)(src));
      for (const dep of file.deps) run(dep);
      run(file.src);
    } catch (e) {
      results.push({ name: "(file)", status: 1, message: String(e && e.stack || e) });
      finish({ status: 1, message: String(e) });
    }
    let timer;
    const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve({ status: 2, message: "the file did not complete in 20 s" }), 20000); });
    const harness = await Promise.race([finished, timeout]);
    clearTimeout(timer);
    return Response.json({ harness, results });
  },
};
