package assets

import (
	"os"
	"path/filepath"
	"testing"
)

func TestAssets_HTMLHandling(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"index.html": "i", "about.html": "a", "docs/index.html": "d", "app.js": "j"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	type res struct{ file, redirect string }
	cases := map[string]map[string]res{
		"force-trailing-slash": {
			"/": {"/index.html", ""}, "/about": {"", "/about/"}, "/about/": {"/about.html", ""}, "/about.html": {"", "/about/"},
			"/docs": {"", "/docs/"}, "/docs/": {"/docs/index.html", ""}, "/docs/index.html": {"", "/docs/"}, "/app.js": {"/app.js", ""}, "/nope": {"", ""},
		},
		"drop-trailing-slash": {
			"/": {"/index.html", ""}, "/about": {"/about.html", ""}, "/about/": {"", "/about"}, "/about.html": {"", "/about"},
			"/docs": {"/docs/index.html", ""}, "/docs/": {"", "/docs"}, "/docs/index.html": {"", "/docs"}, "/app.js": {"/app.js", ""},
		},
		"auto-trailing-slash": {
			"/": {"/index.html", ""}, "/about": {"/about.html", ""}, "/about/": {"", "/about"}, "/about.html": {"", "/about"},
			"/docs": {"", "/docs/"}, "/docs/": {"/docs/index.html", ""}, "/index.html": {"", "/"},
		},
		"none": {"/about": {"", ""}, "/about.html": {"/about.html", ""}, "/app.js": {"/app.js", ""}},
	}
	for mode, paths := range cases {
		a := &Server{dir: dir, html: mode, notFound: "none"}
		for p, want := range paths {
			f, r := a.resolve(p)
			if f != want.file || r != want.redirect {
				t.Errorf("%s: resolve(%q) = %q, %q; want %q, %q", mode, p, f, r, want.file, want.redirect)
			}
		}
	}
}
