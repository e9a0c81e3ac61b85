package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestCommand_PoolExample runs `cellhost test` on the pool's
// durable-objects example from $CELLHOST_VITEST_EXAMPLES (workers-sdk's
// fixtures/vitest-pool-workers-examples @ 24f807b): all pass, exit 0,
// Vitest's summary.
func TestTestCommand_PoolExample(t *testing.T) {
	root := os.Getenv("CELLHOST_VITEST_EXAMPLES")
	if root == "" {
		t.Skip("set CELLHOST_VITEST_EXAMPLES to <workers-sdk checkout @ 24f807b>/fixtures/vitest-pool-workers-examples")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"test", filepath.Join(root, "durable-objects")}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{" ✓ test/alarm.test.ts > immediately executes alarm", "Test Files  3 passed (3)", "Tests  4 passed (4)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestTestCommand runs `cellhost test` on the selfcheck project (tests
// that fail on purpose: exit 1, the failures named), and reads --json.
func TestTestCommand(t *testing.T) {
	var out, errb bytes.Buffer
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
