import { env, listDurableObjectIds, runInDurableObject, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { Counter } from "../src";

describe("without isolated storage", () => {
	it("writes", async () => {
		const stub = env.COUNTER.get(env.COUNTER.idFromName("a"));
		expect(await stub.increment()).toBe(1);
		await env.KV.put("k", "v");
	});
	it("reads what the previous test wrote", async () => {
		const stub = env.COUNTER.get(env.COUNTER.idFromName("a"));
		expect(await stub.increment()).toBe(2);
		expect(await env.KV.get("k")).toBe("v");
		expect(await listDurableObjectIds(env.COUNTER)).toHaveLength(1);
		await runInDurableObject(stub, async (instance: Counter, state) => {
			expect(instance).toBeInstanceOf(Counter);
			expect(instance.count).toBe(2);
			expect(await state.storage.get("n")).toBe(2);
		});
	});
});

it("sees miniflare bindings and SELF", async () => {
	expect(env.GREETING).toBe("hi");
	expect(env.LIST).toStrictEqual([1, 2]);
	expect(await (await SELF.fetch("http://x/path")).text()).toBe("hi /path");
});

// These fail on purpose: the runner must report them (expected-failures.txt).
it("fails an assertion", () => {
	expect({ a: 1, b: [1, 2] }).toEqual({ a: 1, b: [1, 3] });
});
it("fails an inline snapshot", () => {
	expect({ b: "x", a: [1] }).toMatchInlineSnapshot(`
		{
		  "a": [
		    2,
		  ],
		  "b": "x",
		}
	`);
});
it("passes an inline snapshot", () => {
	expect({ b: "x", a: [1], c: {} }).toMatchInlineSnapshot(`
		{
		  "a": [
		    1,
		  ],
		  "b": "x",
		  "c": {},
		}
	`);
});
it("fails on a rejection", async () => {
	await expect(Promise.resolve(1)).rejects.toThrow();
});
it.skip("is skipped", () => {
	throw new Error("never runs");
});
it.todo("is to do");
