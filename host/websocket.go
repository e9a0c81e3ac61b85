package host

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/internal/wsrelay"
	"github.com/cellhost/cellhost/jsapi"
)

// WebSockets. A response with status 101 and a webSocket (the client end of
// a WebSocketPair) completes the upgrade of the HTTP request it answers; the
// host then holds the connection for the object that created the pair (or
// the worker's shard, for a pair made outside any object). A reader
// goroutine per connection delivers each message, in order, as an event
// through the object's input gate; what the program sends goes, in order,
// to a writer goroutine once the commits it may depend on are durable (the
// output gate): frames travel with the turn's replies (shard.reply).
//
// Closing: a Close frame from the client is delivered as
// webSocketClose(ws, code, reason, true) (or a "close" event); the program
// answers with ws.close(...), whose frame completes the handshake. A
// connection that ends without a Close frame is delivered as code 1006,
// jsapi.DroppedReason, wasClean false. Once the close (or error) event was
// handled the host lets the connection go. A server-initiated close waits
// wsCloseTimeout for the client's Close frame.
//
// Hibernation: a socket accepted with ctx.acceptWebSocket() does not keep
// its object resident; when the object was evicted, the next message builds
// a new instance, whose handlers receive it (the sockets, their tags and
// attachments live in the cell's jsapi.WebSocketSet). A socket accepted with
// accept() keeps the object resident. A reset of the object (a failed
// commit, a lost lease, a runtime replaced) drops every connection of its
// cell.

const (
	// wsMaxMessage is workerd's limit on a received message (1 MiB).
	wsMaxMessage = wsrelay.MaxMessage
	// wsInflight bounds the messages read from one connection and not yet
	// handled: the reader stops reading beyond it.
	wsInflight = 64
	// wsWriteTimeout bounds one frame's write to a slow client.
	wsWriteTimeout = wsrelay.WriteTimeout
	// DefaultMaxWebSocketsPerObject is Config.MaxWebSocketsPerObject's
	// default. Cloudflare documents 32 768 per object; one node of
	// cellhost holds all of them, at ~250 KB each (8 GB), so the default
	// is lower: 1024 (~256 MB).
	DefaultMaxWebSocketsPerObject = 1024
	// DefaultMaxWebSocketQueued is Config.MaxWebSocketQueued's default:
	// 16 MiB per connection (a message larger than that alone still goes).
	DefaultMaxWebSocketQueued = 16 << 20
	// wsCloseTimeout is how long a server-initiated close waits for the
	// client's Close frame before the TCP connection is closed.
	wsCloseTimeout = wsrelay.CloseTimeout
)

// wsOwner is who owns a WebSocketPair (jsapi.WebSocket.Owner): the object
// whose fetch returned it, or a worker's shard.
type wsOwner struct {
	s    *shard
	c    *cell  // nil: the worker's
	name string // the name of the id that woke the object
}

// claimSocket records the owner of the socket a response carries, the
// first time the response leaves a handler. On the loop of s.
func claimSocket(resp *jsapi.HTTPResponse, o *wsOwner) {
	if ws := jsapi.SocketOf(resp); ws != nil && ws.Owner == nil {
		ws.Owner = o
	}
}

// cellSockets is a cell's WebSocket state, owned by the cell's loop.
type cellSockets struct {
	set   *jsapi.WebSocketSet // hibernatable sockets, across instances
	conns map[*wsConn]struct{}
}

// webSocketSet is the cell's hibernation set (created on first use).
func (c *cell) webSocketSet() *jsapi.WebSocketSet {
	if c.sockets.set == nil {
		c.sockets.set = &jsapi.WebSocketSet{Store: cellSocketStore{c}}
	}
	return c.sockets.set
}

// socketsKeepAlive reports whether a connection keeps the cell resident: a
// socket not accepted with ctx.acceptWebSocket() does.
func (c *cell) socketsKeepAlive() bool {
	for k := range c.sockets.conns {
		if !k.ws.Hibernatable() {
			return true
		}
	}
	return false
}

// dropSockets lets every connection of the cell go (a reset). On the loop.
func (c *cell) dropSockets() {
	for k := range c.sockets.conns {
		k.drop()
	}
}

// wsOutKind is what the writer does with one queued item.
type wsOutKind uint8

const (
	wsOutMessage wsOutKind = iota
	wsOutClose
	wsOutDrop // close the TCP connection after what was queued before
)

type wsOut struct {
	kind   wsOutKind
	text   bool
	data   []byte
	code   int
	reason string
}

// wsConn is one upgraded connection and the server end it feeds. It
// implements jsapi.WebSocketConn.
type wsConn struct {
	h    *Host
	s    *shard
	c    *cell // nil: the worker's socket
	name string
	// relay: conn is a relay from an edge node (relay.go), not the
	// client itself.
	relay bool
	ws    *jsapi.WebSocket // the server end; touched on the loop only
	conn  *websocket.Conn  // set before the goroutines start
	// peer, instead of conn, is the other end of an in-process bridge
	// (wsbridge.go): what this end sends goes to it as events, on its
	// loop. Set before either end is used.
	peer *wsConn

	out *queue.Queue[wsOut] // to the writer
	// queued is the bytes of the messages in out; overflow is set once
	// they passed Config.MaxWebSocketQueued (the connection is closed).
	queued   atomic.Int64
	overflow atomic.Bool

	credits chan struct{} // one per message read and not yet handled
	done    chan struct{} // closed once the TCP connection is closed
	wg      sync.WaitGroup

	// Owned by the loop.
	held    []jsapi.WebSocketEvent // events that arrived before the socket was accepted
	dropped bool                   // let go: later events are ignored
	ended   bool                   // a bridge's: its last event was received (wsbridge.go)
}

func newWSConn(h *Host, o *wsOwner) *wsConn {
	return &wsConn{h: h, s: o.s, c: o.c, name: o.name, out: queue.New[wsOut](),
		credits: make(chan struct{}, wsInflight), done: make(chan struct{})}
}

// Send implements jsapi.WebSocketConn (on the loop).
func (k *wsConn) Send(text bool, data []byte) {
	k.output(wsOut{kind: wsOutMessage, text: text, data: data})
}

// Close implements jsapi.WebSocketConn (on the loop).
func (k *wsConn) Close(code int, reason string) {
	k.output(wsOut{kind: wsOutClose, code: code, reason: reason})
}

// Accepted implements jsapi.WebSocketConn (on the loop, inside accept()):
// the events that waited are delivered in macrotasks of their own.
func (k *wsConn) Accepted() {
	held := k.held
	k.held = nil
	for _, ev := range held {
		k.s.post(func() { k.deliver(ev) })
	}
}

// output queues a frame behind the output gate: it leaves once the commits
// of the cell made so far are durable, and never if the object was reset
// in the meantime. On the loop.
func (k *wsConn) output(o wsOut) {
	c := k.c
	if c == nil {
		k.s.reply(nil, func() { k.enqueue(o) })
		return
	}
	gen := c.gen
	k.s.reply(c, func() {
		if c.gen != gen {
			return // the object was reset: what it sent is lost with it
		}
		k.enqueue(o)
	})
}

// enqueue hands o to the writer (or to the bridge's other end). Safe from
// any goroutine; never blocks.
func (k *wsConn) enqueue(o wsOut) {
	if p := k.peer; p != nil {
		p.s.post(func() { p.receive(o) })
		return
	}
	if o.kind == wsOutMessage {
		if k.overflow.Load() {
			return // the connection is being closed: drop it
		}
		n := int64(len(o.data))
		if was := k.queued.Add(n) - n; was > 0 && was+n > k.h.cfg.MaxWebSocketQueued {
			k.queued.Add(-n)
			k.overflowed()
			return
		}
	}
	k.out.Push(o)
}

// wsOverflowReason is the Close reason of a connection whose client does
// not read what is sent to it.
const wsOverflowReason = "the client is not reading: too many bytes queued"

// overflowed closes a connection whose queue passed the cap: a Close
// 1008 (policy violation) if it can still be written within a second,
// then the TCP connection, which unblocks a writer stuck on the client
// and frees the queue. The program hears of it as of any dropped
// connection (a close event with 1006). Safe from any goroutine.
func (k *wsConn) overflowed() {
	if !k.overflow.CompareAndSwap(false, true) {
		return
	}
	k.h.log.Warn(fmt.Sprintf("WebSocket of %s closed: %s (over %d bytes)", logSafe(k.name), wsOverflowReason, k.h.cfg.MaxWebSocketQueued))
	go func() {
		msg := websocket.FormatCloseMessage(websocket.ClosePolicyViolation, wsOverflowReason)
		_ = k.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
		_ = k.conn.UnderlyingConn().SetDeadline(time.Now())
		k.conn.Close()
	}()
}

// credit returns the flow-control credit of one handled message.
func (k *wsConn) credit() {
	select {
	case <-k.credits:
	default:
	}
}

// deliver runs ev on the server end: through the object's input gate, or
// directly for a worker's socket. On the loop.
func (k *wsConn) deliver(ev jsapi.WebSocketEvent) {
	if k.dropped {
		k.credit()
		return
	}
	if !k.ws.Accepted() {
		k.held = append(k.held, ev)
		return
	}
	if ev.Type == jsapi.WebSocketMessage {
		if resp, ok := k.ws.RespondAutomatically(ev.Text, ev.Data); ok {
			k.output(wsOut{kind: wsOutMessage, text: true, data: []byte(resp)})
			k.credit()
			return
		}
	}
	final := ev.Type != jsapi.WebSocketMessage
	after := func() {
		k.credit()
		if final {
			k.drop()
		}
	}
	fail := func(err error) {
		var be *BrokenObjectError
		if !errors.As(err, &be) {
			k.h.logUncaught(err)
		}
		after()
	}
	s := k.s
	c := k.c
	if c == nil {
		v, err := s.w.DispatchWebSocket(nil, k.ws, ev)
		if err != nil {
			s.reply(nil, func() { fail(err) })
			return
		}
		s.w.Settle(v, func(goja.Value) { s.reply(nil, after) }, func(e goja.Value) {
			err := s.w.ScriptErrorOf(e)
			s.reply(nil, func() { fail(err) })
		})
		return
	}
	c.event(k.name, func() (goja.Value, error) {
		return s.w.DispatchWebSocket(c.inst, k.ws, ev)
	}, func(goja.Value) func() { return after }, fail)
}

// drop lets the connection go: the server end is detached (it leaves
// ctx.getWebSockets(), later sends are dropped) and the writer closes the
// TCP connection after the frames already released. On the loop.
func (k *wsConn) drop() {
	if k.dropped {
		return
	}
	k.dropped = true
	k.ws.Detach()
	k.held = nil
	if c := k.c; c != nil {
		delete(c.sockets.conns, k)
	}
	k.enqueue(wsOut{kind: wsOutDrop})
}

// read is the reader goroutine: every message becomes an event, in order;
// the end of the connection becomes the last one.
func (k *wsConn) read() {
	defer k.wg.Done()
	for {
		typ, data, err := k.conn.ReadMessage()
		if err != nil {
			if k.relay && k.h.closing.Load() {
				// This node is shutting down: the edge keeps the client
				// and re-attaches the socket on the next owner, so the
				// object hears of no close (its row stays).
				return
			}
			ev := closeEvent(err)
			k.s.post(func() { k.deliver(ev) })
			return
		}
		if typ == websocket.TextMessage && !utf8.Valid(data) {
			// RFC 6455 8.1: a text frame that is not UTF-8 fails the
			// connection with 1007; the program never sees the frame.
			msg := websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, wsInvalidUTF8)
			_ = k.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(time.Second))
			ev := jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: websocket.CloseInvalidFramePayloadData, Reason: wsInvalidUTF8}
			k.s.post(func() { k.deliver(ev) })
			return
		}
		select {
		case k.credits <- struct{}{}:
		case <-k.done:
			return
		}
		ev := jsapi.WebSocketEvent{Type: jsapi.WebSocketMessage, Text: typ == websocket.TextMessage, Data: data}
		k.s.post(func() { k.deliver(ev) })
	}
}

// wsInvalidUTF8 is the reason of the 1007 Close a text frame that is not
// UTF-8 gets.
const wsInvalidUTF8 = "Invalid UTF-8 in text frame"

// autoReplyToClose reports whether workerd's web_socket_auto_reply_to_close
// is on: from compatibility date 2026-04-07, or by its flag, unless
// web_socket_manual_reply_to_close turns it off.
func autoReplyToClose(date string, flags []string) bool {
	on := date >= "2026-04-07"
	for _, f := range flags {
		switch f {
		case "web_socket_auto_reply_to_close":
			on = true
		case "web_socket_manual_reply_to_close":
			return false
		}
	}
	return on
}

// closeEvent is the last event of a connection whose read failed with err.
func closeEvent(err error) jsapi.WebSocketEvent {
	var ce *websocket.CloseError
	switch {
	case errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure: // gorilla reports EOF as 1006
		return jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: ce.Code, Reason: ce.Text, WasClean: true}
	case errors.Is(err, websocket.ErrReadLimit):
		return jsapi.WebSocketEvent{Type: jsapi.WebSocketError, Err: "WebSocket message is too large"}
	case ce != nil || isDisconnect(err):
		return jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: 1006, Reason: jsapi.DroppedReason}
	}
	return jsapi.WebSocketEvent{Type: jsapi.WebSocketError, Err: strings.TrimPrefix(err.Error(), "websocket: ")}
}

// isDisconnect reports whether a read error means the connection ended
// (rather than the peer breaking the protocol).
func isDisconnect(err error) bool {
	var ne net.Error
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.As(err, &ne)
}

// write is the writer goroutine: it sends the queued frames in order and
// closes the TCP connection on a drop, on a write error, or when a Close
// it sent is not answered in time.
func (k *wsConn) write() {
	defer k.wg.Done()
	defer close(k.done)
	defer k.conn.Close()
	var closeTimer *time.Timer
	defer func() {
		if closeTimer != nil {
			closeTimer.Stop()
		}
	}()
	var batch []wsOut
	for {
		batch, _ = k.out.Next(batch) // never closed: a drop ends the writer
		for _, o := range batch {
			switch o.kind {
			case wsOutDrop:
				return
			case wsOutMessage:
				typ := websocket.BinaryMessage
				if o.text {
					typ = websocket.TextMessage
				}
				if k.overflow.Load() {
					return
				}
				_ = k.conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
				err := k.conn.WriteMessage(typ, o.data)
				k.queued.Add(-int64(len(o.data)))
				if err != nil {
					return
				}
			case wsOutClose:
				code := o.code
				if code == 0 {
					code = websocket.CloseNoStatusReceived // an empty payload
				}
				msg := websocket.FormatCloseMessage(code, o.reason)
				if err := k.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wsWriteTimeout)); err != nil {
					return
				}
				if closeTimer == nil {
					closeTimer = time.AfterFunc(wsCloseTimeout, func() { k.conn.Close() })
				}
			}
		}
	}
}

// logUncaught logs an error a handler threw, as the HTTP front does.
func (h *Host) logUncaught(err error) {
	var se *jsapi.ScriptError
	if errors.As(err, &se) && se.Stack != "" {
		h.log.Error("Uncaught " + se.Stack)
		return
	}
	h.log.Error("Uncaught " + err.Error())
}

// wsRegistry is the host's open connections (closed by Host.Close).
type wsRegistry struct {
	mu     sync.Mutex
	conns  map[*wsConn]struct{}
	closed bool
}

func (r *wsRegistry) add(k *wsConn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if r.conns == nil {
		r.conns = map[*wsConn]struct{}{}
	}
	r.conns[k] = struct{}{}
	return true
}

func (r *wsRegistry) remove(k *wsConn) {
	r.mu.Lock()
	delete(r.conns, k)
	r.mu.Unlock()
}

// closeWebSockets closes every connection's TCP connection and waits for
// their goroutines. Called by Close.
func (h *Host) closeWebSockets() {
	r := &h.sockets
	r.mu.Lock()
	r.closed = true
	conns := make([]*wsConn, 0, len(r.conns))
	for k := range r.conns {
		conns = append(conns, k)
	}
	r.mu.Unlock()
	for _, k := range conns {
		k.conn.Close()
		k.enqueue(wsOut{kind: wsOutDrop})
	}
	for _, k := range conns {
		k.wg.Wait()
	}
	if p := h.cfg.Placement; p != nil {
		p.CloseSockets() // the edge's client connections
	}
}

// tooManySockets refuses an upgrade past Config.MaxWebSocketsPerObject.
type tooManySockets struct{ limit int }

func (e *tooManySockets) Error() string {
	return fmt.Sprintf("This Durable Object has too many open WebSockets (limit %d); close some before opening more.", e.limit)
}

var wsUpgrader = websocket.Upgrader{
	CheckOrigin:       func(*http.Request) bool { return true },
	EnableCompression: false,
}

// upgradeWebSocket completes the upgrade for a 101 response carrying a
// WebSocket: it couples the pair's client end to the new connection on its
// owner's loop, then switches protocols and starts the reader and writer.
func (h *Host) upgradeWebSocket(ec echo.Context, resp *jsapi.HTTPResponse) error {
	r := ec.Request()
	client := jsapi.SocketOf(resp)
	if rs, ok := client.Owner.(RemoteSocket); ok { // from an object on another node
		return rs.ServeClient(ec.Response(), r)
	}
	o, _ := client.Owner.(*wsOwner)
	if o == nil {
		return errors.New("internal error: a WebSocket response has no owner")
	}
	if !websocket.IsWebSocketUpgrade(r) {
		return &jsapi.ScriptError{Name: "TypeError", Message: `Worker tried to return a WebSocket in a response to a request which did not contain the header "Upgrade: websocket".`}
	}
	k := newWSConn(h, o)
	errc := make(chan error, 1)
	o.s.post(func() {
		err := client.Couple(k)
		if err == nil {
			k.ws = client.Peer()
			if c := k.c; c != nil && len(c.sockets.conns) >= h.cfg.MaxWebSocketsPerObject {
				// Refused: the program's end hears of a dropped
				// connection (abandon), so it leaves getWebSockets().
				errc <- &tooManySockets{h.cfg.MaxWebSocketsPerObject}
				return
			}
			if c := k.c; c != nil {
				if c.sockets.conns == nil {
					c.sockets.conns = map[*wsConn]struct{}{}
				}
				c.sockets.conns[k] = struct{}{}
				c.keepAlive = c.socketsKeepAlive
			}
		}
		errc <- err
	})
	// abandon tells the program that the connection went away (after the
	// coupling, if it happened: jobs run in order).
	abandon := func() {
		o.s.post(func() {
			if k.ws != nil {
				k.deliver(jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: 1006, Reason: jsapi.DroppedReason})
			}
		})
	}
	select {
	case err := <-errc:
		var tm *tooManySockets
		if errors.As(err, &tm) {
			abandon()
			return ec.String(http.StatusServiceUnavailable, tm.Error()+"\n")
		}
		if err != nil {
			return err
		}
	case <-r.Context().Done(): // the client went away, or the request timed out
		abandon()
		return r.Context().Err()
	}
	hdr := http.Header{}
	for _, kv := range resp.Header {
		if !wsrelay.HopHeader(kv[0]) {
			hdr.Add(kv[0], kv[1])
		}
	}
	conn, err := wsUpgrader.Upgrade(ec.Response(), r, hdr)
	if err != nil {
		// The upgrade wrote its error response; the program sees a
		// connection that went away.
		abandon()
		return nil
	}
	conn.SetReadLimit(wsMaxMessage)
	if autoReplyToClose(h.cfg.CompatibilityDate, h.cfg.CompatibilityFlags) {
		// workerd's web_socket_auto_reply_to_close: the runtime answers the
		// client's Close with the same code and reason (an empty Close to
		// one without a code), whatever the program does; a later
		// ws.close() of the program's sends nothing more.
		conn.SetCloseHandler(func(code int, text string) error {
			msg := []byte{}
			if code != websocket.CloseNoStatusReceived {
				msg = websocket.FormatCloseMessage(code, text)
			}
			err := conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(wsWriteTimeout))
			if err == websocket.ErrCloseSent {
				return nil // the program's Close crossed it: the handshake is complete
			}
			return err
		})
	} else {
		conn.SetCloseHandler(func(int, string) error { return nil }) // the program answers a Close
	}
	k.conn = conn
	if !h.sockets.add(k) { // the host is closing
		conn.Close()
		abandon()
		return nil
	}
	k.wg.Add(2)
	go func() {
		k.write()
		h.sockets.remove(k)
	}()
	go k.read()
	return nil
}
