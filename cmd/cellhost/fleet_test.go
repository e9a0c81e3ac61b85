package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// fleetTTL is the node lease TTL of the fleet tests: short, so that a
// takeover after a kill comes quickly, and long enough for renewals (every
// TTL/3) on a busy machine.
const fleetTTL = 2 * time.Second

// serveNode is one `cellhost serve` process.
type serveNode struct {
	cmd  *exec.Cmd
	id   string // node id
	base string // public URL
	logs *lineBuf
}

type lineBuf struct {
	mu    sync.Mutex
	lines []string
}

func (b *lineBuf) add(s string) {
	b.mu.Lock()
	b.lines = append(b.lines, s)
	b.mu.Unlock()
}

func (b *lineBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

var serveLine = regexp.MustCompile(`^cellhost serve: node (node_[0-9a-f]{32}) on (http://\S+) `)

// startServe starts `cellhost serve` with args and waits for its banner
// (printed once it serves). The process is killed at the end of the test.
func startServe(t *testing.T, bin string, args ...string) *serveNode {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--listen", "127.0.0.1:0", "--lease-ttl", fleetTTL.String()}, args...)...)
	cmd.Env = append(os.Environ(), "AWS_EC2_METADATA_DISABLED=true")
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	n := &serveNode{cmd: cmd, logs: &lineBuf{}}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			n.logs.add(sc.Text())
		}
	}()
	banner := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := serveLine.FindStringSubmatch(sc.Text()); m != nil {
				banner <- m
			}
			n.logs.add(sc.Text())
		}
		close(banner)
	}()
	select {
	case m, ok := <-banner:
		if !ok {
			_ = cmd.Wait()
			t.Fatalf("cellhost serve exited before serving:\n%s", n.logs)
		}
		n.id, n.base = m[1], m[2]
	case <-time.After(60 * time.Second):
		t.Fatalf("cellhost serve did not start within 60 s:\n%s", n.logs)
	}
	return n
}

// counterProject is examples/counter: /do/Counter/<name> increments,
// ?peek=1 reads; the worker's /?name=<name> reaches it through a stub.
func counterProject(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "examples", "counter"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type counterReply struct {
	N    int    `json:"n"`
	Name string `json:"name"`
}

// getCounter sends one request and returns the status and the decoded
// body (when 200).
func getCounter(client *http.Client, u string) (int, counterReply, string, error) {
	resp, err := client.Get(u)
	if err != nil {
		return 0, counterReply{}, "", err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r counterReply
	if resp.StatusCode == 200 {
		if err := json.Unmarshal(raw, &r); err != nil {
			return resp.StatusCode, r, string(raw), err
		}
	}
	return resp.StatusCode, r, string(raw), nil
}

// ownerOf reads own.json of Counter:<id of name> from the bucket.
func ownerOf(t *testing.T, store plugins.ObjectStore, name string) ownership.OwnRecord {
	t.Helper()
	scope := "Counter:" + counterID(name)
	body, _, err := store.Get(context.Background(), ownership.OwnKey(scope))
	if err != nil {
		t.Fatalf("read own.json of %s: %v", name, err)
	}
	rec, err := ownership.DecodeOwnRecord(ownership.OwnKey(scope), body)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func openBucket(t *testing.T, bucket string) plugins.ObjectStore {
	t.Helper()
	store, err := plugins.OpenStore(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// fleetBuckets runs f for the file bucket and, when the S3 server of
// .ci/run is there, for an S3 bucket.
func fleetBuckets(t *testing.T, f func(t *testing.T, bucket string)) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	t.Run("file", func(t *testing.T) { f(t, "file://"+filepath.Join(t.TempDir(), "bucket")) })
	s3 := os.Getenv("CELLHOST_TEST_S3")
	if s3 == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CELLHOST_TEST_S3 is not set: .ci/run must start the S3 server")
		}
		t.Log("no S3 server: start one with .ci/versitygw.sh start (CELLHOST_TEST_S3)")
		return
	}
	u, err := url.Parse(s3)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = fmt.Sprintf("/fleet-%d", time.Now().UnixNano())
	t.Run("s3", func(t *testing.T) { f(t, u.String()) })
}

// TestFleet_AnyNodeAnswers runs three nodes on one bucket and sends the
// increments of each object round-robin through all of them, half through
// /do/ (the edge) and half through the worker (a stub's fetch): every
// object counts 1, 2, 3, ... whichever node is asked, so exactly one node
// serves it, and own.json names one of the three.
func TestFleet_AnyNodeAnswers(t *testing.T) {
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := buildCellhost(t)
		dir, project := t.TempDir(), counterProject(t)
		var nodes []*serveNode
		for i := range 3 {
			nodes = append(nodes, startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, fmt.Sprint("n", i))))
		}
		ids := map[string]bool{}
		for _, n := range nodes {
			ids[n.id] = true
		}
		client := &http.Client{Timeout: 30 * time.Second}
		names := []string{"a", "b", "c", "d", "e"}
		for round := 1; round <= 6; round++ {
			for j, name := range names {
				n := nodes[(round+j)%len(nodes)]
				u := n.base + "/do/Counter/" + name
				if round%2 == 0 {
					u = n.base + "/?name=" + name
				}
				status, r, raw, err := getCounter(client, u)
				if err != nil || status != 200 {
					t.Fatalf("GET %s: %d %s %v\nlogs:\n%s", u, status, raw, err, n.logs)
				}
				if r.N != round || r.Name != name {
					t.Fatalf("GET %s = %+v, want n=%d: two nodes serve one object", u, r, round)
				}
			}
		}
		store := openBucket(t, bucket)
		owners := map[string]int{}
		for _, name := range names {
			rec := ownerOf(t, store, name)
			if !ids[rec.Node] {
				t.Errorf("own.json of %s names %q, not one of the nodes", name, rec.Node)
			}
			owners[rec.Node]++
		}
		t.Logf("owners: %v", owners)
	})
}

// counterID is the id of examples/counter's Counter named name.
func counterID(name string) string { return host.IDFromName("counter", "Counter", name) }
