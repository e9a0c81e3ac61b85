//go:build linux

package filestore

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/plugins"
)

// envPauseDir is the store root of TestWriter_PausedAfterCommit's child.
const envPauseDir = "CELLHOST_FILESTORE_PAUSE_DIR"

// TestWriter_PausedAfterCommit: a process stopped (SIGSTOP) in the middle
// of a commit, after its round's COMMIT and before the fsync that makes
// it durable (the hook synchronises), holds nothing another process
// needs: this process, another Store on the same directory, keeps
// committing, creates and CAS updates included, while the child is in
// state T. Before, the fsync ran inside COMMIT, under SQLite's write lock,
// and every other writer of the directory waited for the stopped one (up
// to the 10 s busy timeout, then failed with SQLITE_BUSY). The child's
// write is acknowledged only after it resumes and its fsync returns.
func TestWriter_PausedAfterCommit(t *testing.T) {
	if dir := os.Getenv(envPauseDir); dir != "" {
		pausedChild(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("spawns a process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	s := openStore(t, dir)

	cmd := exec.Command(os.Args[0], "-test.run=^TestWriter_PausedAfterCommit$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), envPauseDir+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var once sync.Once
	cont := func() { once.Do(func() { syscall.Kill(pid, syscall.SIGCONT) }) }
	defer func() {
		cont()
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	expect := func(want string) {
		t.Helper()
		for line := range lines {
			if line == want {
				return
			}
		}
		cmd.Wait()
		t.Fatalf("the child ended before printing %q; its stderr:\n%s", want, stderr.String())
	}

	expect("COMMITTED") // the child's round is committed, its fsync not yet run
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitState(t, pid, 'T')

	// The child's round is visible (committed) though not acknowledged.
	if body, _, err := s.Get(ctx, "cells/child/ltx/1"); err != nil || string(body) != "child" {
		t.Fatalf("Get of the stopped child's committed write = %q, %v", body, err)
	}
	etag, err := s.Put(ctx, "cells/C/own.json", []byte("0"), plugins.PutOptions{IfNoneMatch: true})
	if err != nil {
		t.Fatalf("create while another process is stopped mid-commit: %v", err)
	}
	const n = 20
	for i := 1; i <= n; i++ {
		if etag, err = s.Put(ctx, "cells/C/own.json", []byte(fmt.Sprint(i)), plugins.PutOptions{IfMatch: etag}); err != nil {
			t.Fatalf("CAS update %d while another process is stopped mid-commit: %v", i, err)
		}
		if _, err := s.Put(ctx, fmt.Sprintf("cells/C/ltx/%d", i), []byte("ltx"), plugins.PutOptions{}); err != nil {
			t.Fatalf("put %d while another process is stopped mid-commit: %v", i, err)
		}
	}
	waitState(t, pid, 'T') // still stopped: all of it ran beside a stopped committer
	t.Logf("%d writes committed while the child (pid %d) was stopped after its COMMIT", 2*n+1, pid)

	cont()
	if _, err := io.WriteString(stdin, "go\n"); err != nil {
		t.Fatal(err)
	}
	expect("ACKED")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	if body, _, err := s.Get(ctx, "cells/C/own.json"); err != nil || string(body) != fmt.Sprint(n) {
		t.Errorf("own.json = %q, %v; want %d", body, err, n)
	}
}

// pausedChild commits one write whose round stops, after COMMIT, until a
// line arrives on stdin (the parent stops the process meanwhile).
func pausedChild(t *testing.T, dir string) {
	s := openStore(t, dir)
	in := bufio.NewReader(os.Stdin)
	s.w.hookCommitted = func() {
		s.w.hookCommitted = nil
		fmt.Println("COMMITTED")
		in.ReadString('\n')
	}
	if _, err := s.Put(context.Background(), "cells/child/ltx/1", []byte("child"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	fmt.Println("ACKED")
}

// waitState waits until process pid is in state (the third field of
// /proc/<pid>/stat: 'T' stopped), for at most 30 s.
func waitState(t *testing.T, pid int, state byte) {
	t.Helper()
	var last string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		// "pid (comm) S ...": comm may hold spaces and parentheses.
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
			if last = string(b[i+2]); b[i+2] == state {
				return
			}
		}
	}
	t.Fatalf("process %d in state %q, not %q, after 30 s", pid, last, state)
}
