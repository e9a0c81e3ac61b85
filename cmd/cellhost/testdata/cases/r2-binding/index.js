// R2 binding: objects, metadata, ranges, conditions, checksums, list and
// multipart uploads, with deterministic fields only (versions and upload
// ids are reported by their shape, times by their type).
function err(e) { return { name: e.name, message: e.message }; }
async function attempt(f) { try { return { ok: await f() }; } catch (e) { return { error: err(e) }; } }
function obj(o) {
  if (o === null) return null;
  return {
    key: o.key, size: o.size, etag: o.etag, httpEtag: o.httpEtag, version: typeof o.version === "string" && o.version.length > 0,
    uploaded: o.uploaded instanceof Date, checksums: o.checksums.toJSON(), httpMetadata: o.httpMetadata,
    customMetadata: o.customMetadata, range: o.range, storageClass: o.storageClass, hasBody: "body" in o,
  };
}
const MiB = 1024 * 1024;

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const B = env.B;
    let out;
    switch (url.pathname) {
      case "/put": {
        out = {
          text: obj(await B.put("a/text", "hello world", { httpMetadata: { contentType: "text/plain", cacheControl: "max-age=60" }, customMetadata: { owner: "ann" } })),
          bytes: obj(await B.put("a/bytes", new Uint8Array([1, 2, 3]))),
          empty: obj(await B.put("b/empty", null)),
          stream: obj(await B.put("b/stream", new Response("streamed body").body)),
          sha1: obj(await B.put("c/sha1", "value", { sha1: "f32b67c7e26342af42efabc674d441dca0a281c5" })),
          sha256: obj(await B.put("c/sha256", "value", { sha256: "CD42404D52AD55CCFA9ACA4ADC828AA5800AD9D385A0671FBCBF724118320619" })),
          badMd5: await attempt(() => B.put("c/bad", "value", { md5: "00000000000000000000000000000000" })),
          badSha1: await attempt(() => B.put("c/bad", "value", { sha1: "0000000000000000000000000000000000000000" })),
          twoHashes: await attempt(() => B.put("c/bad", "value", { md5: "2063c1608d6e0baf80249c42e2be5804", sha1: "f32b67c7e26342af42efabc674d441dca0a281c5" })),
        };
        break;
      }
      case "/get": {
        const g = await B.get("a/text");
        const h = new Headers();
        g.writeHttpMetadata(h);
        out = {
          get: obj(g), text: await g.text(), headers: [...h],
          head: obj(await B.head("a/text")),
          missing: [await B.get("nope"), await B.head("nope")],
          offset: await (await B.get("a/text", { range: { offset: 6 } })).text(),
          length: await (await B.get("a/text", { range: { offset: 0, length: 5 } })).text(),
          suffix: await (await B.get("a/text", { range: { suffix: 3 } })).text(),
          header: await (await B.get("a/text", { range: new Headers({ range: "bytes=1-3" }) })).text(),
          rangeField: (await B.get("a/text", { range: { offset: 2, length: 2 } })).range,
          bytes: Array.from(new Uint8Array(await (await B.get("a/bytes")).arrayBuffer())),
          stream: await (await B.get("b/stream")).text(),
          checksums: [(await B.head("c/sha1")).checksums.toJSON(), (await B.get("c/sha256")).checksums.toJSON()],
        };
        break;
      }
      case "/conditional": {
        const etag = (await B.head("a/text")).etag;
        out = {
          getMatch: obj(await B.get("a/text", { onlyIf: { etagMatches: etag } })),
          getNoMatch: obj(await B.get("a/text", { onlyIf: { etagMatches: "nomatch" } })),
          getNotModified: obj(await B.get("a/text", { onlyIf: { etagDoesNotMatch: etag } })),
          getHeaders: obj(await B.get("a/text", { onlyIf: new Headers({ "if-match": '"' + etag + '"' }) })),
          putFail: await B.put("a/text", "other", { onlyIf: { etagMatches: "nomatch" } }),
          putNew: await B.put("new", "x", { onlyIf: { etagMatches: etag } }),
          putOk: obj(await B.put("a/text", "second", { onlyIf: { etagMatches: etag } })),
          now: await (await B.get("a/text")).text(),
        };
        break;
      }
      case "/list": {
        const all = await B.list();
        const page1 = await B.list({ limit: 2 });
        const page2 = await B.list({ limit: 2, cursor: page1.cursor });
        const delim = await B.list({ delimiter: "/" });
        const prefixed = await B.list({ prefix: "c/", include: ["httpMetadata", "customMetadata"] });
        out = {
          keys: all.objects.map((o) => o.key), truncated: all.truncated,
          first: obj(all.objects[0]),
          page1: [page1.objects.map((o) => o.key), page1.truncated, typeof page1.cursor],
          page2: [page2.objects.map((o) => o.key), page2.truncated],
          delim: [delim.objects.map((o) => o.key), delim.delimitedPrefixes],
          prefixed: prefixed.objects.map(obj),
          startAfter: (await B.list({ startAfter: "b/empty" })).objects.map((o) => o.key),
          noInclude: obj((await B.list({ prefix: "a/text" })).objects[0]),
          includeHttp: obj((await B.list({ prefix: "a/text", include: ["httpMetadata"] })).objects[0]),
          badLimit: await attempt(() => B.list({ limit: 0 })),
        };
        break;
      }
      case "/delete": {
        await B.delete("new");
        await B.delete(["b/empty", "b/stream", "never-there"]);
        out = (await B.list()).objects.map((o) => o.key);
        break;
      }
      case "/multipart": {
        const u = await B.createMultipartUpload("big", { httpMetadata: { contentType: "application/octet-stream" }, customMetadata: { parts: "3" } });
        const ids = [u.key, typeof u.uploadId, u.uploadId.length > 0];
        const p1 = await u.uploadPart(1, "1".repeat(5 * MiB));
        const p2 = await u.uploadPart(2, new Uint8Array(5 * MiB).fill(50));
        const p3 = await u.uploadPart(3, "3");
        const inProgress = await B.head("big");
        const done = await u.complete([p2, p3, p1].sort((a, b) => a.partNumber - b.partNumber));
        const g = await B.get("big", { range: { offset: 5 * MiB - 2, length: 4 } });
        const small = await B.createMultipartUpload("small");
        const s1 = await small.uploadPart(1, "a"), s2 = await small.uploadPart(2, "b");
        const resumed = B.resumeMultipartUpload("small", small.uploadId);
        const r1 = await resumed.uploadPart(1, "a".repeat(5 * MiB));
        out = {
          ids, parts: [p1.partNumber, typeof p1.etag, p2.partNumber, p3.partNumber],
          inProgress, done: obj(done), range: await g.text(), head: obj(await B.head("big")),
          tooSmall: await attempt(() => small.complete([s1, s2])),
          wrongEtag: await attempt(() => small.complete([{ partNumber: 1, etag: "nope" }, s2])),
          replacedPart: await attempt(() => small.complete([s1, s2])),
          resumedDone: obj(await resumed.complete([r1, s2])),
          completeAgain: await attempt(() => resumed.complete([r1, s2])),
          uploadAfter: await attempt(() => resumed.uploadPart(3, "x")),
          abortAfter: await attempt(() => resumed.abort()),
          unknownPart: await attempt(() => B.resumeMultipartUpload("small", "no-such-upload").uploadPart(1, "x")),
          unknownAbort: await attempt(() => B.resumeMultipartUpload("small", "no-such-upload").abort()),
        };
        const aborted = await B.createMultipartUpload("aborted");
        await aborted.uploadPart(1, "x");
        await aborted.abort();
        out.afterAbort = [await attempt(() => aborted.uploadPart(2, "y")), await attempt(() => aborted.abort()), await B.head("aborted")];
        break;
      }
      default:
        return new Response("not found", { status: 404 });
    }
    return Response.json(out);
  },
};
