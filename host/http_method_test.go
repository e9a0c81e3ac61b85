package host_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const methodJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) { return new Response("object " + request.method + " " + await request.text()); }
}
export class Plain {}
export default {
  async fetch(request) { return new Response("worker " + request.method + " " + await request.text()); },
};
`

// TestHTTP_CustomMethods: any token method reaches the worker and the
// object as sent, with its body, as on workerd (Echo alone answers 405).
func TestHTTP_CustomMethods(t *testing.T) {
	h := newHostB(t, methodJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	for _, tt := range []struct{ method, path, want string }{
		{"FOO", "/x", "worker FOO body"},
		{"PURGE", "/do/Counter/a", "object PURGE body"},
		{"MKCOL", "/do/Counter/a/sub", "object MKCOL body"},
		{"PUT", "/x", "worker PUT body"},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader("body"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != tt.want {
			t.Errorf("%s %s = %d %q, want 200 %q", tt.method, tt.path, resp.StatusCode, b, tt.want)
		}
	}
}

// TestHTTP_BodyLimit: a body over 100 MiB gets 413, whether its length is
// declared or it is chunked, and the host goes on serving.
func TestHTTP_BodyLimit(t *testing.T) {
	h := newHostB(t, methodJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	big := strings.Repeat("z", 100<<20+1)
	for name, body := range map[string]io.Reader{
		"declared": strings.NewReader(big),
		"chunked":  io.MultiReader(strings.NewReader(big)), // no length: chunked
	} {
		req, _ := http.NewRequest("POST", srv.URL+"/do/Counter/a", body)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "larger than 100 MiB") {
			t.Errorf("%s: %d %q, want 413", name, resp.StatusCode, b)
		}
	}
	req, _ := http.NewRequest("POST", srv.URL+"/x", strings.NewReader(big[:100<<20]))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(b) != len("worker POST ")+100<<20 {
		t.Fatalf("a 100 MiB body: %d, %d bytes", resp.StatusCode, len(b))
	}
}
