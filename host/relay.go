package host

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/internal/wsrelay"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

// WebSockets across nodes, the owner's half. A client connected to
// another node (the edge, edge.go) reaches the object through a relay: a
// WebSocket from the edge to this node (fleet carries it, signed) whose
// first message from here is a wsrelay.Hello and whose frames are then the
// client's. The relay is coupled to the object exactly as a client's own
// connection would be (a wsConn), so every rule of websocket.go holds.
//
// A socket the object accepted with ctx.acceptWebSocket() has a durable
// row (its id, tags and attachment: storage.PutWebSocket) committed with
// the turn that accepted it, before the 101 left. When this node dies the
// edge keeps the client's connection and asks the new owner to re-attach
// the socket by id (Open.Socket): ServeSocket restores it from the row
// into the object's hibernation set, and the next message reaches the new
// instance's webSocketMessage.

// cellSocketStore keeps the cell's hibernated WebSockets in its database,
// in the turn's implicit transaction (jsapi.WebSocketStore).
type cellSocketStore struct{ c *cell }

func (k cellSocketStore) PutWebSocket(id string, tags []string, attachment []byte) error {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.PutWebSocket(id, tags, attachment)
}

func (k cellSocketStore) DeleteWebSocket(id string) error {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.DeleteWebSocket(id)
}

// writeHello sends h as the relay's first message.
func writeHello(conn *websocket.Conn, h *wsrelay.Hello) error {
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	_ = conn.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	err = conn.WriteMessage(websocket.TextMessage, b)
	_ = conn.SetWriteDeadline(time.Time{})
	return err
}

// helloError is the Hello of a failed open.
func helloError(err error) *wsrelay.Hello {
	var elsewhere *ownership.CellOwnedElsewhereError
	var se *jsapi.ScriptError
	switch {
	case errors.As(err, &elsewhere):
		return &wsrelay.Hello{Error: &wsrelay.Error{Kind: wsrelay.KindNotOwner, Message: elsewhere.Error(), Addr: elsewhere.Addr}}
	case errors.As(err, &se):
		return &wsrelay.Hello{Error: &wsrelay.Error{Kind: wsrelay.KindScript, Name: se.Name, Message: se.Message, Stack: se.Stack}}
	}
	return &wsrelay.Hello{Error: &wsrelay.Error{Kind: wsrelay.KindOther, Message: err.Error()}}
}

// ServeSocket serves a relay an edge opened (conn, already upgraded):
// the object's fetch answers open's request, or, with open.Socket set, the
// hibernated socket of that id is re-attached. It returns once conn is
// served (its goroutines run on) or closed. Never forwards: another live
// owner is answered KindNotOwner. Safe from any goroutine. (fleet.SocketLocal)
func (h *Host) ServeSocket(conn *websocket.Conn, open *wsrelay.Open) {
	fail := func(hello *wsrelay.Hello) {
		_ = writeHello(conn, hello)
		_ = conn.Close()
	}
	if !h.classes[open.Class] {
		fail(&wsrelay.Hello{Error: &wsrelay.Error{Kind: wsrelay.KindOther, Message: "no Durable Object class named " + open.Class + " is bound in this worker"}})
		return
	}
	if open.Socket != "" {
		h.reattachSocket(conn, open, fail)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), h.cfg.RequestTimeout)
	defer cancel()
	req := &jsapi.HTTPRequest{Method: open.Method, URL: open.URL, Header: open.Header}
	resp, err := h.FetchHere(ctx, open.Class, open.ID, open.Name, req)
	if err != nil {
		fail(helloError(err))
		return
	}
	client := jsapi.SocketOf(resp)
	if client == nil && resp.Status == http.StatusSwitchingProtocols {
		fail(helloError(errors.New("the Durable Object answered a WebSocket upgrade with status 101 but no webSocket")))
		return
	}
	if client == nil || resp.Status != http.StatusSwitchingProtocols {
		fail(&wsrelay.Hello{Status: resp.Status, StatusText: resp.StatusText, Header: resp.Header, Body: resp.Body})
		return
	}
	o, _ := client.Owner.(*wsOwner)
	if o == nil {
		fail(helloError(errors.New("internal error: a WebSocket response has no owner")))
		return
	}
	k := newWSConn(h, o)
	k.relay = true
	type coupled struct {
		id  string
		err error
	}
	ch := make(chan coupled, 1)
	if !o.s.post(func() {
		err := client.Couple(k)
		if err != nil {
			ch <- coupled{err: err}
			return
		}
		k.ws = client.Peer()
		k.register()
		ch <- coupled{id: k.ws.ID()}
	}) {
		fail(helloError(ErrClosed))
		return
	}
	cp := <-ch
	if cp.err != nil {
		fail(helloError(cp.err))
		return
	}
	var hdr [][2]string
	for _, kv := range resp.Header {
		if !wsrelay.HopHeader(kv[0]) {
			hdr = append(hdr, kv)
		}
	}
	k.start(conn, &wsrelay.Hello{Status: http.StatusSwitchingProtocols, StatusText: resp.StatusText, Header: hdr, Socket: cp.id})
}

// reattachSocket re-attaches the hibernated socket open.Socket of the
// object to conn, taking the object over here if nobody live owns it.
func (h *Host) reattachSocket(conn *websocket.Conn, open *wsrelay.Open, fail func(*wsrelay.Hello)) {
	c := h.cellFor(open.Class, open.ID)
	k := newWSConn(h, &wsOwner{s: c.s, c: c, name: open.Name})
	k.relay = true
	ch := make(chan *wsrelay.Hello, 1)
	if !c.s.post(func() {
		c.unref()
		c.deliver(open.Name, func() {
			if c.broken != nil {
				ch <- helloError(c.broken)
				return
			}
			c.touch()
			tags, att, ok, err := c.db.GetWebSocket(open.Socket)
			if err != nil {
				ch <- helloError(err)
				return
			}
			if !ok {
				ch <- &wsrelay.Hello{Error: &wsrelay.Error{Kind: wsrelay.KindGone, Message: "the Durable Object holds no hibernated WebSocket " + open.Socket + " (it was closed, or accepted with accept())"}}
				return
			}
			ws := jsapi.RestoreWebSocket(c.webSocketSet(), open.Socket, tags, att, k)
			for old := range c.sockets.conns {
				if old.ws == ws && old != k {
					// An earlier relay of the same socket to this node:
					// let it go without an event (the socket lives on).
					old.dropped = true
					delete(c.sockets.conns, old)
					old.enqueue(wsOut{kind: wsOutDrop})
				}
			}
			k.ws = ws
			k.register()
			ch <- &wsrelay.Hello{Status: http.StatusSwitchingProtocols, Socket: open.Socket}
		})
	}) {
		c.s.post(c.unref)
		fail(helloError(ErrClosed))
		return
	}
	hello := <-ch
	if hello.Error != nil {
		fail(hello)
		return
	}
	h.log.Info("re-attached a hibernated WebSocket relayed by another node", "scope", c.scope, "socket", open.Socket, "edge", open.Edge)
	k.start(conn, hello)
}

// socketRowGrace is how long after an activation the rows of hibernated
// WebSockets that no connection holds are kept, for an edge node to
// re-attach them (twice the edge's own limit).
var socketRowGrace = 2 * wsrelay.ReattachTimeout

// scheduleSocketRowGC deletes, socketRowGrace after the activation, the
// rows of hibernated WebSockets that no connection re-attached: their
// clients were connected to the node that died, or their edge died too.
// Until then they cost a row each and are in no ctx.getWebSockets(). On
// the loop.
func (c *cell) scheduleSocketRowGC() {
	db := c.db
	c.s.AfterFunc(socketRowGrace, func() {
		if c.db != db || db == nil { // evicted since: the next activation schedules its own
			return
		}
		if ids, err := db.WebSocketIDs(); err != nil || len(ids) == 0 {
			return // (most cells): nothing to look at, the cell is not touched
		}
		c.deliver("", func() {
			if c.db == db && c.broken == nil {
				c.sweepSocketRows()
			}
		})
	})
}

// sweepSocketRows deletes the rows of hibernated WebSockets the cell's set
// does not hold, in the current turn, and returns how many. On the loop,
// with the database open and the input gate passed.
func (c *cell) sweepSocketRows() int {
	ids, err := c.db.WebSocketIDs()
	if err != nil {
		c.logger().Warn("hibernated WebSockets: listing the stored ones failed", "err", err)
		return 0
	}
	n := 0
	for _, id := range ids {
		if c.sockets.set != nil && c.sockets.set.Has(id) {
			continue
		}
		c.touch()
		c.wrote = true
		if err := c.db.DeleteWebSocket(id); err != nil {
			c.logger().Warn("hibernated WebSockets: deleting a stale one failed", "socket", id, "err", err)
			return n
		}
		n++
	}
	if n > 0 {
		c.logger().Info("hibernated WebSockets nobody re-attached after a restart or failover were forgotten", "count", n)
	}
	return n
}

// register adds k to its cell's connections. On the loop.
func (k *wsConn) register() {
	if c := k.c; c != nil {
		if c.sockets.conns == nil {
			c.sockets.conns = map[*wsConn]struct{}{}
		}
		c.sockets.conns[k] = struct{}{}
		c.keepAlive = c.socketsKeepAlive
	}
}

// start sends the relay's hello and starts k's reader and writer on conn
// (frames the program sent meanwhile wait in k's queue). A relay that
// cannot start is delivered as a connection that went away.
func (k *wsConn) start(conn *websocket.Conn, hello *wsrelay.Hello) {
	abandon := func() {
		k.s.post(func() {
			k.deliver(jsapi.WebSocketEvent{Type: jsapi.WebSocketClose, Code: 1006, Reason: jsapi.DroppedReason})
		})
	}
	if err := writeHello(conn, hello); err != nil {
		_ = conn.Close()
		abandon()
		return
	}
	if !k.serve(conn) {
		abandon()
	}
}

// serve starts k's reader and writer on conn; false (conn closed) when
// the host is closing.
func (k *wsConn) serve(conn *websocket.Conn) bool {
	conn.SetReadLimit(wsMaxMessage)
	conn.SetCloseHandler(func(int, string) error { return nil })
	k.conn = conn
	if !k.h.sockets.add(k) {
		_ = conn.Close()
		return false
	}
	k.wg.Add(2)
	go func() {
		k.write()
		k.h.sockets.remove(k)
	}()
	go k.read()
	return true
}
