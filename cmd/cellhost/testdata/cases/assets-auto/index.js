// Static assets (html_handling auto-trailing-slash, not_found_handling
// 404-page): a request that matches an asset is served from it; any other
// goes to the worker, which also reaches the assets through env.ASSETS.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.startsWith("/via-binding/")) {
      const r = await env.ASSETS.fetch(new URL(url.pathname.slice("/via-binding".length), url));
      return Response.json({ status: r.status, location: r.headers.get("location"), type: r.headers.get("content-type"), body: await r.text() });
    }
    return Response.json({ worker: request.method + " " + url.pathname });
  },
};
