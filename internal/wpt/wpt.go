// Package wpt runs web-platform-tests files the way workerd runs them on
// itself (src/wpt/*-test.ts), through cellhost's real pipeline: an esbuild
// bundle served by a host.Host, one fresh host (so one fresh runtime) per
// test file. The harness is WPT's testharness.js, from the npm package
// wpt-runner (CI reaches npm, not GitHub); the test files are read from a
// web-platform-tests checkout named by CELLHOST_WPT_ROOT (see
// testdata/README.md).
package wpt

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Status values of testharness.js's Test.
const (
	StatusPass    = 0
	StatusFail    = 1
	StatusTimeout = 2
	StatusNotRun  = 3
	StatusPrecond = 4
)

// StatusName names a testharness status.
func StatusName(s int) string {
	switch s {
	case StatusPass:
		return "PASS"
	case StatusFail:
		return "FAIL"
	case StatusTimeout:
		return "TIMEOUT"
	case StatusNotRun:
		return "NOTRUN"
	case StatusPrecond:
		return "PRECONDITION_FAILED"
	}
	return fmt.Sprintf("status %d", s)
}

// Subtest is one result a file reported.
type Subtest struct {
	Name    string `json:"name"`
	Status  int    `json:"status"`
	Message string `json:"message"`
}

// FileResult is what running one file gave.
type FileResult struct {
	Harness struct {
		Status  int    `json:"status"`
		Message string `json:"message"`
	} `json:"harness"`
	Results []Subtest `json:"results"`
}

var metaScript = regexp.MustCompile(`(?m)^//\s*META:\s*script=(\S+)`)

// File is a test file with the scripts its META lines include.
type File struct {
	Name string   // relative to the WPT root: "dom/abort/event.any.js"
	Src  string   // its source
	Deps []string // the sources of its META: script= files, in order
}

// LoadFile reads a test file from root with its META: script= dependencies
// (resolved against the file's directory, or the WPT root when absolute).
func LoadFile(root, name string) (File, error) {
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
	if err != nil {
		return File{}, err
	}
	f := File{Name: name, Src: string(b)}
	for _, m := range metaScript.FindAllStringSubmatch(f.Src, -1) {
		dep := m[1]
		if strings.HasPrefix(dep, "/") {
			dep = strings.TrimPrefix(dep, "/")
		} else {
			dep = path.Join(path.Dir(name), dep)
		}
		d, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dep)))
		if err != nil {
			return File{}, fmt.Errorf("%s: META script %s: %w", name, m[1], err)
		}
		f.Deps = append(f.Deps, string(d))
	}
	return f, nil
}

// DataModule is the data.js runner.js imports: the harness, the files
// and the resources (by absolute URL under http://web-platform.test:8000/).
func DataModule(harness string, files []File, resources map[string]string) (string, error) {
	type entry struct {
		Src  string   `json:"src"`
		Deps []string `json:"deps"`
	}
	fm := map[string]entry{}
	for _, f := range files {
		deps := f.Deps
		if deps == nil {
			deps = []string{}
		}
		fm[f.Name] = entry{Src: f.Src, Deps: deps}
	}
	res := map[string]string{}
	for k, v := range resources {
		res["http://web-platform.test:8000/"+k] = v
	}
	var b strings.Builder
	for _, x := range []struct {
		name string
		v    any
	}{{"HARNESS", harness}, {"FILES", fm}, {"RESOURCES", res}} {
		j, err := json.Marshal(x.v)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "export const %s = %s;\n", x.name, j)
	}
	return b.String(), nil
}

// Expectation is one line of the ratchet file: a subtest that is known not
// to pass here, and why.
type Expectation struct {
	File, Subtest, Reason string
	Line                  int
}

// ReadExpectations parses the ratchet file: "file<TAB>subtest<TAB>reason"
// per line; '#' starts a comment line. Subtest names are JSON strings when
// they start with '"' (names with tabs or newlines).
func ReadExpectations(p string) (map[string]map[string]Expectation, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string]Expectation{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) < 3 {
			return nil, fmt.Errorf("%s:%d: want file<TAB>subtest<TAB>reason", p, n)
		}
		name := parts[1]
		if strings.HasPrefix(name, `"`) {
			if err := json.Unmarshal([]byte(name), &name); err != nil {
				return nil, fmt.Errorf("%s:%d: subtest: %v", p, n, err)
			}
		}
		if out[parts[0]] == nil {
			out[parts[0]] = map[string]Expectation{}
		}
		if _, dup := out[parts[0]][name]; dup {
			return nil, fmt.Errorf("%s:%d: %q listed twice", p, n, name)
		}
		out[parts[0]][name] = Expectation{File: parts[0], Subtest: name, Reason: parts[2], Line: n}
	}
	return out, sc.Err()
}

// FormatSubtest writes a subtest name for the ratchet file.
func FormatSubtest(name string) string {
	if strings.ContainsAny(name, "\t\n\r") || strings.HasPrefix(name, `"`) || name == "" {
		j, _ := json.Marshal(name)
		return string(j)
	}
	return name
}

// Compare checks a file's results against its expectations: a subtest that
// does not pass must be listed (a new failure), and a listed one must still
// not pass (a listed failure that passes fails too, so the list only
// shrinks by editing it). It returns one message per difference.
func Compare(file string, r FileResult, exp map[string]Expectation) []string {
	var out []string
	seen := map[string]bool{}
	results := append([]Subtest(nil), r.Results...)
	if r.Harness.Status != StatusPass {
		results = append(results, Subtest{Name: "(harness)", Status: r.Harness.Status, Message: r.Harness.Message})
	}
	for _, s := range results {
		seen[s.Name] = true
		_, listed := exp[s.Name]
		switch {
		case s.Status != StatusPass && !listed:
			out = append(out, fmt.Sprintf("new failure: %s\t%s\t%s: %s", file, FormatSubtest(s.Name), StatusName(s.Status), oneLine(s.Message)))
		case s.Status == StatusPass && listed:
			out = append(out, fmt.Sprintf("listed failure now passes (remove its line %d): %s\t%s", exp[s.Name].Line, file, FormatSubtest(s.Name)))
		}
	}
	var stale []string
	for name, e := range exp {
		if !seen[name] {
			stale = append(stale, fmt.Sprintf("listed subtest did not run (remove its line %d): %s\t%s", e.Line, file, FormatSubtest(name)))
		}
	}
	sort.Strings(stale)
	return append(out, stale...)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// WriteExpectations writes a ratchet file: header, then a line for every
// result of names that did not pass, keeping the reason old gave it.
func WriteExpectations(p, header string, names []string, all map[string]FileResult, old map[string]map[string]Expectation) error {
	var b strings.Builder
	b.WriteString(header)
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
