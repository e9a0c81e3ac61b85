package jsapi

import (
	crand "crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/web"

	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
)

// ---------------------------------------------------------------------------
// WebSockets: WebSocketPair, the WebSocket object, the hibernation API on
// ctx, and the Go side a host couples to a real connection.
//
// A WebSocket's state lives in Go (*WebSocket), its JS object holds it in a
// private field. A pair is created in one runtime (its home); the client end
// travels in a Response, the host couples it to the network connection
// (Couple), and from then on what the server end sends goes to the
// WebSocketConn, and what the network delivers reaches the server end
// through Worker.DispatchWebSocket. jsapi has no network code.
//
// A socket that crossed to another runtime in a Response (a stub.fetch
// caller) is a stand-in there (ValueIn): returned in a Response it is the
// socket it stands for; accept()ed, the host's SocketBridge couples it to
// that socket, which stays in its own runtime, so that only frames (Go
// bytes) cross between runtimes, never a goja value.

//go:embed websocket.js
var wsSource string

var wsProgram = goja.MustCompile("cellhost:websocket.js", wsSource, true)

// WebSocketConn is the network side of a coupled WebSocket, implemented by
// the host. jsapi calls it on the goroutine of the socket's runtime, in the
// order the program sent; no method may block.
type WebSocketConn interface {
	// Send sends a text (UTF-8) or binary message. data is the caller's.
	Send(text bool, data []byte)
	// Close sends a Close frame: code 0 means none (1005 on the reader's
	// side), reason is at most 123 bytes.
	Close(code int, reason string)
	// Accepted tells that the program accepted the socket (accept() or
	// ctx.acceptWebSocket()): events may be dispatched from now on.
	Accepted()
}

// WebSocketEventType is the kind of a WebSocketEvent.
type WebSocketEventType int

const (
	WebSocketMessage WebSocketEventType = iota // a text or binary message
	WebSocketClose                             // the peer closed, or the connection dropped
	WebSocketError                             // the connection failed
)

// WebSocketEvent is what the network delivers to a server end.
type WebSocketEvent struct {
	Type     WebSocketEventType
	Text     bool   // message: a text message (else binary)
	Data     []byte // message: its payload
	Code     int    // close: the code (1005: none, 1006: dropped)
	Reason   string // close: the reason
	WasClean bool   // close: a Close frame was received
	Err      string // error: the message of the Error the handler gets
}

// DroppedReason is the reason of the close event of a connection that ended
// without a Close frame (code 1006), as workerd words it.
const DroppedReason = "WebSocket disconnected without sending Close frame."

type wsMode uint8

const (
	wsAwaiting     wsMode = iota // neither accepted nor used in a response
	wsAccepted                   // accept(): events go to the listeners
	wsHibernatable               // ctx.acceptWebSocket(): events go to the object's handlers
	wsReleased                   // used in a Response (coupled to a connection)
)

// maxAttachmentSize is workerd's limit on a serialized attachment.
const maxAttachmentSize = 16384

// Hibernation limits (workerd's).
const (
	maxTagsPerSocket = 10
	maxTagLength     = 256
	maxHibernatable  = 32768
)

type wsFrame struct {
	close  bool
	text   bool
	data   []byte
	code   int
	reason string
}

// WebSocket is one end of a WebSocketPair. Every method must be called on
// the goroutine of the runtime the pair was created in (its home), except
// that Owner may be read anywhere once set.
type WebSocket struct {
	rt   *goja.Runtime // home runtime
	obj  *goja.Object  // the JS object in the home runtime
	peer *WebSocket
	mode wsMode

	closedOut bool // close() was called
	closedIn  bool // a close (or the end of the connection) was received
	aborted   bool // the connection is gone: sends are dropped
	errored   bool

	conn    WebSocketConn // set when the peer was coupled to a connection
	pending []wsFrame     // sent before the coupling

	attachment []byte
	tags       []string
	set        *WebSocketSet // the hibernation set holding it, if any
	id         string        // durable id of a hibernatable socket (WebSocketStore)
	autoRespAt time.Time     // last auto-response sent

	// Owner is the host's: who owns the socket (set once, on the home
	// loop, before the socket leaves it).
	Owner any

	// remote is a stand-in's: the socket it stands for, which lives in
	// another runtime (or on another node). Immutable.
	remote *WebSocket
}

// SocketBridge couples a stand-in the program accepted (in the stand-in's
// runtime, on its goroutine) to the socket it stands for (Remote): it
// returns the connection what the stand-in sends goes to; the host
// delivers what the other end sends with Worker.DispatchWebSocket on the
// stand-in's loop. An error is thrown by accept(). The host's, set by
// WorkerOptions.BridgeSocket.
type SocketBridge func(standIn *WebSocket) (WebSocketConn, error)

// Remote is the socket a stand-in (ValueIn in another runtime) stands for,
// or nil when ws is not a stand-in.
func (ws *WebSocket) Remote() *WebSocket { return ws.remote }

// NewRemoteSocket returns the client end of a WebSocket whose server end
// lives on another node: it has no runtime, so a program can only return
// it in a Response (the host then serves owner's connection). owner is
// the host's (Owner).
func NewRemoteSocket(owner any) *WebSocket { return &WebSocket{Owner: owner} }

// Peer is the other end of the pair.
func (ws *WebSocket) Peer() *WebSocket { return ws.peer }

// ID is the durable id of a socket accepted with ctx.acceptWebSocket()
// (the key of its row in the WebSocketSet's Store), else "".
func (ws *WebSocket) ID() string { return ws.id }

// Accepted reports whether the program accepted ws (accept() or
// ctx.acceptWebSocket()).
func (ws *WebSocket) Accepted() bool { return ws.mode == wsAccepted || ws.mode == wsHibernatable }

// Hibernatable reports whether ws was accepted with ctx.acceptWebSocket().
func (ws *WebSocket) Hibernatable() bool { return ws.mode == wsHibernatable }

// ClosedOutgoing reports whether the program closed ws (sent a Close frame).
func (ws *WebSocket) ClosedOutgoing() bool { return ws.closedOut }

// Couple attaches the connection a host completed for the response that
// carried ws (a client end): what the peer sends goes to conn from now on,
// starting with what it sent before. It fails as workerd does when ws
// cannot be returned in a Response.
func (ws *WebSocket) Couple(conn WebSocketConn) error {
	switch ws.mode {
	case wsReleased:
		return &ScriptError{Name: "TypeError", Message: "Can't return WebSocket that was already used in a response."}
	case wsAccepted:
		return &ScriptError{Name: "TypeError", Message: "Can't return WebSocket in a Response after calling accept()."}
	case wsHibernatable:
		return &ScriptError{Name: "TypeError", Message: "Can't return WebSocket in a Response after calling acceptWebSocket()."}
	}
	ws.mode = wsReleased
	s := ws.peer
	s.conn = conn
	pending := s.pending
	s.pending = nil
	for _, f := range pending {
		if f.close {
			conn.Close(f.code, f.reason)
		} else {
			conn.Send(f.text, f.data)
		}
	}
	if s.Accepted() {
		conn.Accepted()
	}
	return nil
}

// Detach ends ws's connection as the program sees it: later sends are
// dropped and a hibernatable socket leaves ctx.getWebSockets(). The host
// calls it once the connection is gone and its last event was delivered.
func (ws *WebSocket) Detach() {
	ws.aborted = true
	ws.closedIn = true
	if ws.set != nil {
		ws.set.remove(ws)
		ws.set = nil
	}
}

// RespondAutomatically returns the response set by
// ctx.setWebSocketAutoResponse() for a text message equal to its request
// (and records the time for getWebSocketAutoResponseTimestamp); ok is false
// when the message must reach the object.
func (ws *WebSocket) RespondAutomatically(text bool, data []byte) (resp string, ok bool) {
	if !text || ws.mode != wsHibernatable || ws.set == nil || !ws.set.hasAuto || ws.closedOut {
		return "", false
	}
	if string(data) != ws.set.autoReq {
		return "", false
	}
	ws.autoRespAt = time.Now()
	return ws.set.autoResp, true
}

func (ws *WebSocket) readyState() int {
	switch {
	case ws.errored, ws.closedIn && ws.closedOut:
		return 3
	case ws.closedIn || ws.closedOut:
		return 2
	}
	return 1
}

func (ws *WebSocket) output(f wsFrame) {
	if ws.conn != nil {
		if f.close {
			ws.conn.Close(f.code, f.reason)
		} else {
			ws.conn.Send(f.text, f.data)
		}
		return
	}
	if p := ws.peer; p != nil && p.rt == ws.rt && p.mode == wsAccepted {
		p.deliverLocal(f)
		return
	}
	ws.pending = append(ws.pending, f)
}

// deliverLocal delivers what the peer sent to ws, both ends living in the
// same runtime and ws accepted with accept(): as an event in a macrotask of
// its own, as workerd does.
func (ws *WebSocket) deliverLocal(f wsFrame) {
	rt := ws.rt
	st := wsStateOf(rt)
	if st == nil {
		return
	}
	fn := func(goja.FunctionCall) goja.Value {
		if ws.rt != rt || ws.obj == nil || ws.closedIn {
			return goja.Undefined()
		}
		switch {
		case f.close:
			ws.closedIn = true
			code := f.code
			if code == 0 {
				code = 1005
			}
			_, _ = st.close(goja.Undefined(), ws.obj, rt.ToValue(code), rt.ToValue(f.reason), rt.ToValue(true))
		case f.text:
			_, _ = st.message(goja.Undefined(), ws.obj, rt.ToValue(string(f.data)))
		default:
			_, _ = st.message(goja.Undefined(), ws.obj, rt.ToValue(rt.NewArrayBuffer(f.data)))
		}
		return goja.Undefined()
	}
	if _, err := st.later(goja.Undefined(), rt.ToValue(fn)); err != nil {
		panic(err)
	}
}

// home returns ws's object in rt, moving ws to rt when its runtime was
// replaced (a hibernatable socket outlives the runtime of its instance).
func (ws *WebSocket) home(rt *goja.Runtime) (*goja.Object, error) {
	if ws.rt == rt && ws.obj != nil {
		return ws.obj, nil
	}
	st := wsStateOf(rt)
	if st == nil {
		return nil, errors.New("jsapi: InstallWebSockets has not run on this runtime")
	}
	ws.rt, ws.obj = rt, nil
	v, err := st.wrap(goja.Undefined(), rt.ToValue(ws))
	if err != nil {
		return nil, err
	}
	return v.ToObject(rt), nil
}

// ValueIn returns a JS value for ws in rt: its own object at home while no
// handler returned it yet (no Owner), else a new stand-in living in rt.
// Returned in a Response, the stand-in is ws again (socketFor); accept()ed,
// it is coupled to ws by the runtime's SocketBridge. A socket an object
// returned is a stand-in even in the object's own runtime, so that what
// the two ends exchange passes the object's gates as over a connection.
// Call it on rt's goroutine; ws's fields read here were set before ws left
// its home loop.
func (ws *WebSocket) ValueIn(rt *goja.Runtime) goja.Value {
	if ws.Owner == nil && ws.rt == rt && ws.obj != nil {
		return ws.obj
	}
	st := wsStateOf(rt)
	if st == nil {
		return goja.Null()
	}
	v, err := st.wrap(goja.Undefined(), rt.ToValue(&WebSocket{rt: rt, remote: ws}))
	if err != nil {
		return goja.Null()
	}
	return v
}

// socketFor is the socket a Response carrying ws hands to the host: for a
// stand-in neither accepted nor returned before, the socket it stands for
// (the stand-in is used up); else ws. On ws's home loop.
func (ws *WebSocket) socketFor() *WebSocket {
	if ws.remote != nil && ws.mode == wsAwaiting {
		ws.mode = wsReleased
		return ws.remote
	}
	return ws
}

// WebSocketSet is an object's hibernatable WebSockets
// (ctx.acceptWebSocket) and its auto-response. The host keeps one per
// object, across instances, on the object's loop.
type WebSocketSet struct {
	// Store, when set, keeps each hibernatable socket's tags and
	// attachment durable (the host sets the object's database), so that
	// another node can re-attach the socket (RestoreWebSocket).
	Store WebSocketStore

	sockets  []*WebSocket
	hasAuto  bool
	autoReq  string
	autoResp string
	timeout  int64 // setHibernatableWebSocketEventTimeout, ms; 0 = none
}

// WebSocketStore is where a WebSocketSet keeps its sockets' tags and
// attachments: Put on acceptWebSocket() and serializeAttachment(), Delete
// when the close or error event is delivered. Calls happen on the loop,
// inside the turn (the host's implicit transaction).
type WebSocketStore interface {
	PutWebSocket(id string, tags []string, attachment []byte) error
	DeleteWebSocket(id string) error
}

// RestoreWebSocket adds to s the hibernatable server end of a socket
// accepted on another node (its durable id, tags and attachment, read from
// the Store's rows), coupled to conn: the next event the host dispatches
// reaches the object's handlers, ctx.getWebSockets() lists it and what the
// program sends goes to conn. If s holds id already, that socket is
// re-coupled to conn instead. On the loop.
func RestoreWebSocket(s *WebSocketSet, id string, tags []string, attachment []byte, conn WebSocketConn) *WebSocket {
	for _, ws := range s.sockets {
		if ws.id == id {
			ws.conn = conn
			ws.aborted, ws.closedIn = false, false
			return ws
		}
	}
	ws := &WebSocket{mode: wsHibernatable, id: id, tags: tags, attachment: attachment, set: s, conn: conn}
	s.sockets = append(s.sockets, ws)
	return ws
}

// Has reports whether s holds the socket with durable id id.
func (s *WebSocketSet) Has(id string) bool {
	for _, ws := range s.sockets {
		if ws.id == id {
			return true
		}
	}
	return false
}

// Len is the number of hibernatable sockets.
func (s *WebSocketSet) Len() int { return len(s.sockets) }

func (s *WebSocketSet) remove(ws *WebSocket) {
	for i, x := range s.sockets {
		if x == ws {
			s.sockets = append(s.sockets[:i], s.sockets[i+1:]...)
			return
		}
	}
}

// wsState is what InstallWebSockets leaves on a runtime.
type wsState struct {
	wrap, handleOf, autoPair, newAutoPair, later goja.Callable
	message, close, error                        goja.Callable
	bridge                                       SocketBridge // nil: stand-ins cannot be accepted
}

var wsStateKey = rtstate.NewKey[wsState]("cellhost.websocket")

func wsStateOf(rt *goja.Runtime) *wsState { return wsStateKey.Get(rt) }

// WebSocketOf returns the WebSocket behind a JS value, or nil when v is not
// a WebSocket. Call it on rt's goroutine.
func WebSocketOf(rt *goja.Runtime, v goja.Value) *WebSocket {
	st := wsStateOf(rt)
	if st == nil || v == nil {
		return nil
	}
	h, err := st.handleOf(goja.Undefined(), v)
	if err != nil || h == nil {
		return nil
	}
	ws, _ := h.Export().(*WebSocket)
	return ws
}

// InstallWebSockets installs WebSocketPair, WebSocket, MessageEvent,
// CloseEvent, ErrorEvent and WebSocketRequestResponsePair. It needs the
// web globals (InstallWeb). NewWorker calls it. Call it on the runtime's
// goroutine.
func InstallWebSockets(rt *goja.Runtime) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("install WebSocket globals: %v", r)
		}
	}()
	if wsStateOf(rt) != nil {
		return nil
	}
	fnv, err := rt.RunProgram(wsProgram)
	if err != nil {
		return fmt.Errorf("install WebSocket globals: %w", err)
	}
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		return errors.New("install WebSocket globals: not a function")
	}
	helpers := web.Helpers(rt)
	if helpers == nil {
		return errors.New("install WebSocket globals: the web globals are not installed")
	}
	res, err := fn(goja.Undefined(), wsNatives(rt), helpers)
	if err != nil {
		return fmt.Errorf("install WebSocket globals: %w", err)
	}
	in := res.ToObject(rt)
	get := func(name string) goja.Callable {
		f, ok := goja.AssertFunction(in.Get(name))
		if !ok {
			panic("websocket.js: missing internal " + name)
		}
		return f
	}
	st := &wsState{
		wrap: get("wrap"), handleOf: get("handleOf"), later: get("later"), autoPair: get("autoResponsePair"), newAutoPair: get("newAutoResponsePair"),
		message: get("message"), close: get("close"), error: get("error"),
	}
	if err := wsStateKey.Set(rt, st); err != nil {
		return err
	}
	return web.SetSocketOf(rt, func(v goja.Value) web.Socket {
		if ws := WebSocketOf(rt, v); ws != nil {
			return ws.socketFor()
		}
		return nil
	})
}

// msgNoBridge is accept()'s error for a stand-in where no bridge exists.
const msgNoBridge = "This WebSocket came from another Durable Object's response: cellhost can only return it in a Response, not use it here."

// acceptStandIn accepts a stand-in: the runtime's SocketBridge couples it
// to the socket it stands for.
func acceptStandIn(rt *goja.Runtime, ws *WebSocket) {
	st := wsStateOf(rt)
	if st == nil || st.bridge == nil {
		jserr.Throw(rt, jserr.TypeError(msgNoBridge))
	}
	conn, err := st.bridge(ws)
	if err != nil {
		jserr.Throw(rt, err)
	}
	ws.mode = wsAccepted
	ws.conn = conn
	conn.Accepted()
}

const msgMustAccept = "You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages."

// wsHandle returns the WebSocket of a handle argument; a socket whose home
// is another runtime cannot be used here.
func wsHandle(rt *goja.Runtime, v goja.Value) *WebSocket {
	ws, _ := v.Export().(*WebSocket)
	if ws == nil {
		jserr.Throw(rt, jserr.TypeError("Illegal invocation"))
	}
	if ws.rt != rt {
		jserr.Throw(rt, jserr.TypeError(msgNoBridge))
	}
	return ws
}

func wsNatives(rt *goja.Runtime) *goja.Object {
	n := rt.NewObject()
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = n.Set(name, f) }
	set("pair", func(goja.FunctionCall) goja.Value {
		a := &WebSocket{rt: rt}
		b := &WebSocket{rt: rt, peer: a}
		a.peer = b
		return rt.NewArray(rt.ToValue(a), rt.ToValue(b))
	})
	set("bind", func(c goja.FunctionCall) goja.Value {
		ws, _ := c.Argument(0).Export().(*WebSocket)
		if ws != nil && ws.rt == rt && ws.obj == nil {
			ws.obj, _ = c.Argument(1).(*goja.Object)
		}
		return goja.Undefined()
	})
	set("accept", func(c goja.FunctionCall) goja.Value {
		ws := wsHandle(rt, c.Argument(0))
		switch ws.mode {
		case wsReleased:
			jserr.Throw(rt, jserr.TypeError("Can't accept() WebSocket that was already used in a response."))
		case wsHibernatable:
			jserr.Throw(rt, jserr.TypeError("Can't accept() WebSocket after enabling hibernation."))
		case wsAccepted:
			return goja.Undefined()
		}
		if ws.remote != nil {
			acceptStandIn(rt, ws)
			return goja.Undefined()
		}
		ws.mode = wsAccepted
		if ws.conn != nil {
			ws.conn.Accepted()
		}
		if p := ws.peer; p != nil && p.conn == nil && len(p.pending) > 0 {
			// the peer sent before this end was accepted
			pending := p.pending
			p.pending = nil
			for _, f := range pending {
				ws.deliverLocal(f)
			}
		}
		return goja.Undefined()
	})
	set("send", func(c goja.FunctionCall) goja.Value {
		ws := wsHandle(rt, c.Argument(0))
		if ws.closedOut {
			jserr.Throw(rt, jserr.New("InvalidStateError", "WebSocket is not open"))
		}
		if ws.aborted || ws.mode == wsReleased {
			return goja.Undefined() // the connection is gone: dropped, as workerd does
		}
		if !ws.Accepted() {
			jserr.Throw(rt, jserr.TypeError(msgMustAccept))
		}
		f := wsFrame{text: !c.Argument(2).ToBoolean()}
		if f.text {
			f.data = []byte(c.Argument(1).String())
		} else {
			b, _ := c.Argument(1).Export().([]byte)
			f.data = append([]byte{}, b...)
		}
		ws.output(f)
		return goja.Undefined()
	})
	set("close", func(c goja.FunctionCall) goja.Value {
		ws := wsHandle(rt, c.Argument(0))
		if ws.closedOut || ws.aborted || ws.mode == wsReleased {
			return goja.Undefined()
		}
		if !ws.Accepted() {
			jserr.Throw(rt, jserr.TypeError(msgMustAccept))
		}
		f := wsFrame{close: true}
		if code := c.Argument(1); !goja.IsNull(code) {
			f.code = int(code.ToInteger())
		}
		if r := c.Argument(2); !goja.IsNull(r) {
			f.reason = r.String()
		}
		ws.closedOut = true
		ws.output(f)
		return goja.Undefined()
	})
	set("readyState", func(c goja.FunctionCall) goja.Value {
		ws, _ := c.Argument(0).Export().(*WebSocket)
		if ws == nil || ws.rt != rt {
			return rt.ToValue(1)
		}
		return rt.ToValue(ws.readyState())
	})
	set("serializeAttachment", func(c goja.FunctionCall) goja.Value {
		ws := wsHandle(rt, c.Argument(0))
		b, err := clone.Serialize(rt, c.Argument(1))
		if err != nil {
			jserr.Throw(rt, err)
		}
		if len(b) > maxAttachmentSize {
			jserr.Throw(rt, jserr.New("Error", fmt.Sprintf("A WebSocket 'attachment' cannot be larger than %d bytes.'attachment' was %d bytes.", maxAttachmentSize, len(b))))
		}
		ws.attachment = b
		if ws.set != nil && ws.set.Store != nil && ws.id != "" {
			if err := ws.set.Store.PutWebSocket(ws.id, ws.tags, b); err != nil {
				jserr.Throw(rt, err)
			}
		}
		return goja.Undefined()
	})
	set("deserializeAttachment", func(c goja.FunctionCall) goja.Value {
		ws := wsHandle(rt, c.Argument(0))
		if ws.attachment == nil {
			return goja.Null()
		}
		v, err := clone.Deserialize(rt, ws.attachment)
		if err != nil {
			jserr.Throw(rt, err)
		}
		return v
	})
	return n
}

// DispatchWebSocket delivers ev to ws (a server end accepted by the
// program): to inst's webSocketMessage/webSocketClose/webSocketError
// handler when ws was accepted with ctx.acceptWebSocket(), else as an event
// to its listeners. It returns the handler's result (a value or promise) to
// settle. A missing handler is not an error. inst may be nil for a socket
// accepted with accept().
func (w *Worker) DispatchWebSocket(inst *goja.Object, ws *WebSocket, ev WebSocketEvent) (goja.Value, error) {
	rt := w.rt
	st := wsStateOf(rt)
	if st == nil {
		return nil, errors.New("jsapi: InstallWebSockets has not run on this runtime")
	}
	if !ws.Accepted() {
		return nil, errors.New("jsapi: the WebSocket was not accepted")
	}
	obj, err := ws.home(rt)
	if err != nil {
		return nil, err
	}
	var args []goja.Value
	var method string
	var dispatch goja.Callable
	switch ev.Type {
	case WebSocketMessage:
		var data goja.Value
		if ev.Text {
			data = rt.ToValue(string(ev.Data))
		} else {
			data = rt.ToValue(rt.NewArrayBuffer(append([]byte{}, ev.Data...)))
		}
		args, method, dispatch = []goja.Value{data}, "webSocketMessage", st.message
	case WebSocketClose:
		ws.closedIn = true
		if !ev.WasClean {
			ws.aborted = true
		}
		args = []goja.Value{rt.ToValue(ev.Code), rt.ToValue(ev.Reason), rt.ToValue(ev.WasClean)}
		method, dispatch = "webSocketClose", st.close
	case WebSocketError:
		ws.closedIn, ws.aborted, ws.errored = true, true, true
		args, method, dispatch = []goja.Value{jserr.Object(rt, "Error", ev.Err)}, "webSocketError", st.error
	default:
		return nil, fmt.Errorf("jsapi: unknown WebSocket event %d", ev.Type)
	}
	if ev.Type != WebSocketMessage && ws.set != nil && ws.set.Store != nil && ws.id != "" {
		// The socket's last event: its row goes in the handler's turn.
		if err := ws.set.Store.DeleteWebSocket(ws.id); err != nil {
			return nil, err
		}
	}
	all := append([]goja.Value{obj}, args...)
	if ws.mode == wsAccepted {
		if _, err := dispatch(goja.Undefined(), all...); err != nil {
			return nil, w.errorOf(err)
		}
		return goja.Undefined(), nil
	}
	if inst == nil {
		return goja.Undefined(), nil
	}
	fn, ok := goja.AssertFunction(inst.Get(method))
	if !ok {
		return goja.Undefined(), nil
	}
	v, err := fn(inst, all...)
	if err != nil {
		return nil, w.errorOf(err)
	}
	return v, nil
}

// installWebSocketState adds the hibernation API to ctx.
func (w *Worker) installWebSocketState(ctx *goja.Object, set *WebSocketSet) {
	rt := w.rt
	st := wsStateOf(rt)
	if st == nil {
		return
	}
	need := func(method string) *WebSocketSet {
		if set == nil {
			jserr.Throw(rt, jserr.New("Error", method+"() is not available here: this object has no hibernatable WebSocket support."))
		}
		return set
	}
	socketArg := func(method string, v goja.Value) *WebSocket {
		h, err := st.handleOf(goja.Undefined(), v)
		if err != nil {
			panic(err)
		}
		ws, _ := h.Export().(*WebSocket)
		if ws == nil {
			jserr.Throw(rt, jserr.TypeError("Failed to execute '"+method+"' on 'DurableObjectState': parameter 1 is not of type 'WebSocket'."))
		}
		return wsHandle(rt, h)
	}
	_ = ctx.Set("acceptWebSocket", func(c goja.FunctionCall) goja.Value {
		set := need("acceptWebSocket")
		ws := socketArg("acceptWebSocket", c.Argument(0))
		if ws.mode == wsAccepted || ws.mode == wsHibernatable {
			jserr.Throw(rt, jserr.New("Error", "Cannot call `acceptWebSocket()` if the WebSocket was already accepted via `accept()`"))
		}
		if ws.mode != wsAwaiting || ws.peer == nil || ws.peer.mode != wsAwaiting {
			jserr.Throw(rt, jserr.New("Error", "Cannot call `acceptWebSocket()` on this WebSocket because its pair has already been accepted or used in a Response."))
		}
		var tags []string
		if t := c.Argument(1); !goja.IsUndefined(t) {
			obj, ok := t.(*goja.Object)
			if !ok || goja.IsNull(t) {
				jserr.Throw(rt, jserr.TypeError("Failed to execute 'acceptWebSocket' on 'DurableObjectState': parameter 2 is not of type 'Array'."))
			}
			seen := map[string]bool{}
			rt.ForOf(obj, func(v goja.Value) bool {
				tag := v.String()
				if len(seen) >= maxTagsPerSocket {
					jserr.Throw(rt, jserr.New("Error", fmt.Sprintf("a Hibernatable WebSocket cannot have more than %d tags", maxTagsPerSocket)))
				}
				if len(tag) > maxTagLength {
					jserr.Throw(rt, jserr.New("Error", fmt.Sprintf("%q is longer than the max tag length (%d characters).", tag, maxTagLength)))
				}
				if !seen[tag] {
					seen[tag] = true
					tags = append(tags, tag)
				}
				return true
			})
		}
		if len(set.sockets) >= maxHibernatable {
			jserr.Throw(rt, jserr.New("Error", fmt.Sprintf("only %d websockets can be accepted on a single Durable Object instance", maxHibernatable)))
		}
		id := newSocketID()
		if set.Store != nil {
			if err := set.Store.PutWebSocket(id, tags, ws.attachment); err != nil {
				jserr.Throw(rt, err)
			}
		}
		ws.mode = wsHibernatable
		ws.tags = tags
		ws.set = set
		ws.id = id
		set.sockets = append(set.sockets, ws)
		if ws.conn != nil {
			ws.conn.Accepted()
		}
		return goja.Undefined()
	})
	_ = ctx.Set("getWebSockets", func(c goja.FunctionCall) goja.Value {
		out := []goja.Value{}
		if set == nil {
			return rt.NewArray()
		}
		tag, all := "", goja.IsUndefined(c.Argument(0))
		if !all {
			tag = c.Argument(0).String()
		}
		for _, ws := range set.sockets {
			if !all && !hasTag(ws.tags, tag) {
				continue
			}
			obj, err := ws.home(rt)
			if err != nil {
				panic(err)
			}
			out = append(out, obj)
		}
		return rt.NewArray(toAny(out)...)
	})
	_ = ctx.Set("getTags", func(c goja.FunctionCall) goja.Value {
		ws := socketArg("getTags", c.Argument(0))
		if ws.mode != wsHibernatable {
			jserr.Throw(rt, jserr.TypeError("getTags() can only be called on a WebSocket accepted with acceptWebSocket()."))
		}
		out := make([]any, len(ws.tags))
		for i, t := range ws.tags {
			out[i] = t
		}
		return rt.NewArray(out...)
	})
	_ = ctx.Set("setWebSocketAutoResponse", func(c goja.FunctionCall) goja.Value {
		set := need("setWebSocketAutoResponse")
		p := c.Argument(0)
		if goja.IsUndefined(p) || goja.IsNull(p) {
			set.hasAuto, set.autoReq, set.autoResp = false, "", ""
			return goja.Undefined()
		}
		v, err := st.autoPair(goja.Undefined(), p)
		if err != nil {
			panic(err)
		}
		pair := v.ToObject(rt)
		req, resp := pair.Get("0").String(), pair.Get("1").String()
		const max = 2048
		if len(req) > max {
			jserr.Throw(rt, jserr.RangeError(fmt.Sprintf("Request cannot be larger than %d bytes. A request of size %d was provided.", max, len(req))))
		}
		if len(resp) > max {
			jserr.Throw(rt, jserr.RangeError(fmt.Sprintf("Response cannot be larger than %d bytes. A response of size %d was provided.", max, len(resp))))
		}
		set.hasAuto, set.autoReq, set.autoResp = true, req, resp
		return goja.Undefined()
	})
	_ = ctx.Set("getWebSocketAutoResponse", func(goja.FunctionCall) goja.Value {
		if set == nil || !set.hasAuto {
			return goja.Null()
		}
		v, err := st.newAutoPair(goja.Undefined(), rt.ToValue(set.autoReq), rt.ToValue(set.autoResp))
		if err != nil {
			panic(err)
		}
		return v
	})
	_ = ctx.Set("getWebSocketAutoResponseTimestamp", func(c goja.FunctionCall) goja.Value {
		ws := socketArg("getWebSocketAutoResponseTimestamp", c.Argument(0))
		if ws.autoRespAt.IsZero() {
			return goja.Null()
		}
		d, err := rt.New(rt.Get("Date"), rt.ToValue(ws.autoRespAt.UnixMilli()))
		if err != nil {
			panic(err)
		}
		return d
	})
	_ = ctx.Set("setHibernatableWebSocketEventTimeout", func(c goja.FunctionCall) goja.Value {
		set := need("setHibernatableWebSocketEventTimeout")
		v := c.Argument(0)
		if goja.IsUndefined(v) || goja.IsNull(v) || v.ToInteger() == 0 {
			set.timeout = 0
			return goja.Undefined()
		}
		ms := v.ToInteger()
		if ms > 604800*1000 {
			jserr.Throw(rt, jserr.New("Error", "Event timeout should not exceed 604800000 ms."))
		}
		set.timeout = ms
		return goja.Undefined()
	})
	_ = ctx.Set("getHibernatableWebSocketEventTimeout", func(goja.FunctionCall) goja.Value {
		if set == nil || set.timeout == 0 {
			return goja.Null()
		}
		return rt.ToValue(set.timeout)
	})
}

// newSocketID returns a fresh durable id for a hibernatable socket.
func newSocketID() string {
	var b [16]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func hasTag(tags []string, tag string) bool {
	for _, t := range tags {
		if t == tag {
			return true
		}
	}
	return false
}

func toAny(vs []goja.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
