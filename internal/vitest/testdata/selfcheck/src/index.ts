import { DurableObject } from "cloudflare:workers";

export class Counter extends DurableObject {
	count = 0;
	async increment() {
		this.count = ((await this.ctx.storage.get<number>("n")) ?? 0) + 1;
		await this.ctx.storage.put("n", this.count);
		return this.count;
	}
}

export default {
	async fetch(request: Request, env: any) {
		return new Response(env.GREETING + " " + new URL(request.url).pathname);
	},
};
