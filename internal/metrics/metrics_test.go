package metrics

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func TestKeyKind(t *testing.T) {
	for key, want := range map[string]string{
		bucketkey.NodeKey("node_0123456789abcdef0123456789abcdef"): "node",
		bucketkey.OwnKey("Counter:ab"):                             "own",
		bucketkey.LTXKey("Counter:ab", 1, 0, 1, 1):                 "ltx",
		bucketkey.WakerKey:                                         "waker",
		bucketkey.WakeEntryKey(0, "Counter:ab"):                    "wake",
		bucketkey.PeerSecretKey:                                    "secret",
		bucketkey.FleetCAKey:                                       "secret",
		bucketkey.DeploymentKey("x"):                               "deployment",
		bucketkey.R2Key("b", "k"):                                  "r2",
		bucketkey.KVKey("ns", "k"):                                 "kv",
		bucketkey.ProbeKey("1"):                                    "probe",
		"anything/else":                                            "other",
	} {
		if got := KeyKind(key); got != want {
			t.Errorf("KeyKind(%q) = %q, want %q", key, got, want)
		}
	}
}

// The store wrapper passes every call through unchanged, counts it by op,
// kind and error, counts the node's own lease writes and LTX uploads, and
// keeps MultiGetter when the store has it.
func TestStore_CountsAndPassesThrough(t *testing.T) {
	ctx := context.Background()
	m := New("test")
	node := "node_0123456789abcdef0123456789abcdef"
	st := m.Store(memstore.New(), node)
	if _, ok := st.(plugins.MultiGetter); ok {
		t.Error("the wrapper of a store without GetMany claims MultiGetter")
	}
	if _, err := st.Put(ctx, bucketkey.NodeKey(node), []byte("{}"), plugins.PutOptions{IfNoneMatch: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(ctx, bucketkey.NodeKey(node), []byte("{}"), plugins.PutOptions{IfNoneMatch: true}); !errors.Is(err, plugins.ErrPreconditionFailed) {
		t.Fatalf("second create: %v, want the store's ErrPreconditionFailed unchanged", err)
	}
	ltx := bucketkey.LTXKey("Counter:ab", 1, 0, 1, 1)
	if _, err := st.Put(ctx, ltx, make([]byte, 300), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Get(ctx, "missing/key"); !errors.Is(err, plugins.ErrNotFound) {
		t.Fatalf("get of a missing key: %v", err)
	}
	for name, want := range map[string]float64{
		"renewals": testutil.ToFloat64(m.leaseRenewals), "failures": testutil.ToFloat64(m.leaseRenewalFails),
		"uploads": testutil.ToFloat64(m.ltxUploads), "bytes": testutil.ToFloat64(m.ltxUploadBytes),
		"node puts":    testutil.ToFloat64(m.bucketOps.WithLabelValues("put", "node")),
		"precondition": testutil.ToFloat64(m.bucketErrors.WithLabelValues("put", "node", "precondition_failed")),
		"not found":    testutil.ToFloat64(m.bucketErrors.WithLabelValues("get", "other", "not_found")),
	} {
		exp := map[string]float64{"renewals": 1, "failures": 1, "uploads": 1, "bytes": 300, "node puts": 2, "precondition": 1, "not found": 1}[name]
		if want != exp {
			t.Errorf("%s = %v, want %v", name, want, exp)
		}
	}

	fs, err := filestore.New(filepath.Join(t.TempDir(), "b"))
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	fw := m.Store(fs, node)
	mg, ok := fw.(plugins.MultiGetter)
	if !ok {
		t.Fatal("the wrapper of the file store lost MultiGetter")
	}
	if _, err := fw.Put(ctx, "a/b", []byte("x"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	res := mg.GetMany(ctx, []string{"a/b", "a/c"})
	if string(res[0].Body) != "x" || !errors.Is(res[1].Err, plugins.ErrNotFound) {
		t.Errorf("GetMany through the wrapper = %+v", res)
	}
}

// The handler's output parses with Prometheus' text parser and carries
// the observed request and commit figures.
func TestHandler_Parses(t *testing.T) {
	m := New("v1.2.3")
	m.Request("Counter", 200, 3*time.Millisecond)
	m.Request("Counter", 200, 30*time.Millisecond)
	m.CommitRound(3, 1, 2*time.Millisecond)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	h := fams["cellhost_http_request_duration_seconds"].GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 2 || h.GetSampleSum() < 0.032 || h.GetSampleSum() > 0.034 {
		t.Errorf("request histogram: count %d sum %v", h.GetSampleCount(), h.GetSampleSum())
	}
	if v := fams["cellhost_commits_total"].GetMetric()[0].GetCounter().GetValue(); v != 2 {
		t.Errorf("commits_total = %v, want 2", v)
	}
	if v := fams["cellhost_commit_failures_total"].GetMetric()[0].GetCounter().GetValue(); v != 1 {
		t.Errorf("commit_failures_total = %v, want 1", v)
	}
	if fams["cellhost_build_info"].GetMetric()[0].GetLabel()[0].GetValue() != "v1.2.3" {
		t.Error("build_info does not carry the version")
	}
	if _, ok := fams["go_goroutines"]; !ok {
		t.Error("no Go runtime metrics")
	}
}
