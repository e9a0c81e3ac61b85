package testjs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cellhost/cellhost/internal/queue"
)

const (
	defaultHost    = "conformance.test" // Host sent unless a step sets one
	requestTimeout = 30 * time.Second   // idle time before a request fails, as replay.mjs
	maxWSPayload   = 100 << 20          // the ws package's maxPayload
	maxHeadBytes   = 1 << 20
)

// ErrTransport is wrapped by Replay's error when some step hit a transport
// error or a timeout (replay.mjs exits 2): those steps have an "error" field
// in the transcript, which Replay still returns complete.
var ErrTransport = errors.New("testjs: transport error")

// Replay plays c's steps against the server at baseURL (http or https; its
// path is ignored) the way replay.mjs does, and returns the transcript.
//
// The error is nil when every step got an answer (any HTTP status counts),
// wraps ErrTransport when some step hit a transport error or a timeout (the
// transcript is complete), and is ctx's error when ctx ends first (the
// transcript then holds the steps done so far). A bad baseURL returns no
// transcript.
//
// Requests: Host "conformance.test" unless the step sets Host, header names
// and order as written, "Content-Length: 0" for a method other than GET and
// HEAD without a body, "Connection: close" and one connection per request,
// redirects not followed. WebSockets use github.com/gorilla/websocket (the
// server's library) without compression and follow replay.mjs's send,
// receive and close rules.
func Replay(ctx context.Context, baseURL string, c *Case) (*Transcript, error) {
	return ReplayWith(ctx, baseURL, c, ReplayOptions{})
}

// ReplayOptions changes how Replay plays steps.
type ReplayOptions struct {
	// Sleep, if set, stands for a sleep step's wait: it is called with
	// the step's duration instead of waiting (e.g. to move the clock of a
	// server under test).
	Sleep func(time.Duration)
}

// ReplayWith is Replay with options.
func ReplayWith(ctx context.Context, baseURL string, c *Case, o ReplayOptions) (*Transcript, error) {
	base, err := url.Parse(baseURL)
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("testjs: base url must be http: or https: with a host, got %q", baseURL)
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &replayer{
		ctx:   ctx,
		base:  base,
		named: map[string]*wsConn{},
		inbox: &inbox{q: queue.New[func()]()},
		sleep: o.Sleep,
	}
	r.hostport = base.Host
	if base.Port() == "" {
		port := "80"
		if base.Scheme == "https" {
			port = "443"
		}
		r.hostport = net.JoinHostPort(base.Hostname(), port)
	}
	defer func() {
		for _, c := range r.named {
			c.terminate() // kept connections are dropped when the replay ends
		}
		cancel()
		r.wg.Wait()
	}()

	t := &Transcript{Format: TranscriptFormat, Steps: []json.RawMessage{}}
	var failed []int
	for i, s := range c.Steps {
		before := r.failures
		entry, err := r.step(s)
		if err != nil {
			return t, fmt.Errorf("case %s: step %d: %w", c.Name, i, err)
		}
		if r.failures > before {
			failed = append(failed, i)
		}
		t.Steps = append(t.Steps, json.RawMessage(jsStringify(entry)))
	}
	if len(failed) > 0 {
		return t, fmt.Errorf("%w: case %s: %d step(s) hit a transport error or timeout (steps %v)", ErrTransport, c.Name, len(failed), failed)
	}
	return t, nil
}

// replayer plays steps on one goroutine. Other goroutines (requests, dials,
// WebSocket readers, timers) never touch its state: they post events to the
// inbox, and the replayer applies them only while it waits (block), one at a
// time, stopping as soon as what it waits for happened. This is Node's event
// loop, on which replay.mjs's results depend: a ws step that got its last
// message sees the connection as open even if the close frame followed at
// once, exactly as replay.mjs does.
type replayer struct {
	ctx      context.Context
	base     *url.URL
	hostport string
	inbox    *inbox
	sleep    func(time.Duration) // ReplayOptions.Sleep
	wg       sync.WaitGroup
	named    map[string]*wsConn
	failures int
}

type inbox struct {
	q       *queue.Queue[func()]
	pending []func() // taken from q, not applied yet (replayer goroutine only)
}

func (in *inbox) post(f func()) { in.q.Push(f) }

// pop returns the next event, nil when none waits.
func (in *inbox) pop() func() {
	if len(in.pending) == 0 {
		in.pending, _ = in.q.Drain(nil)
		if len(in.pending) == 0 {
			return nil
		}
	}
	f := in.pending[0]
	in.pending[0] = nil
	in.pending = in.pending[1:]
	return f
}

// block applies events until cond holds or ctx ends.
func (r *replayer) block(cond func() bool) error {
	for !cond() {
		f := r.inbox.pop()
		if f == nil {
			select {
			case <-r.inbox.q.Wake():
			case <-r.ctx.Done():
				return r.ctx.Err()
			}
			continue
		}
		f()
	}
	return nil
}

func (r *replayer) step(s Step) (any, error) {
	switch {
	case s.Req != nil:
		out, err := r.requests([]Request{*s.Req})
		if err != nil {
			return nil, err
		}
		return out[0], nil
	case s.Sleep != nil && r.sleep != nil:
		r.sleep(time.Duration(*s.Sleep * float64(time.Millisecond)))
		return newObject().set("slept", *s.Sleep), nil
	case s.Sleep != nil:
		done := false
		t := time.AfterFunc(time.Duration(*s.Sleep*float64(time.Millisecond)), func() {
			r.inbox.post(func() { done = true })
		})
		defer t.Stop()
		if err := r.block(func() bool { return done }); err != nil {
			return nil, err
		}
		return newObject().set("slept", *s.Sleep), nil
	case s.Parallel != nil:
		return r.requests(s.Parallel)
	case s.WS != nil:
		return r.doWS(s.WS)
	}
	return nil, errors.New("empty step")
}

// ---------------------------------------------------------------- HTTP

// requests sends reqs at once and returns their entries in order.
func (r *replayer) requests(reqs []Request) ([]any, error) {
	out := make([]any, len(reqs))
	pending := len(reqs)
	for i := range reqs {
		q := &reqs[i]
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			e, failed := r.httpRequest(q)
			r.inbox.post(func() {
				out[i] = e
				pending--
				if failed {
					r.failures++
				}
			})
		}()
	}
	if err := r.block(func() bool { return pending == 0 }); err != nil {
		return nil, err
	}
	return out, nil
}

// httpRequest runs on its own goroutine.
func (r *replayer) httpRequest(q *Request) (entry *jsObject, failed bool) {
	entry = newObject().set("req", q.Method+" "+q.Path)
	h := buildHeaders(q.Headers)
	if !h.has("host") {
		h.set("Host", defaultHost)
	}
	if q.JSON && !h.has("content-type") {
		h.set("Content-Type", "application/json")
	}
	if !h.has("content-length") && !h.has("transfer-encoding") {
		if q.Body != nil {
			h.set("Content-Length", strconv.Itoa(len(q.Body)))
		} else if q.Method != "GET" && q.Method != "HEAD" {
			h.set("Content-Length", "0")
		}
	}
	res, err := r.roundTrip(q.Method, q.Path, h, q.Body)
	if err != nil {
		return entry.set("error", err.Error()), true
	}
	entry.set("status", float64(res.status))
	entry.set("contentType", res.header("content-type"))
	entry.set("body", bodyText(res.body))
	if q.RecordHeaders != nil {
		rec := newObject()
		for _, name := range q.RecordHeaders {
			rec.set(strings.ToLower(name), res.header(strings.ToLower(name)))
		}
		entry.set("headers", rec)
	}
	return entry, false
}

type response struct {
	status int
	lines  [][2]string // raw header lines (name, value), latin1-decoded values
	body   []byte
}

// header is the value Node gives in res.headers[name] (name in lower case):
// nil when absent; duplicates joined with ", " ("; " for cookie) except for
// the fields where Node keeps the first; set-cookie joined with ", ".
func (res *response) header(name string) any {
	var vals []string
	for _, l := range res.lines {
		if strings.ToLower(l[0]) == name {
			vals = append(vals, l[1])
		}
	}
	switch {
	case len(vals) == 0:
		return nil
	case name == "cookie":
		return strings.Join(vals, "; ")
	case firstWins[name]:
		return vals[0]
	}
	return strings.Join(vals, ", ")
}

// firstWins are the response headers whose duplicates Node drops.
var firstWins = map[string]bool{
	"age": true, "authorization": true, "content-length": true, "content-type": true,
	"etag": true, "expires": true, "from": true, "host": true, "if-modified-since": true,
	"if-unmodified-since": true, "last-modified": true, "location": true, "max-forwards": true,
	"proxy-authorization": true, "referer": true, "retry-after": true, "server": true,
	"user-agent": true,
}

// reqError is a failed request, worded as replay.mjs records it.
type reqError struct{ msg string }

func (e *reqError) Error() string { return e.msg }

func failure(prefix string, err error) error {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return &reqError{fmt.Sprintf("timeout after %d ms", requestTimeout.Milliseconds())}
	}
	return &reqError{prefix + ": " + errCode(err)}
}

// roundTrip sends one request on a new connection and reads the response.
func (r *replayer) roundTrip(method, target string, h headerList, body []byte) (*response, error) {
	nc, err := r.dial(r.ctx)
	if err != nil {
		return nil, failure("request error", err)
	}
	defer nc.Close()
	stop := context.AfterFunc(r.ctx, func() { nc.Close() })
	defer stop()
	conn := &idleConn{Conn: nc, idle: requestTimeout}

	var buf bytes.Buffer
	buf.Write(latin1(method + " " + target + " HTTP/1.1\r\n"))
	h.writeTo(&buf)
	if !h.has("connection") {
		buf.WriteString("Connection: close\r\n")
	}
	buf.WriteString("\r\n")
	if h.chunked() {
		if len(body) > 0 {
			fmt.Fprintf(&buf, "%x\r\n", len(body))
			buf.Write(body)
			buf.WriteString("\r\n")
		}
		buf.WriteString("0\r\n\r\n")
	} else {
		buf.Write(body)
	}
	_, werr := conn.Write(buf.Bytes())

	br := bufio.NewReader(conn)
	res, resp, err := readResponse(br, method)
	if err != nil {
		if werr != nil && !errors.Is(werr, os.ErrDeadlineExceeded) {
			err = werr
		}
		return nil, failure("request error", err)
	}
	if res.status == http.StatusSwitchingProtocols {
		// Node emits 'upgrade', which replay.mjs does not handle: the socket
		// is destroyed and the request fails as a hang-up.
		return nil, &reqError{"request error: ECONNRESET"}
	}
	res.body, err = io.ReadAll(resp.Body)
	if err != nil {
		return nil, failure("response error", err)
	}
	return res, nil
}

// readResponse reads a response head (skipping 1xx other than 101) and
// returns its raw header lines and Go's view of it for the body framing.
func readResponse(br *bufio.Reader, method string) (*response, *http.Response, error) {
	for {
		head, err := readHead(br)
		if err != nil {
			return nil, nil, err
		}
		resp, err := http.ReadResponse(bufio.NewReader(io.MultiReader(bytes.NewReader(head), br)), &http.Request{Method: method})
		if err != nil {
			return nil, nil, err
		}
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != 101 {
			continue
		}
		res := &response{status: resp.StatusCode}
		lines := strings.Split(string(head), "\n")
		for _, l := range lines[1:] {
			l = strings.TrimRight(l, "\r")
			name, value, ok := strings.Cut(l, ":")
			if !ok {
				continue
			}
			res.lines = append(res.lines, [2]string{name, latin1String(strings.Trim(value, " \t"))})
		}
		return res, resp, nil
	}
}

// readHead reads up to and including the blank line ending a response head.
func readHead(br *bufio.Reader) ([]byte, error) {
	var head []byte
	for {
		line, err := br.ReadSlice('\n')
		head = append(head, line...)
		if err == bufio.ErrBufferFull {
			if len(head) > maxHeadBytes {
				return nil, errors.New("HPE_HEADER_OVERFLOW")
			}
			continue
		}
		if err != nil {
			if err == io.EOF && len(head) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if len(head) > maxHeadBytes {
			return nil, errors.New("HPE_HEADER_OVERFLOW")
		}
		if string(line) == "\r\n" || string(line) == "\n" {
			if len(head) == len(line) {
				head = head[:0] // tolerate blank lines before the status line
				continue
			}
			return head, nil
		}
	}
}

func (r *replayer) dial(ctx context.Context) (net.Conn, error) {
	d := net.Dialer{Timeout: requestTimeout}
	nc, err := d.DialContext(ctx, "tcp", r.hostport)
	if err != nil {
		return nil, err
	}
	if r.base.Scheme != "https" {
		return nc, nil
	}
	cfg := &tls.Config{NextProtos: []string{"http/1.1"}}
	if net.ParseIP(r.base.Hostname()) == nil {
		cfg.ServerName = r.base.Hostname()
	}
	tc := tls.Client(nc, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		nc.Close()
		return nil, err
	}
	return tc, nil
}

// idleConn fails a read or write after idle time without progress (Node's
// socket timeout).
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleConn) Read(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.idle))
	return c.Conn.Read(p)
}

func (c *idleConn) Write(p []byte) (int, error) {
	c.Conn.SetDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(p)
}

// errCode names a transport error as Node's error.code does.
func errCode(err error) string {
	for _, e := range []syscall.Errno{syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE,
		syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.EADDRNOTAVAIL,
		syscall.ECONNABORTED, syscall.EADDRINUSE} {
		if errors.Is(err, e) {
			return errnoName(e)
		}
	}
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr):
		return "ENOTFOUND"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "ECONNRESET" // Node: "socket hang up" / "aborted"
	case errors.Is(err, os.ErrDeadlineExceeded):
		return "ETIMEDOUT"
	}
	return err.Error()
}

func errnoName(e syscall.Errno) string {
	switch e {
	case syscall.ECONNREFUSED:
		return "ECONNREFUSED"
	case syscall.ECONNRESET:
		return "ECONNRESET"
	case syscall.EPIPE:
		return "EPIPE"
	case syscall.ETIMEDOUT:
		return "ETIMEDOUT"
	case syscall.EHOSTUNREACH:
		return "EHOSTUNREACH"
	case syscall.ENETUNREACH:
		return "ENETUNREACH"
	case syscall.EADDRNOTAVAIL:
		return "EADDRNOTAVAIL"
	case syscall.ECONNABORTED:
		return "ECONNABORTED"
	case syscall.EADDRINUSE:
		return "EADDRINUSE"
	}
	return e.Error()
}

// bodyText is replay.mjs's bodyText: the text when buf is valid UTF-8 (a
// leading BOM dropped, as TextDecoder does), else "base64:<standard base64>".
func bodyText(buf []byte) string {
	if !utf8.Valid(buf) {
		return "base64:" + base64.StdEncoding.EncodeToString(buf)
	}
	return strings.TrimPrefix(string(buf), "\uFEFF")
}

// headerList is an ordered set of request header lines with Node's
// setHeader semantics: names compare case-insensitively, and setting an
// existing name replaces it in place (taking the new spelling).
type headerList []headerLine

type headerLine struct {
	name   string
	values []string
}

func buildHeaders(hs []Header) headerList {
	var l headerList
	last, lastIdx := "", -1
	for _, h := range hs {
		if lastIdx >= 0 && h.Name == last { // the next item of an array value
			l[lastIdx].values = append(l[lastIdx].values, h.Value)
			continue
		}
		last = h.Name
		lastIdx = l.set(h.Name, h.Value)
	}
	return l
}

func (l headerList) index(name string) int {
	for i, h := range l {
		if strings.EqualFold(h.name, name) {
			return i
		}
	}
	return -1
}

func (l headerList) has(name string) bool { return l.index(name) >= 0 }

func (l *headerList) set(name, value string) int {
	if i := l.index(name); i >= 0 {
		(*l)[i] = headerLine{name, []string{value}}
		return i
	}
	*l = append(*l, headerLine{name, []string{value}})
	return len(*l) - 1
}

func (l headerList) clone() headerList {
	out := make(headerList, len(l))
	copy(out, l)
	return out
}

func (l headerList) chunked() bool {
	i := l.index("transfer-encoding")
	if i < 0 {
		return false
	}
	for _, v := range l[i].values {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), "chunked") {
				return true
			}
		}
	}
	return false
}

func (l headerList) writeTo(b *bytes.Buffer) {
	for _, h := range l {
		for _, v := range h.values {
			b.Write(latin1(h.name + ": " + v + "\r\n"))
		}
	}
}

// latin1 encodes s as Node writes request heads: one byte per character.
func latin1(s string) []byte {
	b := make([]byte, 0, len(s))
	for _, c := range s {
		b = append(b, byte(c))
	}
	return b
}

// latin1String decodes bytes as Node decodes response header values.
func latin1String(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			rs := make([]rune, len(s))
			for j := 0; j < len(s); j++ {
				rs[j] = rune(s[j])
			}
			return string(rs)
		}
	}
	return s
}
