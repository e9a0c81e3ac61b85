// Package test262 runs tc39/test262 tests the way cellhost runs a worker's
// code: through esbuild (the bundle options and syntax lowering of
// jsapi.BuildBundleWith) into a goja runtime set up as a shard's (Web
// globals, the core-js polyfills, the call stack limit).
//
// Workers are ES modules, so workerd runs them as strict code: tests run in
// strict mode (test262's "onlyStrict" mode; "noStrict" tests are skipped as
// code a worker cannot contain), "raw" tests as written, and "module" tests
// are bundled with esbuild as a worker's entry module is. A script that
// expects no error runs as written when goja parses it (compileDirect),
// through esbuild's transform otherwise.
package test262

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/goccy/go-yaml"

	"github.com/cellhost/cellhost/jsapi"
)

// Outcome of one test.
type Outcome string

const (
	Pass Outcome = "pass"
	Fail Outcome = "fail"
	Skip Outcome = "skip"
)

// Result is one test's outcome; Reason says why it failed or was skipped.
type Result struct {
	Path    string // relative to the checkout's test/ directory
	Outcome Outcome
	Reason  string
}

// meta is a test's frontmatter.
type meta struct {
	Includes []string `yaml:"includes"`
	Flags    []string `yaml:"flags"`
	Features []string `yaml:"features"`
	Negative *struct {
		Phase string `yaml:"phase"`
		Type  string `yaml:"type"`
	} `yaml:"negative"`
}

func (m *meta) feature(f string) bool {
	for _, x := range m.Features {
		if x == f {
			return true
		}
	}
	return false
}

func (m *meta) flag(f string) bool {
	for _, x := range m.Flags {
		if x == f {
			return true
		}
	}
	return false
}

// skippedFeatures are test262 features a worker cannot meet in workerd
// either, each with the reason printed in the results: features the V8 of
// the workerd cellhost targets does not ship (probed by probe-workerd.sh,
// recorded in testdata/workerd-features.tsv and held to it by
// TestSkippedFeaturesMatchWorkerd), proposals' syntax no V8 release parses
// (not probed: a worker using it does not load), and host hooks workerd
// does not give scripts. A feature workerd ships and goja lacks is not
// here: its tests run and count as failures (SharedArrayBuffer, Atomics,
// upsert, Iterator.zip/concat, Intl.Locale info, ...).
var skippedFeatures = map[string]string{
	"tail-call-optimization":             "V8 does not implement proper tail calls",
	"decorators":                         notInV8Syntax,
	"import-defer":                       notInV8Syntax,
	"export-defer":                       notInV8Syntax,
	"import-text":                        notInV8Syntax,
	"import-bytes":                       notInV8Syntax,
	"source-phase-imports":               notInV8Syntax,
	"source-phase-imports-module-source": notInV8Syntax,
	"IsHTMLDDA":                          "browser-only host hook",
	"cross-realm":                        "needs $262.createRealm (no realms in a worker)",
	"host-gc-required":                   "needs a host GC hook",
	"canonical-tz":                       "Temporal time zones (no Temporal in workerd)",
	"ShadowRealm":                        notInWorkerd,
	"Temporal":                           notInWorkerd,
	"iterator-chunking":                  notInWorkerd,
	"await-dictionary":                   notInWorkerd,
	"immutable-arraybuffer":              notInWorkerd,
	"error-stack-accessor":               notInWorkerd + "; V8 keeps stack an own accessor of each error",
	"nonextensible-applies-to-private":   notInWorkerd,
	"legacy-regexp":                      notInWorkerd + "; V8 keeps the statics without the proposal's checks",
}

const (
	notInWorkerd  = "not shipped by workerd's V8 (testdata/workerd-features.tsv)"
	notInV8Syntax = "a proposal's syntax no V8 release parses"
	// needsAgent is a test that starts $262.agent workers (threads sharing
	// memory): a worker has no threads to start.
	needsAgent = "$262.agent: needs threads sharing memory (a worker has none)"
)

var frontmatter = regexp.MustCompile(`(?s)/\*---(.*?)---\*/`)

// Runner runs tests from a test262 checkout. Safe for concurrent use.
type Runner struct {
	Root string // the checkout (holds harness/ and test/)
	// Tests is where the test files are, when not Root's test/ (cellhost's
	// own cases, run with the checkout's harness).
	Tests string
	// Timeout interrupts one test's JavaScript (a runaway loop).
	Timeout time.Duration
	// Bundle are the options every test is built with.
	Bundle jsapi.BundleOptions

	mu      sync.Mutex
	harness map[string]string // file name → source
}

func (r *Runner) harnessFile(name string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.harness[name]; ok {
		return s, nil
	}
	b, err := os.ReadFile(filepath.Join(r.Root, "harness", name))
	if err != nil {
		return "", err
	}
	if r.harness == nil {
		r.harness = map[string]string{}
	}
	r.harness[name] = string(b)
	return string(b), nil
}

func (r *Runner) testDir() string {
	if r.Tests != "" {
		return r.Tests
	}
	return filepath.Join(r.Root, "test")
}

// Run runs the test at rel (relative to test/, or to Tests). A Go panic
// out of the engine (a goja bug: one test must not end a full run) is the
// test's failure, named as such.
func (r *Runner) Run(rel string) (res Result) {
	res = Result{Path: rel}
	defer func() {
		if p := recover(); p != nil {
			res.Outcome, res.Reason = Fail, oneLine(fmt.Sprint("Go panic in the engine: ", p))
		}
	}()
	src, err := os.ReadFile(filepath.Join(r.testDir(), rel))
	if err != nil {
		res.Outcome, res.Reason = Fail, err.Error()
		return res
	}
	var m meta
	if fm := frontmatter.FindSubmatch(src); fm != nil {
		if err := yaml.Unmarshal(fm[1], &m); err != nil {
			res.Outcome, res.Reason = Fail, "frontmatter: "+err.Error()
			return res
		}
	}
	for _, f := range m.Features {
		if why, ok := skippedFeatures[f]; ok {
			res.Outcome, res.Reason = Skip, f+": "+why
			return res
		}
	}
	if m.flag("noStrict") {
		res.Outcome, res.Reason = Skip, "noStrict: sloppy-mode only, and a worker's modules are strict"
		return res
	}
	if m.flag("CanBlockIsTrue") {
		res.Outcome, res.Reason = Skip, "CanBlockIsTrue: needs agents"
		return res
	}
	if bytes.Contains(src, []byte("$262.agent")) {
		res.Outcome, res.Reason = Skip, needsAgent
		return res
	}
	err = r.exec(rel, string(src), &m)
	want := ""
	if m.Negative != nil {
		want = m.Negative.Type
	}
	got := errorName(err)
	switch {
	case want == "" && err == nil:
		res.Outcome = Pass
	case want == "":
		res.Outcome, res.Reason = Fail, oneLine(err.Error())
	case got == want:
		res.Outcome = Pass
	case err == nil:
		res.Outcome, res.Reason = Fail, "expected "+want+" ("+m.Negative.Phase+"), got no error"
	default:
		res.Outcome, res.Reason = Fail, "expected "+want+" ("+m.Negative.Phase+"), got "+oneLine(err.Error())
	}
	return res
}

// jsError is an exception thrown by the test, by name.
type jsError struct{ name, msg string }

func (e *jsError) Error() string { return e.name + ": " + e.msg }

// buildError is esbuild refusing the source: a SyntaxError at load, as a
// worker whose bundle does not build never starts.
type buildError struct{ err error }

func (e *buildError) Error() string { return "SyntaxError (esbuild): " + e.err.Error() }

func errorName(err error) string {
	var je *jsError
	var be *buildError
	switch {
	case errors.As(err, &je):
		return je.name
	case errors.As(err, &be):
		return "SyntaxError"
	}
	return ""
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func (r *Runner) exec(rel, src string, m *meta) (err error) {
	includes := []string{"assert.js", "sta.js"}
	async := m.flag("async")
	if async {
		includes = append(includes, "doneprintHandle.js")
	}
	includes = append(includes, m.Includes...)
	if m.flag("raw") {
		includes = nil
	}
	var prelude strings.Builder
	for _, inc := range includes {
		s, err := r.harnessFile(inc)
		if err != nil {
			return err
		}
		prelude.WriteString(s)
		prelude.WriteByte('\n')
	}

	rt := goja.New()
	rt.SetMaxCallStackSize(8192)
	if err := jsapi.InstallWeb(rt, jsapi.WebOptions{Console: io.Discard}); err != nil {
		return err
	}
	var printed bytes.Buffer
	install262(rt, &printed)
	timer := time.AfterFunc(r.Timeout, func() { rt.Interrupt("timeout") })
	defer timer.Stop()

	run := func(p *goja.Program) error {
		_, err := rt.RunProgram(p)
		return toJSError(rt, err)
	}
	if !r.Bundle.NoPolyfills {
		if err := run(jsapi.Polyfills()); err != nil {
			return fmt.Errorf("polyfills: %w", err)
		}
	}
	// A script that imports (import()) is bundled as a module is: a
	// worker's import() reaches only what its bundle holds (esbuild's
	// transform of a lone script would leave require(), which workers lack).
	if m.flag("module") || m.feature("dynamic-import") {
		if prelude.Len() > 0 {
			p, err := r.compileScript(rel+".harness.js", prelude.String(), false)
			if err != nil {
				return err
			}
			if err := run(p); err != nil {
				return err
			}
		}
		bo := r.Bundle
		bo.NoPolyfills = true // already ran
		b, err := jsapi.BuildBundleWith(filepath.Join(r.testDir(), rel), bo)
		if err != nil {
			return &buildError{err}
		}
		if err := run(b.Program); err != nil {
			return err
		}
	} else {
		strict := !m.flag("raw")
		code := prelude.String() + src
		if strict {
			code = "\"use strict\";\n" + code
		}
		var p *goja.Program
		var err error
		if m.Negative == nil {
			p, err = r.compileDirect(rel, code, strict)
		}
		if p == nil {
			if p, err = r.compileScript(rel, code, strict); err != nil {
				return err
			}
		}
		if err := run(p); err != nil {
			return err
		}
	}
	if async {
		out := printed.String()
		switch {
		case strings.Contains(out, "Test262:AsyncTestComplete"):
		case strings.Contains(out, "Test262:AsyncTestFailure:"):
			msg := out[strings.Index(out, "Test262:AsyncTestFailure:")+len("Test262:AsyncTestFailure:"):]
			name, rest, _ := strings.Cut(strings.TrimSpace(msg), ":")
			return &jsError{name: name, msg: strings.TrimSpace(rest)}
		default:
			return errors.New("async test did not call $DONE")
		}
	}
	return nil
}

// compileDirect compiles a script as written, without esbuild: nil if
// goja cannot parse it (syntax the bundler lowers, such as async
// generators), for compileScript to transform it. A script that needs no
// lowering runs as the test wrote it because esbuild's transform of such a
// script changes only its text (comments, spacing, keep-names wrappers):
// tests of Function.prototype.toString would measure the bundler, which
// rewrites a worker's source under wrangler and workerd too, not the
// engine (docs/testing.md, test262 in full: "Scripts and the bundler"). Negative tests
// still go through esbuild, whose early errors a worker's build meets, and
// module tests are bundled as a worker's entry module is.
func (r *Runner) compileDirect(name, code string, strict bool) (*goja.Program, error) {
	p, err := goja.Compile(name, code, strict)
	if err != nil {
		return nil, err
	}
	return p, nil
}

func (r *Runner) compileScript(name, code string, strict bool) (*goja.Program, error) {
	out, err := jsapi.TransformScript(name, code, r.Bundle)
	if err != nil {
		return nil, &buildError{err}
	}
	p, err := goja.Compile(name, out, strict)
	if err != nil {
		var se *goja.CompilerSyntaxError
		if errors.As(err, &se) {
			return nil, &jsError{name: "SyntaxError", msg: se.Error()}
		}
		return nil, &jsError{name: "SyntaxError", msg: err.Error()}
	}
	return p, nil
}

// toJSError names a JS exception by its constructor, as test262's negative
// runtime tests expect.
func toJSError(rt *goja.Runtime, err error) error {
	if err == nil {
		return nil
	}
	var ex *goja.Exception
	if !errors.As(err, &ex) {
		return err
	}
	v := ex.Value()
	name, msg := "", v.String()
	if o, ok := v.(*goja.Object); ok {
		if c, ok := o.Get("constructor").(*goja.Object); ok && c != nil {
			if n := c.Get("name"); n != nil {
				name = n.String()
			}
		}
		if mv := o.Get("message"); mv != nil {
			msg = mv.String()
		}
	}
	return &jsError{name: name, msg: msg}
}

// install262 defines print and the $262 host object test262 expects.
func install262(rt *goja.Runtime, printed *bytes.Buffer) {
	_ = rt.Set("print", func(call goja.FunctionCall) goja.Value {
		for _, a := range call.Arguments {
			printed.WriteString(a.String())
		}
		printed.WriteByte('\n')
		return goja.Undefined()
	})
	o := rt.NewObject()
	_ = o.Set("global", rt.GlobalObject())
	_ = o.Set("gc", func() {})
	_ = o.Set("detachArrayBuffer", func(call goja.FunctionCall) goja.Value {
		ab, ok := call.Argument(0).Export().(goja.ArrayBuffer)
		if !ok {
			panic(rt.NewTypeError("not an ArrayBuffer"))
		}
		ab.Detach()
		return goja.Null()
	})
	_ = o.Set("evalScript", func(src string) goja.Value {
		v, err := rt.RunString(src)
		if err != nil {
			var ex *goja.Exception
			if errors.As(err, &ex) {
				panic(ex)
			}
			panic(rt.NewGoError(err))
		}
		return v
	})
	_ = o.Set("createRealm", func() { panic(rt.NewTypeError("$262.createRealm: no realms in cellhost")) })
	_ = rt.Set("$262", o)
}

// List returns the test files under dirs (relative to test/), sorted,
// without fixtures; with every > 1, only every every-th file of a directory
// that has more than 500 (a deterministic sample).
func List(root string, dirs []string, every int) ([]string, error) {
	var out []string
	for _, d := range dirs {
		var files []string
		base := filepath.Join(root, "test")
		err := filepath.WalkDir(filepath.Join(base, d), func(p string, e os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() || !strings.HasSuffix(p, ".js") || strings.Contains(p, "_FIXTURE") {
				return nil
			}
			rel, _ := filepath.Rel(base, p)
			files = append(files, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			return nil, err
		}
		for i, f := range files {
			if every <= 1 || len(files) <= 500 || i%every == 0 {
				out = append(out, f)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// Area is the directory a result is counted under: three path elements
// under language/ ("language/statements/class"), two elsewhere
// ("built-ins/Array").
func Area(path string) string {
	depth := 2
	if strings.HasPrefix(path, "language/") {
		depth = 3
	}
	parts := strings.Split(path, "/")
	if len(parts) > depth {
		parts = parts[:depth]
	}
	if strings.HasSuffix(parts[len(parts)-1], ".js") { // a file straight in the area's parent
		parts = parts[:len(parts)-1]
	}
	return strings.Join(parts, "/")
}

// Summary counts results per area.
type Summary struct {
	Areas map[string]*Count
}

// Count is one area's tally.
type Count struct{ Pass, Fail, Skip int }

// Rate is the pass rate over the tests that ran.
func (c Count) Rate() float64 {
	if c.Pass+c.Fail == 0 {
		return 0
	}
	return 100 * float64(c.Pass) / float64(c.Pass+c.Fail)
}

// Summarize tallies results per area.
func Summarize(results []Result) Summary {
	s := Summary{Areas: map[string]*Count{}}
	for _, r := range results {
		a := Area(r.Path)
		c := s.Areas[a]
		if c == nil {
			c = &Count{}
			s.Areas[a] = c
		}
		switch r.Outcome {
		case Pass:
			c.Pass++
		case Fail:
			c.Fail++
		default:
			c.Skip++
		}
	}
	return s
}

// FullDirs are the directories of a full run (CELLHOST_TEST262_DIRS=all):
// everything under test/ but staging/ (proposals not yet in the
// specification, most of them in no V8 release either).
var FullDirs = []string{"annexB", "built-ins", "intl402", "language"}

// TopTable is passed / failed / skipped per top-level directory
// (built-ins, language, ...), as the README shows them.
func TopTable(results []Result) string {
	top := map[string]*Count{}
	var tot Count
	for _, r := range results {
		d, _, _ := strings.Cut(r.Path, "/")
		c := top[d]
		if c == nil {
			c = &Count{}
			top[d] = c
		}
		for _, x := range []*Count{c, &tot} {
			switch r.Outcome {
			case Pass:
				x.Pass++
			case Fail:
				x.Fail++
			default:
				x.Skip++
			}
		}
	}
	names := make([]string, 0, len(top))
	for d := range top {
		names = append(names, d)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("| directory | passed | failed | skipped | pass rate (of run) |\n|---|---:|---:|---:|---:|\n")
	for _, d := range names {
		c := top[d]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f%% |\n", d, c.Pass, c.Fail, c.Skip, c.Rate())
	}
	fmt.Fprintf(&b, "| **total** | %d | %d | %d | %.1f%% |\n", tot.Pass, tot.Fail, tot.Skip, tot.Rate())
	return b.String()
}

// SkipTable counts the skipped tests by reason (the feature, or the flag),
// so that what is not run is counted, not hidden.
func SkipTable(results []Result) string {
	by := map[string]int{}
	for _, r := range results {
		if r.Outcome == Skip {
			by[r.Reason]++
		}
	}
	reasons := make([]string, 0, len(by))
	for k := range by {
		reasons = append(reasons, k)
	}
	sort.Slice(reasons, func(i, j int) bool {
		if by[reasons[i]] != by[reasons[j]] {
			return by[reasons[i]] > by[reasons[j]]
		}
		return reasons[i] < reasons[j]
	})
	var b strings.Builder
	b.WriteString("| reason | tests |\n|---|---:|\n")
	for _, k := range reasons {
		fmt.Fprintf(&b, "| %s | %d |\n", k, by[k])
	}
	return b.String()
}

// ResultsFile is one line per test that did not pass, "fail" or "skip",
// its path and its reason (cut to 200 bytes), sorted by path: the file a
// full run leaves in the repository, so that a later run's diff shows what
// changed.
func ResultsFile(results []Result, commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# test262 %s: every test that did not pass (tests not listed passed)\n", commit)
	for _, r := range results {
		if r.Outcome == Pass {
			continue
		}
		reason := r.Reason
		if len(reason) > 200 {
			reason = reason[:200] + "..."
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", r.Outcome, r.Path, reason)
	}
	return b.String()
}

// RawLine is one result as a line of a run's raw file: outcome, path and
// reason, tab-separated (the reason on one line, cut to 200 bytes).
func RawLine(r Result) string {
	reason := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(r.Reason)
	if len(reason) > 200 {
		reason = reason[:200] + "..."
	}
	return string(r.Outcome) + "\t" + r.Path + "\t" + reason + "\n"
}

// ReadRaw reads a raw file (RawLine's lines) into path -> result; a
// missing file is an empty run, and a last line cut short by a killed
// run is ignored (that test runs again).
func ReadRaw(p string) (map[string]Result, error) {
	out := map[string]Result{}
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasSuffix(l, "\n") {
			continue // cut short
		}
		f := strings.SplitN(strings.TrimSuffix(l, "\n"), "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", p, l)
		}
		o := Outcome(f[0])
		if o != Pass && o != Fail && o != Skip {
			return nil, fmt.Errorf("%s: bad outcome in %q", p, l)
		}
		out[f[1]] = Result{Path: f[1], Outcome: o, Reason: f[2]}
	}
	return out, nil
}

// NotRun is the reason given to a listed test a stopped run did not reach.
const NotRun = "not run: the run stopped (its time limit) before this test; run-full.sh resumes it"

// Complete is files' results in order, from done; a file not in done is
// counted as skipped with the reason NotRun, not left out.
func Complete(files []string, done map[string]Result) []Result {
	out := make([]Result, len(files))
	for i, f := range files {
		r, ok := done[f]
		if !ok {
			r = Result{Path: f, Outcome: Skip, Reason: NotRun}
		}
		out[i] = r
	}
	return out
}
