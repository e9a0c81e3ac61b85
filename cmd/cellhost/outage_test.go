package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// faultProxy is a TCP proxy on loopback in front of the S3 server: up, it
// forwards; down, it resets every connection (a refusing bucket); hung, it
// accepts and never answers. Changing the mode cuts the connections open.
type faultProxy struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	mode     string            // "up", "down", "hung"; guarded by mu
	conns    map[net.Conn]bool // guarded by mu
}

func startFaultProxy(t *testing.T, upstream string) *faultProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &faultProxy{ln: ln, upstream: upstream, mode: "up", conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.set("down") })
	return p
}

func (p *faultProxy) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
	p.mu.Unlock()
}

func (p *faultProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		mode := p.mode
		p.conns[c] = true
		p.mu.Unlock()
		switch mode {
		case "down":
			c.Close()
		case "hung":
			go io.Copy(io.Discard, c)
		default:
			go func() {
				u, err := net.Dial("tcp", p.upstream)
				if err != nil {
					c.Close()
					return
				}
				p.mu.Lock()
				p.conns[u] = true
				p.mu.Unlock()
				go func() { io.Copy(u, c); u.Close() }()
				io.Copy(c, u)
				c.Close()
			}()
		}
	}
}

// TestOutage_NodeFencesAndRejoins runs a real cellhost on S3 behind the
// fault proxy and cuts the bucket off (refusing, then hung) for longer than
// the node lease: the node fences itself but the process lives on, no write
// is acknowledged while it is fenced, and once the bucket is back it
// rejoins and serves again; no acknowledged write is lost.
func TestOutage_NodeFencesAndRejoins(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	raw := os.Getenv("CELLHOST_TEST_S3")
	if raw == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CELLHOST_TEST_S3 is not set: .ci/run must start the S3 server")
		}
		t.Skip("no S3 server: start one with .ci/versitygw.sh start (CELLHOST_TEST_S3)")
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	ep, err := url.Parse(q.Get("endpoint"))
	if err != nil {
		t.Fatal(err)
	}
	bin := buildCellhost(t)
	for _, mode := range []string{"down", "hung"} {
		t.Run(mode, func(t *testing.T) {
			proxy := startFaultProxy(t, ep.Host)
			q.Set("endpoint", "http://"+proxy.ln.Addr().String())
			bu := *u
			bu.Path = fmt.Sprintf("/outage-%s-%d", mode, time.Now().UnixNano())
			bu.RawQuery = q.Encode()

			port := freePort(t)
			cmd := exec.Command(bin, "dev", relProject(t), "--state", filepath.Join(t.TempDir(), "state"),
				"--bucket", bu.String(), "--port", strconv.Itoa(port))
			stderr, _ := cmd.StderrPipe()
			cmd.Stdout = io.Discard
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
			fenced, rejoined := make(chan struct{}), make(chan struct{})
			go func() {
				sc := bufio.NewScanner(stderr)
				var f, r sync.Once
				for sc.Scan() {
					line := sc.Text()
					if strings.Contains(line, "fenced:") {
						f.Do(func() { close(fenced) })
					}
					if strings.Contains(line, "rejoined") {
						r.Do(func() { close(rejoined) })
					}
				}
			}()
			base := "http://127.0.0.1:" + strconv.Itoa(port)
			for i := 0; ; i++ {
				if resp, err := http.Get(base + "/do/Counter/ping?peek=1"); err == nil {
					resp.Body.Close()
					break
				}
				if i == 400 {
					t.Fatal("cellhost did not start")
				}
				time.Sleep(50 * time.Millisecond)
			}

			// Writers to 4 objects for the whole test.
			const objects = 4
			var last [objects]atomic.Int64
			var started, again [objects]chan struct{}
			for i := range started {
				started[i], again[i] = make(chan struct{}), make(chan struct{})
			}
			var ackedWhileFenced atomic.Int64
			var isFenced, isBack atomic.Bool
			stop := make(chan struct{})
			var wg sync.WaitGroup
			client := &http.Client{Timeout: 60 * time.Second}
			for i := 0; i < objects; i++ {
				wg.Go(func() {
					var first, back sync.Once
					for {
						select {
						case <-stop:
							return
						default:
						}
						sentFenced, sentBack := isFenced.Load(), isBack.Load()
						resp, err := client.Get(fmt.Sprintf("%s/do/Counter/w%d", base, i))
						if err != nil {
							continue
						}
						var body struct{ N int64 }
						err = json.NewDecoder(resp.Body).Decode(&body)
						resp.Body.Close()
						if err != nil || resp.StatusCode != 200 {
							continue
						}
						if sentFenced && !isBack.Load() {
							ackedWhileFenced.Add(1)
						}
						last[i].Store(body.N)
						first.Do(func() { close(started[i]) })
						if sentBack {
							back.Do(func() { close(again[i]) })
						}
					}
				})
			}
			for i := 0; i < objects; i++ { // every writer got going
				waitFor(t, started[i], fmt.Sprintf("object %d never answered", i))
			}
			proxy.set(mode)
			waitFor(t, fenced, "the node never said it fenced itself")
			isFenced.Store(true)
			proxy.set("up")
			waitFor(t, rejoined, "the node never said it rejoined")
			isBack.Store(true)
			for i := 0; i < objects; i++ { // every object serves again
				waitFor(t, again[i], fmt.Sprintf("object %d never answered after the rejoin", i))
			}
			close(stop)
			wg.Wait()
			if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
				t.Fatal("the process exited")
			}
			total := int64(0)
			for i := 0; i < objects; i++ {
				resp, err := http.Get(fmt.Sprintf("%s/do/Counter/w%d?peek=1", base, i))
				if err != nil {
					t.Fatal(err)
				}
				var body struct{ N int64 }
				json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				if body.N < last[i].Load() {
					t.Errorf("object %d: %d stored, %d acknowledged", i, body.N, last[i].Load())
				}
				total += last[i].Load()
			}
			// Informational: a write sent after the fence line was read and
			// answered 200 before the rejoin line was read (the lines are
			// read after the fact, so the window is approximate; host's
			// TestOutage_FenceThenRejoin asserts it exactly).
			t.Logf("bucket %s past the lease: fenced, rejoined without a restart; %d writes acknowledged, %d sent while fenced", mode, total, ackedWhileFenced.Load())
		})
	}
}

// waitFor waits for ch to close, failing the test after a generous bound
// (the test must end even when the process never logs what it waits for).
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(3 * time.Minute):
		t.Fatal(what + " (3 min)")
	}
}
