package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/internal/metrics"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// opsOptions are serve's operator flags: where /metrics, /healthz and
// /readyz are served, and the log's format and level.
type opsOptions struct {
	adminListen string
	logFormat   string
	logLevel    string
}

func (o *opsOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.adminListen, "admin-listen", "", "address serving /metrics, /healthz and /readyz without authentication (default: served on --internal-listen)")
	f.StringVar(&o.logFormat, "log-format", "text", "log format: text (key=value lines) or json (one JSON object per line)")
	f.StringVar(&o.logLevel, "log-level", "info", "least severe level logged: debug, info, warn or error")
}

// newServeLogger is serve's one logger: every message of the node (its
// lease, the peer server, the wake index, the host and its objects) goes
// through it, with the attribute node.
func newServeLogger(w io.Writer, format, level, node string) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: lv}
	var h slog.Handler
	switch format {
	case "text":
		h = slog.NewTextHandler(&lockedLineWriter{w: w}, opts)
	case "json":
		h = slog.NewJSONHandler(&lockedLineWriter{w: w}, opts)
	default:
		return nil, fmt.Errorf("--log-format %q: use text or json", format)
	}
	return slog.New(h).With("node", node), nil
}

// lockedLineWriter serialises the writes of the handlers derived from one
// logger (slog's handlers write each record in one Write; a shared
// io.Writer such as a pipe is then written by one at a time).
type lockedLineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedLineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// slogf adapts a printf-style logging hook (fleet.ServerConfig.Logf; the
// ownership package logs to slog itself) to the logger: messages about fences, ambiguous
// writes and failures are warnings, the rest information.
func slogf(l *slog.Logger, component string) func(format string, args ...any) {
	l = l.With("component", component)
	return func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		lv := slog.LevelInfo
		for _, w := range []string{"fenced", "ambiguous", "cannot", "failed", "error", "refused", "undecodable"} {
			if strings.Contains(msg, w) {
				lv = slog.LevelWarn
				break
			}
		}
		l.Log(context.Background(), lv, msg)
	}
}

// consoleToLog sends the objects' console lines to the logger (json
// format), with their scope and console level.
func consoleToLog(l *slog.Logger) func(scope, level, line string) {
	return func(scope, level, line string) {
		lv := slog.LevelInfo
		switch level {
		case "error":
			lv = slog.LevelError
		case "warn":
			lv = slog.LevelWarn
		case "debug":
			lv = slog.LevelDebug
		}
		attrs := []any{"console", level}
		if scope != "" {
			attrs = append(attrs, "scope", scope)
		}
		l.Log(context.Background(), lv, line, attrs...)
	}
}

// nodeHealth answers /healthz and /readyz for a serve node.
//
// /healthz: the process serves HTTP (200 "ok"). /readyz: 200 only while
// the node holds its lease and may acknowledge writes (not fenced, its last
// renewal in time: ownership.Node.CanAck, the same check every write's
// acknowledgement makes, so a fenced node answers 503 from the moment it
// stops acknowledging), the bucket answers (a read of the node's own lease
// record, bounded to 2 s; a success is reused for a second), the application is
// loaded (a Host serves), and the node is not shutting down. A 503 lists
// each failing check on its own line.
type nodeHealth struct {
	node     atomic.Pointer[ownership.Node] // replaced on a rejoin
	loaded   func() bool
	draining atomic.Bool
	probe    func(ctx context.Context) error // reads the bucket

	mu        sync.Mutex
	checkedAt time.Time
	bucketErr error
}

// bucketCheck is the bucket's reachability: a success is trusted for a
// second (probes of many balancers cost one read a second), a failure is
// read again at the next probe.
func (h *nodeHealth) bucketCheck(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.bucketErr == nil && !h.checkedAt.IsZero() && time.Since(h.checkedAt) < time.Second {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	h.bucketErr = h.probe(ctx)
	h.checkedAt = time.Now()
	return h.bucketErr
}

// readiness returns the failing checks, none when ready.
func (h *nodeHealth) readiness(ctx context.Context) []string {
	var bad []string
	if h.draining.Load() {
		bad = append(bad, "shutting down: handing its objects over")
	}
	switch n := h.node.Load(); {
	case n == nil:
		bad = append(bad, "lease: not joined")
	case n.Fenced():
		bad = append(bad, "lease: fenced ("+errString(n.Err())+"); rejoining with a new lease")
	case !n.CanAck():
		bad = append(bad, "lease: not renewed in time; not acknowledging writes")
	}
	if err := h.bucketCheck(ctx); err != nil {
		bad = append(bad, "bucket: unreachable: "+err.Error())
	}
	if !h.loaded() {
		bad = append(bad, "deployment: not loaded")
	}
	return bad
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

// leaseProbe reads node's lease record: found or not, the bucket answered.
func leaseProbe(store interface {
	Head(context.Context, string) (string, error)
}, node string) func(context.Context) error {
	key := bucketkey.NodeKey(node)
	return func(ctx context.Context) error {
		_, err := store.Head(ctx, key)
		if err != nil && !errors.Is(err, plugins.ErrNotFound) {
			return err
		}
		return nil
	}
}

// adminHandler serves /metrics, /healthz and /readyz; next (if set) gets
// every other request (the peer server, when they share a listener).
func adminHandler(m *metrics.Set, h *nodeHealth, next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if bad := h.readiness(r.Context()); len(bad) > 0 {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, strings.Join(bad, "\n")+"\n")
			return
		}
		_, _ = io.WriteString(w, "ok\n")
	})
	if next != nil {
		mux.Handle("/", next)
	}
	return mux
}

// requestIDHeader carries a request's id: kept from the client when it
// sends a plausible one (a load balancer's), else made here; echoed on the
// answer and logged with it.
const requestIDHeader = "X-Request-Id"

func requestID(r *http.Request) string {
	if id := r.Header.Get(requestIDHeader); id != "" && len(id) <= 128 && printableASCII(id) {
		return id
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] > '~' {
			return false
		}
	}
	return true
}

// instrument wraps the public handler: each request gets a request id
// (X-Request-Id), is counted and timed in m by class and status, and logged
// at debug level (5xx answers at warn) with its id.
func instrument(next http.Handler, m *metrics.Set, log *slog.Logger, classOf func(path string) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r)
		w.Header().Set(requestIDHeader, id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		d := time.Since(start)
		class := classOf(r.URL.Path)
		m.Request(class, code, d)
		lv := slog.LevelDebug
		if code >= 500 {
			lv = slog.LevelWarn
		}
		log.Log(r.Context(), lv, "request", "request_id", id, "method", r.Method, "path", r.URL.Path,
			"class", class, "status", code, "duration_ms", float64(d.Microseconds())/1000)
	})
}

// requestClass is the class label of a request path: the Durable Object
// class of /do/<Class>/... when the worker has it, "unknown" for another
// /do/ path, else "worker" (the worker's fetch).
func requestClass(has func(string) bool) func(string) string {
	return func(path string) string {
		rest, ok := strings.CutPrefix(path, "/do/")
		if !ok {
			return "worker"
		}
		class, _, _ := strings.Cut(rest, "/")
		if has(class) {
			return class
		}
		return "unknown"
	}
}

// statusWriter records the status a handler sends; a hijacked connection
// (a WebSocket upgrade) counts as 101.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	if s.code == 0 {
		s.code = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.code == 0 {
		s.code = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

func (s *statusWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("hijack: not supported by the response writer")
	}
	if s.code == 0 {
		s.code = http.StatusSwitchingProtocols
	}
	return hj.Hijack()
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// serveHooks are what a serve node sets on each Host it runs: its logger
// (the host's own messages, and in the json format the objects' console
// lines) and its metrics (durability rounds).
type serveHooks struct {
	log     *slog.Logger
	metrics *metrics.Set
	json    bool
}

func (k *serveHooks) apply(hc *host.Config) {
	if k == nil {
		return
	}
	if k.log != nil {
		hc.Logger = k.log.With("component", "host")
		if k.json {
			hc.Console = consoleToLog(k.log.With("component", "console"))
		}
	}
	if k.metrics != nil {
		hc.Metrics = k.metrics
	}
}

// logger is the node's logger, or text lines on w without hooks.
func (k *serveHooks) logger(w io.Writer) *slog.Logger {
	if k == nil || k.log == nil {
		return slog.New(slog.NewTextHandler(w, nil))
	}
	return k.log
}

// loaded reports whether a Host serves (false during a deployment switch
// or a rejoin).
func (a *servedApp) loaded() bool {
	_, ok := a.current()
	return ok
}

// current returns the serving Host, false while none serves. It does not
// wait, and holds no request open.
func (a *servedApp) current() (*host.Host, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-a.ready:
		return a.gen.h, true
	default:
		return nil, false
	}
}

// hasClass reports whether the serving worker has the Durable Object class.
func (a *servedApp) hasClass(class string) bool {
	h, ok := a.current()
	return ok && h.HasClass(class)
}

// snapshot is what a scrape of /metrics reads from the node.
func (a *servedApp) snapshot(fl *fleetNode, node *ownership.Node) metricsSnapshot {
	var s metricsSnapshot
	if node != nil {
		s.LeaseHeld = node.CanAck()
	}
	if fl.wake != nil {
		ws := fl.wake.Stats()
		s.Wake = &ws
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, err := a.enter(ctx) // counted as running, so that the Host is not closed under the scrape
	if err != nil {
		return s
	}
	defer g.running.Done()
	s.HostOK, s.Host, s.Cells = true, g.h.Stats(), g.h.CellCounts()
	return s
}

// bucketName returns the bucket URL for messages, followed, once the store
// has answered, by the S3 server's name (its Server header: "MinIO",
// "AmazonS3", "VERSITYGW", ...) when the store reports one, so that a
// refusal names what is at fault.
func bucketName(bucket string, store any) func() string {
	return func() string {
		if n, ok := store.(interface{ ServerName() string }); ok {
			if name := n.ServerName(); name != "" {
				return fmt.Sprintf("%s (S3 server %q)", bucket, name)
			}
		}
		return bucket
	}
}
