package wpt

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The ratchet fails both ways: a failure not listed, a listed failure that
// passes, and a listed subtest that no longer runs.
func TestCompare(t *testing.T) {
	p := filepath.Join(t.TempDir(), "exp.txt")
	body := "# comment\n" +
		"a.any.js\tstill fails\treason one\n" +
		"a.any.js\tnow passes\treason two\n" +
		"a.any.js\tgone\treason three\n" +
		"a.any.js\t\"tab\\there\"\treason four\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	exp, err := ReadExpectations(p)
	if err != nil {
		t.Fatal(err)
	}
	var r FileResult
	r.Results = []Subtest{
		{Name: "still fails", Status: StatusFail, Message: "x"},
		{Name: "now passes", Status: StatusPass},
		{Name: "new one", Status: StatusTimeout, Message: "slow\nline"},
		{Name: "tab\there", Status: StatusFail},
		{Name: "fine", Status: StatusPass},
	}
	got := Compare("a.any.js", r, exp["a.any.js"])
	want := []string{
		"listed failure now passes (remove its line 3): a.any.js\tnow passes",
		"new failure: a.any.js\tnew one\tTIMEOUT: slow line",
		"listed subtest did not run (remove its line 4): a.any.js\tgone",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Compare:\n got  %q\n want %q", got, want)
	}
	r.Harness.Status = StatusFail
	r.Harness.Message = "boom"
	if got := Compare("a.any.js", r, exp["a.any.js"]); len(got) != 4 || got[2] != "new failure: a.any.js\t(harness)\tFAIL: boom" {
		t.Errorf("a harness error is a failure too: %q", got)
	}
	if err := os.WriteFile(p, []byte("a.any.js\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadExpectations(p); err == nil {
		t.Error("a line without a reason was accepted")
	}
}

// LoadFile includes a file's META: script= dependencies in order, relative
// to the file's directory or, with a leading slash, to the WPT root.
func TestLoadFileMetaScripts(t *testing.T) {
	root := t.TempDir()
	for name, src := range map[string]string{
		"url/a.any.js":           "// META: script=/common/helper.js\n// META: script=resources/local.js\ntest(() => {}, 'a');\n",
		"common/helper.js":       "var helper = 1;\n",
		"url/resources/local.js": "var local = 2;\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := LoadFile(root, "url/a.any.js")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"var helper = 1;\n", "var local = 2;\n"}; !reflect.DeepEqual(f.Deps, want) {
		t.Fatalf("deps of url/a.any.js: %q, want %q", f.Deps, want)
	}
	if err := os.Remove(filepath.Join(root, "common", "helper.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(root, "url/a.any.js"); err == nil || !strings.Contains(err.Error(), "META script /common/helper.js") {
		t.Errorf("a missing META script: %v", err)
	}
}
