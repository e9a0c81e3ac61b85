// Blob, File and FormData as workerd has them: construction, slicing,
// reading, errors, bodies made from them (content types, multipart
// serialization) and request.formData() parsing (multipart and urlencoded).
import { DurableObject } from "cloudflare:workers";

function c(f) {
  try {
    return f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}
async function ac(f) {
  try {
    return await f();
  } catch (e) {
    return { err: e.name, msg: e.message };
  }
}
function show(v) {
  if (v instanceof File) return ["File", v.name, v.type, v.size];
  if (v instanceof Blob) return ["Blob", v.type, v.size];
  return v;
}
const MP =
  '--zz\r\nContent-Disposition: form-data; name="t"\r\n\r\nhello\r\n' +
  '--zz\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nfile body\r\n' +
  '--zz\r\nContent-Disposition: form-data; name="g"; filename=""\r\n\r\n\r\n' +
  "--zz\nContent-Disposition: form-data; name=\"lf\"\n\nonly LF\n--zz--\r\n";
function mp(body, ct = "multipart/form-data; boundary=zz") {
  return ac(async () => [...(await new Response(body, { headers: { "content-type": ct } }).formData())].map(([k, v]) => [k, show(v)]));
}

export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/blob": {
        const b = new Blob(["héllo", new Uint8Array([1, 2]), "x"], { type: "Text/Plain" });
        out.size = b.size;
        out.type = b.type;
        out.tag = String(b);
        out.text = await b.text();
        out.bytes = Array.from(await b.bytes());
        out.ab = (await b.arrayBuffer()).byteLength;
        const s = b.slice(1, -2, "A/B");
        out.slice = [s.size, s.type, await s.text()];
        out.slice2 = [b.slice(-3).size, b.slice(10, 2).size, b.slice().type, b.slice(2).size];
        out.badtype = [new Blob([], { type: "a\u0001b" }).type, new Blob([], { type: "é" }).type];
        out.noarg = new Blob().size;
        out.coerced = await new Blob([12, null, undefined, {}]).text();
        out.ofBlobs = await new Blob([b, new Blob(["!"])]).text();
        out.err = [c(() => new Blob("abc")), c(() => new Blob([], 5)), c(() => Blob("x")), c(() => new Blob([], { endings: "native" }))];
        out.lengths = [Blob.length, File.length];
        out.stream = await ac(async () => {
          const rd = b.stream().getReader();
          const r = await rd.read();
          return [String(b.stream()), r.done, r.value.length];
        });
        out.json = [JSON.stringify(b), Object.keys(b)];
        return Response.json(out);
      }
      case "/file": {
        const f = new File(["abc"], "n.txt", { type: "text/x", lastModified: 42 });
        out.file = [f.name, f.size, f.type, f.lastModified, String(f), f instanceof Blob, Object.prototype.toString.call(f)];
        out.err = [c(() => new File(["a"])), c(() => new File()), c(() => File([], "x"))];
        out.lmType = typeof new File([], "x").lastModified;
        out.slice = String(f.slice(0, 1));
        out.text = await f.text();
        return Response.json(out);
      }
      case "/bodies": {
        const b = new Blob(["héllo"], { type: "Text/Plain" });
        const r = new Response(b);
        out.resp = [r.headers.get("content-type"), await r.text()];
        out.untyped = new Response(new Blob(["x"])).headers.get("content-type");
        const rb = await new Response("abc", { headers: { "content-type": "Foo/Bar" } }).blob();
        out.blob = [rb.type, rb.size, String(rb), await rb.text()];
        out.blob2 = (await new Response("abc").blob()).type;
        out.blob3 = (await new Response(new Uint8Array([1])).blob()).type;
        const rq = new Request("http://x/", { method: "POST", body: new File(["abc"], "n.txt", { type: "text/x" }) });
        out.req = [rq.headers.get("content-type"), await rq.text()];
        out.usp = new Response(new URLSearchParams("q=1&r=2")).headers.get("content-type");
        const used = new Response("x");
        await used.text();
        out.used = [await ac(() => used.blob()), await ac(() => used.formData())];
        return Response.json(out);
      }
      case "/formdata": {
        const fd = new FormData();
        fd.append("a", "1");
        fd.append("b", new Blob(["xy"], { type: "text/q" }));
        fd.append("a", "2");
        fd.append("c", new Blob(["z"]), "z.bin");
        const orig = new File(["f"], "orig.txt", { type: "t/t", lastModified: 5 });
        fd.append("d", orig, "renamed.txt");
        fd.append("o", orig);
        fd.append("e", 12);
        fd.append("x", "y", "ignored");
        out.get = [fd.get("a"), show(fd.get("b")), show(fd.get("c")), show(fd.get("d")), fd.get("d") === orig, fd.get("o") === orig, fd.get("nope"), fd.get("e"), fd.get("x")];
        out.getAll = [fd.getAll("a"), fd.getAll("zz"), fd.has("a"), fd.has("q")];
        fd.set("a", "3");
        out.afterSet = [...fd.keys()];
        fd.delete("b");
        out.afterDel = [...fd].map(([k, v]) => [k, show(v)]);
        out.values = [...fd.values()].map(show);
        out.tags = [String(fd.entries()), String(fd.keys()), String(fd.values()), String(fd), Object.prototype.toString.call(fd[Symbol.iterator]())];
        out.err = [c(() => fd.append("x")), c(() => fd.get()), c(() => FormData()), c(() => [...new FormData({})].length)];
        let n = 0;
        fd.forEach(function (v, k, p) {
          if (p === fd && this.t === 1) n++;
        }, { t: 1 });
        out.forEach = n;
        out.json = JSON.stringify(fd);
        return Response.json(out);
      }
      case "/serialize": {
        const fd = new FormData();
        fd.append("a", "3");
        fd.append("c", new Blob(["z"]), "z.bin");
        fd.append("d", new File(["f"], "q\"uo\nte.txt", { type: "t/t" }));
        fd.append("n\"l\nb\\s", "v\nx\r\ny\rz");
        const r = new Response(fd);
        const ct = r.headers.get("content-type");
        const bnd = ct.split("boundary=")[1];
        out.ct = ct.replace(/boundary=.*/, "boundary=X");
        out.boundary = [bnd.length, /^[-0-9A-Za-z]+$/.test(bnd)];
        out.body = (await r.text()).split(bnd).join("BND");
        const back = await ac(async () => [...(await new Request("http://x/", { method: "POST", body: fd }).formData())].map(([k, v]) => [k, show(v)]));
        out.back = back;
        const fd2 = new FormData();
        fd2.append("k", "v");
        fd2.append("f", new File([new Uint8Array([0, 255, 1])], "b.bin"));
        const got = await new Request("http://x/", { method: "POST", body: fd2 }).formData();
        out.roundtrip = [got.get("k"), show(got.get("f")), Array.from(await got.get("f").bytes()), typeof got.get("f").lastModified];
        out.backslash = await ac(() => new Response((() => { const f = new FormData(); f.append("a\\", "x"); return f; })()).text());
        return Response.json(out);
      }
      case "/parse": {
        out.mp = await mp(MP);
        out.quoted = await mp(MP.replaceAll("zz", "a b"), 'multipart/form-data; boundary="a b"');
        out.preamble = await mp("preamble\r\n" + MP);
        out.empty = await mp("--zz--");
        out.urlenc = await ac(async () => [...(await new Response("a=1&b=%20x+y&a=&c&%E2%82%AC=%FF", { headers: { "content-type": "application/x-www-form-urlencoded" } }).formData())]);
        out.urlencCharset = await ac(async () => [...(await new Response("a=1", { headers: { "content-type": "application/x-www-form-urlencoded; charset=UTF-8" } }).formData())]);
        out.urlencLatin1 = await ac(() => new Response("a=1", { headers: { "content-type": "application/x-www-form-urlencoded; charset=latin1" } }).formData());
        out.badct = await ac(() => new Response("x", { headers: { "content-type": "text/plain" } }).formData());
        out.noct = await ac(() => new Response("x").formData());
        out.garbage = await mp("garbage");
        out.nobnd = await mp("garbage", "multipart/form-data");
        out.truncated = await mp('--zz\r\nContent-Disposition: form-data; name="t"\r\n\r\nhello');
        out.nocd = await mp("--zz\r\nContent-Type: text/plain\r\n\r\nhello\r\n--zz--");
        out.notform = await mp('--zz\r\nContent-Disposition: attachment; name="t"\r\n\r\nhello\r\n--zz--');
        out.noname = await mp('--zz\r\nContent-Disposition: form-data; filename="t"\r\n\r\nhello\r\n--zz--');
        const req = new Request("http://x/", { method: "POST", body: MP, headers: { "content-type": "multipart/form-data; boundary=zz" } });
        const fd = await req.formData();
        out.request = [show(fd.get("f")), await fd.get("f").text(), req.bodyUsed];
        return Response.json(out);
      }
      case "/upload": {
        const fd = await request.formData();
        const res = [];
        for (const [k, v] of fd) res.push([k, show(v), typeof v === "string" ? v : await v.text()]);
        return Response.json(res);
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
