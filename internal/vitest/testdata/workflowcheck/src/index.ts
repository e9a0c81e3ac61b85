import { WorkflowEntrypoint, WorkflowEvent, WorkflowStep } from "cloudflare:workers";

type Params = { wait?: boolean };

export class Flow extends WorkflowEntrypoint<Env, Params> {
	async run(event: Readonly<WorkflowEvent<Params>>, step: WorkflowStep) {
		await step.sleep("nap", "1 day");
		const a = await step.do("first", async () => "real");
		const b = await step.do(
			"flaky",
			{ retries: { limit: 1, delay: 100, backoff: "constant" } },
			async () => "ok"
		);
		const again = await step.do("first", async () => "real again");
		if (event.payload?.wait) {
			const e = await step.waitForEvent<number>("go", { type: "go", timeout: "1 hour" });
			return { a, b, again, e: e.payload };
		}
		return { a, b, again };
	}
}

export default {
	async fetch(request: Request, env: Env) {
		const url = new URL(request.url);
		const instance = await env.FLOW.create({ params: { wait: url.searchParams.has("wait") } });
		return new Response(instance.id);
	},
};
