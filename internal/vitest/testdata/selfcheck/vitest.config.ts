import { defineWorkersConfig } from "@cloudflare/vitest-pool-workers/config";

// cellhost's own check of its runner: storage is not isolated here, so
// what one test writes the next one reads.
export default defineWorkersConfig({
	test: {
		poolOptions: {
			workers: {
				isolatedStorage: false,
				wrangler: { configPath: "./wrangler.jsonc" },
				miniflare: { bindings: { GREETING: "hi", LIST: [1, 2] } },
			},
		},
	},
});
