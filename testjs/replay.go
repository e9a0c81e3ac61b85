package testjs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
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

	"github.com/gorilla/websocket"

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

// ---------------------------------------------------------------- WebSocket

type connState int

const (
	wsConnecting connState = iota
	wsOpen
	wsRefused // the upgrade got another status: the ws package stays CONNECTING
)

// wsConn is one WebSocket connection as replay.mjs's Conn: received
// messages queue up until a step takes them. Fields below cancel are only
// touched by the replayer goroutine.
type wsConn struct {
	path   string
	cancel context.CancelFunc // drops the connection (and a pending dial)
	out    *queue.Queue[wsOp] // frames for the writer goroutine; sends never block, as ws.send

	owner       *wsRun // the step that opened it; its 'error' handler
	state       connState
	queue       []string
	waiter      *wsWaiter
	closed      bool
	closeCode   int
	closeReason string
}

type wsWaiter struct {
	done     bool
	rejected bool
	msg      string
}

// wsRun is one ws step in progress (replay.mjs's doWs closure).
type wsRun struct {
	step     *WSStep
	conn     *wsConn
	entry    *jsObject
	messages []any
	done     bool
	keep     bool
	timer    *time.Timer
}

func (c *wsConn) onMessage(m string) {
	if w := c.waiter; w != nil {
		c.waiter = nil
		w.done, w.msg = true, m
		return
	}
	c.queue = append(c.queue, m)
}

func (c *wsConn) onClose(code int, reason string) {
	if c.closed {
		return
	}
	c.closed, c.closeCode, c.closeReason = true, code, reason
	if w := c.waiter; w != nil {
		c.waiter = nil
		w.done, w.rejected = true, true
	}
}

func (c *wsConn) terminate() {
	if !c.closed {
		c.cancel()
	}
}

func (r *replayer) doWS(w *WSStep) (any, error) {
	existing := r.named[w.Name]
	if w.Name == "" {
		existing = nil
	}
	path := w.Path
	if existing != nil {
		path = existing.path
	}
	run := &wsRun{step: w, entry: newObject().set("ws", path)}
	if w.Name != "" {
		run.entry.set("name", w.Name)
	}
	run.entry.set("messages", []any{}).set("closeCode", nil).set("closeReason", nil)
	run.keep = w.Name != "" && w.Close == nil && !w.WaitClose
	run.timer = time.AfterFunc(time.Duration(w.TimeoutMs*float64(time.Millisecond)), func() {
		r.inbox.post(func() {
			if run.done {
				return
			}
			r.failures++
			r.finish(run, "error", fmt.Sprintf("timeout after %s ms (got %d of %d messages)",
				jsNumber(w.TimeoutMs), len(run.messages), w.Recv))
		})
	})
	defer run.timer.Stop()

	if existing != nil {
		run.conn = existing
	} else {
		run.conn = r.openWS(w, path, run)
		if err := r.block(func() bool { return run.done || run.conn.state == wsOpen }); err != nil {
			return nil, err
		}
	}
	if !run.done {
		if err := r.exchange(run); err != nil {
			return nil, err
		}
		r.finish(run)
	}
	run.entry.set("messages", run.messages)
	return run.entry, nil
}

// finish is replay.mjs's finish: record the extra fields and the close
// code if the connection is closed, then keep or drop the connection.
func (r *replayer) finish(run *wsRun, kv ...any) {
	if run.done {
		return
	}
	run.done = true
	run.timer.Stop()
	hasError := false
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		run.entry.set(k, kv[i+1])
		if k == "error" {
			hasError = true
		}
	}
	c := run.conn
	if c.closed {
		run.entry.set("closeCode", float64(c.closeCode)).set("closeReason", c.closeReason)
	}
	name := run.step.Name
	if run.keep && !c.closed && !hasError {
		r.named[name] = c
		return
	}
	if name != "" {
		delete(r.named, name)
	}
	c.terminate()
}

// exchange is replay.mjs's exchange. It returns early (nil) when the step
// finished meanwhile or the connection refused a send; only ctx errors are
// returned.
func (r *replayer) exchange(run *wsRun) error {
	w, c := run.step, run.conn
	take := func() (bool, error) {
		if len(c.queue) > 0 {
			run.messages = append(run.messages, c.queue[0])
			c.queue = c.queue[1:]
			return true, nil
		}
		if c.closed {
			return false, nil // next() rejects: the server closed first
		}
		wt := &wsWaiter{}
		c.waiter = wt
		if err := r.block(func() bool { return wt.done || run.done }); err != nil {
			return false, err
		}
		if c.waiter == wt {
			c.waiter = nil
		}
		if run.done || wt.rejected {
			return false, nil
		}
		run.messages = append(run.messages, wt.msg)
		return true, nil
	}
	send := func(m WSMessage) bool {
		if c.state != wsOpen {
			return false // ws.send throws while CONNECTING
		}
		c.out.Push(wsOp{msg: m})
		return true
	}
	if w.Recv >= len(w.Send) {
		for _, m := range w.Send {
			if !send(m) {
				return nil
			}
			if ok, err := take(); !ok {
				return err
			}
		}
	} else {
		for _, m := range w.Send {
			if !send(m) {
				return nil
			}
		}
	}
	for len(run.messages) < w.Recv {
		if ok, err := take(); !ok {
			return err
		}
	}
	if w.Close != nil || w.WaitClose {
		if w.Close != nil && !c.closed {
			if c.state == wsOpen {
				c.out.Push(wsOp{close: w.Close})
			} else {
				// ws.close() while CONNECTING aborts the handshake: 'close' 1006
				r.inbox.post(func() { c.onClose(1006, "") })
			}
		}
		return r.block(func() bool { return c.closed || run.done })
	}
	return nil
}

// openWS starts connecting; the dial goroutine reports through the inbox.
func (r *replayer) openWS(w *WSStep, path string, run *wsRun) *wsConn {
	ctx, cancel := context.WithCancel(r.ctx)
	c := &wsConn{path: path, cancel: cancel, owner: run, out: queue.New[wsOp]()}
	h := buildHeaders(w.Headers)
	if !h.has("host") {
		h.set("Host", defaultHost)
	}
	d := &wsDialer{r: r, target: wsTarget(path), headers: h, protocols: w.Protocols}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.dialWS(ctx, cancel, c, d)
	}()
	return c
}

// wsError is the 'error' handler of the step that opened c.
func (r *replayer) wsError(c *wsConn, msg string) {
	if c.owner.done {
		return
	}
	r.failures++
	r.finish(c.owner, "error", "websocket error: "+msg)
}

// dialWS runs on its own goroutine.
func (r *replayer) dialWS(ctx context.Context, cancel context.CancelFunc, c *wsConn, d *wsDialer) {
	dialer := &websocket.Dialer{
		NetDialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return &handshakeConn{d: d, ctx: ctx}, nil
		},
	}
	// "ws": the replayer's own dial makes TLS when the base is https.
	wc, _, err := dialer.DialContext(ctx, "ws://"+r.hostport+"/", nil)
	switch {
	case d.unexpected != nil:
		u := d.unexpected
		r.inbox.post(func() {
			c.state = wsRefused
			r.finish(c.owner, "upgradeStatus", float64(u.status), "contentType", u.header("content-type"), "body", bodyText(u.body))
		})
		return
	case err != nil:
		msg := d.failMsg
		if msg == "" {
			msg = errCode(err)
			if d.lastErr != nil {
				msg = errCode(d.lastErr)
			}
		}
		r.inbox.post(func() {
			r.wsError(c, msg)
			c.onClose(1006, "")
		})
		return
	}
	wc.SetReadLimit(maxWSPayload)
	// A Close frame from the server is answered with its code and reason,
	// as the ws package does (gorilla sends nothing once a Close was sent).
	wc.SetCloseHandler(func(code int, text string) error {
		_ = wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
		return nil
	})
	r.inbox.post(func() { c.state = wsOpen })
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		writeLoop(ctx, wc, c.out, d.stream)
	}()
	go func() {
		defer r.wg.Done()
		r.readLoop(ctx, cancel, wc, c, d.stream)
	}()
}

// readLoop turns received frames into events, in order, then the close
// once the TCP connection has ended (the ws package's 'close' event).
func (r *replayer) readLoop(ctx context.Context, cancel context.CancelFunc, wc *websocket.Conn, c *wsConn, s *wsStream) {
	defer cancel()
	ended := func() {
		s.shutdown()
		select {
		case <-s.ended:
		case <-ctx.Done():
		}
	}
	for {
		typ, data, err := wc.ReadMessage()
		if err != nil {
			ended()
			code, reason := 1006, ""
			var perr string
			if got, gcode, greason := s.watch.result(); got {
				switch {
				case gcode < 0:
					perr = "WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH"
				case gcode != 1005 && !validWireCode(gcode):
					perr = "WS_ERR_INVALID_CLOSE_CODE"
				case !utf8.ValidString(greason):
					perr = "WS_ERR_INVALID_UTF8"
				default:
					code, reason = gcode, greason
				}
			} else {
				perr = protocolError(err)
			}
			r.inbox.post(func() {
				if perr != "" {
					r.wsError(c, perr)
				}
				c.onClose(code, reason)
			})
			return
		}
		if typ == websocket.TextMessage && !utf8.Valid(data) {
			// the ws package fails the connection with 1007 and stops reading
			r.inbox.post(func() { r.wsError(c, "WS_ERR_INVALID_UTF8") })
			s.startCloseTimer()
			_ = wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, ""), time.Now().Add(time.Second))
			ended()
			r.inbox.post(func() { c.onClose(1006, "") })
			return
		}
		m := string(data)
		if typ == websocket.BinaryMessage {
			m = "base64:" + base64.StdEncoding.EncodeToString(data)
		}
		r.inbox.post(func() { c.onMessage(m) })
	}
}

func validWireCode(code int) bool {
	return (code >= 1000 && code <= 1014 && code != 1004 && code != 1005 && code != 1006) ||
		(code >= 3000 && code <= 4999)
}

// protocolError names a receive error the ws package reports as an 'error'
// event; "" for a dropped connection, which it reports only as close 1006.
func protocolError(err error) string {
	if errors.Is(err, websocket.ErrReadLimit) {
		return "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
	}
	msg := err.Error() // gorilla's protocol errors
	switch {
	case strings.Contains(msg, "unexpected reserved bits"):
		return "WS_ERR_UNEXPECTED_RSV_1"
	case strings.Contains(msg, "unknown opcode"), strings.Contains(msg, "continuation after final message frame"),
		strings.Contains(msg, "message start before final message frame"):
		return "WS_ERR_INVALID_OPCODE"
	case strings.Contains(msg, "control frame length > 125"):
		return "WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH"
	case strings.Contains(msg, "control frame not final"):
		return "WS_ERR_EXPECTED_FIN"
	}
	return ""
}

type wsOp struct {
	msg   WSMessage
	close *WSClose
}

func writeLoop(ctx context.Context, wc *websocket.Conn, q *queue.Queue[wsOp], s *wsStream) {
	var batch []wsOp
	for {
		batch, _ = q.Drain(batch)
		for _, op := range batch {
			if op.close != nil {
				// The server's answer ends the reader (readLoop); one that
				// never comes ends it at the close timeout.
				s.startCloseTimer()
				_ = wc.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(op.close.Code, op.close.Reason), time.Now().Add(time.Second))
				return
			}
			typ := websocket.TextMessage
			if op.msg.Binary {
				typ = websocket.BinaryMessage
			}
			_ = wc.WriteMessage(typ, op.msg.Data) // errors: sends after a close are dropped, as by ws
		}
		if len(batch) == 0 {
			select {
			case <-q.Wake():
			case <-ctx.Done():
				return
			}
		}
	}
}

// wsDialer performs the opening handshake the way the ws package does
// (headers, order, checks), over the replayer's own dial, for gorilla's
// Dialer (through handshakeConn).
type wsDialer struct {
	r         *replayer
	target    string
	headers   headerList
	protocols []string

	// results, read after Dial returns
	unexpected *response // the upgrade got a status other than 101
	failMsg    string    // the handshake failed a ws package check
	lastErr    error
	stream     *wsStream // the upgraded connection
}

// handshake upgrades a new connection with the client key key and returns
// the Sec-WebSocket-Accept the server answered; d.stream is the upgraded
// connection.
func (d *wsDialer) handshake(ctx context.Context, key string) (accept string, err error) {
	h := d.headers.clone()
	h.set("Sec-WebSocket-Version", "13")
	h.set("Sec-WebSocket-Key", key)
	h.set("Connection", "Upgrade")
	h.set("Upgrade", "websocket")
	if len(d.protocols) > 0 {
		h.set("Sec-WebSocket-Protocol", strings.Join(d.protocols, ","))
	}
	nc, err := d.r.dial(ctx)
	if err != nil {
		d.lastErr = err
		return "", err
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	ok := false
	defer func() {
		if !ok {
			stop()
			nc.Close()
		}
	}()
	var buf bytes.Buffer
	buf.Write(latin1("GET " + d.target + " HTTP/1.1\r\n"))
	h.writeTo(&buf)
	buf.WriteString("\r\n")
	if _, err := nc.Write(buf.Bytes()); err != nil {
		d.lastErr = err
		return "", err
	}
	br := bufio.NewReader(nc)
	res, resp, err := readResponse(br, "GET")
	if err != nil {
		d.lastErr = err
		return "", err
	}
	if res.status != http.StatusSwitchingProtocols {
		if res.body, err = io.ReadAll(resp.Body); err != nil {
			d.lastErr = err
			return "", err
		}
		d.unexpected = res
		return "", fmt.Errorf("upgrade answered %d", res.status)
	}
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	accept = base64.StdEncoding.EncodeToString(sum[:])
	if up, _ := res.header("upgrade").(string); !strings.EqualFold(up, "websocket") {
		d.failMsg = "Invalid Upgrade header"
	} else if got, _ := res.header("sec-websocket-accept").(string); got != accept {
		d.failMsg = "Invalid Sec-WebSocket-Accept header"
	} else if p, has := res.header("sec-websocket-protocol").(string); has && len(d.protocols) == 0 {
		d.failMsg = "Server sent a subprotocol but none was requested"
	} else if has && !hasString(d.protocols, p) {
		d.failMsg = "Server sent an invalid subprotocol"
	} else if !has && len(d.protocols) > 0 {
		d.failMsg = "Server sent no subprotocol"
	} else if res.header("sec-websocket-extensions") != nil {
		d.failMsg = "Server sent a Sec-WebSocket-Extensions header but no extension was requested"
	}
	if d.failMsg != "" {
		return "", errors.New(d.failMsg)
	}
	ok = true
	d.stream = &wsStream{br: br, nc: nc, watch: &closeWatch{}, stop: stop, wg: &d.r.wg, ended: make(chan struct{})}
	return accept, nil
}

// handshakeConn is the connection gorilla's Dialer dials: the request it
// writes only lends its Sec-WebSocket-Key to wsDialer.handshake, which
// upgrades a real connection its own way; gorilla then reads a 101 built
// from the server's accept, followed by the upgraded stream.
type handshakeConn struct {
	d    *wsDialer
	ctx  context.Context
	req  []byte    // gorilla's request, until its end
	head io.Reader // the 101 for gorilla, then the stream
}

func (c *handshakeConn) Write(p []byte) (int, error) {
	if c.head != nil {
		return c.d.stream.Write(p)
	}
	c.req = append(c.req, p...)
	end := bytes.Index(c.req, []byte("\r\n\r\n"))
	if end < 0 {
		return len(p), nil
	}
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(c.req[:end+4])))
	if err != nil {
		return 0, err
	}
	accept, err := c.d.handshake(c.ctx, req.Header.Get("Sec-WebSocket-Key"))
	if err != nil {
		return 0, err
	}
	resp := "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept + "\r\n\r\n"
	c.head = io.MultiReader(strings.NewReader(resp), c.d.stream)
	return len(p), nil
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	if c.head == nil {
		return 0, errors.New("testjs: read before the handshake")
	}
	return c.head.Read(p)
}

func (c *handshakeConn) Close() error {
	if c.d.stream != nil {
		return c.d.stream.Close()
	}
	return nil
}

func (c *handshakeConn) LocalAddr() net.Addr  { return &net.TCPAddr{} }
func (c *handshakeConn) RemoteAddr() net.Addr { return &net.TCPAddr{} }

// Deadlines: gorilla sets the dial context's on the handshake and clears
// it after; the stream keeps its own (the close timeout).
func (c *handshakeConn) SetDeadline(time.Time) error      { return nil }
func (c *handshakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *handshakeConn) SetWriteDeadline(time.Time) error { return nil }

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// wsStream is the upgraded connection under gorilla's Conn. Every byte
// read passes through watch, which notes the peer's close frame whoever
// reads it (the reader goroutine or the close handshake). Closing it is the
// ws package's socket.end(): half-close, then wait for the peer to end the
// connection, at most until 30 s after the close handshake began; ended is
// closed then. Dropping it (ctx) closes at once.
type wsStream struct {
	br    *bufio.Reader
	nc    net.Conn
	watch *closeWatch
	stop  func() bool
	wg    *sync.WaitGroup
	ended chan struct{}

	rmu      sync.Mutex // serialises reads: gorilla's and the final drain
	mu       sync.Mutex
	closeBy  time.Time
	shutOnce sync.Once
}

const wsCloseTimeout = 30 * time.Second // the ws package's closeTimeout

func (s *wsStream) Read(p []byte) (int, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	n, err := s.br.Read(p)
	if n > 0 && s.watch.feed(p[:n]) {
		s.startCloseTimer()
	}
	return n, err
}

func (s *wsStream) Write(p []byte) (int, error) { return s.nc.Write(p) }

func (s *wsStream) Close() error {
	s.shutdown()
	return nil
}

// startCloseTimer notes that the close handshake began (ws.close()): the
// connection is read until the close timeout at most.
func (s *wsStream) startCloseTimer() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closeBy.IsZero() {
		s.closeBy = time.Now().Add(wsCloseTimeout)
		s.nc.SetReadDeadline(s.closeBy)
	}
}

func (s *wsStream) shutdown() {
	s.shutOnce.Do(func() {
		s.startCloseTimer()
		s.mu.Lock()
		deadline := s.closeBy
		s.mu.Unlock()
		if cw, ok := s.nc.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		s.nc.SetReadDeadline(deadline)
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			buf := make([]byte, 4096)
			for {
				if _, err := s.Read(buf); err != nil {
					break
				}
			}
			s.stop()
			s.nc.Close()
			close(s.ended)
		}()
	})
}

// closeWatch parses the inbound frame stream just enough to capture the
// first close frame's code and reason.
type closeWatch struct {
	mu      sync.Mutex
	hdr     []byte
	need    uint64 // payload bytes left in the current frame
	inClose bool
	mask    [4]byte
	masked  bool
	payload []byte
	got     bool
	code    int // -1: a 1-byte payload
	reason  string
}

// feed parses p and reports whether it completed the close frame.
func (w *closeWatch) feed(p []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.got {
		return false
	}
	for len(p) > 0 && !w.got {
		if w.need > 0 {
			n := uint64(len(p))
			if n > w.need {
				n = w.need
			}
			if w.inClose && len(w.payload) < 128 {
				w.payload = append(w.payload, p[:n]...)
			}
			p = p[n:]
			w.need -= n
			if w.need == 0 && w.inClose {
				w.closeFrame()
			}
			continue
		}
		w.hdr = append(w.hdr, p[0])
		p = p[1:]
		if len(w.hdr) < 2 {
			continue
		}
		size := 2
		switch w.hdr[1] & 0x7F {
		case 126:
			size += 2
		case 127:
			size += 8
		}
		masked := w.hdr[1]&0x80 != 0
		if masked {
			size += 4
		}
		if len(w.hdr) < size {
			continue
		}
		var n uint64
		switch l := w.hdr[1] & 0x7F; l {
		case 126:
			n = uint64(binary.BigEndian.Uint16(w.hdr[2:4]))
		case 127:
			n = binary.BigEndian.Uint64(w.hdr[2:10])
		default:
			n = uint64(l)
		}
		w.masked = masked
		if masked {
			copy(w.mask[:], w.hdr[size-4:size])
		}
		w.inClose = w.hdr[0]&0x0F == 0x8
		w.payload = w.payload[:0]
		w.hdr = w.hdr[:0]
		w.need = n
		if n == 0 && w.inClose {
			w.closeFrame()
		}
	}
	return w.got
}

func (w *closeWatch) closeFrame() {
	p := w.payload
	if w.masked {
		for i := range p {
			p[i] ^= w.mask[i%4]
		}
	}
	w.got = true
	switch {
	case len(p) == 0:
		w.code = 1005
	case len(p) == 1:
		w.code = -1
	default:
		w.code = int(binary.BigEndian.Uint16(p))
		w.reason = string(p[2:])
	}
}

func (w *closeWatch) result() (bool, int, string) {
	if w == nil {
		return false, 0, ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got, w.code, w.reason
}

// wsTarget is the request target the ws package sends for path: Node's URL
// parser normalises it (dot segments, backslashes, percent-encoding).
func wsTarget(p string) string {
	p = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, p)
	p = strings.TrimRightFunc(p, func(r rune) bool { return r <= ' ' })
	path, query, hasQuery := strings.Cut(p, "?")
	path = strings.TrimPrefix(strings.ReplaceAll(path, "\\", "/"), "/")
	raw := strings.Split(path, "/")
	var out []string
	for i, seg := range raw {
		last := i == len(raw)-1
		switch strings.ToLower(seg) {
		case "..", ".%2e", "%2e.", "%2e%2e":
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		case ".", "%2e":
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, percentEncode(seg, " \"#<>?`{}"))
		}
	}
	target := "/" + strings.Join(out, "/")
	if hasQuery {
		target += "?" + percentEncode(query, " \"#<>'")
	}
	return target
}

// percentEncode encodes C0 controls, bytes above 0x7E and the given ASCII.
func percentEncode(s, set string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7E || strings.IndexByte(set, c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
