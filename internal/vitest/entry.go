package vitest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// EntrySpec describes the worker generated for one test file.
type EntrySpec struct {
	Main       string            // the project's entry module
	TestFile   string            // the test file (absolute)
	SetupFiles []string          // imported before it, in order
	Classes    []string          // the bound Durable Object classes
	ClassOf    map[string]string // binding -> class
	Token      string            // the control header's value
}

// Entry is the generated worker's entry module. It exports everything the
// project's main does, each bound Durable Object class as a subclass that
// registers its instances and answers runInDurableObject (cloudflare-
// test.js), and a default export that is the project's, except for the
// control request (the header cf-cellhost-test-control with the run's
// token), which loads the setup files and the test file and runs the
// tests it is asked for. The test file is a dynamic import, so it runs
// only when asked, not at the worker's load.
func Entry(s EntrySpec) string {
	q := func(v string) string { b, _ := json.Marshal(v); return string(b) }
	var b strings.Builder
	fmt.Fprintf(&b, "import * as __user from %s;\n", q(s.Main))
	b.WriteString("import { __cellhostTestHarness as __h } from \"cloudflare:test\";\n")
	b.WriteString("import { __collect, __run } from \"vitest\";\n")
	fmt.Fprintf(&b, "export * from %s;\n", q(s.Main))
	classOf, _ := json.Marshal(s.ClassOf)
	fmt.Fprintf(&b, "__h.setClasses(%s);\n", classOf)
	for _, c := range s.Classes {
		fmt.Fprintf(&b, `const __%[1]s = __user[%[2]s];
export class %[1]s extends __%[1]s {
  constructor(ctx, env) {
    super(ctx, env);
    Object.setPrototypeOf(this, __h.rpcPrototype(this, new.target.prototype));
    __h.register(%[2]s, this, ctx);
  }
  fetch(request) {
    const r = __h.objectFetch(this, request);
    if (r !== null) return r;
    if (typeof super.fetch !== "function") throw new TypeError("Handler does not export a fetch() function.");
    return super.fetch(request);
  }
}
`, c, q(c))
	}
	b.WriteString("const __load = async () => {\n")
	for _, f := range s.SetupFiles {
		fmt.Fprintf(&b, "  await import(%s);\n", q(f))
	}
	fmt.Fprintf(&b, "  await import(%s);\n};\n", q(s.TestFile))
	fmt.Fprintf(&b, "const __token = %s;\n", q(s.Token))
	b.WriteString(`let __tests;
async function __control(request) {
  const q = await request.json();
  try {
    __tests ??= await __collect(__load);
  } catch (e) {
    return Response.json({ error: { message: String(e && e.message || e), stack: String(e && e.stack || e) } });
  }
  const results = await __run(__tests, q.select, q);
  return Response.json({ tests: __tests.map((t) => ({ name: t.name, mode: t.mode })), results });
}
const __isControl = (request) => request.headers.get("cf-cellhost-test-control") === __token;
const __d = __user.default;
let __default;
if (typeof __d === "function") {
  __default = class extends __d {
    fetch(request) {
      if (__isControl(request)) { __h.setExports(this.ctx.exports); return __control(request); }
      return super.fetch(request);
    }
  };
  Object.defineProperty(__default, "name", { value: __d.name });
} else {
  __default = Object.create(__d ?? null);
  __default.fetch = function (request, env, ctx) {
    if (__isControl(request)) { __h.setExports(ctx.exports); return __control(request); }
    if (!__d || typeof __d.fetch !== "function") throw new TypeError("Handler does not export a fetch() function.");
    return __d.fetch(request, env, ctx);
  };
}
__h.setDefault(__default);
export default __default;
`)
	return b.String()
}
