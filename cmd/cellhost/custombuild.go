package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/internal/wrangler"
)

// buildPrefix marks the lines of a custom build, as wrangler marks them.
const buildPrefix = "[custom build]"

// runCustomBuild runs the config's build.command as wrangler dev does
// (run-custom-build.ts): through the shell, in build.cwd, with
// WRANGLER_COMMAND=dev, each line of its output shown after "[custom
// build]". A failure is wrangler's message; the command's own output is
// above it. ctx ending stops the command (its whole process group).
func runCustomBuild(ctx context.Context, b *wrangler.CustomBuild, out io.Writer) error {
	fmt.Fprintf(out, "%s Running: %s\n", buildPrefix, b.Command)
	cmd := shellCommand(b.Command)
	cmd.Dir = b.Cwd
	cmd.Env = append(os.Environ(), "WRANGLER_COMMAND=dev")
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			fmt.Fprintf(out, "%s %s\n", buildPrefix, sc.Text())
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Start()
	if err == nil {
		stop := context.AfterFunc(ctx, func() { stopGroup(cmd.Process) })
		err = cmd.Wait()
		stop()
	}
	pw.Close()
	wg.Wait()
	if err == nil {
		return nil
	}
	why := err.Error()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() > 0 {
		why = fmt.Sprintf("exit status %d", ee.ExitCode())
	}
	if ctx.Err() != nil {
		return fmt.Errorf("custom build `%s` stopped: %w", b.Command, ctx.Err())
	}
	return fmt.Errorf("Running custom build `%s` failed (%s). There are likely more logs from your build command above.", b.Command, why)
}

// underAny reports whether path is one of dirs or inside one.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// buildWatchDirs lists the directories (recursively: fsnotify watches one
// level) whose changes re-run the custom build: every directory under
// the build's watch_dirs but node_modules and hidden ones.
func buildWatchDirs(b *wrangler.CustomBuild) []string {
	if b == nil {
		return nil
	}
	var out []string
	for _, root := range b.WatchDirs {
		_ = filepath.WalkDir(root, func(p string, e os.DirEntry, err error) error {
			if err != nil || !e.IsDir() {
				return nil
			}
			if p != root && (e.Name() == "node_modules" || strings.HasPrefix(e.Name(), ".")) {
				return filepath.SkipDir
			}
			out = append(out, p)
			return nil
		})
	}
	return out
}

// ignoreState writes a .gitignore that ignores everything into the state
// directory, unless it has one: projects ignore wrangler's .wrangler/, not
// .cellhost/, and the objects' databases are not source.
func ignoreState(dir string) error {
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if err := os.WriteFile(p, []byte("# cellhost dev's state (object databases, the local bucket): not source\n*\n"), 0o600); err != nil {
		return fmt.Errorf("cannot write %s: %v; git will list the state directory", p, err)
	}
	return nil
}
