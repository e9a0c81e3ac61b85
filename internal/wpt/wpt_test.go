package wpt

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// harnessVersion is the npm package wpt-runner whose testharness/ holds
// WPT's testharness.js; .ci/run and fetch-harness.sh install it.
const harnessVersion = "7.0.0"

// suites are the files run, by WPT directory: the .any.js files of
// workerd's src/wpt configs for these directories that are vendored in
// testdata/wpt (testdata/README.md lists what is not, and why).
var suites = map[string][]string{
	"dom/abort": {"AbortSignal.any.js", "event.any.js"},
	"encoding": {"api-replacement-encodings.any.js", "textdecoder-eof.any.js", "textencoder-constructor-non-utf.any.js",
		"streams/decode-utf8.any.js", "streams/encode-utf8.any.js"},
	"dom/events": {"AddEventListenerOptions-once.any.js", "AddEventListenerOptions-signal.any.js", "EventTarget-add-remove-listener.any.js", "Event-constructors.any.js", "EventTarget-constructible.any.js",
		"EventTarget-removeEventListener.any.js"},
	"url": {"url-constructor.any.js", "url-origin.any.js", "url-setters.any.js", "url-statics-canparse.any.js",
		"url-tojson.any.js", "urlsearchparams-append.any.js", "urlsearchparams-delete.any.js",
		"urlsearchparams-get.any.js", "urlsearchparams-has.any.js", "urlsearchparams-set.any.js", "urlsearchparams-size.any.js",
		"urlsearchparams-sort.any.js"},
}

// resources are files a test fetches (fetch("resources/x.json")), by path
// under the WPT root; those shared with another package's WPT data are
// read from there.
var resources = map[string]string{
	"url/resources/urltestdata.json":   "../whatwgurl/testdata/urltestdata.json",
	"url/resources/setters_tests.json": "../whatwgurl/testdata/setters_tests.json",
}

// expectationsHeader opens expectations.txt.
const expectationsHeader = "# WPT subtests that do not pass on cellhost (internal/wpt, TestWPT): file<TAB>subtest<TAB>reason.\n" +
	"# A failure not listed here fails the test, and so does a listed one that passes.\n"

func harnessPath(t *testing.T) string {
	if p := os.Getenv("CELLHOST_WPT_HARNESS"); p != "" {
		return p
	}
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache", "cellhost", "wpt-runner-"+harnessVersion, "package", "testharness", "testharness.js")
	if _, err := os.Stat(p); err != nil {
		msg := "WPT's testharness.js is not installed: bash internal/wpt/fetch-harness.sh (npm pack wpt-runner@" + harnessVersion + ")"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return p
}

// TestWPT runs every listed file and compares each subtest with the
// ratchet file, expectations.txt: a failure not listed fails, and so does
// a listed one that passes. CELLHOST_WPT_WRITE=1 rewrites the file from
// this run (reasons kept for lines that stay). CELLHOST_WPT_FILES narrows
// the run (comma-separated).
func TestWPT(t *testing.T) {
	hp := harnessPath(t)
	harness, err := os.ReadFile(hp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for dir, files := range suites {
		for _, f := range files {
			names = append(names, dir+"/"+f)
		}
	}
	sort.Strings(names)
	if only := os.Getenv("CELLHOST_WPT_FILES"); only != "" {
		names = strings.Split(only, ",")
	}
	root := filepath.Join("testdata", "wpt")
	var files []File
	for _, n := range names {
		f, err := LoadFile(root, n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	res := map[string]string{}
	for k, p := range resources {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		res[k] = string(b)
	}
	data, err := DataModule(string(harness), files, res)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src, err := os.ReadFile("runner.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "index.js"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "data.js"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	bundle, err := jsapi.BuildBundle(filepath.Join(dir, "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := ReadExpectations("expectations.txt")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]FileResult{}
	var pass, total int
	for _, name := range names {
		r := runFile(t, bundle, name)
		all[name] = r
		for _, s := range r.Results {
			total++
			if s.Status == StatusPass {
				pass++
			}
		}
		p := 0
		for _, s := range r.Results {
			if s.Status == StatusPass {
				p++
			}
		}
		t.Logf("%s: %d/%d", name, p, len(r.Results))
		for _, d := range Compare(name, r, exp[name]) {
			t.Error(d)
		}
	}
	for file := range exp {
		if _, ran := all[file]; !ran && os.Getenv("CELLHOST_WPT_FILES") == "" {
			t.Errorf("expectations.txt lists %s, which is not run", file)
		}
	}
	t.Logf("WPT: %d/%d subtests pass in %d files", pass, total, len(names))
	if os.Getenv("CELLHOST_WPT_WRITE") == "1" {
		if err := WriteExpectations("expectations.txt", expectationsHeader, names, all, exp); err != nil {
			t.Fatal(err)
		}
	}
}

// runFile runs one test file on a fresh host (a fresh runtime).
func runFile(t *testing.T, b *jsapi.Bundle, name string) FileResult {
	t.Helper()
	h, err := host.New(host.Config{Bundle: b, Script: "wpt", StateDir: t.TempDir(), Shards: 1, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	rec := httptest.NewRecorder()
	h.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://wpt.test/?file="+name, nil))
	var r FileResult
	if rec.Code != 200 {
		r.Harness.Status = StatusFail
		r.Harness.Message = fmt.Sprintf("HTTP %d: %s", rec.Code, rec.Body.String())
		return r
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("%s: %v: %s", name, err, rec.Body.String())
	}
	return r
}
