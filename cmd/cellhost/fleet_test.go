package main

import (
	"bufio"
	"bytes"
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
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
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
	mu      sync.Mutex
	lines   []string
	changed chan struct{} // closed by add; made by waitFor
}

func (b *lineBuf) add(s string) {
	b.mu.Lock()
	b.lines = append(b.lines, s)
	if b.changed != nil {
		close(b.changed)
		b.changed = nil
	}
	b.mu.Unlock()
}

// waitFor waits until a line contains sub, at most d.
func (b *lineBuf) waitFor(sub string, d time.Duration) bool { return b.waitForN(sub, 1, d) }

// waitForN waits until n lines contain sub, at most d.
func (b *lineBuf) waitForN(sub string, n int, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	seen, found := 0, 0
	for {
		b.mu.Lock()
		for ; seen < len(b.lines); seen++ {
			if strings.Contains(b.lines[seen], sub) {
				found++
			}
		}
		if found >= n {
			b.mu.Unlock()
			return true
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		ch := b.changed
		b.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			return false
		}
	}
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
			// Logged before the banner is handed over: a test may read
			// the banner line from n.logs as soon as startServe returns.
			n.logs.add(sc.Text())
			if m := serveLine.FindStringSubmatch(sc.Text()); m != nil {
				banner <- m
			}
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
	return ownerOfScope(t, store, "Counter:"+counterID(name))
}

// ownerOfScope reads own.json of scope from the bucket.
func ownerOfScope(t *testing.T, store plugins.ObjectStore, scope string) ownership.OwnRecord {
	t.Helper()
	body, _, err := store.Get(context.Background(), bucketkey.OwnKey(scope))
	if err != nil {
		t.Fatalf("read own.json of %s: %v", scope, err)
	}
	rec, err := ownership.DecodeOwnRecord(bucketkey.OwnKey(scope), body)
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
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
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

		// diagnose lists the three and reaches each over the signed protocol.
		var stdout, stderr bytes.Buffer
		if code := run([]string{"diagnose", "--bucket", bucket}, &stdout, &stderr); code != 0 {
			t.Fatalf("diagnose: %s\n%s", stderr.String(), stdout.String())
		}
		for _, n := range nodes {
			if !strings.Contains(stdout.String(), "✓ "+n.id+" at ") {
				t.Errorf("diagnose does not say %s answers:\n%s", n.id, stdout.String())
			}
		}
		// Each running node reports its load: together they received the
		// 30 requests, their objects handled 30 events, and the 5 objects
		// are resident.
		loads := diagnoseLoad.FindAllStringSubmatch(stdout.String(), -1)
		if len(loads) != len(nodes) {
			t.Fatalf("diagnose printed %d load lines, want %d:\n%s", len(loads), len(nodes), stdout.String())
		}
		var resident, requests, events int
		for _, m := range loads {
			resident += atoi(t, m[1])
			requests += atoi(t, m[2])
			events += atoi(t, m[3])
		}
		if resident != len(names) || requests != 30 || events != 30 {
			t.Errorf("diagnose's loads sum to %d resident, %d requests, %d events; want %d, 30, 30:\n%s", resident, requests, events, len(names), stdout.String())
		}
	})
}

var diagnoseLoad = regexp.MustCompile(`load: (\d+) resident cells, \d+ WebSockets, [\d.]+ requests/s \((\d+) requests, (\d+) events\)`)

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// counterID is the id of examples/counter's Counter named name.
func counterID(name string) string { return host.IDFromName("counter", "Counter", name) }

func hostIDFromName(script, class, name string) string { return host.IDFromName(script, class, name) }

// TestFleet_KillOwner kills the owner of an object with SIGKILL in the
// middle of a stream of concurrent writes sent through the other nodes:
// the writes fail (503 while the dead owner's lease is live, 503 saying so
// for those in flight, which may or may not have applied) until a survivor takes the
// object over, then go on. Every acknowledged increment is in the final
// count, no value is acknowledged twice (one writer per epoch), and the
// count exceeds the acknowledged writes by at most the ambiguous ones.
func TestFleet_KillOwner(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), counterProject(t)
		var nodes []*serveNode
		for i := range 3 {
			nodes = append(nodes, startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, fmt.Sprint("n", i))))
		}
		client := &http.Client{Timeout: 30 * time.Second}
		// The node a request reaches first takes the object.
		if status, _, raw, err := getCounter(client, nodes[0].base+"/do/Counter/k"); err != nil || status != 200 {
			t.Fatalf("first request: %d %s %v", status, raw, err)
		}
		store := openBucket(t, bucket)
		if rec := ownerOf(t, store, "k"); rec.Node != nodes[0].id {
			t.Fatalf("own.json = %+v, want node 0 (%s)", rec, nodes[0].id)
		}

		const writers = 4
		var (
			mu        sync.Mutex
			acked     = []int{1}
			failed    = map[int]int{} // status -> count
			ambiguous int             // 503 "may or may not" and broken connections
			killedAt  time.Time
			after     time.Time
			fatal     error
		)
		deadline := time.Now().Add(90 * time.Second)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					mu.Lock()
					done := fatal != nil || (!killedAt.IsZero() && len(acked) >= 200) || time.Now().After(deadline)
					mu.Unlock()
					if done {
						return
					}
					n := nodes[1+(w+i)%2]
					status, r, raw, err := getCounter(client, n.base+"/do/Counter/k")
					mu.Lock()
					switch {
					case err != nil:
						ambiguous++
					case status == 200:
						acked = append(acked, r.N)
						if !killedAt.IsZero() && after.IsZero() {
							after = time.Now()
						}
					case status == 503 && strings.Contains(raw, host.MsgMaybeApplied):
						ambiguous++
						failed[status]++
					case status == 503:
						failed[status]++
					default:
						fatal = fmt.Errorf("GET via %s: %d %s", n.id, status, raw)
					}
					mu.Unlock()
					if status != 200 {
						time.Sleep(20 * time.Millisecond) // a client's back-off, not synchronisation
					}
				}
			}()
		}
		for {
			mu.Lock()
			n := len(acked)
			mu.Unlock()
			if n >= 80 || time.Now().After(deadline) {
				break
			}
			time.Sleep(10 * time.Millisecond) // polling the writers' progress
		}
		if err := nodes[0].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = nodes[0].cmd.Wait()
		mu.Lock()
		killedAt = time.Now()
		mu.Unlock()
		wg.Wait()
		if fatal != nil {
			t.Fatal(fatal)
		}
		if after.IsZero() {
			t.Fatalf("no write acknowledged within %v of the kill; failures %v\nnode 1:\n%s", deadline.Sub(killedAt), failed, nodes[1].logs)
		}
		seen := map[int]bool{}
		most := 0
		for _, n := range acked {
			if seen[n] {
				t.Errorf("n=%d acknowledged twice: two writers served one object", n)
			}
			seen[n] = true
			most = max(most, n)
		}
		rec := ownerOf(t, store, "k")
		if rec.Node != nodes[1].id && rec.Node != nodes[2].id || rec.Epoch < 2 {
			t.Errorf("own.json after the takeover = %+v, want a survivor at epoch >= 2", rec)
		}
		status, r, raw, err := getCounter(client, nodes[2].base+"/do/Counter/k?peek=1")
		if err != nil || status != 200 {
			t.Fatalf("peek: %d %s %v", status, raw, err)
		}
		if r.N < most {
			t.Errorf("final n=%d, but n=%d was acknowledged: an acknowledged write was lost", r.N, most)
		}
		if r.N > len(acked)+ambiguous {
			t.Errorf("final n=%d, but only %d writes were acknowledged and %d ambiguous", r.N, len(acked), ambiguous)
		}
		t.Logf("kill -9 of the owner -> next acknowledged write after %v (lease TTL %v); failures meanwhile: %v; %d writes acknowledged, %d ambiguous, final n=%d, owned by %s at epoch %d",
			after.Sub(killedAt).Round(time.Millisecond), fleetTTL, failed, len(acked), ambiguous, r.N, rec.Node, rec.Epoch)
	})
}

// TestFleet_GracefulHandover stops the owner of an object with SIGTERM: it
// releases the object and deletes its lease before it exits, so the first
// request to another node afterwards is served (no wait for the TTL) and
// counts on.
func TestFleet_GracefulHandover(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), counterProject(t)
		a := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "a"))
		b := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "b"))
		client := &http.Client{Timeout: 30 * time.Second}
		for i := 1; i <= 3; i++ {
			if status, r, raw, err := getCounter(client, a.base+"/do/Counter/h"); err != nil || status != 200 || r.N != i {
				t.Fatalf("request %d: %d %s %v", i, status, raw, err)
			}
		}
		store := openBucket(t, bucket)
		before := ownerOf(t, store, "h")
		if before.Node != a.id {
			t.Fatalf("own.json = %+v, want node a", before)
		}
		start := time.Now()
		if err := a.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := a.cmd.Wait(); err != nil {
			t.Fatalf("node a exited with %v\n%s", err, a.logs)
		}
		exited := time.Now()
		if _, _, err := store.Get(context.Background(), bucketkey.NodeKey(a.id)); err == nil {
			t.Errorf("node a's lease is still in the bucket after SIGTERM")
		}
		if rec := ownerOf(t, store, "h"); rec != (ownership.OwnRecord{Node: "", Epoch: before.Epoch}) {
			t.Errorf("own.json after SIGTERM = %+v, want released at epoch %d", rec, before.Epoch)
		}
		status, r, raw, err := getCounter(client, b.base+"/do/Counter/h")
		if err != nil || status != 200 || r.N != 4 {
			t.Fatalf("first request to b after a stopped: %d %s %v (want n=4 at once)", status, raw, err)
		}
		t.Logf("SIGTERM -> exit %v, exit -> first write acknowledged by the other node %v (TTL %v)",
			exited.Sub(start).Round(time.Millisecond), time.Since(exited).Round(time.Millisecond), fleetTTL)
	})
}
