package main

// The chaos suite (issue 31): real `cellhost serve` processes on one
// bucket (a file bucket, and an S3 bucket on a versitygw process of its
// own), concurrent clients recording every operation, a nemesis (kill -9,
// SIGSTOP past the lease TTL then SIGCONT, SIGTERM, and on S3 the S3
// server killed or paused), and a checker: no acknowledged write lost, no
// value acknowledged twice, every object's history linearizable
// (porcupine), no bare 500, no healthy node fenced, no node-cells marker
// left behind; and the availability targets, measured: after a kill -9
// or a SIGSTOP of a node, and after the S3 server returns, no request
// waits more than TTL + 2 s for its object to answer.
//
// Short form (go test, CI): about 25 s of faults per bucket. Long form,
// with its report written where CELLHOST_CHAOS_REPORT says:
//
//	bash .ci/chaos.sh            # 4 minutes per bucket, docs/chaos/report.md
//
// The short run asserts safety (no lost or duplicated acknowledgement,
// linearizable histories, no bare 500, no marker left) and reports the
// availability targets; the long run, or CELLHOST_CHAOS_STRICT=1, asserts
// them too: they are the suite's only timing assertions, as the issue
// asks, and are measured net of the machine (the allowance is TTL + 2 s
// plus the p99 latency of a request in the same run's fault-free warm-up;
// faults never overlap, the nemesis waits at least TTL + 3 s after healing
// one before the next) — on this 2-core machine shared by eight engineers
// they are still missed (docs/chaos/report.md), so CI cannot assert them.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// chaosConfig is one run's shape.
type chaosConfig struct {
	nodes, objects, clients int
	warmup, faults          time.Duration // fault-free start; then faults for this long
	ttl                     time.Duration
	long                    bool
	strict                  bool   // the availability targets fail the test (else they are reported)
	report                  string // where the report goes ("": the test log only)
}

func chaosConfigFromEnv() chaosConfig {
	c := chaosConfig{nodes: 3, objects: 20, clients: 8, warmup: 4 * time.Second, faults: 25 * time.Second, ttl: 2 * time.Second}
	if os.Getenv("CELLHOST_CHAOS") == "long" {
		c.objects, c.clients, c.faults, c.long = 50, 16, 4*time.Minute, true
	}
	if d, err := time.ParseDuration(os.Getenv("CELLHOST_CHAOS_FAULTS")); err == nil && d > 0 {
		c.faults = d
	}
	c.report = os.Getenv("CELLHOST_CHAOS_REPORT")
	c.strict = c.long || os.Getenv("CELLHOST_CHAOS_STRICT") == "1"
	return c
}

func TestChaos(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real serve processes under faults")
	}
	leaseTimed(t) // lease TTLs time its faults; its settings go to cmd.Env, not t.Setenv
	cfg := chaosConfigFromEnv()
	bin := os.Getenv("CELLHOST_CHAOS_BIN") // another build (the "before" column of a comparison)
	if bin == "" {
		bin = fleetBinary(t)
	}
	var reports []*chaosReport
	t.Run("file", func(t *testing.T) {
		r := runChaos(t, cfg, bin, nil, "file://"+filepath.Join(t.TempDir(), "bucket"))
		reports = append(reports, r)
	})
	t.Run("s3", func(t *testing.T) {
		gw := versitygwBinary(t)
		if gw == "" {
			return
		}
		srv := startChaosS3(t, gw)
		r := runChaos(t, cfg, bin, srv, srv.bucketURL())
		reports = append(reports, r)
	})
	if cfg.report != "" && len(reports) > 0 {
		if err := os.MkdirAll(filepath.Dir(cfg.report), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg.report, []byte(renderChaosReports(cfg, reports)), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("report written to %s", cfg.report)
	}
}

// versitygwBinary returns the pinned versitygw (.ci/versitygw.sh), or ""
// (the S3 run is skipped) when none is installed and none is wanted.
func versitygwBinary(t *testing.T) string {
	if p := os.Getenv("CELLHOST_VERSITYGW_BIN"); p != "" {
		return p
	}
	if os.Getenv("CELLHOST_TEST_S3") == "" && os.Getenv("CELLHOST_CHAOS") == "" {
		t.Log("no S3 server here (CELLHOST_TEST_S3 unset): the S3 chaos run is skipped; .ci/run and .ci/chaos.sh run it")
		return ""
	}
	out, err := exec.Command("bash", filepath.Join("..", "..", ".ci", "versitygw.sh"), "install").Output()
	if err != nil {
		t.Fatalf(".ci/versitygw.sh install: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// ---- processes ----

// chaosLog is the timestamped output of every process of one node.
type chaosLog struct {
	mu    sync.Mutex
	lines []chaosLine
}

type chaosLine struct {
	at   time.Time
	text string
}

func (l *chaosLog) add(s string) {
	l.mu.Lock()
	l.lines = append(l.lines, chaosLine{time.Now(), s})
	l.mu.Unlock()
}

func (l *chaosLog) matching(sub string) []chaosLine {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []chaosLine
	for _, ln := range l.lines {
		if strings.Contains(ln.text, sub) {
			out = append(out, ln)
		}
	}
	return out
}

// around returns the lines logged between from - 1 s and to + 1 s that
// contain one of subs (all with none).
func (l *chaosLog) around(from, to time.Time, subs ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, ln := range l.lines {
		match := len(subs) == 0
		for _, sub := range subs {
			match = match || strings.Contains(ln.text, sub)
		}
		if match && ln.at.After(from.Add(-time.Second)) && ln.at.Before(to.Add(time.Second)) {
			fmt.Fprintf(&b, "%s %s\n", ln.at.Format("15:04:05.000"), ln.text)
		}
	}
	return b.String()
}

func (l *chaosLog) tail(n int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, ln := range l.lines[max(0, len(l.lines)-n):] {
		fmt.Fprintf(&b, "%s %s\n", ln.at.Format("15:04:05.000"), ln.text)
	}
	return b.String()
}

// chaosNode is one node: a `cellhost serve` process, restarted on the same
// state directory (so the same node id) after the nemesis stops it.
type chaosNode struct {
	i    int
	bin  string
	args []string
	env  []string
	logs *chaosLog

	mu    sync.Mutex
	cmd   *exec.Cmd
	exit  chan struct{} // closed when cmd exited
	id    string
	base  string
	alive bool // serving and not paused: clients may use it
}

func (n *chaosNode) start() error {
	cmd := exec.Command(n.bin, n.args...)
	cmd.Env = append(os.Environ(), n.env...)
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		return err
	}
	exit := make(chan struct{})
	banner := make(chan []string, 1)
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			n.logs.add(sc.Text())
		}
	}()
	go func() {
		defer readers.Done()
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		sent := false
		for sc.Scan() {
			if m := serveLine.FindStringSubmatch(sc.Text()); m != nil && !sent {
				banner <- m
				sent = true
			}
			n.logs.add(sc.Text())
		}
		if !sent {
			close(banner)
		}
	}()
	go func() { readers.Wait(); _ = cmd.Wait(); close(exit) }()
	select {
	case m, ok := <-banner:
		if !ok {
			<-exit
			return fmt.Errorf("node %d exited before serving:\n%s", n.i, n.logs.tail(30))
		}
		n.mu.Lock()
		n.cmd, n.exit, n.id, n.base, n.alive = cmd, exit, m[1], m[2], true
		n.mu.Unlock()
		return nil
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-exit
		return fmt.Errorf("node %d did not serve within 90 s:\n%s", n.i, n.logs.tail(30))
	}
}

// signal sends sig to the running process.
func (n *chaosNode) signal(sig syscall.Signal) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd != nil {
		_ = n.cmd.Process.Signal(sig)
	}
}

func (n *chaosNode) setAlive(v bool) {
	n.mu.Lock()
	n.alive = v
	n.mu.Unlock()
}

// waitExit waits up to d for the process to exit (then kills it).
func (n *chaosNode) waitExit(d time.Duration) {
	n.mu.Lock()
	exit := n.exit
	n.mu.Unlock()
	if exit == nil {
		return
	}
	select {
	case <-exit:
	case <-time.After(d):
		n.signal(syscall.SIGCONT)
		n.signal(syscall.SIGKILL)
		<-exit
	}
}

func (n *chaosNode) url() (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.base, n.alive
}

// chaosS3 is a versitygw process of the run's own, so that the nemesis
// can kill and pause it; restarted on the same port and directory.
type chaosS3 struct {
	bin, dir, addr, access, secret string

	mu   sync.Mutex
	cmd  *exec.Cmd
	exit chan struct{}
}

const chaosS3Bucket = "chaos"

func startChaosS3(t *testing.T, bin string) *chaosS3 {
	t.Helper()
	s := &chaosS3{bin: bin, dir: t.TempDir(), access: "chaos" + strconv.Itoa(rand.IntN(1e6)), secret: fmt.Sprintf("%x", rand.Uint64())}
	if err := os.Mkdir(filepath.Join(s.dir, "root"), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	ln.Close()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.signal(syscall.SIGCONT); s.signal(syscall.SIGKILL); s.wait() })
	cl := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://" + s.addr), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.access, s.secret, ""),
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cl.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(chaosS3Bucket)}); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	return s
}

func (s *chaosS3) start() error {
	cmd := exec.Command(s.bin, "--port", s.addr, "--region", "us-east-1", "--quiet", "--keep-alive", "--health", "/health", "posix", filepath.Join(s.dir, "root"))
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.access, "ROOT_SECRET_KEY="+s.secret)
	logf, err := os.OpenFile(filepath.Join(s.dir, "versitygw.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	exit := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exit) }()
	s.mu.Lock()
	s.cmd, s.exit = cmd, exit
	s.mu.Unlock()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := client.Get("http://" + s.addr + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-exit:
			return errors.New("versitygw exited at start (port taken?)")
		case <-time.After(50 * time.Millisecond): // polling the server's health
		}
	}
	return errors.New("versitygw did not become healthy within 30 s")
}

func (s *chaosS3) signal(sig syscall.Signal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(sig)
	}
}

func (s *chaosS3) wait() {
	s.mu.Lock()
	exit := s.exit
	s.mu.Unlock()
	if exit != nil {
		<-exit
	}
}

func (s *chaosS3) bucketURL() string {
	return "s3://" + chaosS3Bucket + "/run?endpoint=http://" + s.addr + "&region=us-east-1&path_style=true"
}

func (s *chaosS3) env() []string {
	return []string{"AWS_ACCESS_KEY_ID=" + s.access, "AWS_SECRET_ACCESS_KEY=" + s.secret, "AWS_SESSION_TOKEN=", "AWS_EC2_METADATA_DISABLED=true"}
}

// ---- operations ----

type outcome int

const (
	opOK      outcome = iota // acknowledged, with its value
	opFail                   // definitely not applied (refused, never sent)
	opUnknown                // may or may not have been applied
)

// chaosOp is one client operation as recorded.
type chaosOp struct {
	client, obj int
	inc         bool // an increment; else a read (?peek=1)
	call, ret   time.Time
	via         int
	status      int
	n           int // the value (opOK)
	out         outcome
	bare500     bool
	detail      string
}

func chaosObject(i int) string { return fmt.Sprintf("o%03d", i) }

// explainWait describes a request's wait for its object, for a missed
// availability target: the object, when the request was sent (relative to
// the fault) and what the object's requests sent until the answer got,
// through which node (a node that keeps refusing, or timeouts through
// every node, point at different causes).
func explainWait(list []chaosOp, obj int, call, answered, fault time.Time) string {
	counts := map[string]int{}
	var keys []string
	for _, op := range list {
		if op.call.After(answered) {
			break
		}
		k := fmt.Sprintf("via node %d: %d", op.via, op.status)
		if op.status == 0 {
			k = fmt.Sprintf("via node %d: no answer", op.via)
		}
		if counts[k] == 0 {
			keys = append(keys, k)
		}
		counts[k]++
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s x%d", k, counts[k])
	}
	return fmt.Sprintf("%s, sent %v after the fault; its requests until the answer: %s", chaosObject(obj), call.Sub(fault).Round(time.Millisecond), strings.Join(parts, ", "))
}

// classify turns an answer into an outcome. A 503 without the "may or may
// not" sentence is a refusal before anything ran (fenced, owner
// unreachable before sending, owned elsewhere).
func classify(op *chaosOp, status int, body string, err error) {
	switch {
	case err != nil:
		var op2 *net.OpError
		if errors.As(err, &op2) && op2.Op == "dial" {
			op.out, op.detail = opFail, "dial: "+err.Error()
			return
		}
		op.out, op.detail = opUnknown, err.Error()
	case status == 200:
		var r counterReply
		if jerr := json.Unmarshal([]byte(body), &r); jerr != nil {
			op.out, op.detail = opUnknown, "bad body: "+body
			return
		}
		op.out, op.n = opOK, r.N
	case status == 503 && strings.Contains(body, host.MsgMaybeApplied),
		strings.Contains(body, "may or may not have been applied"), status == 502:
		// (The last two: earlier builds' wording and status, for a
		// comparison run with CELLHOST_CHAOS_BIN.)
		op.out, op.detail = opUnknown, body
	case status == 503:
		op.out, op.detail = opFail, body
	default:
		op.out, op.detail = opUnknown, fmt.Sprintf("%d %s", status, body)
		op.bare500 = status == 500
	}
	op.status = status
}

// ---- the run ----

type chaosEvent struct {
	kind      string // kill, stop, term, s3kill, s3stop
	node      int
	at        time.Time // the fault
	healed    time.Time // the node restarted/resumed, or the S3 server is back
	measureAt time.Time // recovery is measured from here
	until     time.Time // the next event (or the end)
}

type chaosReport struct {
	bucket            string
	cfg               chaosConfig
	ops               []chaosOp
	events            []chaosEvent
	ok, fail, unknown int
	bare500           int
	lost, dup         int
	linIllegal        int
	linUnknown        int
	baseP99           time.Duration
	recovery          map[string][]time.Duration // per fault kind: max over objects, per event
	unrecovered       map[string]int
	healthyFences     []string
	// targetMissed are the availability targets missed (recovery times,
	// healthy fences): failures in a strict run (the long one, or
	// CELLHOST_CHAOS_STRICT=1), reported in the short one.
	targetMissed     []string
	stalledFences    int // file bucket: fences while another node, paused, held the bucket's lock
	markersLeft      int
	markersAfterStop int
	// leftAfterStop are the lease records (nodes/), and on a file bucket
	// the files of .cellhost-leases, left after every node stopped.
	leftAfterStop []string
	fileBucket    string // a file bucket's directory ("" on S3)
	problems      []string
}

func runChaos(t *testing.T, cfg chaosConfig, bin string, s3srv *chaosS3, bucket string) *chaosReport {
	dir, project := t.TempDir(), counterProject(t)
	var env []string
	if s3srv != nil {
		env = s3srv.env()
	}
	nodes := make([]*chaosNode, cfg.nodes)
	for i := range nodes {
		nodes[i] = &chaosNode{i: i, bin: bin, env: env, logs: &chaosLog{},
			args: []string{"serve", project, "--listen", "127.0.0.1:0", "--lease-ttl", cfg.ttl.String(),
				"--bucket", bucket, "--state", filepath.Join(dir, fmt.Sprint("n", i))}}
		if err := nodes[i].start(); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			n.signal(syscall.SIGCONT)
			n.signal(syscall.SIGKILL)
			n.waitExit(10 * time.Second)
		}
	})

	store, err := s3srv.openStore(bucket) // the nodes get the credentials in their cmd.Env
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// busiest is the node that owns the most objects now (own.json), the
	// target of a node fault: "the owner" of the targets.
	busiest := func(rng *rand.Rand) *chaosNode {
		count := map[string]int{}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for obj := range cfg.objects {
			scope := "Counter:" + counterID(chaosObject(obj))
			if body, _, err := store.Get(ctx, bucketkey.OwnKey(scope)); err == nil {
				if rec, err := ownership.DecodeOwnRecord(bucketkey.OwnKey(scope), body); err == nil {
					count[rec.Node]++
				}
			}
		}
		best := nodes[rng.IntN(len(nodes))]
		for _, n := range nodes {
			n.mu.Lock()
			id := n.id
			n.mu.Unlock()
			best.mu.Lock()
			bid := best.id
			best.mu.Unlock()
			if count[id] > count[bid] {
				best = n
			}
		}
		return best
	}
	rep := &chaosReport{bucket: strings.SplitN(bucket, ":", 2)[0], cfg: cfg, recovery: map[string][]time.Duration{}, unrecovered: map[string]int{}}
	rep.fileBucket, _ = strings.CutPrefix(bucket, "file://")
	if rep.fileBucket == bucket {
		rep.fileBucket = ""
	}
	var (
		opsMu sync.Mutex
		ops   []chaosOp
		stop  atomic.Bool
		wg    sync.WaitGroup
	)
	start := time.Now()
	for c := range cfg.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr, Timeout: 20 * time.Second}
			rng := rand.New(rand.NewPCG(uint64(c), uint64(start.UnixNano())))
			for !stop.Load() {
				via := rng.IntN(len(nodes))
				base, alive := nodes[via].url()
				if !alive {
					time.Sleep(5 * time.Millisecond) // a load balancer's health check: route around a node known down
					continue
				}
				op := chaosOp{client: c, obj: rng.IntN(cfg.objects), inc: rng.IntN(100) < 85, via: via}
				u := base + "/do/Counter/" + chaosObject(op.obj)
				method := http.MethodPost // never retried by net/http: an increment is not idempotent
				if !op.inc {
					u += "?peek=1"
					method = http.MethodGet
				}
				req, _ := http.NewRequest(method, u, nil)
				op.call = time.Now()
				resp, err := client.Do(req)
				var body []byte
				status := 0
				if err == nil {
					body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<16))
					status = resp.StatusCode
					resp.Body.Close()
				}
				op.ret = time.Now()
				classify(&op, status, string(body), err)
				opsMu.Lock()
				ops = append(ops, op)
				opsMu.Unlock()
			}
		}()
	}

	// Warm-up: no faults; its latencies are the machine's baseline.
	time.Sleep(cfg.warmup) // the warm-up's length is the test's design, not synchronisation
	opsMu.Lock()
	var lat []time.Duration
	for _, op := range ops {
		if op.out == opOK {
			lat = append(lat, op.ret.Sub(op.call))
		}
	}
	opsMu.Unlock()
	if len(lat) == 0 {
		t.Fatalf("no operation succeeded in the %v warm-up:\n%s", cfg.warmup, nodes[0].logs.tail(40))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	rep.baseP99 = lat[len(lat)*99/100]

	// The nemesis: one fault at a time; after healing, a quiet period of
	// 2-5 s and at least TTL + 3 s, so that recoveries do not overlap.
	kinds := []string{"kill", "stop", "term"}
	if s3srv != nil {
		kinds = []string{"kill", "s3kill", "stop", "s3stop", "term"}
	}
	rng := rand.New(rand.NewPCG(1, uint64(start.UnixNano())))
	end := time.Now().Add(cfg.faults)
	k := 0
	for time.Now().Before(end) {
		kind := kinds[k%len(kinds)] // every kind in turn, the node at random
		k++
		ev := chaosEvent{kind: kind, node: -1}
		switch kind {
		case "kill", "stop", "term":
			n := busiest(rng)
			ev.node = n.i
			n.setAlive(false)
			ev.at = time.Now()
			switch kind {
			case "kill":
				n.signal(syscall.SIGKILL)
				n.waitExit(10 * time.Second)
				time.Sleep(time.Duration(500+rng.IntN(3500)) * time.Millisecond) // the fault's length
				if err := n.start(); err != nil {
					t.Fatal(err)
				}
			case "stop":
				n.signal(syscall.SIGSTOP)
				time.Sleep(time.Duration(float64(cfg.ttl) * (2 + 2*rng.Float64()))) // 2-4 TTLs
				n.signal(syscall.SIGCONT)
				n.setAlive(true)
			case "term":
				n.signal(syscall.SIGTERM)
				n.waitExit(30 * time.Second)
				if err := n.start(); err != nil {
					t.Fatal(err)
				}
			}
			ev.healed = time.Now()
			ev.measureAt = ev.at
		case "s3kill":
			ev.at = time.Now()
			s3srv.signal(syscall.SIGKILL)
			s3srv.wait()
			time.Sleep(time.Duration(1000+rng.IntN(2000)) * time.Millisecond) // the outage's length
			if err := s3srv.start(); err != nil {
				t.Fatal(err)
			}
			ev.healed = time.Now()
			ev.measureAt = ev.healed
		case "s3stop":
			ev.at = time.Now()
			s3srv.signal(syscall.SIGSTOP)
			time.Sleep(time.Duration(float64(cfg.ttl) * (1 + rng.Float64()))) // 1-2 TTLs
			s3srv.signal(syscall.SIGCONT)
			ev.healed = time.Now()
			ev.measureAt = ev.healed
		}
		rep.events = append(rep.events, ev)
		quiet := max(time.Duration(2000+rng.IntN(3000))*time.Millisecond, cfg.ttl+3*time.Second)
		time.Sleep(quiet) // the nemesis's schedule
	}
	// Let the last recovery be measured, then stop the clients.
	time.Sleep(cfg.ttl + 3*time.Second) // the nemesis's schedule
	stop.Store(true)
	wg.Wait()
	finished := time.Now()
	for i := range rep.events {
		if i+1 < len(rep.events) {
			rep.events[i].until = rep.events[i+1].at
		} else {
			rep.events[i].until = finished
		}
	}

	// Final reads, through the first node, recorded like any operation.
	client := &http.Client{Timeout: 30 * time.Second}
	for obj := range cfg.objects {
		var op chaosOp
		for attempt := 0; attempt < 20; attempt++ {
			base, _ := nodes[0].url()
			op = chaosOp{client: cfg.clients, obj: obj, via: 0, call: time.Now()}
			status, r, raw, err := getCounter(client, base+"/do/Counter/"+chaosObject(obj)+"?peek=1")
			op.ret = time.Now()
			classify(&op, status, raw, err)
			if op.out == opOK {
				op.n = r.N
				break
			}
			time.Sleep(200 * time.Millisecond) // a client's back-off before the final read is tried again
		}
		if op.out != opOK {
			t.Errorf("final read of %s failed: %s", chaosObject(obj), op.detail)
		}
		ops = append(ops, op)
	}
	rep.ops = ops
	if dir := os.Getenv("CELLHOST_CHAOS_LOGS"); dir != "" { // every node's log, timestamped, for a post-mortem
		_ = os.MkdirAll(dir, 0o755)
		for _, n := range nodes {
			n.logs.mu.Lock()
			var b strings.Builder
			for _, ln := range n.logs.lines {
				fmt.Fprintf(&b, "%s %s\n", ln.at.Format("15:04:05.000"), ln.text)
			}
			n.logs.mu.Unlock()
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-node%d.log", rep.bucket, n.i)), []byte(b.String()), 0o644)
		}
		var b strings.Builder
		for _, ev := range rep.events {
			fmt.Fprintf(&b, "%s %s node %d healed %s\n", ev.at.Format("15:04:05.000"), ev.kind, ev.node, ev.healed.Format("15:04:05.000"))
		}
		_ = os.WriteFile(filepath.Join(dir, rep.bucket+"-events.log"), []byte(b.String()), 0o644)
		// Every operation (call, return, object, node, answer), so that a
		// slow recovery can be traced to its requests in the node logs.
		b.Reset()
		sorted := append([]chaosOp(nil), ops...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i].call.Before(sorted[j].call) })
		for _, op := range sorted {
			kind := "read"
			if op.inc {
				kind = "inc"
			}
			fmt.Fprintf(&b, "%s %s %s via node %d: %d outcome %d n=%d took %v %.200s\n", op.call.Format("15:04:05.000"), chaosObject(op.obj), kind, op.via, op.status, op.out, op.n, op.ret.Sub(op.call).Round(time.Millisecond), op.detail)
		}
		_ = os.WriteFile(filepath.Join(dir, rep.bucket+"-ops.log"), []byte(b.String()), 0o644)
	}
	checkChaos(t, rep, nodes)
	checkMarkers(t, rep, nodes, store)
	t.Log("\n" + renderChaosReport(rep))
	for _, p := range rep.problems {
		t.Error(p)
	}
	for _, p := range rep.targetMissed {
		if cfg.strict {
			t.Error(p)
		} else {
			t.Log("availability target missed (asserted in the long run): " + p)
		}
	}
	return rep
}

// ---- checks ----

type counterInput struct{ inc bool }

type counterOutput struct {
	known bool
	n     int
}

// counterModel is one object's counter: an increment answers the new
// value, a read the current one; an increment with an unknown outcome may
// take effect anywhere after its call (its return is the end of time),
// which also covers "never": it can be linearized last.
var counterModel = porcupine.Model{
	Partition: func(h []porcupine.Operation) [][]porcupine.Operation {
		by := map[int][]porcupine.Operation{}
		var keys []int
		for _, op := range h {
			obj := op.Metadata.(int)
			if _, ok := by[obj]; !ok {
				keys = append(keys, obj)
			}
			by[obj] = append(by[obj], op)
		}
		sort.Ints(keys)
		out := make([][]porcupine.Operation, 0, len(keys))
		for _, k := range keys {
			out = append(out, by[k])
		}
		return out
	},
	Init: func() any { return 0 },
	Step: func(state, input, output any) (bool, any) {
		n, in, out := state.(int), input.(counterInput), output.(counterOutput)
		if in.inc {
			return !out.known || out.n == n+1, n + 1
		}
		return out.n == n, n
	},
	DescribeOperation: func(input, output any) string {
		in, out := input.(counterInput), output.(counterOutput)
		v := "?"
		if out.known {
			v = strconv.Itoa(out.n)
		}
		if in.inc {
			return "inc -> " + v
		}
		return "read -> " + v
	},
}

func checkChaos(t *testing.T, rep *chaosReport, nodes []*chaosNode) {
	cfg := rep.cfg
	acked := map[int]map[int]int{} // obj -> value -> times acknowledged by an increment
	final := map[int]int{}
	var hist []porcupine.Operation
	t0 := rep.ops[0].call
	for _, op := range rep.ops {
		t0 = minTime(t0, op.call)
	}
	for _, op := range rep.ops {
		switch op.out {
		case opOK:
			rep.ok++
		case opFail:
			rep.fail++
		case opUnknown:
			rep.unknown++
		}
		if op.bare500 {
			rep.bare500++
		}
		if op.out == opOK && op.inc {
			if acked[op.obj] == nil {
				acked[op.obj] = map[int]int{}
			}
			acked[op.obj][op.n]++
		}
		if op.client == cfg.clients && op.out == opOK {
			final[op.obj] = op.n
		}
		if op.out == opFail || (op.out == opUnknown && !op.inc) {
			continue // refused, or a read that told nothing
		}
		p := porcupine.Operation{ClientId: op.client, Input: counterInput{op.inc}, Call: op.call.Sub(t0).Nanoseconds(),
			Return: op.ret.Sub(t0).Nanoseconds(), Output: counterOutput{op.out == opOK, op.n}, Metadata: op.obj}
		if op.out == opUnknown {
			p.Return = math.MaxInt64
		}
		hist = append(hist, p)
	}
	for obj, vals := range acked {
		for v, times := range vals {
			if times > 1 {
				rep.dup++
				rep.problems = append(rep.problems, fmt.Sprintf("%s: n=%d acknowledged %d times", chaosObject(obj), v, times))
			}
			if f, ok := final[obj]; ok && v > f {
				rep.lost++
				rep.problems = append(rep.problems, fmt.Sprintf("%s: n=%d acknowledged, final n=%d: an acknowledged write was lost", chaosObject(obj), v, f))
			}
		}
	}
	if rep.bare500 > 0 {
		var ex []string
		for _, op := range rep.ops {
			if op.bare500 && len(ex) < 3 {
				ex = append(ex, fmt.Sprintf("%s via node %d at %s: %s", chaosObject(op.obj), op.via, op.call.Format("15:04:05.000"), op.detail))
			}
		}
		rep.problems = append(rep.problems, fmt.Sprintf("%d answers were a bare 500, e.g. %s", rep.bare500, strings.Join(ex, "; ")))
		for _, op := range rep.ops {
			if op.bare500 {
				t.Logf("node %d's errors around the first bare 500:\n%s", op.via, nodes[op.via].logs.around(op.call, op.ret, "Uncaught", "internal error"))
				break
			}
		}
	}
	// Linearizability, one object at a time (so that a slow one is
	// reported as such and not the whole history).
	for _, part := range counterModel.Partition(hist) {
		res := porcupine.CheckOperationsTimeout(porcupine.Model{Init: counterModel.Init, Step: counterModel.Step}, part, 60*time.Second)
		switch res {
		case porcupine.Illegal:
			rep.linIllegal++
			obj := part[0].Metadata.(int)
			rep.problems = append(rep.problems, fmt.Sprintf("%s: history not linearizable (%d operations)%s", chaosObject(obj), len(part), explainIllegal(rep.ops, obj, t0)))
		case porcupine.Unknown:
			rep.linUnknown++
		}
	}

	// Availability: after each fault (from the fault for a node, from its
	// return for the S3 server), every operation sent waits for its
	// object to answer: from its call to the return of the first
	// acknowledged operation on that object called at or after it. The
	// worst wait is the fault's recovery time. (Measured per request, not
	// from the fault to an object's next answer, which would count the
	// time no client happened to ask for it: closed-loop clients are busy
	// with other objects.)
	allowance := cfg.ttl + 2*time.Second + rep.baseP99
	byObj := map[int][]chaosOp{}
	for _, op := range rep.ops {
		if op.client != cfg.clients {
			byObj[op.obj] = append(byObj[op.obj], op)
		}
	}
	for _, list := range byObj {
		sort.Slice(list, func(i, j int) bool { return list[i].call.Before(list[j].call) })
	}
	for _, ev := range rep.events {
		worst := time.Duration(0)
		var why string // the worst wait's object and what its requests got meanwhile
		for obj, list := range byObj {
			for i, op := range list {
				if op.call.Before(ev.measureAt) || !op.call.Before(ev.until) {
					continue
				}
				var answered time.Time
				for _, later := range list[i:] {
					if later.out == opOK && (answered.IsZero() || later.ret.Before(answered)) {
						answered = later.ret
					}
					if !answered.IsZero() && later.call.After(answered) {
						break
					}
				}
				// A wait is measured up to the next fault at most: a
				// request sent just before it (the nemesis's next kill)
				// and answered late measures that fault, not this one
				// (it did: the worst waits of a whole run were requests
				// called under 50 ms before the next fault). A request
				// still waiting at the next fault counts as waiting
				// until then, which is past the target when it was sent
				// more than the allowance earlier.
				if answered.IsZero() || answered.After(ev.until) {
					if ev.until.Sub(op.call) > allowance {
						rep.unrecovered[ev.kind]++
					}
					answered = ev.until
				}
				if w := answered.Sub(op.call); w > worst {
					worst = w
					why = explainWait(list[i:], obj, op.call, answered, ev.at)
				}
			}
		}
		rep.recovery[ev.kind] = append(rep.recovery[ev.kind], worst)
		// The file bucket's SIGSTOP is reported, not asserted: a node
		// paused inside a bucket transaction stalls every node's writes.
		asserted := ev.kind != "term" && !(rep.bucket == "file" && ev.kind == "stop")
		if asserted && worst > allowance {
			rep.targetMissed = append(rep.targetMissed, fmt.Sprintf("after %s of node %d at %s a request waited %v for its object to answer (target TTL + 2 s + warm-up p99 = %v): %s",
				ev.kind, ev.node, ev.at.Format("15:04:05.000"), worst.Round(time.Millisecond), allowance.Round(time.Millisecond), why))
		}
	}

	// Healthy fences: a node fenced for lack of renewals while it was not
	// paused and the bucket was up (for the lease TTL before). On the
	// file bucket a node paused inside a bucket transaction holds the
	// bucket's SQLite write lock, and every node's writes wait for it:
	// fences of other nodes during such a pause are counted apart
	// (stalledFences; docs/architecture.md, "The file bucket and a paused
	// process").
	for _, n := range nodes {
		for _, ln := range n.logs.matching("ownership: node ") {
			if !strings.Contains(ln.text, "fenced: no lease renewal landed in time") {
				continue
			}
			healthy := true
			for _, ev := range rep.events {
				from, to := ev.at.Add(-time.Second), ev.healed.Add(cfg.ttl+time.Second)
				if !ln.at.After(from) || !ln.at.Before(to) {
					continue
				}
				switch {
				case ev.node == n.i || ev.node < 0:
					healthy = false
				case rep.bucket == "file" && ev.kind == "stop":
					healthy = false
					rep.stalledFences++
				}
			}
			if healthy {
				rep.healthyFences = append(rep.healthyFences, fmt.Sprintf("node %d at %s: %s; its lease lines before:\n%s", n.i, ln.at.Format("15:04:05.000"), ln.text,
					n.logs.around(ln.at.Add(-2*cfg.ttl), ln.at, "ownership:", "lease", "rejoin")))
			}
		}
	}
	for _, f := range rep.healthyFences {
		rep.targetMissed = append(rep.targetMissed, "a healthy node fenced: "+f)
	}
}

// checkMarkers: with every node up, the markers of generations that are
// over are collected (waiting up to 60 s for the waker's passes); after a
// graceful stop of every node, no marker is left at all.
func checkMarkers(t *testing.T, rep *chaosReport, nodes []*chaosNode, store plugins.ObjectStore) {
	stale := func() (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		keys, err := listAll(ctx, store, bucketkey.MarkersPrefix)
		if err != nil {
			return 0, err
		}
		gens := map[string]string{}
		n := 0
		for _, k := range keys {
			m, err := bucketkey.ParseMarkerKey(k)
			if err != nil {
				continue
			}
			gen, ok := gens[m.Node]
			if !ok {
				body, _, err := store.Get(ctx, bucketkey.NodeKey(m.Node))
				if err == nil {
					if rec, err := ownership.DecodeNodeRecord(bucketkey.NodeKey(m.Node), body); err == nil {
						gen = rec.OwnershipIndexGeneration
					}
				}
				gens[m.Node] = gen
			}
			if gen != m.Generation {
				n++
			}
		}
		return n, nil
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		n, err := stale()
		if err == nil && n == 0 || time.Now().After(deadline) {
			rep.markersLeft = n
			if err != nil {
				rep.problems = append(rep.problems, "list markers: "+err.Error())
			}
			break
		}
		time.Sleep(500 * time.Millisecond) // polling the bucket for the waker's passes
	}
	if rep.markersLeft > 0 {
		rep.problems = append(rep.problems, fmt.Sprintf("%d markers of old generations left after 60 s", rep.markersLeft))
	}
	for _, n := range nodes {
		n.setAlive(false)
		n.signal(syscall.SIGTERM)
	}
	for _, n := range nodes {
		n.waitExit(30 * time.Second)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys, err := listAll(ctx, store, bucketkey.MarkersPrefix)
	if err != nil {
		rep.problems = append(rep.problems, "list markers: "+err.Error())
	}
	rep.markersAfterStop = len(keys)
	if len(keys) > 0 {
		rep.problems = append(rep.problems, fmt.Sprintf("%d markers left after every node stopped, e.g. %s", len(keys), keys[0]))
	}
	// Nothing else of the nodes is left either: every node deleted its
	// lease when it stopped (a killed one's was taken back by its restart),
	// and a file bucket keeps no file for a lease that is gone.
	leases, err := listAll(ctx, store, "nodes/")
	if err != nil {
		rep.problems = append(rep.problems, "list leases: "+err.Error())
	}
	rep.leftAfterStop = append(rep.leftAfterStop, leases...)
	if rep.fileBucket != "" {
		entries, err := os.ReadDir(filepath.Join(rep.fileBucket, ".cellhost-leases"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			rep.problems = append(rep.problems, "read the lease directory: "+err.Error())
		}
		for _, e := range entries {
			rep.leftAfterStop = append(rep.leftAfterStop, ".cellhost-leases/"+e.Name())
		}
	}
	if len(rep.leftAfterStop) > 0 {
		rep.problems = append(rep.problems, fmt.Sprintf("%d lease records or files left after every node stopped: %s", len(rep.leftAfterStop), strings.Join(rep.leftAfterStop, ", ")))
	}
}

// explainIllegal lists what makes obj's history suspicious: reads older
// than an increment acknowledged before they were sent, increments
// acknowledged out of order, and the refused or undecided operations in
// between.
func explainIllegal(ops []chaosOp, obj int, t0 time.Time) string {
	var mine []chaosOp
	for _, op := range ops {
		if op.obj == obj {
			mine = append(mine, op)
		}
	}
	sort.Slice(mine, func(i, j int) bool { return mine[i].call.Before(mine[j].call) })
	var b strings.Builder
	best, bestAt := 0, time.Time{}
	lines := 0
	for _, op := range mine {
		if op.out == opOK && !op.call.Before(bestAt) && op.n < best && lines < 12 {
			kind := "read"
			if op.inc {
				kind = "inc"
			}
			fmt.Fprintf(&b, "\n    %s via %d [%s, %s] -> %d, but %d was acknowledged at %s",
				kind, op.via, op.call.Format("15:04:05.000"), op.ret.Format("15:04:05.000"), op.n, best, bestAt.Format("15:04:05.000"))
			lines++
		}
		if op.out != opOK && lines < 12 {
			fmt.Fprintf(&b, "\n    %s inc=%v via %d [%s, %s]: %s", [...]string{"ok", "refused", "undecided"}[op.out], op.inc, op.via, op.call.Format("15:04:05.000"), op.ret.Format("15:04:05.000"), op.detail)
			lines++
		}
		if op.out == opOK && op.n > best {
			best, bestAt = op.n, op.ret
		}
	}
	return b.String()
}

func listAll(ctx context.Context, store plugins.ObjectStore, prefix string) ([]string, error) {
	var keys []string
	after := ""
	for {
		page, err := store.List(ctx, prefix, after, 0)
		if err != nil {
			return nil, err
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			return keys, nil
		}
		after = page.NextStartAfter
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// ---- the report ----

func renderChaosReport(r *chaosReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s bucket\n\n", r.bucket)
	fmt.Fprintf(&b, "%d nodes, %d objects, %d clients, lease TTL %v, %v of faults after a %v warm-up (warm-up p99 latency %v).\n\n",
		r.cfg.nodes, r.cfg.objects, r.cfg.clients, r.cfg.ttl, r.cfg.faults, r.cfg.warmup, r.baseP99.Round(time.Millisecond))
	fmt.Fprintf(&b, "| check | result |\n|---|---|\n")
	fmt.Fprintf(&b, "| operations | %d: %d acknowledged, %d refused (not applied), %d may or may not have been applied |\n", len(r.ops), r.ok, r.fail, r.unknown)
	fmt.Fprintf(&b, "| acknowledged writes lost | %d |\n| values acknowledged twice | %d |\n", r.lost, r.dup)
	fmt.Fprintf(&b, "| objects not linearizable (porcupine) | %d (%d undecided within 60 s) |\n", r.linIllegal, r.linUnknown)
	fmt.Fprintf(&b, "| bare 500 answers | %d |\n| healthy nodes fenced | %d |\n", r.bare500, len(r.healthyFences))
	if r.bucket == "file" {
		fmt.Fprintf(&b, "| fences while another node was paused holding the file bucket's lock (reported, see docs/architecture.md) | %d |\n", r.stalledFences)
	}
	fmt.Fprintf(&b, "| stale markers left (nodes up, after 60 s) | %d |\n| markers left after every node stopped | %d |\n| lease records or files left after every node stopped | %d |\n\n", r.markersLeft, r.markersAfterStop, len(r.leftAfterStop))
	fmt.Fprintf(&b, "| fault | count | longest wait of a request for its object to answer (max over faults; median) | target |\n|---|---|---|---|\n")
	kinds := []string{"kill", "stop", "term", "s3kill", "s3stop"}
	names := map[string]string{"kill": "kill -9 of a node (restarted after 0.5-4 s)", "stop": "SIGSTOP of a node for 2-4 TTLs", "term": "SIGTERM of a node (restarted)",
		"s3kill": "S3 server kill -9, back after 1-3 s (from its return)", "s3stop": "S3 server SIGSTOP for 1-2 TTLs (from SIGCONT)"}
	for _, k := range kinds {
		ds := r.recovery[k]
		if len(ds) == 0 {
			continue
		}
		sorted := append([]time.Duration(nil), ds...)
		sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
		target := fmt.Sprintf("TTL + 2 s = %v", r.cfg.ttl+2*time.Second)
		switch {
		case k == "term":
			target = "(not a target)"
		case k == "stop" && r.bucket == "file":
			target += " (reported, not asserted: a paused node can hold the file bucket's lock)"
		}
		un := ""
		if r.unrecovered[k] > 0 {
			un = fmt.Sprintf(" (%d requests, sent more than the allowance before the next fault, whose object had not answered by then)", r.unrecovered[k])
		}
		fmt.Fprintf(&b, "| %s | %d | %v; %v%s | %s |\n", names[k], len(ds), sorted[len(sorted)-1].Round(time.Millisecond), sorted[(len(sorted)-1)/2].Round(time.Millisecond), un, target)
	}
	if len(r.targetMissed) > 0 {
		fmt.Fprintf(&b, "\nAvailability targets missed:\n\n")
		for _, p := range r.targetMissed {
			first, _, _ := strings.Cut(p, "\n")
			fmt.Fprintf(&b, "* %s\n", first)
		}
	}
	if len(r.problems) > 0 {
		fmt.Fprintf(&b, "\nProblems:\n\n")
		for _, p := range r.problems {
			first, _, _ := strings.Cut(p, "\n") // the log excerpts stay in the test's log
			fmt.Fprintf(&b, "* %s\n", first)
		}
	}
	return b.String()
}

func renderChaosReports(cfg chaosConfig, rs []*chaosReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Chaos report\n\nWritten by `TestChaos` (cmd/cellhost/chaos_test.go) on %s; load average at the end: %s.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadAvg())
	for _, r := range rs {
		b.WriteString(renderChaosReport(r))
		b.WriteString("\n")
	}
	return b.String()
}

func loadAvg() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(raw))[:3], " ")
}
