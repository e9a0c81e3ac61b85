package fleet

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/internal/wsrelay"
	"github.com/cellhost/cellhost/ownership"
)

// WebSockets across nodes, the edge's half. A client that connects to this
// node for an object another node owns keeps its connection here: the
// edge upgrades it itself and opens a relay to the owner (DialSocket; the
// owner's half is host's relay.go, behind SocketLocal).
// Frames pass one for one, Close frames included, so the close handshake
// is the program's, as on a direct connection.
//
// When the relay ends without a Close frame (the owner died, was stopped,
// or its object was reset), the edge keeps the client's connection and
// re-attaches: a socket the object accepted with ctx.acceptWebSocket() (the
// Hello named its durable id) is asked of the owner's address, then of
// this node (which takes the object over once the dead owner's lease has
// expired, or names the node that did), with back-off (RetryDelay from
// edgeRetryBase, capped at edgeRetryMax), until a node re-attaches it or
// wsrelay.ReattachTimeout passes. Messages from the client
// wait meanwhile (up to edgeInflight, then the client is not read) and go
// to the new owner in order. A message the client sent just before the
// owner died may be lost with the owner, as on workerd. A socket accepted
// with accept() lives in its instance only: the edge closes it with 1012
// and a reason that says so. One that cannot be re-attached in time is
// closed with 1011.

const (
	edgeInflight          = 64
	edgeRetryBase         = 100 * time.Millisecond
	edgeRetryMax          = time.Second
	reasonNotHibernatable = "owner node lost; an accept()ed WebSocket cannot move (use ctx.acceptWebSocket)"
	reasonUnreachable     = "owner node lost and no node took the Durable Object over in time; reconnect"
)

// edgeFrame is what the client's reader hands the edge's loop.
type edgeFrame struct {
	typ  int
	data []byte
	end  bool // the client's connection ended
	// clean: it ended with a Close frame (code, text)
	clean bool
	code  int
	text  string
}

// relayEnd reports that a relay's reader stopped.
type relayEnd struct {
	relay *websocket.Conn
	clean bool // a Close frame came (and was passed to the client)
}

// edgeConn is one client connection held here for an object elsewhere.
type edgeConn struct {
	p    *Placement
	open wsrelay.Open // Socket set once the owner named it
	addr string       // the owner the current relay goes to

	client *websocket.Conn
	cmu    sync.Mutex // client writes

	in    chan edgeFrame
	ended chan relayEnd
	stop  chan struct{} // closed by Placement.CloseSockets (Host.Close)
	done  chan struct{} // closed when run returns
	once  sync.Once
	wg    sync.WaitGroup
}

// edgeUpgrade serves the client's WebSocket upgrade (w, r) for an object
// the node at addr owns. req is the client's request as the object sees
// it. An answer other than 101 is returned for the host to write.
func (p *Placement) edgeUpgrade(w http.ResponseWriter, r *http.Request, addr, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
	open := p.relayOpen(class, id, name, req)
	relay, hello, addr, err := p.dialRelay(r.Context(), addr, &open)
	if err != nil {
		return nil, err
	}
	if hello.Status != http.StatusSwitchingProtocols {
		_ = relay.Close()
		return &httpmsg.Response{Status: hello.Status, StatusText: hello.StatusText, Header: hello.Header, Body: hello.Body}, nil
	}
	return nil, (&PendingRelay{p: p, relay: relay, hello: hello, open: open, addr: addr}).ServeClient(w, r)
}

// relayOpen is the Open of a new relay for req.
func (p *Placement) relayOpen(class, id, name string, req *httpmsg.Request) wsrelay.Open {
	return wsrelay.Open{Class: class, ID: id, Name: name, Method: req.Method, URL: req.URL, Header: req.Header, Edge: p.node}
}

// dialRelay opens a relay for open, starting at addr and following the
// owner (at most maxForwardRounds look-ups). It returns the relay, the
// owner's Hello (a 101, or another answer to pass on) and the owner's
// address; a failed open is an error (the object's, or the forward's).
func (p *Placement) dialRelay(ctx context.Context, addr string, open *wsrelay.Open) (*websocket.Conn, *wsrelay.Hello, string, error) {
	var relay *websocket.Conn
	var hello *wsrelay.Hello
	var err error
	for round := 0; ; round++ {
		relay, hello, err = p.client.DialSocket(ctx, addr, open)
		last := round+1 >= maxForwardRounds
		if err == nil && hello.Error != nil && hello.Error.Kind == wsrelay.KindNotOwner && !last {
			_ = relay.Close()
			addr = hello.Error.Addr
			continue
		}
		if err != nil && unsent(err) && !last {
			addr = p.client.SelfAddr() // look the owner up again (here)
			continue
		}
		break
	}
	if err != nil {
		return nil, nil, "", err
	}
	if e := hello.Error; e != nil {
		_ = relay.Close()
		switch e.Kind {
		case wsrelay.KindScript:
			return nil, nil, "", &httpmsg.ScriptError{Name: e.Name, Message: e.Message, Stack: e.Stack}
		case wsrelay.KindNotOwner:
			return nil, nil, "", &ownership.CellOwnedElsewhereError{Scope: open.Class + ":" + open.ID, Addr: e.Addr}
		}
		return nil, nil, "", errors.New(e.Message)
	}
	return relay, hello, addr, nil
}

// PendingRelay is an open relay whose 101 has not reached the client yet:
// the Socket of the Response a worker's stub fetch got from an object on
// another node (remoteSocketResponse; a host.RemoteSocket). Returning
// that Response upgrades the client and serves the relay (ServeClient);
// accept()ing it serves the relay as the stand-in's connection (Conn); a
// relay nobody claims within the request timeout is closed.
type PendingRelay struct {
	p     *Placement
	relay *websocket.Conn
	hello *wsrelay.Hello
	open  wsrelay.Open
	addr  string

	once  sync.Once
	timer *time.Timer
}

// Claim reports whether er is still unclaimed, and claims it.
func (er *PendingRelay) Claim() bool {
	ok := false
	er.once.Do(func() {
		ok = true
		if er.timer != nil {
			er.timer.Stop()
		}
	})
	return ok
}

// Conn is the relay (host.RemoteSocket).
func (er *PendingRelay) Conn() *websocket.Conn { return er.relay }

// remoteSocketResponse opens a relay for a WebSocket upgrade a worker's
// stub fetch sends to the object on the node at addr, and returns the
// object's answer: a 101 carries a WebSocket the worker can only return
// in its own Response. Off the loop.
func (p *Placement) remoteSocketResponse(ctx context.Context, addr, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
	open := p.relayOpen(class, id, name, req)
	relay, hello, addr, err := p.dialRelay(ctx, addr, &open)
	if err != nil {
		return nil, err
	}
	if hello.Status != http.StatusSwitchingProtocols {
		_ = relay.Close()
		return &httpmsg.Response{Status: hello.Status, StatusText: hello.StatusText, Header: hello.Header, Body: hello.Body}, nil
	}
	er := &PendingRelay{p: p, relay: relay, hello: hello, open: open, addr: addr}
	er.timer = time.AfterFunc(p.timeout, func() {
		if er.Claim() {
			_ = relay.Close() // the owner sees a connection that went away
		}
	})
	return &httpmsg.Response{Status: http.StatusSwitchingProtocols, StatusText: hello.StatusText, Header: hello.Header,
		Socket: er}, nil
}

// isUpgradeRequest reports whether req asks for a WebSocket.
func isUpgradeRequest(req *httpmsg.Request) bool {
	for _, kv := range req.Header {
		if strings.EqualFold(kv[0], "upgrade") && strings.EqualFold(strings.TrimSpace(kv[1]), "websocket") {
			return true
		}
	}
	return false
}

// ServeClient upgrades the client's connection (w, r) with the owner's
// 101 and serves it through er's relay (host.RemoteSocket).
func (er *PendingRelay) ServeClient(w http.ResponseWriter, r *http.Request) error {
	p := er.p
	relay, hello := er.relay, er.hello
	if !er.Claim() {
		return &httpmsg.ScriptError{Name: "TypeError", Message: "Can't return WebSocket that was already used in a response."}
	}
	if !websocket.IsWebSocketUpgrade(r) {
		_ = relay.Close()
		return &httpmsg.ScriptError{Name: "TypeError", Message: `Worker tried to return a WebSocket in a response to a request which did not contain the header "Upgrade: websocket".`}
	}
	hdr := http.Header{}
	for _, kv := range hello.Header {
		if !wsrelay.HopHeader(kv[0]) {
			hdr.Add(kv[0], kv[1])
		}
	}
	client, err := edgeUpgrader.Upgrade(w, r, hdr)
	if err != nil {
		_ = relay.Close() // the owner sees a connection that went away
		return nil
	}
	client.SetReadLimit(wsrelay.MaxMessage)
	client.SetCloseHandler(func(int, string) error { return nil }) // the program answers
	relay.SetCloseHandler(func(int, string) error { return nil })  // the client answers
	open := er.open
	open.Socket = hello.Socket
	e := &edgeConn{p: p, open: open, addr: er.addr, client: client,
		in: make(chan edgeFrame, edgeInflight), ended: make(chan relayEnd, 1), stop: make(chan struct{}), done: make(chan struct{})}
	if !p.edges.add(e) {
		_ = client.Close()
		_ = relay.Close()
		return nil
	}
	e.wg.Add(2)
	go e.readClient()
	go func() {
		defer e.wg.Done()
		e.run(relay)
		close(e.done)
		p.edges.remove(e)
	}()
	return nil
}

// readClient hands every frame of the client to the loop; the end of the
// connection is the last.
func (e *edgeConn) readClient() {
	defer e.wg.Done()
	for {
		typ, data, err := e.client.ReadMessage()
		f := edgeFrame{typ: typ, data: data}
		if err != nil {
			f = edgeFrame{end: true}
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
				f.clean, f.code, f.text = true, ce.Code, ce.Text
			}
		}
		select {
		case e.in <- f:
		case <-e.done:
			return
		}
		if f.end {
			return
		}
	}
}

// readRelay passes the owner's frames to the client until the relay ends.
func (e *edgeConn) readRelay(relay *websocket.Conn) {
	for {
		typ, data, err := relay.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			clean := errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure
			if clean {
				e.closeClient(ce.Code, ce.Text)
			}
			e.ended <- relayEnd{relay: relay, clean: clean}
			return
		}
		e.writeClient(typ, data)
	}
}

func (e *edgeConn) writeClient(typ int, data []byte) {
	e.cmu.Lock()
	defer e.cmu.Unlock()
	_ = e.client.SetWriteDeadline(time.Now().Add(wsrelay.WriteTimeout))
	_ = e.client.WriteMessage(typ, data)
}

func (e *edgeConn) closeClient(code int, reason string) {
	e.cmu.Lock()
	defer e.cmu.Unlock()
	_ = e.client.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wsrelay.WriteTimeout))
}

func writeClose(conn *websocket.Conn, code int, reason string) {
	_ = conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(wsrelay.WriteTimeout))
}

// run is the edge's loop: client frames to the relay, the relay's end
// handled (the close handshake, or a re-attachment).
func (e *edgeConn) run(relay *websocket.Conn) {
	relays := 1
	go e.readRelay(relay)
	var clientClosed, relayClosed bool
	var closeTimer <-chan time.Time
	finish := func() {
		_ = e.client.Close()
		if relay != nil {
			_ = relay.Close()
		}
		// Wait for every relay reader (each sends its end once).
		for ; relays > 0; relays-- {
			<-e.ended
		}
	}
	for {
		select {
		case f := <-e.in:
			switch {
			case !f.end:
				if relay != nil {
					_ = relay.SetWriteDeadline(time.Now().Add(wsrelay.WriteTimeout))
					_ = relay.WriteMessage(f.typ, f.data) // a broken relay ends its reader
				}
			case !f.clean: // the client went away: the owner hears 1006
				finish()
				return
			default:
				clientClosed = true
				if relay != nil {
					writeClose(relay, f.code, f.text)
				}
				if relayClosed {
					finish()
					return
				}
				closeTimer = time.After(wsrelay.CloseTimeout)
			}
		case end := <-e.ended:
			relays--
			if end.relay != relay {
				continue
			}
			if end.clean {
				relayClosed = true
				if clientClosed {
					finish()
					return
				}
				closeTimer = time.After(wsrelay.CloseTimeout)
				continue
			}
			_ = relay.Close()
			relay = nil
			if clientClosed || relayClosed {
				finish()
				return
			}
			if e.open.Socket == "" {
				e.closeClient(1012, reasonNotHibernatable)
				finish()
				return
			}
			relay = e.reattach()
			if relay == nil {
				finish()
				return
			}
			relays++
			go e.readRelay(relay)
		case <-closeTimer:
			finish()
			return
		case <-e.stop:
			e.closeClient(websocket.CloseGoingAway, "the node is shutting down")
			finish()
			return
		}
	}
}

// reattach finds the object's new owner and re-attaches the socket there;
// nil when it could not (the client was told why).
func (e *edgeConn) reattach() *websocket.Conn {
	log := e.p.log
	log.Info("the relay of a WebSocket ended without a Close; re-attaching it", "scope", e.open.Class+":"+e.open.ID, "socket", e.open.Socket, "owner", e.addr)
	deadline := time.Now().Add(wsrelay.ReattachTimeout)
	addr := e.addr
	for failures := 0; ; {
		if time.Now().After(deadline) {
			e.closeClient(1011, reasonUnreachable)
			return nil
		}
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		go func() {
			select {
			case <-e.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		relay, hello, err := e.p.client.DialSocket(ctx, addr, &e.open)
		cancel()
		switch {
		case err == nil && hello.Error == nil && hello.Status == http.StatusSwitchingProtocols:
			relay.SetCloseHandler(func(int, string) error { return nil })
			log.Info("re-attached a WebSocket on the Durable Object's new owner", "scope", e.open.Class+":"+e.open.ID, "socket", e.open.Socket, "owner", addr)
			e.addr = addr
			return relay
		case err == nil && hello.Error != nil && hello.Error.Kind == wsrelay.KindNotOwner && hello.Error.Addr != "" && hello.Error.Addr != addr:
			_ = relay.Close()
			addr = hello.Error.Addr
			continue
		case err == nil && hello.Error != nil && hello.Error.Kind == wsrelay.KindGone:
			_ = relay.Close()
			e.closeClient(1012, "owner node lost; the WebSocket is no longer hibernated there")
			return nil
		case err == nil && hello.Error != nil && hello.Error.Kind == wsrelay.KindNotOwner:
			_ = relay.Close() // a live owner that does not answer yet
		case err == nil:
			_ = relay.Close()
			msg := "re-attach failed"
			if hello.Error != nil {
				msg = hello.Error.Message
			}
			if len(msg) > 120 {
				msg = msg[:120]
			}
			e.closeClient(1011, msg)
			return nil
		}
		// Not reachable, or not ready: ask this node (which takes the
		// object over once the dead owner's lease expired), after a
		// back-off.
		failures++
		wait := min(RetryDelay(edgeRetryBase, failures), edgeRetryMax)
		wait = wait/2 + time.Duration(rand.Int64N(int64(wait/2)+1)) // in [wait/2, wait]
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-e.stop:
			t.Stop()
			e.closeClient(websocket.CloseGoingAway, "the node is shutting down")
			return nil
		}
		addr = e.p.client.SelfAddr()
	}
}

// edgeUpgrader upgrades a client's connection at the edge (any origin,
// as host's own upgrades: the worker decides).
var edgeUpgrader = websocket.Upgrader{
	CheckOrigin:       func(*http.Request) bool { return true },
	EnableCompression: false,
}

// edgeRegistry is a Placement's client connections (closed with its host).
type edgeRegistry struct {
	mu     sync.Mutex
	m      map[*edgeConn]struct{}
	closed bool
}

// add registers e (false once the host is closing).
func (r *edgeRegistry) add(e *edgeConn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return false
	}
	if r.m == nil {
		r.m = map[*edgeConn]struct{}{}
	}
	r.m[e] = struct{}{}
	return true
}

func (r *edgeRegistry) remove(e *edgeConn) {
	r.mu.Lock()
	delete(r.m, e)
	r.mu.Unlock()
}

// OpenSockets implements host.Placement: the client connections held.
func (p *Placement) OpenSockets() int {
	p.edges.mu.Lock()
	defer p.edges.mu.Unlock()
	return len(p.edges.m)
}

// CloseSockets implements host.Placement: every edge connection stops
// (the client hears 1001) and is waited for; no new one starts.
func (p *Placement) CloseSockets() {
	r := &p.edges
	r.mu.Lock()
	r.closed = true
	edges := make([]*edgeConn, 0, len(r.m))
	for e := range r.m {
		edges = append(edges, e)
	}
	r.mu.Unlock()
	for _, e := range edges {
		e.once.Do(func() { close(e.stop) })
	}
	for _, e := range edges {
		e.wg.Wait()
	}
}
