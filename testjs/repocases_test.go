package testjs

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// repoFailing names, per repository case, the checks (step indexes)
// cellhost does not pass yet, each with the reason, as peerFailing does.
var repoFailing = map[string]map[int]string{
	"wasm-api": {10: "wazero reports a remainder by zero as a division by zero, a float truncation out of range as a division overflow and a call_indirect of a null entry as an index out of bounds (one error each), so V8's distinct messages cannot be told apart"},
}

// TestRepoCases replays the cases kept in this repository (testjs/cases),
// recorded on workerd with ../shared/anchor/record.sh like the shared ones.
func TestRepoCases(t *testing.T) {
	entries, err := os.ReadDir("cases")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), "_") { // _shared: modules the cases import
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			c, err := LoadCase(filepath.Join("cases", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			base := startHost(t, c.Dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := Replay(ctx, base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if known := repoFailing[e.Name()]; known != nil {
				compareSteps(t, c, got, known, false)
				return
			}
			if diffs := Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from workerd's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}
