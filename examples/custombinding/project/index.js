export default {
  async fetch(request, env) {
    const name = new URL(request.url).searchParams.get("name") ?? "world";
    const text = await env.GREETER.hello(name);
    await env.KV.put("last", name);
    return new Response(text + "; last: " + (await env.KV.get("last")));
  },
};
