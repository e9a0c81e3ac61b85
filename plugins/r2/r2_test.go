package r2_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/r2"
)

// runWorker runs a worker whose fetch handler returns JSON, with env.B an
// R2 bucket "photos" of store, and returns the decoded answer.
func runWorker(t *testing.T, store plugins.ObjectStore, body string) map[string]any {
	t.Helper()
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	src := "export default { async fetch(req, env) { const B = env.B; const out = {};\n" + body +
		"\nreturn new Response(JSON.stringify(out)); } };\n"
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := jsapi.BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := r2.New(store, "photos")
	if err != nil {
		t.Fatal(err)
	}
	now := time.UnixMilli(1_700_000_000_000)
	bucket.Now = func() time.Time { now = now.Add(2 * time.Second); return now }
	h, err := host.New(host.Config{Bundle: b, Script: "r2test", StateDir: t.TempDir(), Shards: 2, Log: io.Discard,
		ErrorPage: func(w http.ResponseWriter, _ *http.Request, err error) { http.Error(w, err.Error(), 500) },
		Bind:      func(rt *goja.Runtime, env *goja.Object) error { return r2.Bind(rt, env, "B", bucket) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, raw)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return out
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestBucket_PutGetHead(t *testing.T) {
	dir := t.TempDir()
	store, err := filestore.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	out := runWorker(t, store, `
const put = await B.put("a/b.txt", "hello world", {
  httpMetadata: { contentType: "text/plain", cacheControl: "max-age=60", cacheExpiry: new Date(1800000000000) },
  customMetadata: { owner: "ann" } });
out.put = { key: put.key, size: put.size, etag: put.etag, httpEtag: put.httpEtag, v: put.version.length,
  up: put.uploaded instanceof Date, md5: put.checksums.toJSON().md5, http: put.httpMetadata, custom: put.customMetadata };
const g = await B.get("a/b.txt");
out.text = await g.text();
out.used = g.bodyUsed;
out.range = g.range;
out.sameVersion = g.version === put.version;
const h = new Headers(); g.writeHttpMetadata(h);
out.headers = [...h];
const hd = await B.head("a/b.txt");
out.head = { size: hd.size, hasBody: "body" in hd, range: hd.range, custom: hd.customMetadata };
out.missing = [await B.get("nope"), await B.head("nope")];
out.r1 = await (await B.get("a/b.txt", { range: { offset: 6 } })).text();
out.r2 = await (await B.get("a/b.txt", { range: { offset: 0, length: 5 } })).text();
out.r3 = await (await B.get("a/b.txt", { range: { suffix: 3 } })).text();
const r4 = await B.get("a/b.txt", { range: new Headers({ range: "bytes=1-3" }) });
out.r4 = [await r4.text(), r4.range];
out.json = await (await B.get("j", {}).then(() => B.put("j", new TextEncoder().encode('{"x":1}')).then(() => B.get("j")))).json();
const ab = await (await B.get("j")).arrayBuffer();
out.ab = ab instanceof ArrayBuffer && ab.byteLength;
// conditional get: failing onlyIf gives an R2Object without body
const c1 = await B.get("a/b.txt", { onlyIf: { etagMatches: "nomatch" } });
out.c1 = [c1 !== null, "text" in c1, c1.key];
const c2 = await B.get("a/b.txt", { onlyIf: { etagDoesNotMatch: put.etag } });
out.c2 = typeof c2.text;
const c3 = await B.get("a/b.txt", { onlyIf: { etagMatches: put.etag } });
out.c3 = await c3.text();
const c4 = await B.get("a/b.txt", { onlyIf: new Headers({ "if-match": put.httpEtag }) });
out.c4 = typeof c4.text;
const c5 = await B.get("a/b.txt", { onlyIf: { uploadedAfter: new Date(put.uploaded.getTime() + 5000) } });
out.c5 = typeof c5.text;
const c6 = await B.get("a/b.txt", { onlyIf: { uploadedBefore: new Date(put.uploaded.getTime() + 5000) } });
out.c6 = typeof c6.text;
// conditional put: failure returns null and leaves the object
out.p1 = await B.put("a/b.txt", "other", { onlyIf: { etagMatches: "nomatch" } });
out.p2 = (await B.put("a/b.txt", "second", { onlyIf: { etagMatches: put.etag } })).size;
out.p3 = await B.put("new", "x", { onlyIf: { etagMatches: "*" } });
out.p4 = await (await B.get("a/b.txt")).text();
try { await B.put("m", "abc", { md5: "00000000000000000000000000000000" }); } catch (e) { out.md5err = e.message; }
out.md5ok = (await B.put("m", "abc", { md5: "900150983cd24fb0d6963f7d28e17f72" })).etag;
out.emptyPut = (await B.put("empty", null)).size;
`)
	want := map[string]string{
		"put":     `{"custom":{"owner":"ann"},"etag":"5eb63bbbe01eeed093cb22bb8f5acdc3","http":{"cacheControl":"max-age=60","cacheExpiry":"2027-01-15T08:00:00.000Z","contentType":"text/plain"},"httpEtag":"\"5eb63bbbe01eeed093cb22bb8f5acdc3\"","key":"a/b.txt","md5":"5eb63bbbe01eeed093cb22bb8f5acdc3","size":11,"up":true,"v":32}`,
		"text":    `"hello world"`,
		"used":    `true`,
		"range":   `{"length":11,"offset":0}`,
		"headers": `[["cache-control","max-age=60"],["content-type","text/plain"],["expires","Fri, 15 Jan 2027 08:00:00 GMT"]]`,
		"head":    `{"custom":{"owner":"ann"},"hasBody":false,"size":11}`,
		"missing": `[null,null]`,
		"r1":      `"world"`, "r2": `"hello"`, "r3": `"rld"`, "r4": `["ell",{"length":3,"offset":1}]`,
		"json": `{"x":1}`, "ab": `7`,
		"c1": `[true,false,"a/b.txt"]`, "c2": `"undefined"`, "c3": `"hello world"`, "c4": `"function"`,
		"c5": `"undefined"`, "c6": `"function"`,
		"p1": `null`, "p2": `6`, "p3": `null`, "p4": `"second"`,
		"md5err": `"put: The Content-MD5 you specified did not match what we received. (10037)"`,
		"md5ok":  `"900150983cd24fb0d6963f7d28e17f72"`, "emptyPut": `0`,
		"sameVersion": `true`,
	}
	for k, w := range want {
		if got := js(out[k]); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	// The object lives at r2/<bucket>/<key> in the store, in the documented format.
	raw, _, err := store.Get(context.Background(), bucketkey.R2Key("photos", "a/b.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, body, err := r2.Decode(raw)
	if err != nil || string(body) != "second" || m.Custom != nil || m.Size != 6 {
		t.Errorf("stored %+v %q %v", m, body, err)
	}
}

func TestBucket_ListDelete(t *testing.T) {
	store, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	out := runWorker(t, store, `
for (const k of ["a", "b/1", "b/2", "b/3", "c/x/1", "c/y", "d"]) await B.put(k, k, { customMetadata: { k }, httpMetadata: { contentType: "t/" + k } });
const all = await B.list();
out.all = [all.objects.map((o) => o.key), all.truncated, all.cursor, all.delimitedPrefixes,
  all.objects[0].httpMetadata, all.objects[0].customMetadata];
const inc = await B.list({ prefix: "b/", include: ["customMetadata"] });
out.inc = [inc.objects.map((o) => o.key), inc.objects[0].customMetadata, inc.objects[0].httpMetadata];
const inc2 = await B.list({ prefix: "b/", include: ["httpMetadata", "customMetadata"], limit: 1 });
out.inc2 = [inc2.objects[0].httpMetadata, inc2.truncated, typeof inc2.cursor];
const d = await B.list({ delimiter: "/" });
out.delim = [d.objects.map((o) => o.key), d.delimitedPrefixes];
const d2 = await B.list({ prefix: "c/", delimiter: "/" });
out.delim2 = [d2.objects.map((o) => o.key), d2.delimitedPrefixes];
const pages = [];
let cursor;
for (;;) {
  const p = await B.list({ limit: 2, cursor, delimiter: "/" });
  pages.push([...p.objects.map((o) => o.key), ...p.delimitedPrefixes]);
  if (!p.truncated) break;
  cursor = p.cursor;
}
out.pages = pages;
out.startAfter = (await B.list({ startAfter: "b/2" })).objects.map((o) => o.key);
try { await B.list({ limit: 0 }); } catch (e) { out.limitErr = e.constructor.name; }
await B.delete("a");
await B.delete(["b/1", "b/2", "nope"]);
out.after = (await B.list()).objects.map((o) => o.key);
`)
	want := map[string]string{
		"all":        `[["a","b/1","b/2","b/3","c/x/1","c/y","d"],false,null,[],null,null]`,
		"inc":        `[["b/1","b/2","b/3"],{"k":"b/1"},null]`,
		"inc2":       `[{"contentType":"t/b/1"},true,"string"]`,
		"delim":      `[["a","d"],["b/","c/"]]`,
		"delim2":     `[["c/y"],["c/x/"]]`,
		"pages":      `[["a","b/"],["d","c/"]]`,
		"startAfter": `["b/3","c/x/1","c/y","d"]`,
		"limitErr":   `"RangeError"`,
		"after":      `["b/3","c/x/1","c/y","d"]`,
	}
	for k, w := range want {
		if got := js(out[k]); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := r2.Encode(r2.Meta{Version: "v", UploadedMs: 1, Custom: map[string]string{"a": "b"}}, []byte("body"))
	f.Add(good)
	f.Add([]byte("CHR2\x01\x00\x00\x00\x02{}"))
	f.Add([]byte("plain bytes"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, body, err := r2.Decode(b)
		if err != nil {
			if !strings.Contains(err.Error(), "not a stored R2 object") {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		again, err := r2.Encode(m, body)
		if err != nil {
			t.Fatal(err)
		}
		m2, body2, err := r2.Decode(again)
		if err != nil || string(body2) != string(body) || js(m2) != js(m) {
			t.Fatalf("round trip: %+v %q %v", m2, body2, err)
		}
	})
}
