package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestTestCommand runs `cellhost test` on a vendored pool example (all
// pass: exit 0, Vitest's summary) and on the selfcheck project (tests
// that fail on purpose: exit 1, the failures named), and reads --json.
func TestTestCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"test", "../../internal/vitest/testdata/examples/durable-objects"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{" ✓ test/alarm.test.ts > immediately executes alarm", "Test Files  3 passed (3)", "Tests  4 passed (4)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"test", "../../internal/vitest/testdata/selfcheck", "shared"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1: %s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), " × test/shared.test.ts > fails an assertion") || !strings.Contains(out.String(), "Tests  3 failed | 4 passed | 2 skipped (9)") {
		t.Errorf("output:\n%s", out.String())
	}
	if errb.String() != "cellhost: some tests failed\n" {
		t.Errorf("stderr %q", errb.String())
	}
	out.Reset()
	errb.Reset()
	run([]string{"test", "--json", "../../internal/vitest/testdata/selfcheck", "shared"}, &out, &errb)
	var rep struct {
		Files []struct {
			File  string `json:"file"`
			Tests []struct {
				Name, State string
			} `json:"tests"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json: %v: %s", err, out.String())
	}
	if len(rep.Files) != 1 || rep.Files[0].File != "test/shared.test.ts" || len(rep.Files[0].Tests) != 9 || rep.Files[0].Tests[0].State != "pass" {
		t.Errorf("--json: %+v", rep)
	}
}
