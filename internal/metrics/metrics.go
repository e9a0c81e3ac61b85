// Package metrics is cellhost serve's Prometheus instrumentation: one
// registry per process (Set) holding the request, commit and bucket
// metrics observed as they happen, plus a collector that reads the host's,
// the wake index's and the lease's running totals at each scrape. The text
// format is written by client_golang's promhttp; nothing here formats it.
//
// Names follow Prometheus' conventions: a cellhost_ prefix, base units
// (seconds, bytes), _total on counters. Label values are bounded: classes
// are the worker's own (others become "worker" or "unknown"), status codes
// are numbers, bucket key kinds are a fixed list (KeyKind).
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every cellhost metric.
const Namespace = "cellhost"

// Set is one process's metrics.
type Set struct {
	Registry *prometheus.Registry

	requests        *prometheus.CounterVec
	requestDuration *prometheus.HistogramVec

	commits        prometheus.Counter
	commitFailures prometheus.Counter
	commitRound    prometheus.Histogram

	ltxUploads     prometheus.Counter
	ltxUploadBytes prometheus.Counter

	bucketOps      *prometheus.CounterVec
	bucketErrors   *prometheus.CounterVec
	bucketDuration *prometheus.HistogramVec

	leaseRenewals     prometheus.Counter
	leaseRenewalFails prometheus.Counter
	fences            prometheus.Counter
	rejoins           prometheus.Counter
}

// New makes a Set with Go's runtime and process collectors and a
// cellhost_build_info gauge carrying version.
func New(version string) *Set {
	r := prometheus.NewRegistry()
	s := &Set{Registry: r}
	f := func(c prometheus.Collector) { r.MustRegister(c) }
	f(collectors.NewGoCollector())
	f(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	build := prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "build_info",
		Help: "Always 1; the version label is the running build's.", ConstLabels: prometheus.Labels{"version": version}})
	build.Set(1)
	f(build)

	latency := []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}
	s.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "http", Name: "requests_total",
		Help: "HTTP requests answered on the public listener, by Durable Object class (\"worker\" for the worker's fetch) and status code."}, []string{"class", "code"})
	s.requestDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "http", Name: "request_duration_seconds",
		Help: "Time from a request's arrival to its answer (a WebSocket: to the upgrade), by class and status code.", Buckets: latency}, []string{"class", "code"})
	s.commits = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "commits_total",
		Help: "Object databases made durable by the output gate (one per object per durability round)."})
	s.commitFailures = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "commit_failures_total",
		Help: "Object databases whose commits failed to become durable (the object was reset or let go)."})
	s.commitRound = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "commit_round_duration_seconds",
		Help: "Duration of one durability round: local sync, LTX uploads and ownership checks of the objects committed together.", Buckets: latency})
	s.ltxUploads = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "ltx", Name: "uploads_total",
		Help: "LTX files written to the bucket."})
	s.ltxUploadBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "ltx", Name: "upload_bytes_total",
		Help: "Bytes of the LTX files written to the bucket."})
	s.bucketOps = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "bucket", Name: "operations_total",
		Help: "Object store calls, by operation and key kind."}, []string{"op", "kind"})
	s.bucketErrors = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "bucket", Name: "errors_total",
		Help: "Object store calls that failed, by operation, key kind and error (precondition_failed and not_found are answers the protocol expects; error is a fault)."}, []string{"op", "kind", "error"})
	s.bucketDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Subsystem: "bucket", Name: "operation_duration_seconds",
		Help: "Object store call latency, by operation.", Buckets: latency}, []string{"op"})
	s.leaseRenewals = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "lease", Name: "renewals_total",
		Help: "Writes of this node's lease record (nodes/<node>.json) that landed: the first, then every renewal."})
	s.leaseRenewalFails = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "lease", Name: "renewal_failures_total",
		Help: "Writes of this node's lease record that failed."})
	s.fences = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "lease", Name: "fences_total",
		Help: "Times this node fenced itself (its lease could have lapsed, or another writer took it): every owned object was let go."})
	s.rejoins = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Subsystem: "lease", Name: "rejoins_total",
		Help: "Times this node took a new lease after a fence and served again."})
	for _, c := range []prometheus.Collector{s.requests, s.requestDuration, s.commits, s.commitFailures, s.commitRound,
		s.ltxUploads, s.ltxUploadBytes, s.bucketOps, s.bucketErrors, s.bucketDuration,
		s.leaseRenewals, s.leaseRenewalFails, s.fences, s.rejoins} {
		f(c)
	}
	return s
}

// Handler serves the registry in the Prometheus text format (or what the
// scraper negotiates).
func (s *Set) Handler() http.Handler {
	return promhttp.HandlerFor(s.Registry, promhttp.HandlerOpts{Registry: s.Registry})
}

// Request records one answered request.
func (s *Set) Request(class string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	s.requests.WithLabelValues(class, c).Inc()
	s.requestDuration.WithLabelValues(class, c).Observe(d.Seconds())
}

// CommitRound is called once per durability round (it satisfies host.Metrics).
func (s *Set) CommitRound(dbs, failed int, d time.Duration) {
	s.commits.Add(float64(dbs - failed))
	s.commitFailures.Add(float64(failed))
	s.commitRound.Observe(d.Seconds())
}

// Fenced counts a fence of this node's lease.
func (s *Set) Fenced() { s.fences.Inc() }

// Rejoined counts a new lease after a fence.
func (s *Set) Rejoined() { s.rejoins.Inc() }
