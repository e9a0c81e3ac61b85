package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

var peerAddrLine = regexp.MustCompile(`\(peers reach it at (\S+)\)`)

// waitForRe waits until a line matches re, at most d.
func (b *lineBuf) waitForRe(re *regexp.Regexp, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for seen := 0; ; {
		b.mu.Lock()
		for ; seen < len(b.lines); seen++ {
			if re.MatchString(b.lines[seen]) {
				b.mu.Unlock()
				return true
			}
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

// peerAddr is the node's internal listener, from its banner.
func (n *serveNode) peerAddr(t *testing.T) string {
	t.Helper()
	m := peerAddrLine.FindStringSubmatch(n.logs.String())
	if m == nil {
		t.Fatalf("no peer address in the banner:\n%s", n.logs)
	}
	return m[1]
}

// scrape GETs /metrics at addr and parses it with Prometheus' text parser.
func scrape(t *testing.T, addr string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("/metrics Content-Type %q, want the Prometheus text format", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("the Prometheus text parser refuses /metrics: %v", err)
	}
	return fams
}

func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestOps_MetricsHealthDiagnose runs a real serve node, sends requests of
// known classes and statuses, and checks what Prometheus' parser reads
// from /metrics on the internal listener (counts equal to the requests
// sent, commits and LTX uploads at least one per write, the lease's writes,
// cell gauges, Go runtime metrics), /healthz and /readyz, the request id,
// the JSON log, and that cellhost diagnose prints the same numbers.
func TestOps_MetricsHealthDiagnose(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := fleetBinary(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	n := startServe(t, bin, counterProject(t), "--bucket", bucket, "--state", filepath.Join(dir, "a"), "--log-format", "json", "--log-level", "debug")
	peer := n.peerAddr(t)

	if code, body := getStatus(t, "http://"+peer+"/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", code, body)
	}
	if code, body := getStatus(t, "http://"+peer+"/readyz"); code != 200 || body != "ok\n" {
		t.Fatalf("/readyz: %d %q", code, body)
	}

	const writes = 5
	for i := 0; i < writes; i++ {
		req, _ := http.NewRequest("GET", n.base+"/do/Counter/metrics", nil)
		if i == 0 {
			req.Header.Set("X-Request-Id", "lb-given-id-1")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("write %d: %s", i, resp.Status)
		}
		if id := resp.Header.Get("X-Request-Id"); i == 0 && id != "lb-given-id-1" || id == "" {
			t.Errorf("write %d: X-Request-Id %q", i, id)
		}
	}
	if code, _ := getStatus(t, n.base+"/?name=viaworker"); code != 200 {
		t.Fatalf("worker request: %d", code)
	}
	if code, _ := getStatus(t, n.base+"/do/NoSuchClass/x"); code == 200 {
		t.Fatalf("a request to an unknown class answered 200")
	}

	fams := scrape(t, peer)
	val := func(name string, labels ...string) float64 {
		t.Helper()
		v, ok := metricSum(fams, name, labels...)
		if !ok {
			t.Fatalf("no metric %s in /metrics", name)
		}
		return v
	}
	if got := val("cellhost_http_requests_total", "class", "Counter", "code", "200"); got != writes {
		t.Errorf("requests_total{class=Counter,code=200} = %v, want %d", got, writes)
	}
	if got := val("cellhost_http_request_duration_seconds", "class", "Counter", "code", "200"); got != writes {
		t.Errorf("request_duration_seconds{class=Counter,code=200} count = %v, want %d", got, writes)
	}
	if got := val("cellhost_http_requests_total", "class", "worker", "code", "200"); got != 1 {
		t.Errorf("requests_total{class=worker,code=200} = %v, want 1", got)
	}
	if got := val("cellhost_http_requests_total", "class", "unknown"); got != 1 {
		t.Errorf("requests_total{class=unknown} = %v, want 1 (a class the worker lacks is not a label value)", got)
	}
	if got := val("cellhost_http_requests_total", "class", "NoSuchClass"); got != 0 {
		t.Errorf("a path's class became a label value")
	}
	// Every write is acknowledged after its own durability round (the
	// requests were sequential): at least writes+1 commits and uploads.
	if got := val("cellhost_commits_total"); got < writes+1 {
		t.Errorf("commits_total = %v, want >= %d", got, writes+1)
	}
	if got := val("cellhost_commit_round_duration_seconds"); got < writes+1 {
		t.Errorf("commit_round_duration_seconds count = %v, want >= %d", got, writes+1)
	}
	if got := val("cellhost_ltx_uploads_total"); got < writes+1 {
		t.Errorf("ltx_uploads_total = %v, want >= %d", got, writes+1)
	}
	if got := val("cellhost_ltx_upload_bytes_total"); got < 100*(writes+1) {
		t.Errorf("ltx_upload_bytes_total = %v: an LTX file is at least 100 bytes", got)
	}
	if got := val("cellhost_bucket_operations_total", "op", "put", "kind", "ltx"); got < val("cellhost_ltx_uploads_total") {
		t.Errorf("bucket puts of kind ltx (%v) fewer than the uploads", got)
	}
	if got := val("cellhost_bucket_operations_total", "op", "put", "kind", "own"); got < 2 {
		t.Errorf("bucket puts of own.json = %v, want >= 2 (two objects acquired)", got)
	}
	if got := val("cellhost_lease_renewals_total"); got < 1 {
		t.Errorf("lease_renewals_total = %v, want >= 1 (the first lease write)", got)
	}
	if got := val("cellhost_lease_held"); got != 1 {
		t.Errorf("lease_held = %v", got)
	}
	if got := val("cellhost_lease_fences_total"); got != 0 {
		t.Errorf("lease_fences_total = %v", got)
	}
	if got := val("cellhost_cells_resident"); got != 2 {
		t.Errorf("cells_resident = %v, want 2 (Counter:metrics, Counter:viaworker)", got)
	}
	if got := val("cellhost_cells_owned"); got != 2 {
		t.Errorf("cells_owned = %v, want 2", got)
	}
	if got := val("cellhost_cells_open"); got < 1 || got > 2 {
		t.Errorf("cells_open = %v, want 1 or 2", got)
	}
	for _, name := range []string{"go_goroutines", "go_memstats_heap_inuse_bytes", "process_resident_memory_bytes", "cellhost_build_info",
		"cellhost_websockets", "cellhost_alarms_fired_total", "cellhost_alarms_dropped_total", "cellhost_memory_limit_resets_total",
		"cellhost_cpu_limit_resets_total", "cellhost_gc_passes_total", "cellhost_sweep_taken_total", "cellhost_bucket_operation_duration_seconds"} {
		val(name)
	}
	if f := fams["cellhost_http_request_duration_seconds"]; f.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("request_duration_seconds is a %v", f.GetType())
	}

	// The JSON log: one object per line, the request with its id and the
	// node attribute.
	found := false
	for _, line := range strings.Split(n.logs.String(), "\n") {
		if !strings.HasPrefix(line, "{") {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line is not JSON: %q: %v", line, err)
			continue
		}
		if rec["node"] != n.id {
			t.Errorf("a log line without node=%s: %q", n.id, line)
		}
		if rec["msg"] == "request" && rec["request_id"] == "lb-given-id-1" && rec["class"] == "Counter" && rec["status"] == float64(200) {
			found = true
		}
	}
	if !found {
		t.Errorf("no JSON request line with the request id:\n%s", n.logs)
	}

	// diagnose prints the numbers of the node's /metrics.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diagnose", "--bucket", bucket}, &stdout, &stderr); code != 0 {
		t.Fatalf("diagnose: %s\n%s", stderr.String(), stdout.String())
	}
	out := stdout.String()
	fams = scrape(t, peer)
	twoxx := val("cellhost_http_requests_total", "code", "200")
	for _, want := range []string{
		fmt.Sprintf("metrics: requests 2xx %g, 4xx 1;", twoxx),
		fmt.Sprintf("cells %g resident, %g open, %g owned;", val("cellhost_cells_resident"), val("cellhost_cells_open"), val("cellhost_cells_owned")),
		fmt.Sprintf("LTX uploads %g (%g bytes)", val("cellhost_ltx_uploads_total"), val("cellhost_ltx_upload_bytes_total")),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diagnose does not show %q:\n%s", want, out)
		}
	}
}

// s3ViaProxy returns an S3 bucket URL (a fresh prefix of the .ci/run S3
// server) reached through a fault proxy, or skips without a server.
func s3ViaProxy(t *testing.T) (string, *faultProxy) {
	t.Helper()
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
	proxy := startFaultProxy(t, ep.Host)
	q.Set("endpoint", "http://"+proxy.ln.Addr().String())
	u.Path = fmt.Sprintf("/ops-%d", time.Now().UnixNano())
	u.RawQuery = q.Encode()
	return u.String(), proxy
}

// TestOps_ReadyzFollowsTheLease cuts a real node off its bucket (S3 behind
// a fault proxy) past its lease: once it has fenced itself /readyz answers
// 503 naming the lease and the bucket (while /healthz stays 200), and once
// the bucket is back and it has taken a new lease /readyz answers 200
// again; the metrics count one fence and one rejoin.
func TestOps_ReadyzFollowsTheLease(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bucket, proxy := s3ViaProxy(t)
	bin := fleetBinary(t)
	n := startServe(t, bin, counterProject(t), "--bucket", bucket, "--state", filepath.Join(t.TempDir(), "a"))
	peer := n.peerAddr(t)
	if code, body := getStatus(t, "http://"+peer+"/readyz"); code != 200 {
		t.Fatalf("/readyz before the outage: %d %q", code, body)
	}
	if code, _ := getStatus(t, n.base+"/do/Counter/ready"); code != 200 {
		t.Fatalf("write: %d", code)
	}

	proxy.set("down")
	// The serve loop logs this once the node is fenced; it cannot rejoin
	// while the bucket is down, so /readyz must now say why it is not ready.
	if !n.logs.waitFor("fenced: rejoining the fleet", 60*time.Second) {
		t.Fatalf("the node did not fence itself with its bucket down:\n%s", n.logs)
	}
	code, body := getStatus(t, "http://"+peer+"/readyz")
	if code != 503 || !strings.Contains(body, "lease: fenced") || !strings.Contains(body, "bucket: unreachable") {
		t.Fatalf("/readyz of a fenced node: %d %q, want 503 naming the lease and the bucket", code, body)
	}
	if code, _ := getStatus(t, "http://"+peer+"/healthz"); code != 200 {
		t.Errorf("/healthz of a fenced (alive) node: %d", code)
	}
	if got, _ := metricSum(scrape(t, peer), "cellhost_lease_held"); got != 0 {
		t.Errorf("lease_held = %v while fenced", got)
	}

	proxy.set("up")
	if !n.logs.waitFor("rejoined the fleet", 60*time.Second) {
		t.Fatalf("the node did not rejoin once the bucket was back:\n%s", n.logs)
	}
	if code, body := getStatus(t, "http://"+peer+"/readyz"); code != 200 {
		t.Fatalf("/readyz after the rejoin: %d %q", code, body)
	}
	fams := scrape(t, peer)
	for name, want := range map[string]float64{"cellhost_lease_fences_total": 1, "cellhost_lease_rejoins_total": 1, "cellhost_lease_held": 1} {
		if got, _ := metricSum(fams, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got, _ := metricSum(fams, "cellhost_bucket_errors_total", "error", "error"); got < 1 {
		t.Errorf("bucket_errors_total{error=error} = %v after an outage", got)
	}
}

// namedFaultyStore ignores If-None-Match, like ignoresIfNoneMatch, and
// names its server as an S3 store does (s3store.Store.ServerName).
type namedFaultyStore struct{ ignoresIfNoneMatch }

func (namedFaultyStore) ServerName() string { return "FaultyTestServer/1.0" }

func init() {
	plugins.RegisterStore("faultynamed", func(context.Context, *url.URL) (plugins.ObjectStore, error) {
		return namedFaultyStore{ignoresIfNoneMatch{memstore.New()}}, nil
	})
}

// A store refused at start (serve and diagnose) is named by its server
// when it reports one.
func TestOps_RefusalNamesTheServer(t *testing.T) {
	want := `cellhost: bucket faultynamed://x (S3 server "FaultyTestServer/1.0") is refused: `
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--bucket", "faultynamed://x", "--listen", "127.0.0.1:0", "--state", t.TempDir(), counterProject(t)}, &stdout, &stderr); code == 0 {
		t.Fatal("serve ran on a store that ignores If-None-Match")
	}
	if !strings.HasPrefix(stderr.String(), want) || !strings.Contains(stderr.String(), "the object store is at fault") {
		t.Errorf("serve: stderr = %q, want prefix %q", stderr.String(), want)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"diagnose", "--bucket", "faultynamed://x"}, &stdout, &stderr); code == 0 {
		t.Fatal("diagnose passed a store that ignores If-None-Match")
	}
	if !strings.HasPrefix(stderr.String(), want+"the object store is at fault") {
		t.Errorf("diagnose: stderr = %q, want prefix %q", stderr.String(), want)
	}
}
