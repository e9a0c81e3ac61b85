package vitest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// expectation is one line of testdata/expected-failures.txt: a test that
// does not pass on cellhost, and why.
type expectation struct {
	key, reason string
	line        int
}

// readExpectations reads "project<TAB>file > test<TAB>reason" lines;
// a test name "(file)" stands for a file that does not run at all.
func readExpectations(t *testing.T) map[string]expectation {
	t.Helper()
	f, err := os.Open("testdata/expected-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]expectation{}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("expected-failures.txt:%d: want project<TAB>file > test<TAB>reason", n)
		}
		k := parts[0] + "\t" + parts[1]
		if _, dup := out[k]; dup {
			t.Fatalf("expected-failures.txt:%d: listed twice", n)
		}
		out[k] = expectation{key: k, reason: parts[2], line: n}
	}
	return out
}

// outcomes runs one project and returns "project\tfile > test" -> state
// (a file that did not run: "project\tfile > (file)" -> its error).
func outcomes(t *testing.T, dir string) (map[string]string, map[string]string) {
	t.Helper()
	c, err := LoadConfig(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(dir)
	states, msgs := map[string]string{}, map[string]string{}
	for _, f := range rep.Files {
		if f.Error != "" {
			k := name + "\t" + f.File + " > (file)"
			states[k], msgs[k] = "fail", f.Error
			continue
		}
		for _, tr := range f.Tests {
			k := name + "\t" + f.File + " > " + tr.Name
			states[k] = tr.State
			if tr.Error != nil {
				msgs[k] = tr.Error.Name + ": " + tr.Error.Message
			}
		}
	}
	p, fl, sk, _ := rep.Counts()
	t.Logf("%s: %d passed, %d failed, %d skipped in %d files (%v)", name, p, fl, sk, len(rep.Files), rep.Duration.Round(1e6))
	return states, msgs
}

// poolExamples are the examples of workers-sdk's fixtures/vitest-pool-
// workers-examples that TestExamples runs (the ones with Durable Objects,
// D1, KV, R2, RPC, alarms, queues and workflows; docs/testing.md says why
// the others are not).
var poolExamples = []string{"basics-unit-integration-self", "d1", "durable-objects", "kv-r2-caches", "queues", "request-mocking", "rpc", "workflows"}

// examplesDir is $CELLHOST_VITEST_EXAMPLES, a workers-sdk checkout's
// fixtures/vitest-pool-workers-examples (the expectations were measured at
// commit 24f807b); the test skips when it is unset.
func examplesDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("CELLHOST_VITEST_EXAMPLES")
	if d == "" {
		t.Skip("set CELLHOST_VITEST_EXAMPLES to <workers-sdk checkout @ 24f807b>/fixtures/vitest-pool-workers-examples")
	}
	return d
}

// TestExamples runs the examples of @cloudflare/vitest-pool-workers from
// $CELLHOST_VITEST_EXAMPLES (workers-sdk's fixtures/vitest-pool-workers-
// examples at 24f807b) and cellhost's own selfcheck project, and compares
// every test with the ratchet testdata/expected-failures.txt: a test that
// does not pass must be listed there with its reason, and a listed one that
// passes fails the run too (so the list only shrinks by editing it).
// Every test of these examples passes under the real pool (docs/testing.md).
func TestExamples(t *testing.T) {
	root := examplesDir(t)
	exp := readExpectations(t)
	var dirs []string
	for _, name := range poolExamples {
		d := filepath.Join(root, name)
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			t.Fatalf("CELLHOST_VITEST_EXAMPLES: %s is not a directory (%v)", d, err)
		}
		dirs = append(dirs, d)
	}
	dirs = append(dirs, "testdata/selfcheck")
	seen := map[string]bool{}
	for _, dir := range dirs {
		states, msgs := outcomes(t, dir)
		keys := make([]string, 0, len(states))
		for k := range states {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			seen[k] = true
			st := states[k]
			e, listed := exp[k]
			switch {
			case st == "fail" && !listed:
				t.Errorf("new failure: %s: %s", k, msgs[k])
			case st == "pass" && listed:
				t.Errorf("listed failure now passes (remove line %d): %s", e.line, k)
			}
		}
	}
	for k, e := range exp {
		if !seen[k] {
			t.Errorf("expected-failures.txt:%d lists a test that did not run: %s", e.line, k)
		}
	}
}

// TestSelfcheck pins what the runner reports for tests that fail on
// purpose, skip, and share storage without isolation (testdata/selfcheck).
func TestSelfcheck(t *testing.T) {
	states, msgs := outcomes(t, "testdata/selfcheck")
	want := map[string]string{
		"without isolated storage > writes":                             "pass",
		"without isolated storage > reads what the previous test wrote": "pass",
		"sees miniflare bindings and SELF":                              "pass",
		"fails an assertion":                                            "fail",
		"fails an inline snapshot":                                      "fail",
		"passes an inline snapshot":                                     "pass",
		"fails on a rejection":                                          "fail",
		"is skipped":                                                    "skip",
		"is to do":                                                      "todo",
	}
	for name, st := range want {
		k := "selfcheck\ttest/shared.test.ts > " + name
		if states[k] != st {
			t.Errorf("%s: %s (%s), want %s", name, states[k], msgs[k], st)
		}
	}
	for name, msg := range map[string]string{
		"fails an assertion":   "AssertionError: expected { \"a\": 1, \"b\": [ 1, 2, ], } to deeply equal { \"a\": 1, \"b\": [ 1, 3, ], }",
		"fails on a rejection": "AssertionError: promise resolved \"1\" instead of rejecting",
	} {
		if got := msgs["selfcheck\ttest/shared.test.ts > "+name]; got != msg {
			t.Errorf("%s: message %q, want %q", name, got, msg)
		}
	}
	k := "selfcheck\ttest/throws.test.ts > (file)"
	if states[k] != "fail" || !strings.Contains(msgs[k], "Error: this file throws while it is collected") {
		t.Errorf("a file that throws while collected: %s %q", states[k], msgs[k])
	}
	if fmt.Sprint(len(states)) != "10" {
		t.Errorf("%d results, want 10: %v", len(states), states)
	}
}

// TestWorkflowIntrospection runs testdata/workflowcheck: cloudflare:test's
// introspectWorkflow and introspectWorkflowInstance beyond the workflows
// example (step indexes, refused double mocks, counted mock errors,
// forced timeouts, unreachable statuses, dispose, mocked events).
func TestWorkflowIntrospection(t *testing.T) {
	states, msgs := outcomes(t, "testdata/workflowcheck")
	if len(states) != 8 {
		t.Errorf("%d results, want 8: %v", len(states), states)
	}
	for k, st := range states {
		if st != "pass" {
			t.Errorf("%s: %s: %s", k, st, msgs[k])
		}
	}
}
