// The runner's own test module (TestRunnerSelfTest), in the form of
// workerd's *-test.js files: each export with a test() method is a test.
import { DurableObject } from "cloudflare:workers";
import { strictEqual } from "node:assert";
import { twice } from "helper";

export class Counter extends DurableObject {
  async inc() {
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return n;
  }
}

export const bindings = {
  test(ctrl, env) {
    strictEqual(env.GREETING, "hi there");
    strictEqual(env.CONF.n, 2);
    strictEqual(twice(env.CONF.n), 4);
  },
};

export const durable = {
  async test(ctrl, env) {
    const stub = env.ns.get(env.ns.idFromName("a"));
    strictEqual(await stub.inc(), 1);
    strictEqual(await stub.inc(), 2);
  },
};

export const selfService = {
  async test(ctrl, env) {
    const r = await env.SELF.fetch("http://x/hello");
    strictEqual(await r.text(), "hello from the default export");
  },
};

export const fails = {
  async test() {
    await null;
    throw new Error("this test fails on purpose");
  },
};

export const notATest = { run() {} };

export default {
  fetch() {
    return new Response("hello from the default export");
  },
  test(ctrl) {
    strictEqual(typeof ctrl, "object");
  },
};
