// Errors thrown by a Durable Object's RPC methods as the caller sees them:
// standard and custom names, subclasses, an empty message, a message that
// is an accessor (as zod 4's ZodError has), own properties such as code, a
// cause, and an error thrown from an RpcTarget. The compatibility date
// decides the form (enhanced_error_serialization from 2026-04-21).
import { DurableObject, RpcTarget } from "cloudflare:workers";

class Target extends RpcTarget {
  fail() { const e = new Error("from target"); e.name = "TargetError"; e.code = 7; throw e; }
}

export class D extends DurableObject {
  custom() { const e = new Error("m"); e.name = "FooError"; throw e; }
  subclass() { class MyErr extends Error { constructor(m) { super(m); this.name = "MyErr"; } } throw new MyErr("boom"); }
  renamedRange() { const e = new RangeError("r"); e.name = "Custom"; throw e; }
  typeAsRange() { const e = new TypeError("t"); e.name = "RangeError"; throw e; }
  plainSubclass() { class X extends Error {} throw new X("plain subclass"); }
  withCode() { const e = new Error("has code"); e.code = "E42"; e.name = "CodeErr"; e.extra = { n: 1 }; throw e; }
  emptyMessage() { const e = new Error(); e.name = "BarError"; throw e; }
  accessorMessage() { const e = new Error("orig"); Object.defineProperty(e, "message", { get() { return "lazy"; }, configurable: true }); e.name = "ZodError"; throw e; }
  accessorStandard() { const e = new TypeError("t"); Object.defineProperty(e, "message", { get() { return "lazy"; } }); throw e; }
  withCause() { throw new Error("outer", { cause: new Error("inner") }); }
  domException() { throw new DOMException("gone", "NotFoundError"); }
  nonError() { throw { not: "an error" }; }
  target() { return new Target(); }
}

export default {
  async fetch(request, env) {
    const s = env.D.getByName("x");
    const out = {};
    const methods = ["custom", "subclass", "renamedRange", "typeAsRange", "plainSubclass", "withCode", "emptyMessage", "accessorMessage", "accessorStandard", "withCause", "domException", "nonError"];
    for (const m of methods) {
      try { await s[m](); out[m] = "no error"; } catch (e) {
        out[m] = { name: e.name, message: e.message, ctor: e.constructor.name, code: e.code ?? null, extra: e.extra ?? null, cause: e.cause ? String(e.cause) : null, isError: e instanceof Error, remote: e.remote ?? null, hasId: typeof e.durableObjectId, own: Object.getOwnPropertyNames(e).filter((k) => k !== "stack").sort() };
      }
    }
    try { const t = await s.target(); await t.fail(); } catch (e) { out.target = { name: e.name, message: e.message, code: e.code ?? null, own: Object.getOwnPropertyNames(e).filter((k) => k !== "stack").sort() }; }
    return Response.json(out);
  },
};
