package workerdtests

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/bindings/binding"
	_ "github.com/cellhost/cellhost/bindings/standard"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wpt"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
)

// root is a workerd checkout's src/workerd/api (CELLHOST_WORKERD_API).
// workerd's test files are not copied into this repository (their code
// stays in workerd's; see docs/testing.md): without a checkout the suite
// skips, and TestRunnerSelfTest checks the runner on tests of our own.
func root(t *testing.T) string {
	p := os.Getenv("CELLHOST_WORKERD_API")
	if p == "" {
		t.Skip("workerd's tests are not here: set CELLHOST_WORKERD_API to a workerd checkout's src/workerd/api (docs/testing.md)")
	}
	if _, err := os.Stat(filepath.Join(p, "tests")); err != nil {
		t.Fatalf("CELLHOST_WORKERD_API=%s: %v", p, err)
	}
	return p
}

const expectationsHeader = "# workerd's own API and Node tests that do not pass on cellhost (internal/workerdtests, TestWorkerdTests):\n" +
	"# file<TAB>test export<TAB>reason. A failure not listed fails the test, and so does a listed one that passes.\n"

// listFiles returns the .wd-test files under root, relative to it
// ("tests/blob-test.wd-test", "node/tests/path-test.wd-test").
func listFiles(t *testing.T, r string) []string {
	var out []string
	for _, dir := range []string{"tests", "node/tests"} {
		m, err := filepath.Glob(filepath.Join(r, filepath.FromSlash(dir), "*.wd-test"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range m {
			out = append(out, dir+"/"+filepath.Base(p))
		}
	}
	sort.Strings(out)
	return out
}

// TestWorkerdTests runs workerd's own test files (src/workerd/api/tests
// and api/node/tests) the way `workerd test` runs them: every export with
// a test() method, in the module namespace's order, each as its own event,
// with the bindings of the .wd-test config mapped onto cellhost's (a file
// needing a binding kind cellhost lacks is reported and not run). Ratchet:
// expectations.txt; CELLHOST_WORKERD_WRITE=1 rewrites it;
// CELLHOST_WORKERD_FILES narrows the run (comma-separated).
func TestWorkerdTests(t *testing.T) {
	r := root(t)
	names := listFiles(t, r)
	narrowed := os.Getenv("CELLHOST_WORKERD_FILES") != ""
	if narrowed {
		names = strings.Split(os.Getenv("CELLHOST_WORKERD_FILES"), ",")
	}
	if len(names) == 0 {
		t.Fatalf("no .wd-test files under %s", r)
	}
	exp, err := wpt.ReadExpectations("expectations.txt")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]wpt.FileResult{}
	var ran []string
	var pass, total, skipped int
	var table strings.Builder
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(r, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseCapnp(string(src))
		var st *Suite
		if err == nil {
			st, err = ReadSuite(f, name)
		}
		if err != nil {
			// A config the reader does not understand is reported, not
			// fatal: the rest of the run goes on.
			t.Errorf("%s: reading the config: %v", name, err)
			continue
		}
		if st.Unsupported != "" {
			skipped++
			fmt.Fprintf(&table, "| %s | not run | %s |\n", name, st.Unsupported)
			if _, listed := exp[name]; listed {
				t.Errorf("expectations.txt lists %s, which is not run (%s)", name, st.Unsupported)
			}
			continue
		}
		start := time.Now()
		res := runSuite(t, filepath.Join(r, filepath.Dir(filepath.FromSlash(name))), st)
		if testing.Verbose() {
			t.Logf("%s: %d tests in %.1f s", name, len(res.Results), time.Since(start).Seconds())
		}
		all[name] = res
		ran = append(ran, name)
		p := 0
		for _, s := range res.Results {
			if s.Status == wpt.StatusPass {
				p++
			}
		}
		pass += p
		total += len(res.Results)
		fmt.Fprintf(&table, "| %s | %d / %d | %s |\n", name, p, len(res.Results), fileNote(res))
		for _, d := range wpt.Compare(name, res, exp[name]) {
			t.Error(d)
		}
	}
	for file := range exp {
		if _, ran := all[file]; !ran && !narrowed {
			t.Errorf("expectations.txt lists %s, which is not run", file)
		}
	}
	t.Logf("per file:\n%s", table.String())
	t.Logf("workerd tests: %d/%d test exports pass in %d files run; %d files not run (a binding or feature the runner cannot give)", pass, total, len(ran), skipped)
	if out := os.Getenv("CELLHOST_WORKERD_TABLE"); out != "" {
		doc := "| file | tests passed / run | note |\n|---|---|---|\n" + table.String() +
			fmt.Sprintf("\n**%d / %d** test exports pass in %d files run; %d files not run.\n", pass, total, len(ran), skipped)
		if err := os.WriteFile(out, []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Getenv("CELLHOST_WORKERD_WRITE") == "1" {
		old, err := os.ReadFile("expectations.txt")
		if err != nil {
			t.Fatal(err)
		}
		if err := wpt.WriteExpectations("expectations.txt", expectationsHeader, ran, all, exp); err != nil {
			t.Fatal(err)
		}
		if narrowed {
			// A narrowed run rewrites the lines of the files it ran and
			// keeps the others' as they were.
			if err := keepLines("expectations.txt", string(old), ran); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// testTimeout bounds one test (workerd's runner has none; a test that
// waits for something cellhost never does would otherwise hang the run);
// fileBudget bounds a file's tests together: a minute, and a second more
// for each test (node/tests/streams-test has 141), so that a few tests
// that time out do not leave the rest of a large file unrun.
const (
	testTimeout = 20 * time.Second
	fileBudget  = 60 * time.Second
	testBudget  = time.Second
)

// runSuite runs one config's tests on a fresh host. dir holds the config
// and its modules.
func runSuite(t *testing.T, dir string, st *Suite) wpt.FileResult {
	t.Helper()
	var res wpt.FileResult
	fail := func(msg string) wpt.FileResult {
		res.Harness.Status = wpt.StatusFail
		res.Harness.Message = msg
		return res
	}
	work := t.TempDir()
	proj := filepath.Join(work, "project")
	if err := os.MkdirAll(proj, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := map[string]string{}
	var rules []map[string]any
	for i, m := range st.Modules {
		b := []byte(m.Source)
		if m.Source == "" {
			var err error
			if b, err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(m.File))); err != nil {
				return fail("read module: " + err.Error())
			}
		}
		dst := filepath.Join(proj, filepath.FromSlash(m.File))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if i > 0 && m.Name != "" && !strings.HasPrefix(m.Name, ".") && m.Name != m.File {
			alias[m.Name] = "./" + m.File
		}
		switch m.Kind {
		case "text":
			rules = append(rules, map[string]any{"type": "Text", "globs": []string{m.File}})
		case "data":
			rules = append(rules, map[string]any{"type": "Data", "globs": []string{m.File}})
		}
	}
	entry, err := os.ReadFile("entry.js")
	if err != nil {
		t.Fatal(err)
	}
	entrySrc := strings.ReplaceAll(string(entry), "__WDTEST_MAIN__", "./"+st.Modules[0].File)
	if err := os.WriteFile(filepath.Join(proj, "__wdtest_entry.js"), []byte(entrySrc), 0o644); err != nil {
		t.Fatal(err)
	}
	wj, err := st.Wrangler("__wdtest_entry.js", func(file string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	})
	if err != nil {
		return fail(err.Error())
	}
	if len(alias) > 0 || len(rules) > 0 {
		var m map[string]any
		_ = json.Unmarshal(wj, &m)
		if len(alias) > 0 {
			m["alias"] = alias
		}
		if len(rules) > 0 {
			m["rules"] = rules
		}
		wj, _ = json.MarshalIndent(m, "", "  ")
	}
	wpath := filepath.Join(proj, "wrangler.json")
	if err := os.WriteFile(wpath, wj, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := wrangler.Load(wpath)
	if err != nil {
		return fail("config: " + err.Error())
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		return fail("load: " + oneLine(strings.ReplaceAll(err.Error(), proj+string(filepath.Separator), "")))
	}
	state := filepath.Join(work, "state")
	hc.StateDir = state
	hc.Shards = 1
	// The host's log (uncaught errors, timeouts) is kept so that a test
	// answered with a bare 500 is reported with what the log said.
	logs := &lockedBuffer{}
	hc.Log = logs
	if os.Getenv("CELLHOST_WORKERD_LOG") == "1" {
		hc.Log = io.MultiWriter(logs, os.Stderr)
	}
	hc.RequestTimeout = testTimeout
	hc.CPULimit = 10 * time.Second
	bres := binding.NewResources(state, nil, func() (plugins.ObjectStore, error) {
		return filestore.New(filepath.Join(work, "bucket"))
	})
	defer bres.Close()
	if err := project.BindPlugins(cfg, bres, &hc); err != nil {
		return fail("bindings: " + err.Error())
	}
	h, err := host.New(hc)
	if err != nil {
		return fail("host: " + err.Error())
	}
	if err := h.Open(); err != nil {
		return fail("open: " + oneLine(strings.ReplaceAll(err.Error(), proj+string(filepath.Separator), "")))
	}
	defer h.Close(context.Background())
	get := func(path string) (int, []byte) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", path, nil)
		req.Host = st.Service + ".test"
		h.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.Bytes()
	}
	code, body := get("/__wdtest/list")
	var tests []string
	if code != 200 || json.Unmarshal(body, &tests) != nil {
		return fail(fmt.Sprintf("listing the tests: HTTP %d: %s", code, oneLine(string(body))))
	}
	budget := fileBudget + time.Duration(len(tests))*testBudget
	deadline := time.Now().Add(budget)
	for _, name := range tests {
		if time.Now().After(deadline) {
			res.Results = append(res.Results, wpt.Subtest{Name: name, Status: wpt.StatusNotRun,
				Message: fmt.Sprintf("not run: the file's tests took longer than %s", budget)})
			continue
		}
		mark := logs.Len()
		code, body := get("/__wdtest/run?t=" + url.QueryEscape(name))
		if code != 200 {
			body = append(body, "; log: "+logs.Since(mark)...)
		}
		var out struct {
			OK      bool   `json:"ok"`
			Message string `json:"message"`
		}
		s := wpt.Subtest{Name: name}
		switch {
		case code != 200:
			s.Status, s.Message = wpt.StatusFail, fmt.Sprintf("HTTP %d: %s", code, body)
		case json.Unmarshal(body, &out) != nil:
			s.Status, s.Message = wpt.StatusFail, "bad answer: "+string(body)
		case out.OK:
			s.Status = wpt.StatusPass
		default:
			s.Status, s.Message = wpt.StatusFail, out.Message
		}
		s.Message = strings.ReplaceAll(s.Message, proj+string(filepath.Separator), "")
		res.Results = append(res.Results, s)
	}
	return res
}

// fileNote says why a file ran no test (it did not load).
func fileNote(r wpt.FileResult) string {
	if r.Harness.Status == wpt.StatusPass {
		return ""
	}
	s := oneLine(r.Harness.Message)
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return strings.ReplaceAll(s, "|", "\\|")
}

// lockedBuffer is the host's log: written on the shard's goroutines, read
// between tests.
type lockedBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	return len(p), nil
}

func (l *lockedBuffer) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.b)
}

// Since is what was written after mark, on one line, at most 600 bytes.
func (l *lockedBuffer) Since(mark int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.Join(strings.Fields(string(l.b[mark:])), " ")
	if len(s) > 600 {
		s = s[:600] + "..."
	}
	return s
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// keepLines adds to the expectations file at p the lines of old whose file
// is not in ran, and sorts the lines by file (the header stays first).
func keepLines(p, old string, ran []string) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, f := range ran {
		done[f] = true
	}
	var header, lines []string
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "#"):
			header = append(header, l)
		default:
			lines = append(lines, l)
		}
	}
	for _, l := range strings.Split(old, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if file, _, _ := strings.Cut(l, "\t"); !done[file] {
			lines = append(lines, l)
		}
	}
	sort.SliceStable(lines, func(i, j int) bool {
		fi, _, _ := strings.Cut(lines[i], "\t")
		fj, _, _ := strings.Cut(lines[j], "\t")
		return fi < fj
	})
	return os.WriteFile(p, []byte(strings.Join(append(header, lines...), "\n")+"\n"), 0o644)
}
