package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/testjs"
)

// TestDevCases replays the cases of testdata/cases, which need what only
// `cellhost dev` serves (assets, ...), against `cellhost dev` and compares
// them with their transcripts recorded on workerd
// (testjs/testdata/anchor/record.sh --twice <case>).
func TestDevCases(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			c, err := testjs.LoadCase(filepath.Join("testdata", "cases", e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			if err := os.CopyFS(dir, os.DirFS(c.Dir)); err != nil {
				t.Fatal(err)
			}
			d := startDevServer(t, dir, dir, func(o *devOptions) { o.state = t.TempDir(); o.noWatch = true })
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := testjs.Replay(ctx, d.base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if diffs := testjs.Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from workerd's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}
