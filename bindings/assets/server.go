// Package assets is the "assets" binding plugin: the static assets server
// of a project (served before the worker, as wrangler dev does) and the
// env.<binding> object whose fetch() serves them.
package assets

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Server serves the "assets" directory the way wrangler dev does:
// a request for a file gets it, before the worker (unless
// run_worker_first), with html_handling's rules for .html files and
// not_found_handling's answer when nothing matches.
type Server struct {
	dir      string
	notFound string // none, 404-page, single-page-application
	html     string // auto-trailing-slash, force-trailing-slash, drop-trailing-slash or none
	first    bool   // run_worker_first: the worker answers, env.ASSETS serves

	mu    sync.Mutex
	etags map[etagKey]string // by file, size and modification time
}

// NewServer returns the server of a configuration (nil for nil).
func NewServer(a *Config) *Server {
	if a == nil {
		return nil
	}
	return &Server{dir: a.Directory, notFound: a.NotFoundHandling, html: a.HTMLHandling, first: a.RunWorkerFirst}
}

// First reports run_worker_first: the worker answers every request, and
// env.ASSETS serves the assets.
func (a *Server) First() bool { return a.first }

// isFile reports whether the URL path p names a regular file of the
// directory.
func (a *Server) isFile(p string) bool {
	st, err := os.Stat(filepath.Join(a.dir, filepath.FromSlash(p)))
	return err == nil && st.Mode().IsRegular()
}

// resolve maps a clean URL path to the file to serve, or to a redirect.
func (a *Server) resolve(p string) (file, redirect string) {
	if a.html == "none" {
		if a.isFile(p) {
			return p, ""
		}
		return "", ""
	}
	switch a.html {
	case "force-trailing-slash":
		return a.resolveSlash(p, true)
	case "drop-trailing-slash":
		return a.resolveSlash(p, false)
	}
	switch {
	case strings.HasSuffix(p, "/index.html") && a.isFile(p):
		return "", strings.TrimSuffix(p, "index.html")
	case strings.HasSuffix(p, ".html") && a.isFile(p):
		return "", strings.TrimSuffix(p, ".html")
	case strings.HasSuffix(p, "/"):
		if a.isFile(p + "index.html") {
			return p + "index.html", ""
		}
		if p != "/" && a.isFile(strings.TrimSuffix(p, "/")+".html") {
			return "", strings.TrimSuffix(p, "/")
		}
	default:
		if a.isFile(p) {
			return p, ""
		}
		if a.isFile(p + ".html") {
			return p + ".html", ""
		}
		if a.isFile(p + "/index.html") {
			return "", p + "/"
		}
	}
	return "", ""
}

// resolveSlash is html_handling force-trailing-slash (slash true) or
// drop-trailing-slash: an HTML page has one URL, with or without the
// trailing slash, and the other forms redirect to it.
func (a *Server) resolveSlash(p string, slash bool) (file, redirect string) {
	if p == "/" || p == "/index.html" {
		if p == "/index.html" && a.isFile(p) {
			return "", "/"
		}
		if a.isFile("/index.html") {
			return "/index.html", ""
		}
		return "", ""
	}
	base := strings.TrimSuffix(p, "/")
	var page string // the HTML file behind base, if any
	switch {
	case strings.HasSuffix(base, "/index") && strings.HasSuffix(p, ".html"):
	case strings.HasSuffix(p, "/index.html") && a.isFile(p):
		base, page = strings.TrimSuffix(p, "/index.html"), p
	case strings.HasSuffix(p, ".html") && a.isFile(p):
		base, page = strings.TrimSuffix(p, ".html"), p
	case a.isFile(base + ".html"):
		page = base + ".html"
	case a.isFile(base + "/index.html"):
		page = base + "/index.html"
	}
	if page == "" {
		if a.isFile(p) {
			return p, ""
		}
		return "", ""
	}
	want := base
	if slash {
		want += "/"
	}
	if p != want {
		return "", want
	}
	return page, ""
}

// Serve answers r from the assets and reports true, or writes nothing and
// reports false when no asset answers it. As on Cloudflare, where a worker
// script exists (always, here) not_found_handling applies to
// env.ASSETS.fetch (binding true) and, for single-page-application, to
// browser navigations (Sec-Fetch-Mode: navigate); other misses go to the
// worker.
//
// As workerd's asset server: a redirect has no body; env.ASSETS.fetch
// follows html_handling's redirects itself and answers with the page; any
// method but GET and HEAD on an asset is 405 Method Not Allowed.
func (a *Server) Serve(w http.ResponseWriter, r *http.Request, binding bool) bool {
	p := r.URL.Path
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	clean := path.Clean(p)
	if strings.HasSuffix(p, "/") && clean != "/" {
		clean += "/"
	}
	file, redirect := a.resolve(clean)
	for i := 0; binding && redirect != "" && i < 3; i++ {
		file, redirect = a.resolve(redirect)
	}
	if (file != "" || redirect != "") && r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return true
	}
	switch {
	case redirect != "":
		u := url.URL{Path: redirect, RawQuery: r.URL.RawQuery}
		w.Header().Set("Location", u.String())
		w.WriteHeader(http.StatusTemporaryRedirect)
		return true
	case file != "":
		return a.serveFile(w, r, file, http.StatusOK)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	if !binding && !(a.notFound == "single-page-application" && r.Header.Get("Sec-Fetch-Mode") == "navigate") {
		return false
	}
	switch a.notFound {
	case "single-page-application":
		if a.isFile("/index.html") {
			return a.serveFile(w, r, "/index.html", http.StatusOK)
		}
	case "404-page":
		for dir := path.Dir(clean); ; dir = path.Dir(dir) {
			if f := path.Join(dir, "404.html"); a.isFile(f) {
				return a.serveFile(w, r, f, http.StatusNotFound)
			}
			if dir == "/" || dir == "." {
				break
			}
		}
	}
	return false
}

func (a *Server) serveFile(w http.ResponseWriter, r *http.Request, file string, status int) bool {
	f, err := os.Open(filepath.Join(a.dir, filepath.FromSlash(file)))
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return false
	}
	// As wrangler's asset worker (workers-shared getAssetHeaders): an ETag
	// of the content, Cache-Control when the request may be cached, and
	// 304 to an If-None-Match that names the ETag (strong or weak).
	tag, err := a.etag(f, st)
	if err != nil {
		return false
	}
	h := w.Header()
	h.Set("ETag", tag)
	if r.Header.Get("Authorization") == "" && r.Header.Get("Range") == "" {
		h.Set("Cache-Control", "public, max-age=0, must-revalidate")
	}
	if status != http.StatusOK {
		h.Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		if r.Method != http.MethodHead {
			_, _ = f.WriteTo(w)
		}
		return true
	}
	if inm := r.Header.Get("If-None-Match"); inm == tag || inm == "W/"+tag {
		w.WriteHeader(http.StatusNotModified)
		return true
	}
	// No Last-Modified (wrangler sends none): a zero modtime.
	http.ServeContent(w, r, file, time.Time{}, f)
	return true
}

type etagKey struct {
	path string
	size int64
	mod  time.Time
}

// etag is the quoted ETag of the open file f: the first 32 hex digits of
// its content's SHA-256 (wrangler hashes the content too, with BLAKE3),
// remembered while the file's size and modification time stay.
func (a *Server) etag(f *os.File, st os.FileInfo) (string, error) {
	k := etagKey{f.Name(), st.Size(), st.ModTime()}
	a.mu.Lock()
	tag, ok := a.etags[k]
	a.mu.Unlock()
	if ok {
		return tag, nil
	}
	hash := sha256.New()
	if _, err := io.Copy(hash, f); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	tag = `"` + hex.EncodeToString(hash.Sum(nil))[:32] + `"`
	a.mu.Lock()
	if a.etags == nil || len(a.etags) > 4096 {
		a.etags = map[etagKey]string{}
	}
	a.etags[k] = tag
	a.mu.Unlock()
	return tag, nil
}
