import { defineWorkersProject } from "@cloudflare/vitest-pool-workers/config";

// cellhost's own check of cloudflare:test's workflow introspection
// (TestWorkflowIntrospection), beyond what the workflows example uses.
export default defineWorkersProject({
	esbuild: { target: "ES2022" },
	test: {
		poolOptions: {
			workers: { singleWorker: true, wrangler: { configPath: "./wrangler.jsonc" } },
		},
	},
});
