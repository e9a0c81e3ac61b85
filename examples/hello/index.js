// A worker with no Durable Objects and no config file:
//   cellhost dev examples/hello/index.js
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const who = url.searchParams.get("name") ?? "world";
    return new Response(`hello, ${who}!\n`);
  },
};
