export default {
	async fetch() {
		return new Response("foo");
	},
};
