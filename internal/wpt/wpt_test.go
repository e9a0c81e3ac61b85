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

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// harnessVersion is the npm package wpt-runner whose testharness/ holds
// WPT's testharness.js; .ci/run and fetch-harness.sh install it.
const harnessVersion = "7.0.0"

// suites are the files run, by WPT directory: the .any.js files of
// workerd's src/wpt configs for these directories, read from a
// web-platform-tests checkout at $CELLHOST_WPT_ROOT (the repository does not
// carry WPT's files; testdata/README.md lists what is not run yet).
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

// externalSuites are read from $CELLHOST_WPT_WASM_ROOT when set (a
// directory holding wasm/jsapi: WebAssembly/spec's test/js-api, which WPT
// imports, moved there), else from the WPT checkout at $CELLHOST_WPT_ROOT. They are
// the stable (not .tentative, not memory64/gc/js-string/exception/JSPI)
// .any.js files of wasm/jsapi; workerd's src/wpt runs none of wasm/jsapi.
// These tests compile modules from bytes they build at run time, which
// workerd allows only with its allow_insecure_inefficient_logged_eval flag:
// the runner's bundle sets it (jsapi.WasmCompileAlways), for the test only.
var externalSuites = map[string][]string{
	"wasm/jsapi": {
		"constructor/compile.any.js", "constructor/instantiate-bad-imports.any.js", "constructor/instantiate.any.js",
		"constructor/multi-value.any.js", "constructor/toStringTag.any.js", "constructor/validate.any.js",
		"global/constructor.any.js", "global/toString.any.js", "global/value-get-set.any.js", "global/valueOf.any.js",
		"instance/constructor-bad-imports.any.js", "instance/constructor-caching.any.js", "instance/constructor.any.js",
		"instance/exports.any.js", "instance/toString.any.js", "interface.any.js", "limits.any.js", "prototypes.any.js",
		"memory/buffer.any.js", "memory/constructor.any.js", "memory/grow.any.js", "memory/toString.any.js",
		"module/constructor.any.js", "module/customSections.any.js", "module/exports.any.js", "module/imports.any.js",
		"module/toString.any.js",
		"table/constructor.any.js", "table/get-set.any.js", "table/grow.any.js", "table/length.any.js", "table/toString.any.js",
	},
}

// resources are files a test fetches (fetch("resources/x.json")), by path
// under the WPT root, read from the checkout with the suites.
var resources = []string{"url/resources/urltestdata.json", "url/resources/setters_tests.json"}

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
	root := os.Getenv("CELLHOST_WPT_ROOT")
	wasmRoot := os.Getenv("CELLHOST_WPT_WASM_ROOT")
	if wasmRoot == "" {
		wasmRoot = root
	}
	if root == "" && wasmRoot == "" {
		t.Skip("CELLHOST_WPT_ROOT is not set: no web-platform-tests checkout to run")
	}
	hp := harnessPath(t)
	harness, err := os.ReadFile(hp)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	rootOf := map[string]string{}
	skipped := map[string]bool{} // files not run (no root for them): their expectations stay
	add := func(suites map[string][]string, root string) {
		for dir, files := range suites {
			for _, f := range files {
				if root == "" {
					skipped[dir+"/"+f] = true
					continue
				}
				names = append(names, dir+"/"+f)
				rootOf[dir+"/"+f] = root
			}
		}
	}
	add(suites, root)
	add(externalSuites, wasmRoot)
	if root == "" {
		t.Log("dom, encoding and url not run: set CELLHOST_WPT_ROOT to a web-platform-tests checkout")
	}
	sort.Strings(names)
	if only := os.Getenv("CELLHOST_WPT_FILES"); only != "" {
		names = strings.Split(only, ",")
	}
	var files []File
	ran := names[:0:0]
	var missing []string
	for _, n := range names {
		if _, err := os.Stat(filepath.Join(rootOf[n], filepath.FromSlash(n))); os.IsNotExist(err) && rootOf[n] != "" {
			// An older or partial checkout: the file is not run and its
			// expectation lines are kept.
			missing = append(missing, n)
			skipped[n] = true
			continue
		}
		f, err := LoadFile(rootOf[n], n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
		ran = append(ran, n)
	}
	names = ran
	if len(missing) > 0 {
		t.Logf("%d listed files are not in the checkout (not run, their expectations kept): %s", len(missing), strings.Join(missing, ", "))
	}
	res := map[string]string{}
	for _, k := range resources {
		if root == "" {
			break
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(k)))
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
	// wasm/jsapi compiles bytes in its tests: workerd's flag for that.
	bundle, err := jsapi.BuildBundleWith(filepath.Join(dir, "index.js"), jsapi.BundleOptions{CompatibilityFlags: []string{"allow_insecure_inefficient_logged_eval"}})
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
		if _, ran := all[file]; !ran && !skipped[file] && os.Getenv("CELLHOST_WPT_FILES") == "" {
			t.Errorf("expectations.txt lists %s, which is not run", file)
		}
	}
	t.Logf("WPT: %d/%d subtests pass in %d files", pass, total, len(names))
	if os.Getenv("CELLHOST_WPT_WRITE") == "1" {
		if err := writeExpectations("expectations.txt", names, all, exp, skipped); err != nil {
			t.Fatal(err)
		}
	}
}

// runFile runs one test file on a fresh host (a fresh runtime).
func runFile(t *testing.T, b *jsapi.Bundle, name string) FileResult {
	t.Helper()
	h, err := host.New(host.Config{Bundle: b, Script: "wpt", Shards: 1, Bind: scriptRunner, Storage: host.Storage{StateDir: t.TempDir()}, Logging: host.Logging{Log: io.Discard}})
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

// scriptRunner gives runner.js __wpt_script(src): src run as a classic
// script in the global scope (goja's RunScript), as a browser runs a
// <script>: its top-level let, const and class declarations go to the
// global lexical scope, where the next script sees them. Indirect eval
// cannot do that (they stay in the eval), and goja also creates an eval's
// function declarations outside the eval's lexical scope, so a function
// of wasm-module-builder.js cannot see its own top-level lets.
func scriptRunner(rt *goja.Runtime, _ *goja.Object) error {
	return rt.GlobalObject().DefineDataProperty("__wpt_script", rt.ToValue(func(src string) {
		if _, err := rt.RunScript("wpt-script.js", src); err != nil {
			panic(err)
		}
	}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

func writeExpectations(p string, names []string, all map[string]FileResult, old map[string]map[string]Expectation, skipped map[string]bool) error {
	var b strings.Builder
	b.WriteString("# WPT subtests that do not pass on cellhost (internal/wpt, TestWPT): file<TAB>subtest<TAB>reason.\n")
	b.WriteString("# A failure not listed here fails the test, and so does a listed one that passes.\n")
	var kept []Expectation // the lines of files this run skipped
	for f := range skipped {
		for _, e := range old[f] {
			kept = append(kept, e)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Line < kept[j].Line })
	for _, e := range kept {
		fmt.Fprintf(&b, "%s\t%s\t%s\n", e.File, FormatSubtest(e.Subtest), e.Reason)
	}
	for _, n := range names {
		r := all[n]
		results := append([]Subtest(nil), r.Results...)
		if r.Harness.Status != StatusPass {
			results = append(results, Subtest{Name: "(harness)", Status: r.Harness.Status, Message: r.Harness.Message})
		}
		for _, s := range results {
			if s.Status == StatusPass {
				continue
			}
			reason := StatusName(s.Status) + ": " + oneLine(s.Message)
			if e, ok := old[n][s.Name]; ok {
				reason = e.Reason
			}
			fmt.Fprintf(&b, "%s\t%s\t%s\n", n, FormatSubtest(s.Name), reason)
		}
	}
	return os.WriteFile(p, []byte(b.String()), 0o644)
}
