package main

import (
	"io"
	"net/http"
	"testing"
)

// Assets carry an ETag of their content and Cache-Control as wrangler's
// asset worker sends them; If-None-Match with the ETag (strong or weak)
// gets 304; an edit changes the ETag; a request with Authorization is not
// marked cacheable.
func TestDev_AssetsETag(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"wrangler.jsonc": `{"name": "a", "main": "index.js", "compatibility_date": "2026-01-01", "assets": {"directory": "public"}}`,
		"index.js":       `export default { fetch() { return new Response("worker"); } };`,
		"public/a.txt":   "hello",
	})
	d := startDevServer(t, dir, dir, func(o *devOptions) { o.noWatch = true })
	do := func(h map[string]string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest("GET", d.base+"/a.txt", nil)
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	resp, body := do(nil)
	tag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || body != "hello" || len(tag) != 34 || tag[0] != '"' {
		t.Fatalf("GET = %d %q ETag %q", resp.StatusCode, body, tag)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=0, must-revalidate" {
		t.Errorf("Cache-Control = %q", cc)
	}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		t.Errorf("Last-Modified = %q: wrangler sends none", lm)
	}
	for _, inm := range []string{tag, "W/" + tag} {
		resp, body = do(map[string]string{"If-None-Match": inm})
		if resp.StatusCode != 304 || body != "" || resp.Header.Get("ETag") != tag {
			t.Errorf("If-None-Match %s: %d %q ETag %q", inm, resp.StatusCode, body, resp.Header.Get("ETag"))
		}
	}
	if resp, _ = do(map[string]string{"If-None-Match": `"other"`}); resp.StatusCode != 200 {
		t.Errorf("If-None-Match other: %d", resp.StatusCode)
	}
	if resp, _ = do(map[string]string{"Authorization": "Bearer x"}); resp.Header.Get("Cache-Control") != "" {
		t.Errorf("with Authorization: Cache-Control %q", resp.Header.Get("Cache-Control"))
	}
	d.write("public/a.txt", "hello, edited")
	resp, body = do(map[string]string{"If-None-Match": tag})
	if resp.StatusCode != 200 || body != "hello, edited" || resp.Header.Get("ETag") == tag {
		t.Errorf("after an edit: %d %q ETag %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
}
