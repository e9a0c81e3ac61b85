package testjs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// libsDir holds small realistic apps built on popular Durable Object
// libraries, each recorded on workerd (package.json + package-lock.json).
var libsDir = filepath.Join("..", "..", "shared", "conformance", "libs")

// TestLibs installs each app's locked dependencies with `npm ci` in a copy
// and replays its recorded transcript against a real Host. CELLHOST_LIBS
// names a directory whose apps are already installed (skips npm).
func TestLibs(t *testing.T) {
	dir := os.Getenv("CELLHOST_LIBS")
	installed := dir != ""
	if dir == "" {
		dir = libsDir
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Skipf("no library apps at %s: %v", dir, err)
	}
	npm, npmErr := exec.LookPath("npm")
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		t.Run(name, func(t *testing.T) {
			app := filepath.Join(dir, name)
			if !installed {
				if npmErr != nil {
					t.Skipf("npm is not installed: %v", npmErr)
				}
				tmp := t.TempDir()
				if err := os.CopyFS(tmp, os.DirFS(app)); err != nil {
					t.Fatalf("copy app: %v", err)
				}
				cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund", "--prefer-offline")
				cmd.Dir = tmp
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Skipf("npm ci (the registry may be unreachable): %v\n%s", err, out)
				}
				app = tmp
			}
			c, err := LoadCase(app)
			if err != nil {
				t.Fatal(err)
			}
			base := startHostIn(t, c.Dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := Replay(ctx, base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if diffs := Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from workerd's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}
