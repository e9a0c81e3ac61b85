package host

import (
	"context"
	"errors"
	"net/http"

	"github.com/gorilla/websocket"
	"github.com/labstack/echo/v4"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

// Placement reaches objects that another live node owns
// (bucket-protocol.md section 9): routing with the owner cache and the
// owner's lease, forwards, and the edge that holds a client's WebSocket
// for an object elsewhere. fleet.Placement implements it; cmd/cellhost
// sets Config.Fleet.Placement. Nil: a request for an object another node
// owns fails with *ownership.CellOwnedElsewhereError. Called from request
// goroutines, never from a shard's loop, concurrently.
//
// here runs the request on this node and never forwards it (FetchHere,
// CallHere): *ownership.CellOwnedElsewhereError means another live node
// owns the object and nothing ran. A Placement answers what here answers,
// or what the owner answered; a forward that failed after it was sent is
// reported with an Unavailable() or Unsent() error, never sent again
// (requests are not idempotent).
type Placement interface {
	// Fetch serves req for the object class/id: here, or at its owner.
	// A WebSocket upgrade the owner accepted comes back as a 101 whose
	// Socket is a RemoteSocket.
	Fetch(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest, here func() (*jsapi.HTTPResponse, error)) (*jsapi.HTTPResponse, error)
	// Call is Fetch for an RPC call (or an internal cell's request,
	// method InternalMethod). wire gives the arguments as they leave
	// the node; its error is the answer (they hold references that
	// cannot cross nodes).
	Call(ctx context.Context, class, id, name, method string, get bool, here func() ([]byte, error), wire func() ([]byte, error)) ([]byte, error)
	// ServedElsewhere reports whether another node served the object a
	// moment ago, so a request should go there without a look-up here.
	ServedElsewhere(class, id string) bool
	// Upgrade serves the client's WebSocket upgrade (w, r; req as the
	// object sees it) for an object the node at addr owns. A non-nil
	// response is the owner's answer other than 101, for the caller to
	// write; nil, nil: the connection was served (or dropped).
	Upgrade(w http.ResponseWriter, r *http.Request, addr, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error)
	// OpenSockets is how many client connections the Placement holds for
	// this host (Stats.WebSockets counts them).
	OpenSockets() int
	// CloseSockets closes the client connections the Placement holds for
	// this host and waits for them (Host.Close).
	CloseSockets()
}

// RemoteSocket is the WebSocket of a 101 a Placement's Fetch got from an
// object on another node: a relay to the owner, not yet claimed.
type RemoteSocket interface {
	// Claim reports whether the relay is still unclaimed, and claims it.
	Claim() bool
	// Conn is the relay, served as a connection of the stand-in when the
	// worker accept()s the socket here (after Claim).
	Conn() *websocket.Conn
	// ServeClient upgrades the client's request (the worker returned the
	// Response) and serves it through the relay; it claims the relay.
	// An error is the answer to the request.
	ServeClient(w http.ResponseWriter, r *http.Request) error
}

// InternalMethod is the method name an internal cell's request carries
// between nodes (the peer protocol's calls need one).
const InternalMethod = "cellhost.serve"

// FetchHere delivers req to the object on this node, activating it here
// when nobody live owns it, and never forwards it: it returns
// *ownership.CellOwnedElsewhereError when a live other node owns it (the
// request did not run). Safe from any goroutine. (fleet.Local)
func (h *Host) FetchHere(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	if !h.classes[class] {
		return nil, &jsapi.ScriptError{Name: "TypeError", Message: "no Durable Object class named " + class + " is bound in this worker"}
	}
	if err := h.checkPeerID(class, id, name); err != nil {
		return nil, err
	}
	c := h.cellFor(class, id)
	return h.await(ctx, func(reply func(*jsapi.HTTPResponse, error)) {
		c.s.post(func() { c.unref(); c.fetch(name, req, reply) })
	})
}

// checkPeerID refuses an id another node sent that this namespace could
// not have made (not ParseID's: wrong length, not hex, or not signed for
// the class), or a name that does not give the id: a peer (or a forged
// request that passed the signature) must not create a cell outside the
// namespace's ids, nor show an object a name that is not its own. The
// error is workerd's text for an id of another namespace.
func (h *Host) checkPeerID(class, id, name string) error {
	canon, err := ParseID(h.cfg.Script, class, id)
	if err == nil && canon != id {
		err = ErrIDFormat // ids travel in lowercase
	}
	if err == nil && name != "" && IDFromName(h.cfg.Script, class, name) != id {
		err = errors.New("Durable Object ID does not match its name.")
	}
	if err != nil {
		return &jsapi.ScriptError{Name: "TypeError", Message: err.Error()}
	}
	return nil
}

// CallHere is FetchHere for an RPC call. (fleet.Local)
func (h *Host) CallHere(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	if _, ok := h.internal[class]; ok && method == InternalMethod {
		return h.internalHere(ctx, class, id, args)
	}
	b, err := h.callHere(ctx, class, id, name, method, args, get)
	if err == nil && hasTargetRefs(b) {
		// The result goes to another node, where this process's ids name
		// nothing (jsapi/rpcnodes.go).
		jsapi.ReleaseEnvelopeTargets(b)
		return nil, jsapi.ErrCapabilityAcrossNodes
	}
	return b, err
}

// hasTargetRefs reports whether the RPC message b holds references to
// exported targets or body streams (which cannot cross nodes).
func hasTargetRefs(b []byte) bool { return jsapi.EnvelopeHoldsLocalRefs(b) }

func (h *Host) callHere(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	if !h.classes[class] {
		return nil, &jsapi.ScriptError{Name: "TypeError", Message: "no Durable Object class named " + class + " is bound in this worker"}
	}
	if err := h.checkPeerID(class, id, name); err != nil {
		return nil, err
	}
	c := h.cellFor(class, id)
	return h.awaitOnLoop(ctx, c, func(reply func([]byte, error)) { c.call(name, method, args, get, reply) })
}

// fetchRouted is FetchHere, forwarded to the owner by the Placement when
// another node owns the object. Off the loop.
func (h *Host) fetchRouted(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	here := func() (*jsapi.HTTPResponse, error) { return h.FetchHere(ctx, class, id, name, req) }
	p := h.cfg.Placement
	if p == nil {
		return here()
	}
	resp, err := p.Fetch(ctx, class, id, name, req, here)
	if resp != nil {
		if rs, ok := resp.Socket.(RemoteSocket); ok {
			// A relay to the owner: the worker's Response carries it
			// as a WebSocket (accept()ed here, or returned).
			resp.Socket = jsapi.NewRemoteSocket(rs)
		}
	}
	return resp, err
}

// callRouted is CallHere, forwarded to the owner. Off the loop.
func (h *Host) callRouted(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	here := func() ([]byte, error) { return h.callHere(ctx, class, id, name, method, args, get) }
	p := h.cfg.Placement
	if p == nil {
		return here()
	}
	return p.Call(ctx, class, id, name, method, get, here, func() ([]byte, error) {
		if hasTargetRefs(args) {
			jsapi.ReleaseEnvelopeTargets(args) // the message is dropped
			return nil, jsapi.ErrCapabilityAcrossNodes
		}
		return args, nil
	})
}

// isElsewhere reports whether err means another live node owns the object.
func isElsewhere(err error) bool {
	var elsewhere *ownership.CellOwnedElsewhereError
	return errors.As(err, &elsewhere)
}

// ServeObjectHTTP answers the HTTP request r (a WebSocket upgrade
// forwarded by another node as bytes) with the object class/id on this
// node, never forwarding it: 503 when another live node owns it. Safe
// from any goroutine. (fleet.Local)
func (h *Host) ServeObjectHTTP(w http.ResponseWriter, r *http.Request, class, id, name string) {
	c := echo.New().NewContext(r, w)
	req, release, err := h.fromHTTP(w, r)
	if err == nil {
		defer release()
		var resp *jsapi.HTTPResponse
		if resp, err = h.FetchHere(r.Context(), class, id, name, req); err == nil {
			err = h.write(c, resp)
		}
	}
	if err != nil {
		h.httpError(err, c)
	}
}

// serveObjectUpgrade answers a WebSocket upgrade for an object: here when
// this node owns it or nobody live does, else through the Placement's
// edge. It reports false when it did not answer (no Placement: the
// ordinary path answers), and the handler's error.
func (h *Host) serveObjectUpgrade(c echo.Context, class, id, name string, req *jsapi.HTTPRequest) (bool, error) {
	p := h.cfg.Placement
	if p == nil {
		return false, nil
	}
	resp, err := h.FetchHere(c.Request().Context(), class, id, name, req)
	var elsewhere *ownership.CellOwnedElsewhereError
	if errors.As(err, &elsewhere) {
		resp, err = p.Upgrade(c.Response(), c.Request(), elsewhere.Addr, class, id, name, req)
		if resp == nil || err != nil {
			return true, err
		}
	}
	if err != nil {
		return true, err
	}
	return true, h.write(c, resp)
}
