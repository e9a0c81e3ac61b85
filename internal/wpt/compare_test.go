package wpt

import (
	"os"
	"path/filepath"
	"reflect"
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

func TestLoadFileMetaScripts(t *testing.T) {
	f, err := LoadFile(filepath.Join("testdata", "wpt"), "url/url-setters.any.js")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Deps) != 1 || len(f.Deps[0]) == 0 {
		t.Fatalf("deps of url-setters.any.js: %d, want /common/subset-tests-by-key.js", len(f.Deps))
	}
}
