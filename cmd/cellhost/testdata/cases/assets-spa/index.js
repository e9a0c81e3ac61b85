// Static assets (html_handling force-trailing-slash, not_found_handling
// single-page-application), seen directly and through env.ASSETS.
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
