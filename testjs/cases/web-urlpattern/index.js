// URLPattern as workerd has it: construction from strings and dicts,
// test/exec with named groups, wildcards, regexp groups, modifiers, base
// URLs, ignoreCase, component getters, errors.
import { DurableObject } from "cloudflare:workers";

function c(f) {
  try {
    return f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}
function groups(r) {
  if (r === null) return null;
  const out = {};
  for (const k of ["protocol", "username", "password", "hostname", "port", "pathname", "search", "hash"]) {
    if (r[k].input !== "" || Object.keys(r[k].groups).length) out[k] = [r[k].input, r[k].groups];
  }
  return out;
}

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/basic": {
        const p = new URLPattern({ pathname: "/books/:id" });
        out.test = [p.test("https://example.com/books/123"), p.test("https://example.com/books"), p.test({ pathname: "/books/x" })];
        out.exec = groups(p.exec("https://example.com/books/123?x=1#h"));
        out.inputs = p.exec({ pathname: "/books/7" }).inputs;
        out.getters = ["protocol", "username", "password", "hostname", "port", "pathname", "search", "hash"].map((k) => p[k]);
        out.tag = [String(p), typeof URLPattern, URLPattern.length];
        out.hasRegExpGroups = [p.hasRegExpGroups, new URLPattern({ pathname: "/(\\d+)" }).hasRegExpGroups];
        return Response.json(out);
      }
      case "/strings": {
        const pats = [
          ["https://example.com/api/:version/users/:id", "https://example.com/api/v2/users/42"],
          ["https://*.example.com/*", "https://a.b.example.com/x/y"],
          ["/blog/:year(\\d+)/:slug", "https://x.test/blog/2024/hello", "https://x.test"],
          ["/files/*.:ext", "https://x.test/files/a/b.tar.gz", "https://x.test"],
          ["/items/:id?", "https://x.test/items", "https://x.test"],
          ["/items/:id+", "https://x.test/items/a/b", "https://x.test"],
          ["/items{/:id}*", "https://x.test/items/a/b/c", "https://x.test"],
          ["http{s}?://:host.com/*", "http://foo.com/bar"],
          ["/search?q=:query", "https://x.test/search?q=cats", "https://x.test"],
          ["https://example.com:8080/*", "https://example.com:8080/x"],
          ["*://*/*#:frag", "https://x.test/a#top"],
        ];
        out.results = pats.map(([pat, input, base]) => {
          const p = base === undefined ? new URLPattern(pat) : new URLPattern(pat, base);
          return [pat, p.protocol, p.hostname, p.port, p.pathname, p.search, p.hash, groups(p.exec(input))];
        });
        return Response.json(out);
      }
      case "/options": {
        const p = new URLPattern({ pathname: "/Foo/:bar" }, { ignoreCase: true });
        out.ignoreCase = [p.test({ pathname: "/foo/X" }), new URLPattern({ pathname: "/Foo" }).test({ pathname: "/foo" })];
        const q = new URLPattern("/x/:y", "https://base.test/sub/", { ignoreCase: true });
        out.withBase = [q.hostname, q.pathname, q.test("https://base.test/X/1")];
        out.execBase = groups(new URLPattern({ pathname: "/a/:b" }).exec("/a/c", "https://h.test"));
        out.testBase = new URLPattern({ pathname: "/a/:b" }).test("/a/c", "https://h.test");
        out.encoded = groups(new URLPattern({ pathname: "/café/:x" }).exec("https://h.test/caf%C3%A9/ü"));
        out.defaults = (() => { const d = new URLPattern({}); return [d.protocol, d.pathname, d.test("https://anything/at/all?x#y")]; })();
        out.searchHash = groups(new URLPattern({ search: "a=:a&b=:b", hash: ":h" }).exec("https://h.test/?a=1&b=2#zz"));
        out.unnamed = groups(new URLPattern({ pathname: "/(foo|bar)/*" }).exec({ pathname: "/bar/baz/q" }));
        return Response.json(out);
      }
      case "/errors": {
        out.err = [
          c(() => new URLPattern("/:id(")),
          c(() => new URLPattern({ pathname: "/:a/:a" })),
          c(() => new URLPattern("relative/path")),
          c(() => new URLPattern(42)),
          c(() => URLPattern({})),
          c(() => new URLPattern({ pathname: "/(\\d+" })),
          c(() => new URLPattern({ pathname: "/:" })),
          c(() => new URLPattern("https://x.test/", 5)),
          c(() => new URLPattern({ protocol: "ht tp" })),
          c(() => new URLPattern({ pathname: "/x" }).exec("not a url")),
          c(() => new URLPattern({ pathname: "/x" }).test({ pathname: "/x" }, "https://base")),
        ];
        return Response.json(out);
      }
    }
    return new Response("unknown", { status: 404 });
  }
}

export default {
  fetch(request, env) {
    return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request);
  },
};
