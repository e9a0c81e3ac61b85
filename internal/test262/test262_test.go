package test262

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/jsapi"
)

// defaultDirs are the parts of test262 issue 18 names: the language features
// and built-ins real libraries depend on.
var defaultDirs = []string{
	"language/statements/class", "language/expressions/class",
	"language/statements/for-of", "language/expressions/assignment",
	"language/statements/generators", "language/expressions/generators",
	"language/statements/async-function", "language/expressions/async-arrow-function",
	"language/expressions/await", "language/statements/async-generator",
	"language/module-code", "language/literals/regexp",
	"built-ins/Proxy", "built-ins/Reflect", "built-ins/Array", "built-ins/TypedArray",
	"built-ins/TypedArrayConstructors", "built-ins/ArrayBuffer", "built-ins/String",
	"built-ins/RegExp", "built-ins/Promise", "built-ins/Map", "built-ins/Set",
	"built-ins/WeakMap", "built-ins/WeakSet", "built-ins/WeakRef",
	"built-ins/FinalizationRegistry", "built-ins/Iterator", "built-ins/JSON",
	"built-ins/Date", "built-ins/Object", "built-ins/Error", "intl402/Intl",
}

// TestTest262 runs a test262 checkout through cellhost's path. It runs only
// when CELLHOST_TEST262 names a checkout (it takes minutes):
//
//	CELLHOST_TEST262=/path/to/test262 go test ./internal/test262/ -run TestTest262 -timeout 0 -v
//
// CELLHOST_TEST262_DIRS (comma-separated, relative to test/) narrows the run;
// CELLHOST_TEST262_OUT writes the results file (docs/test262.md's format);
// CELLHOST_TEST262_NOPOLYFILLS=1 measures goja without cellhost's polyfills.
func TestTest262(t *testing.T) {
	root := os.Getenv("CELLHOST_TEST262")
	if root == "" {
		t.Skip("CELLHOST_TEST262 is not set: no test262 checkout to run")
	}
	dirs := defaultDirs
	if d := os.Getenv("CELLHOST_TEST262_DIRS"); d == "all" {
		dirs = FullDirs
	} else if d != "" {
		dirs = strings.Split(d, ",")
	}
	every := 1
	if e := os.Getenv("CELLHOST_TEST262_SAMPLE"); e != "" {
		if _, err := fmt.Sscan(e, &every); err != nil {
			t.Fatal("CELLHOST_TEST262_SAMPLE: ", err)
		}
	}
	files, err := List(root, dirs, every)
	if err != nil {
		t.Fatal(err)
	}
	r := &Runner{Root: root, Timeout: 10 * time.Second, Bundle: jsapi.BundleOptions{NoPolyfills: os.Getenv("CELLHOST_TEST262_NOPOLYFILLS") == "1"}}
	var results []Result
	if raw := os.Getenv("CELLHOST_TEST262_RAW"); raw != "" {
		// A resumable run: every result is appended to raw as it comes,
		// tests already there are not run again, and with
		// CELLHOST_TEST262_NORUN=1 only the report is written (what a run
		// stopped by its time limit finished, the rest counted as not run).
		done, err := ReadRaw(raw)
		if err != nil {
			t.Fatal(err)
		}
		var todo []string
		for _, f := range files {
			if _, ok := done[f]; !ok {
				todo = append(todo, f)
			}
		}
		t.Logf("%d of %d tests already in %s; %d to run", len(files)-len(todo), len(files), raw, len(todo))
		if os.Getenv("CELLHOST_TEST262_NORUN") != "1" && len(todo) > 0 {
			w, err := os.OpenFile(raw, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			runAllEach(r, todo, func(res Result) {
				mu.Lock()
				defer mu.Unlock()
				if _, err := w.WriteString(RawLine(res)); err != nil {
					t.Error(err)
				}
			})
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if done, err = ReadRaw(raw); err != nil {
				t.Fatal(err)
			}
		}
		results = Complete(files, done)
	} else {
		results = runAll(r, files)
	}
	s := Summarize(results)
	report := fmt.Sprintf("directories: %s\nsample: every %d-th test of directories with more than 500 (1: all)\npolyfills: %v\n",
		strings.Join(dirs, ", "), every, !r.Bundle.NoPolyfills) + Report(s, results, commitOf(root))
	if os.Getenv("CELLHOST_TEST262_DIRS") == "all" {
		notRun := 0
		for _, res := range results {
			if res.Outcome == Skip && res.Reason == NotRun {
				notRun++
			}
		}
		report = fmt.Sprintf("# test262 in full\n\nWritten by `bash internal/test262/run-full.sh` (docs/testing.md): every test\n"+
			"under test/ but staging/, through cellhost's path (esbuild, the polyfills,\nthe goja fork), strict mode as a worker's modules are. "+
			"Skipped tests are\ncounted by reason (features goja or V8 lack, sloppy-mode tests); %d of %d\ntests were not reached yet (the run stops at its time limit and resumes).\n\n",
			notRun, len(results)) + report
	}
	t.Log("\n" + report)
	if out := os.Getenv("CELLHOST_TEST262_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out := os.Getenv("CELLHOST_TEST262_RESULTS"); out != "" {
		if err := os.WriteFile(out, []byte(ResultsFile(results, commitOf(root))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func runAll(r *Runner, files []string) []Result {
	return runAllEach(r, files, nil)
}

// runAllEach runs files on GOMAXPROCS workers; each, when set, is called
// with every result as it comes (from the workers' goroutines).
func runAllEach(r *Runner, files []string, each func(Result)) []Result {
	results := make([]Result, len(files))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = r.Run(files[i])
				if each != nil {
					each(results[i])
				}
				if i%500 == 0 {
					fmt.Fprintf(os.Stderr, "test262: %d/%d\n", i, len(files))
				}
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

func commitOf(root string) string {
	if b, err := os.ReadFile(filepath.Join(root, ".test262-commit")); err == nil {
		return strings.TrimSpace(string(b))
	}
	return "unknown (write the commit to <checkout>/.test262-commit)"
}

// Report renders the per-area table and the failures, as docs/test262.md.
func Report(s Summary, results []Result, commit string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "test262 commit: %s\n\n", commit)
	b.WriteString(TopTable(results))
	b.WriteString("\n## Skipped, by reason\n\n")
	b.WriteString(SkipTable(results))
	b.WriteString("\n## Per area\n\n")
	fmt.Fprintf(&b, "| area | pass | fail | skip | pass rate |\n|---|---:|---:|---:|---:|\n")
	areas := make([]string, 0, len(s.Areas))
	var tot Count
	for a, c := range s.Areas {
		areas = append(areas, a)
		tot.Pass += c.Pass
		tot.Fail += c.Fail
		tot.Skip += c.Skip
	}
	sort.Strings(areas)
	for _, a := range areas {
		c := s.Areas[a]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f%% |\n", a, c.Pass, c.Fail, c.Skip, c.Rate())
	}
	fmt.Fprintf(&b, "| **total** | %d | %d | %d | %.1f%% |\n", tot.Pass, tot.Fail, tot.Skip, tot.Rate())
	b.WriteString("\n## Failures\n\n")
	for _, r := range results {
		if r.Outcome == Fail {
			fmt.Fprintf(&b, "- `%s`: %s\n", r.Path, r.Reason)
		}
	}
	return b.String()
}

// TestPinned runs the pinned subset on every test run that has a test262
// checkout (CELLHOST_TEST262, the one the full run uses): the tests listed
// in testdata/pinned.txt, one or more for each engine bug cellhost fixed,
// and cellhost's own cases in test262's format (testdata/cellhost, run with
// the checkout's harness), so a regression shows here.
func TestPinned(t *testing.T) {
	root := os.Getenv("CELLHOST_TEST262")
	if root == "" {
		t.Skip("CELLHOST_TEST262 is not set: no test262 checkout to run the pinned tests from")
	}
	files, err := readPinned(filepath.Join("testdata", "pinned.txt"))
	if err != nil {
		t.Fatal(err)
	}
	own, err := filepath.Glob(filepath.Join("testdata", "cellhost", "*.js"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || len(own) == 0 {
		t.Fatalf("no pinned tests (%d listed, %d of cellhost's)", len(files), len(own))
	}
	r := &Runner{Root: root, Timeout: time.Minute}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(root, "test", filepath.FromSlash(f))); err != nil {
				t.Fatalf("%s is not in the checkout %s (commit %s); testdata/pinned.txt names files of be13516fb644", f, root, commitOf(root))
			}
			res := r.Run(f)
			if res.Outcome != Pass {
				t.Errorf("%s: %s %s", f, res.Outcome, res.Reason)
			}
		})
	}
	ownRunner := &Runner{Root: root, Tests: filepath.Join("testdata", "cellhost"), Timeout: time.Minute}
	for _, p := range own {
		f := filepath.Base(p)
		t.Run("cellhost/"+f, func(t *testing.T) {
			res := ownRunner.Run(f)
			if res.Outcome != Pass {
				t.Errorf("cellhost/%s: %s %s", f, res.Outcome, res.Reason)
			}
		})
	}
}

// readPinned reads a list of test paths, one a line; '#' starts a comment.
func readPinned(p string) ([]string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return out, nil
}

func TestArea(t *testing.T) {
	for path, want := range map[string]string{
		"built-ins/Array/from/iter.js":                     "built-ins/Array",
		"language/statements/class/elements/x.js":          "language/statements/class",
		"language/module-code/eval-self-abrupt.js":         "language/module-code",
		"language/module-code/namespace/internals/a.js":    "language/module-code/namespace",
		"intl402/Intl/getCanonicalLocales/has-property.js": "intl402/Intl",
	} {
		if got := Area(path); got != want {
			t.Errorf("Area(%q) = %q, want %q", path, got, want)
		}
	}
}

// The full run's tables count every test under its top-level directory and
// every skip under its reason; the results file lists what did not pass.
func TestFullRunTables(t *testing.T) {
	results := []Result{
		{Path: "built-ins/Array/a.js", Outcome: Pass},
		{Path: "built-ins/Array/b.js", Outcome: Fail, Reason: "Test262Error: x"},
		{Path: "language/expressions/c.js", Outcome: Skip, Reason: "noStrict: sloppy"},
		{Path: "annexB/d.js", Outcome: Skip, Reason: "noStrict: sloppy"},
		{Path: "intl402/e.js", Outcome: Skip, Reason: "Temporal: no"},
	}
	top := TopTable(results)
	for _, want := range []string{
		"| annexB | 0 | 0 | 1 | 0.0% |",
		"| built-ins | 1 | 1 | 0 | 50.0% |",
		"| **total** | 1 | 1 | 3 | 50.0% |",
	} {
		if !strings.Contains(top, want) {
			t.Errorf("TopTable lacks %q:\n%s", want, top)
		}
	}
	if skip := SkipTable(results); !strings.Contains(skip, "| noStrict: sloppy | 2 |\n| Temporal: no | 1 |") {
		t.Errorf("SkipTable:\n%s", skip)
	}
	rf := ResultsFile(results, "abc")
	if want := "fail\tbuilt-ins/Array/b.js\tTest262Error: x\n"; !strings.Contains(rf, want) || strings.Contains(rf, "a.js") {
		t.Errorf("ResultsFile:\n%s", rf)
	}
}

// A raw file round-trips, a line cut short by a killed run is dropped (the
// test runs again), and a listed test with no result is counted as not
// run rather than left out of the totals.
func TestRawResume(t *testing.T) {
	p := filepath.Join(t.TempDir(), "raw.tsv")
	in := []Result{
		{Path: "built-ins/a.js", Outcome: Pass},
		{Path: "built-ins/b.js", Outcome: Fail, Reason: "Test262Error: x\tand\nmore"},
	}
	var b strings.Builder
	for _, r := range in {
		b.WriteString(RawLine(r))
	}
	b.WriteString("skip\tbuilt-ins/c.js\tcut sho") // no newline: killed mid-write
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	done, err := ReadRaw(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 || done["built-ins/b.js"].Reason != "Test262Error: x and more" || done["built-ins/a.js"].Outcome != Pass {
		t.Fatalf("ReadRaw = %+v", done)
	}
	all := Complete([]string{"built-ins/a.js", "built-ins/b.js", "built-ins/c.js"}, done)
	if all[2].Outcome != Skip || all[2].Reason != NotRun {
		t.Errorf("c.js = %+v, want skipped as not run", all[2])
	}
	if top := TopTable(all); !strings.Contains(top, "| built-ins | 1 | 1 | 1 | 50.0% |") {
		t.Errorf("TopTable:\n%s", top)
	}
	if none, err := ReadRaw(filepath.Join(t.TempDir(), "absent")); err != nil || len(none) != 0 {
		t.Errorf("absent file: %v %v", none, err)
	}
}

// The runner skips a feature as not shipped by workerd only if the probe
// of workerd (probe-workerd.sh) found it absent, and skips no feature the
// probe found shipped: those tests count, as failures where goja lacks
// them.
func TestSkippedFeaturesMatchWorkerd(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "workerd-features.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	probed := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		f, state, ok := strings.Cut(l, "\t")
		if !ok || (state != "shipped" && state != "absent") {
			t.Fatalf("workerd-features.tsv: bad line %q", l)
		}
		probed[f] = state
	}
	for f, why := range skippedFeatures {
		if strings.HasPrefix(why, notInWorkerd) && probed[f] != "absent" {
			t.Errorf("%s is skipped as %q but the probe of workerd says %q", f, why, probed[f])
		}
	}
	for f, state := range probed {
		if why, ok := skippedFeatures[f]; ok && state == "shipped" {
			t.Errorf("%s is shipped by workerd but skipped (%s): its tests must count", f, why)
		}
	}
}
