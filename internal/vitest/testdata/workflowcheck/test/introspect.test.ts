import { env, introspectWorkflow, introspectWorkflowInstance, SELF } from "cloudflare:test";
import { expect, it } from "vitest";

it("mocks one occurrence of a step by its index", async () => {
	await using instance = await introspectWorkflowInstance(env.FLOW, "index");
	await instance.modify(async (m) => {
		await m.disableSleeps();
		await m.mockStepResult({ name: "first", index: 2 }, "mocked");
	});
	await env.FLOW.create({ id: "index" });
	expect(await instance.waitForStepResult({ name: "first" })).toBe("real");
	expect(await instance.waitForStepResult({ name: "first", index: 2 })).toBe("mocked");
	await instance.waitForStatus("complete");
	expect(await instance.getOutput()).toEqual({ a: "real", b: "ok", again: "mocked" });
});

it("refuses to mock a step twice", async () => {
	await using instance = await introspectWorkflowInstance(env.FLOW, "twice");
	await expect(
		instance.modify(async (m) => {
			await m.mockStepResult({ name: "first" }, 1);
			await m.mockStepResult({ name: "first" }, 2);
		})
	).rejects.toThrow("[WorkflowIntrospector] Trying to mock step 'first' multiple times!");
	await expect(
		instance.modify((m) => m.mockStepError({ name: "first" }, new Error("x")))
	).rejects.toThrow("[WorkflowIntrospector] Trying to mock error on step 'first' after mocking its result!");
});

it("takes counted mock errors on the first attempts only", async () => {
	await using instance = await introspectWorkflowInstance(env.FLOW, "once");
	await instance.modify(async (m) => {
		await m.disableSleeps([{ name: "nap" }]);
		await m.mockStepError({ name: "flaky" }, new Error("boom"), 1);
	});
	await env.FLOW.create({ id: "once" });
	expect(await instance.waitForStepResult({ name: "flaky" })).toBe("ok");
	await instance.waitForStatus("complete");
});

it("errors the instance when mock errors outlast the retries", async () => {
	await using instance = await introspectWorkflowInstance(env.FLOW, "twice-boom");
	await instance.modify(async (m) => {
		await m.disableSleeps();
		await m.mockStepError({ name: "flaky" }, new TypeError("boom"), 1);
		await m.mockStepError({ name: "flaky" }, new TypeError("boom"), 1);
	});
	await env.FLOW.create({ id: "twice-boom" });
	await expect(instance.waitForStatus("complete")).rejects.toThrow(
		"[WorkflowIntrospector] The Workflow instance twice-boom has reached status 'errored'. This is a finite status that prevents it from ever reaching the expected status of 'complete'."
	);
	// (cellhost rejects with the step's { name, message }; the pool with an
	// Error whose message is "#<Object>")
	await expect(instance.waitForStepResult({ name: "flaky" })).rejects.toBeTruthy();
	expect((await instance.getError()).message).toContain("boom");
	await expect(instance.getOutput()).rejects.toThrow(
		'Cannot retrieve output: Workflow instance is in status "errored" but must be "complete" to have an output available'
	);
});

it("forces a step timeout", async () => {
	await using instance = await introspectWorkflowInstance(env.FLOW, "timeout");
	await instance.modify(async (m) => {
		await m.disableSleeps();
		await m.forceStepTimeout({ name: "flaky" });
	});
	await env.FLOW.create({ id: "timeout" });
	await instance.waitForStatus("errored");
	expect((await instance.getError()).message).toContain("Execution timed out after 0ms");
});

it("forgets an instance's steps and mocks once disposed of", async () => {
	const instance = await introspectWorkflowInstance(env.FLOW, "again");
	await instance.modify((m) => m.disableSleeps());
	await env.FLOW.create({ id: "again" });
	expect(await instance.waitForStepResult({ name: "first" })).toBe("real");
	await instance.waitForStatus("complete");
	await instance.dispose();
	await using fresh = await introspectWorkflowInstance(env.FLOW, "again");
	await fresh.modify(async (m) => {
		await m.disableSleeps();
		await m.mockStepResult({ name: "first" }, "fresh");
	});
	await env.FLOW.create({ id: "again" });
	expect(await fresh.waitForStepResult({ name: "first" })).toBe("fresh");
	await fresh.waitForStatus("complete");
});

it("introspects the instances the worker creates, with mocked events", async () => {
	await using introspector = await introspectWorkflow(env.FLOW);
	await introspector.modifyAll(async (m) => {
		await m.disableSleeps();
		await m.mockEvent({ type: "go", payload: 7 });
	});
	const id = await (await SELF.fetch("https://x/?wait")).text();
	const instances = introspector.get();
	expect(instances.length).toBe(1);
	await instances[0].waitForStatus("complete");
	expect(await instances[0].getOutput()).toEqual({ a: "real", b: "ok", again: "real again", e: 7 });
	expect((await env.FLOW.get(id).then((i) => i.status())).status).toBe("complete");
});

it("stops introspecting once disposed of", async () => {
	const introspector = await introspectWorkflow(env.FLOW);
	await introspector.modifyAll((m) => m.mockStepResult({ name: "first" }, "mocked"));
	await introspector.dispose();
	await using instance = await introspectWorkflowInstance(env.FLOW, "later");
	await instance.modify((m) => m.disableSleeps());
	await env.FLOW.create({ id: "later" });
	expect(await instance.waitForStepResult({ name: "first" })).toBe("real");
	expect(introspector.get()).toEqual([]);
});
