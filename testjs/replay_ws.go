package testjs

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/gorilla/websocket"
)

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
	closeSent   bool // a close op was queued: the writer ends after it
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

// terminate drops the connection as ws.terminate() does, after the frames
// already sent: ws.send hands a frame to the socket at once, so a message
// sent just before a terminate reaches the server. Here sends go through
// the writer goroutine, which drops the connection once it has written
// them (cancelling at once could lose them: issue 27's Agents case lost
// "hi there" that way, now and then).
func (c *wsConn) terminate() {
	if c.closed {
		return
	}
	if c.state == wsOpen && !c.closeSent {
		c.out.Push(wsOp{terminate: true})
		return
	}
	c.cancel()
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
				c.closeSent = true
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
		writeLoop(ctx, cancel, wc, c.out, d.stream)
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
	msg       WSMessage
	close     *WSClose
	terminate bool // drop the connection (after the frames before it)
}

func writeLoop(ctx context.Context, cancel context.CancelFunc, wc *websocket.Conn, q *queue.Queue[wsOp], s *wsStream) {
	var batch []wsOp
	for {
		batch, _ = q.Drain(batch)
		for _, op := range batch {
			if op.terminate {
				cancel()
				return
			}
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
