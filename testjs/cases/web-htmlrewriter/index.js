// HTMLRewriter as workerd (lol-html) has it: element, end tag, text,
// comment, doctype and document-end handlers; attribute edits, content
// insertion (escaped or html), removal, replacement, renaming; selector
// support and errors; headers kept. (Async handlers are not recorded:
// cellhost runs handlers synchronously until bodies stream.)
function c(f){ try { const v = f(); return v; } catch(e) { return {err: e.name, msg: e.message}; } }
async function ac(f){ try { return await f(); } catch(e) { return {err: e.name, msg: e.message}; } }
const page = `<!DOCTYPE html><html><head><title>T &amp; t</title></head><body><!-- c1 --><div id="a" class="x y"><p>Hello <b>world</b></p><img src="/i.png"><a href="/x">link</a></div><p class="x">second</p><ul><li>1<li>2</ul></body></html>`;
import { DurableObject } from "cloudflare:workers";

export class Obj extends DurableObject {
  async fetch(request) {
  if (new URL(request.url).pathname === "/more") return more();
  const log = [];
  const out = {};
  const rw = new HTMLRewriter()
    .on("div#a", { element(e) { log.push(["el", e.tagName, [...e.attributes], e.getAttribute("class"), e.hasAttribute("id"), e.namespaceURI, e.removed]); e.setAttribute("data-x", "1"); e.prepend("<i>pre</i>"); e.append("<i>post</i>", {html: true}); e.onEndTag((t) => { log.push(["end", t.name]); t.before("[bt]"); t.after("[at]", {html: true}); }); } })
    .on("p", { element(e) { log.push(["p", e.tagName]); }, text(t) { log.push(["text", t.text, t.lastInTextNode, t.removed]); } })
    .on("a[href]", { element(e) { e.setAttribute("href", "https://ex" + e.getAttribute("href")); e.before("<<"); e.after(">>"); } })
    .on("img", { element(e) { e.remove(); log.push(["img", e.removed]); } })
    .on("b", { element(e) { e.setInnerContent("WORLD"); } })
    .on(".x", { element(e) { log.push(["dotx", e.tagName]); } })
    .on("li", { element(e) { e.onEndTag(() => log.push("li-end")); log.push("li"); } })
    .on("title", { text(t) { if (t.text) t.replace("NEW"); } })
    .onDocument({ doctype(d) { log.push(["doctype", d.name, d.publicId, d.systemId]); }, comments(cm) { log.push(["comment", cm.text]); cm.text = " changed "; }, end(e) { e.append("<!--end-->", {html: true}); } });
  const r = rw.transform(new Response(page, {headers: {"content-type": "text/html", "x-a": "1"}}));
  out.status = r.status; out.ct = r.headers.get("content-type"); out.xa = r.headers.get("x-a");
  out.body = await r.text();
  out.log = log;
  out.errs = [c(() => new HTMLRewriter().on("", {})), c(() => new HTMLRewriter().on("div >", {})), c(() => new HTMLRewriter().on("a:hover", {})), c(() => new HTMLRewriter().on("::before", {})), c(() => HTMLRewriter()), c(() => new HTMLRewriter().transform("x"))];
  out.tags = [String(new HTMLRewriter()), Object.getOwnPropertyNames(HTMLRewriter.prototype)];
  out.throws = await ac(async () => { const r = new HTMLRewriter().on("p", { element(e) { throw new RangeError("boom"); } }).transform(new Response("<p>x</p>")); return await r.text(); });
  out.rkc = await ac(async () => await new HTMLRewriter().on("div", { element(e) { e.removeAndKeepContent(); } }).transform(new Response("<div a=1><span>k</span></div>")).text());
  out.replace = await ac(async () => await new HTMLRewriter().on("span", { element(e) { e.replace("<em>r</em>", {html: true}); } }).transform(new Response("<div><span>k<b>x</b></span>after</div>")).text());
  out.tagName = await ac(async () => await new HTMLRewriter().on("span", { element(e) { e.tagName = "strong"; e.removeAttribute("a"); } }).transform(new Response("<span a=1 b='2'>k</span>")).text());
  out.textChunks = await ac(async () => { const l = []; await new HTMLRewriter().on("*", { text(t) { l.push([t.text, t.lastInTextNode]); } }).transform(new Response("<div>a &lt; b<br>c</div>d")).text(); return l; });
  out.selectors = await ac(async () => { const l = []; await new HTMLRewriter().on("ul > li:nth-child(2)", { element(e) { l.push("nth2:" + e.getAttribute("id")); } }).on("div span", { element(e) { l.push("desc:" + e.getAttribute("id")); } }).on("[data-k^=ab]", { element(e) { l.push("pre:" + e.getAttribute("id")); } }).on("li:not(.z)", { element(e) { l.push("not:" + e.getAttribute("id")); } }).on("li:first-child", { element(e) { l.push("first:" + e.getAttribute("id")); } }).transform(new Response("<ul><li id=1 class=z><li id=2 data-k=abc></ul><div><p><span id=s></span></p></div>")).text(); return l; });
  out.escape = await ac(async () => await new HTMLRewriter().on("p", { element(e) { e.setInnerContent("<a & \"b\">"); e.setAttribute("t", "x\"y<"); } }).transform(new Response("<p>old</p>")).text());
  out.nullBody = await ac(async () => { const r = new HTMLRewriter().transform(new Response(null, {status: 204})); return [r.status, r.body === null]; });
  out.docText = await ac(async () => { const l = []; await new HTMLRewriter().onDocument({ text(t) { l.push([t.text, t.lastInTextNode]); } }).transform(new Response("a<p>b</p>")).text(); return l; });
  return Response.json(out);
  }
}

async function run(html, build) {
  try {
    const log = [];
    const r = build(new HTMLRewriter(), log).transform(new Response(html, { headers: { "content-type": "text/html;charset=utf-8" } }));
    return [await r.text(), log];
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}

async function more() {
  const out = {};
  out.nestedRemove = await run("<div><section id=s><p>a</p><p>b</p></section><i>after</i></div>", (rw, log) =>
    rw.on("section", { element(e) { e.remove(); e.after("[after]"); e.before("[before]"); e.onEndTag((t) => log.push("end:" + t.name)); } }).on("p", { element(e) { log.push("p"); }, text(t) { log.push("t:" + t.text); } }));
  out.replaceNested = await run("<ul><li>1</li><li>2<b>x</b></li></ul>", (rw) => rw.on("li", { element(e) { e.replace("<li>R</li>", { html: true }); } }));
  out.scriptStyle = await run("<script>if (a < b) { x(); }</script><style>p > a { color: red }</style><textarea><b>x</b></textarea>", (rw, log) =>
    rw.on("script", { text(t) { log.push(["script", t.text, t.lastInTextNode]); } }).on("style", { text(t) { if (t.text) t.replace("/*css*/"); } }).on("textarea", { text(t) { log.push(["ta", t.text]); } }));
  out.quotes = await run("<input type=text value='a b' disabled><a HREF=\"/x\" Title=q>l</a>", (rw, log) =>
    rw.on("input", { element(e) { log.push([...e.attributes]); e.setAttribute("value", "c"); } }).on("a", { element(e) { log.push([e.getAttribute("href"), e.getAttribute("HREF"), e.tagName]); e.setAttribute("title", "z"); } }));
  out.selfClosing = await run("<p>x<br/>y<img src=a.png /></p>", (rw, log) =>
    rw.on("br", { element(e) { e.setAttribute("class", "c"); e.after("|"); } }).on("img", { element(e) { log.push(e.getAttribute("src")); e.append("nope"); } }));
  out.upper = await run("<DIV CLASS=Big><SPAN>x</SPAN></DIV>", (rw, log) => rw.on("div.Big span", { element(e) { log.push(e.tagName); e.setInnerContent("y"); } }));
  out.entities = await run('<p title="a&amp;b &lt; c">x &amp; y</p>', (rw, log) => rw.on("p", { element(e) { log.push(e.getAttribute("title")); }, text(t) { log.push(t.text); } }));
  out.comments = await run("<div><!-- in --><p><!--deep--></p></div><!-- out -->", (rw, log) =>
    rw.on("div", { comments(c) { log.push(c.text); if (c.text === "deep") c.remove(); else c.before("<b>", { html: true }); } }));
  out.unclosed = await run("<div><p>one<p>two</div><span>tail", (rw, log) =>
    rw.on("p", { element(e) { e.onEndTag((t) => { log.push("endp"); t.after("!"); }); } }).on("span", { element(e) { e.onEndTag(() => log.push("endspan")); e.append("+"); } }));
  out.star = await run("<a><b></b></a>", (rw, log) => rw.on("*", { element(e) { log.push(e.tagName); } }));
  out.attrSel = await run("<input type=TEXT id=1><input type=text id=2><a data-x='a b c' id=3></a>", (rw, log) =>
    rw.on("[type=text i]", { element(e) { log.push("i" + e.getAttribute("id")); } }).on("[type=text]", { element(e) { log.push("s" + e.getAttribute("id")); } }).on("[data-x~=b]", { element(e) { log.push("w" + e.getAttribute("id")); } }));
  out.chain = await (async () => {
    const a = new HTMLRewriter().on("p", { element(e) { e.setAttribute("a", "1"); } }).transform(new Response("<p>x</p>"));
    const b = new HTMLRewriter().on("p[a]", { element(e) { e.append("!"); } }).transform(a);
    return [await b.text(), a.bodyUsed];
  })();
  out.headers = await (async () => {
    const r = new HTMLRewriter().on("p", { element(e) { e.append("xyz"); } }).transform(new Response("<p>x</p>", { status: 404, statusText: "Nope", headers: { "content-length": "8", "x-k": "v" } }));
    return [r.status, r.statusText, r.headers.get("content-length"), r.headers.get("x-k"), r.headers.get("content-type"), await r.text()];
  })();
  out.keepContent = await run("<div><a href=x>keep <b>me</b></a></div>", (rw) => rw.on("a", { element(e) { e.removeAndKeepContent(); e.before("["); e.after("]"); } }));
  out.innerAndAppend = await run("<div>old<span>o</span></div>", (rw) => rw.on("div", { element(e) { e.setInnerContent("new"); e.prepend("<"); e.append(">"); } }));
  out.rename = await run("<div><p>x</p></div>", (rw) => rw.on("p", { element(e) { e.tagName = "H1"; e.onEndTag((t) => { t.name = "h2"; }); } }));
  out.endTagRemove = await run("<div>x</div>", (rw) => rw.on("div", { element(e) { e.onEndTag((t) => t.remove()); } }));
  out.textReplace = await run("<p>hello <i>big</i> world</p>", (rw) => rw.on("p", { text(t) { if (t.text.trim()) t.replace(t.text.toUpperCase()); } }));
  out.docEnd = await run("", (rw, log) => rw.onDocument({ end(e) { log.push("end"); e.append("<p>added</p>", { html: true }); } }));
  out.doctype = await run('<!doctype HTML PUBLIC "-//W3C//DTD HTML 4.01//EN" "http://www.w3.org/TR/html4/strict.dtd"><p>', (rw, log) => rw.onDocument({ doctype(d) { log.push([d.name, d.publicId, d.systemId]); } }));
  out.whitespace = await run("<ul>\n  <li>a</li>\n</ul>", (rw, log) => rw.on("ul", { text(t) { log.push(JSON.stringify(t.text)); } }));
  out.selErr = [c(() => new HTMLRewriter().on("a + b", {})), c(() => new HTMLRewriter().on("a ~ b", {})), c(() => new HTMLRewriter().on("p:last-child", {})), c(() => new HTMLRewriter().on("[", {})), c(() => new HTMLRewriter().on("p", null))];
  return Response.json(out);
}

export default {
  fetch(request, env) {
    return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request);
  },
};
