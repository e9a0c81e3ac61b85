// Details real code meets in Intl (time zone parts as tz libraries read
// them, offsets, long compact and currency names, units, accounting,
// relative time styles) and in Blob, File and FormData (views, names,
// lastModified coercion, Content-Disposition parsing as workerd's).
import { DurableObject } from "cloudflare:workers";
function c(f) { try { return f(); } catch (e) { return { err: e.name, msg: e.message }; } }
async function ac(f) { try { return await f(); } catch (e) { return { err: e.name, msg: e.message }; } }
const d = new Date(Date.UTC(2024, 0, 5, 14, 3, 9, 7));
const mid = new Date(Date.UTC(2024, 2, 10, 5, 0, 0));
export class Obj extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    const out = {};
    switch (url.pathname) {
      case "/a": {
        out.r1 = [d.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" }), d.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", hour12: true }), Intl.DateTimeFormat().resolvedOptions().timeZone, d.toLocaleDateString("en-US", { timeZone: "America/New_York" })];
        out.r2 = [new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", minimumFractionDigits: 0 }).format(1234.567), (0.256).toLocaleString("en-US", { style: "percent", minimumFractionDigits: 1 }), new Intl.NumberFormat("en", { notation: "compact", compactDisplay: "long" }).format(1234), new Intl.NumberFormat("en", { notation: "compact", compactDisplay: "long" }).format(5600000), new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(1.005), new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", currencyDisplay: "name" }).format(2), new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", currencyDisplay: "name" }).format(1)];
        out.tzparts = [d, mid, new Date(Date.UTC(2024, 2, 10, 4, 0, 0))].map((x) => new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", hour12: false, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" }).formatToParts(x));
        out.tzname = new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", timeZoneName: "short" }).formatToParts(d).find((p) => p.type === "timeZoneName").value;
        out.offset = [new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Kolkata", timeZoneName: "shortOffset" }).format(d), new Intl.DateTimeFormat("en-US", { timeZone: "America/New_York", timeZoneName: "longOffset" }).format(d), new Intl.DateTimeFormat("en-US", { timeZone: "UTC", timeZoneName: "shortOffset" }).format(d)];
        out.midnight = [new Date(Date.UTC(2024, 0, 1, 0, 0)).toLocaleTimeString("en-US", { hour12: false }), new Intl.DateTimeFormat("en-US", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(new Date(Date.UTC(2024, 0, 1, 0, 5))), new Intl.DateTimeFormat("en-GB", { timeStyle: "short" }).format(new Date(Date.UTC(2024, 0, 1, 0, 5)))];
        out.lc = ["abc".localeCompare("ABC", undefined, { sensitivity: "accent" }), ["item10", "item9", "Item1"].sort((a, b) => a.localeCompare(b, "en", { numeric: true })), ["b", "a", "_", "-", "1", " "].sort((a, b) => a.localeCompare(b))];
        out.misc = [new Intl.NumberFormat("en-US", { style: "unit", unit: "kilometer-per-hour" }).format(50), new Intl.NumberFormat("en-US", { style: "unit", unit: "megabyte", maximumFractionDigits: 1 }).format(12.345), new Intl.NumberFormat("en-US", { style: "unit", unit: "percent" }).format(12), new Intl.NumberFormat("en-US", { style: "unit", unit: "hour", unitDisplay: "long" }).format(1), new Intl.NumberFormat("en-US", { style: "unit", unit: "day", unitDisplay: "narrow" }).format(3), new Intl.NumberFormat("en-US", { currency: "USD", style: "currency", currencySign: "accounting" }).format(-5), new Intl.NumberFormat("en-US", { signDisplay: "never" }).format(-5), new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(-0.001)];
        out.rtf = [new Intl.RelativeTimeFormat("en", { style: "short" }).format(-3, "month"), new Intl.RelativeTimeFormat("en", { style: "narrow" }).format(2, "hour"), new Intl.RelativeTimeFormat("en").format(-0, "day"), new Intl.RelativeTimeFormat("en").formatToParts ? "parts" : "none"];
        return Response.json(out);
      }
      case "/b": {
        out.views = await new Blob([new Int16Array([1, 2]), new DataView(new ArrayBuffer(1)), new ArrayBuffer(2)]).bytes().then((b) => Array.from(b));
        out.roundtrip = await ac(async () => { const b = await new Response(new Blob(["x"], { type: "a/b" })).blob(); return [b.type, b.size]; });
        out.reqBody = await ac(async () => Array.from(new Uint8Array(await new Request("http://x/", { method: "POST", body: new Blob(["hi"]) }).arrayBuffer())));
        out.fdHeaderCase = await ac(async () => { const fd = new FormData(); fd.append("a", "b"); const r = new Request("http://x/", { method: "PUT", body: fd, headers: { "Content-Type": "text/plain" } }); return r.headers.get("content-type"); });
        out.fileFromBlob = (() => { const f = new File([new Blob(["ab"], { type: "x/y" })], "n"); return [f.type, f.size]; })();
        out.fileName = [new File([], null).name, new File([], 12).name, new File([], "a/b").name];
        out.lastModifiedDate = (() => { const f = new File([], "x", { lastModified: "12" }); return [f.lastModified, typeof f.lastModified]; })();
        out.sliceBig = new Blob(["abcdef"]).slice(2, 100).size;
        out.sliceNeg = [new Blob(["abcdef"]).slice(-100, -2).size, new Blob(["abcdef"]).slice(1.7, 3.2).size, new Blob(["abcdef"]).slice("1", "3").size];
        out.typeSet = (() => { const b = new Blob([]); try { b.type = "x"; } catch {} return b.type; })();
        out.fdFromForm = c(() => [...new FormData(undefined)].length);
        out.fdIterProto = (() => { const it = new FormData().entries(); return [typeof it.next, typeof it[Symbol.iterator], it[Symbol.iterator]() === it]; })();
        out.fdSetFile = (() => { const fd = new FormData(); fd.set("f", new Blob(["z"]), "n.txt"); const f = fd.get("f"); return [f.name, f instanceof File]; })();
        out.getAllFiles = (() => { const fd = new FormData(); fd.append("f", new Blob(["1"])); fd.append("f", "s"); return fd.getAll("f").map((v) => typeof v); })();
        out.mpParseCD = await ac(async () => [...(await new Response('--b\r\ncontent-disposition: form-data; name=x; filename=y.txt\r\ncontent-type: Text/HTML\r\n\r\nz\r\n--b--', { headers: { "content-type": "multipart/form-data; boundary=b" } }).formData())].map(([k, v]) => [k, typeof v === "string" ? v : [v.name, v.type]]));
        out.mpParseStar = await ac(async () => [...(await new Response("--b\r\nContent-Disposition: form-data; name=\"x\"; filename*=UTF-8''%C3%A9.txt\r\n\r\nz\r\n--b--", { headers: { "content-type": "multipart/form-data; boundary=b" } }).formData())].map(([k, v]) => [k, typeof v === "string" ? v : [v.name, v.type]]));
        out.mpEmpty = await ac(async () => [...(await new Response("", { headers: { "content-type": "multipart/form-data; boundary=b" } }).formData())]);
        out.urlencEmpty = await ac(async () => [...(await new Response("", { headers: { "content-type": "application/x-www-form-urlencoded" } }).formData())]);
        out.ctCase = await ac(async () => [...(await new Response("a=1", { headers: { "content-type": "Application/X-WWW-Form-Urlencoded" } }).formData())]);
        return Response.json(out);
      }
    }
    return new Response("unknown", { status: 404 });
  }
}
export default { fetch(request, env) { return env.OBJ.get(env.OBJ.idFromName("a")).fetch(request); } };
