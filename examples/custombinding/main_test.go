package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// The custom binary binds the third-party kind next to the standard ones:
// env.GREETER counts visits in its internal cell, which keeps them across
// a restart of the host (its database is in the state directory), and
// env.KV works as in cellhost.
func TestCustomBinding(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	get := func(name string) string {
		h, closeAll, err := open("project", state)
		if err != nil {
			t.Fatal(err)
		}
		defer closeAll()
		srv := httptest.NewServer(h.Handler())
		defer srv.Close()
		res, err := http.Get(srv.URL + "/?name=" + name)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET: %d %s", res.StatusCode, b)
		}
		return string(b)
	}
	for _, c := range []struct{ name, want string }{
		{"ann", "Hello, ann! (visit 1); last: ann"},
		{"ann", "Hello, ann! (visit 2); last: ann"},
		{"bob", "Hello, bob! (visit 1); last: bob"},
	} {
		if got := get(c.name); got != c.want {
			t.Errorf("GET ?name=%s = %q, want %q", c.name, got, c.want)
		}
	}
}

// A malformed entry of the new key is an error naming the file and entry.
func TestCustomBinding_BadConfig(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "index.js"), []byte("export default {fetch() { return new Response('') }}"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "wrangler.json"), []byte(`{"name": "x", "main": "index.js", "greetings": [{"binding": "G"}]}`), 0o644)
	_, _, err := open(dir, filepath.Join(dir, "state"))
	want := filepath.Join(dir, "wrangler.json") + `: greetings[0] needs both "binding" and "greeting"`
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
}
