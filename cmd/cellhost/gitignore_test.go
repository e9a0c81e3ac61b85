package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cellhost dev writes a .gitignore into its state directory, so that
// `git status` of a project lists nothing of .cellhost/ (the templates
// ignore .wrangler/ only).
func TestDev_StateGitignore(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := writeProject(t, map[string]string{"wrangler.jsonc": okConfig, "index.js": okModule, ".gitignore": ".wrangler/\nnode_modules/\n"})
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	p := runDevProc(t, dir, nil, "--port", "0")
	if _, body, _ := p.get(t, "/do/C/x"); body != "c" {
		t.Fatalf("GET /do/C/x = %q", body)
	}
	p.stop()
	if _, err := os.Stat(filepath.Join(dir, ".cellhost", "cells")); err != nil {
		entries, _ := os.ReadDir(filepath.Join(dir, ".cellhost"))
		if len(entries) < 2 {
			t.Fatalf("the state directory holds %d entries: the test would not see it listed", len(entries))
		}
	}
	status := git("status", "--porcelain", "--untracked-files=all")
	if strings.Contains(status, ".cellhost") {
		t.Errorf("git status lists the state:\n%s", status)
	}
	if !strings.Contains(status, "index.js") {
		t.Errorf("git status does not list the project's files (the test sees nothing):\n%s", status)
	}
	// A .gitignore of the user's is kept.
	if err := os.WriteFile(filepath.Join(dir, ".cellhost", ".gitignore"), []byte("cells/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = runDevProc(t, dir, nil, "--port", "0")
	p.stop()
	if b, _ := os.ReadFile(filepath.Join(dir, ".cellhost", ".gitignore")); string(b) != "cells/\n" {
		t.Errorf(".gitignore rewritten: %q", b)
	}
}
