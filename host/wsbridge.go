package host

import (
	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/jsapi"
)

// WebSockets across runtimes. The client end of a pair an object returned
// to a stub.fetch caller reaches the caller's runtime as a stand-in
// (jsapi.WebSocket.ValueIn), since a goja value never crosses runtimes.
// Returned in the caller's Response it is the object's socket again
// (upgradeWebSocket). accept()ed, it is bridged (bridgeSocket):
//
//   - with an object of this process (any shard, the caller's included),
//     by two wsConns, one per end, each on its own loop: the caller's
//     stand-in and the object's server end. Each is coupled exactly as to
//     a client's connection, so every rule of websocket.go holds on both
//     sides (input and output gates, the hibernation of the object, its
//     reset). What one end sends, once its output gate released it,
//     becomes an event of the other posted to the other's loop: a message,
//     a Close frame as a clean close (code 1005 without one), and the end
//     of the connection (a drop) as 1006, as a TCP connection would.
//   - with an object on another node, by the relay the stub fetch opened
//     (edge.go): the stand-in's wsConn reads and writes it as the owner's
//     connection.
//
// Only frames (Go bytes and numbers) cross between loops.

// bridgeSocket is the shard's jsapi.SocketBridge: the program running on
// s accepted standIn. The stand-in's events go through the input gate of
// the object whose code accepted it (none: the worker's). On the loop.
func (s *shard) bridgeSocket(standIn *jsapi.WebSocket) (jsapi.WebSocketConn, error) {
	remote := standIn.Remote()
	here := &wsOwner{s: s, c: s.current}
	switch o := remote.Owner.(type) {
	case *wsOwner:
		a := newWSConn(s.h, here)
		b := newWSConn(s.h, o)
		a.ws, a.peer, b.peer = standIn, b, a
		a.register()
		if !o.s.post(func() {
			if err := remote.Couple(b); err != nil {
				s.post(func() { a.receiveError(err.Error()) })
				return
			}
			b.ws = remote.Peer()
			b.register()
		}) {
			return nil, ErrClosed
		}
		return a, nil
	case RemoteSocket:
		if !o.Claim() {
			return nil, &jsapi.ScriptError{Name: "TypeError", Message: "Can't accept() WebSocket: its connection to the Durable Object's node was closed, unused for longer than the request timeout."}
		}
		k := newWSConn(s.h, here)
		k.ws = standIn
		k.register()
		if !k.serve(o.Conn()) {
			// The program sees a connection that went away.
			s.post(func() { k.receive(wsOut{kind: wsOutDrop}) })
		}
		return k, nil
	}
	return nil, &jsapi.ScriptError{Name: "TypeError", Message: "Can't accept() this WebSocket here: it was not returned by a Durable Object."}
}

// receive turns what the other end of a bridge sent into an event of k's
// socket, as k's reader does with a connection's frames. The first close
// or drop is the last event. On k's loop.
func (k *wsConn) receive(o wsOut) {
	if k.ended || k.ws == nil { // nil: the end that could not be coupled
		return
	}
	var ev jsapi.WebSocketEvent
	switch o.kind {
	case wsOutMessage:
		ev = jsapi.WebSocketEvent{Type: jsapi.WebSocketMessage, Text: o.text, Data: o.data}
	case wsOutClose:
		code := o.code
		if code == 0 {
			code = websocket.CloseNoStatusReceived
		}
		ev = jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: code, Reason: o.reason, WasClean: true}
	case wsOutDrop:
		ev = jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: websocket.CloseAbnormalClosure, Reason: jsapi.DroppedReason}
	}
	k.ended = ev.Type != jsapi.WebSocketMessage
	k.deliver(ev)
}

// receiveError ends k's socket with an error event (the bridge could not
// be coupled). On k's loop.
func (k *wsConn) receiveError(msg string) {
	if k.ended {
		return
	}
	k.ended = true
	k.deliver(jsapi.WebSocketEvent{Type: jsapi.WebSocketError, Err: msg})
}
