package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// devProc is a `cellhost dev` running as a real process: every line it
// prints (stdout and stderr) lands in out.
type devProc struct {
	cmd  *exec.Cmd
	base string
	out  *lineBuf
	done chan struct{}
}

var devBanner = regexp.MustCompile(`^cellhost dev: serving .* on (https?://\S+)`)

// runDevProc starts the real binary as `cellhost dev args...` in dir and
// waits for its banner (printed once it serves). It is stopped with
// SIGTERM (killed past a guard) at the end of the test.
func runDevProc(t *testing.T, dir string, env []string, args ...string) *devProc {
	t.Helper()
	p := startDevProc(t, dir, env, args...)
	if !p.out.waitFor("cellhost dev: serving ", 90*time.Second) {
		p.stop()
		t.Fatalf("cellhost dev did not start:\n%s", p.out)
	}
	for _, l := range p.lines() {
		if m := devBanner.FindStringSubmatch(l); m != nil {
			p.base = m[1]
		}
	}
	return p
}

// startDevProc starts `cellhost dev args...` in dir without waiting.
func startDevProc(t *testing.T, dir string, env []string, args ...string) *devProc {
	t.Helper()
	bin := fleetBinary(t)
	cmd := exec.Command(bin, append([]string{"dev"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "AWS_EC2_METADATA_DISABLED=true"), env...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &devProc{cmd: cmd, out: &lineBuf{}, done: make(chan struct{})}
	pipes := make(chan struct{}, 2)
	for _, r := range []io.Reader{stdout, stderr} {
		go func() {
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				p.out.add(sc.Text())
			}
			pipes <- struct{}{}
		}()
	}
	go func() { <-pipes; <-pipes; _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("cellhost dev output:\n%s", p.out)
		}
	})
	return p
}

func (p *devProc) lines() []string {
	p.out.mu.Lock()
	defer p.out.mu.Unlock()
	return append([]string(nil), p.out.lines...)
}

// stop ends the process (SIGTERM, then SIGKILL past a guard) and waits.
func (p *devProc) stop() {
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// exited waits for the process to end by itself (a guard bounds it).
func (p *devProc) exited(t *testing.T) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(90 * time.Second):
		t.Fatalf("cellhost dev did not exit:\n%s", p.out)
	}
	return p.cmd.ProcessState.ExitCode()
}

func (p *devProc) get(t *testing.T, path string) (int, string, http.Header) {
	t.Helper()
	resp, err := http.Get(p.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return resp.StatusCode, string(b), resp.Header
}
