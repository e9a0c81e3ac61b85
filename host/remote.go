package host

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

// Remote reaches an object that another live node owns (bucket-protocol.md
// section 9). fleet.Client implements it; cmd/cellhost sets Config.Remote.
// Called from request goroutines, never from a shard's loop, concurrently.
//
// Errors: *ownership.CellOwnedElsewhereError means the node at addr does
// not own the object and did not run the request: the host looks the
// owner up again. An error with an Unsent() bool method returning true
// means the request never reached the owner: the host looks up again too.
// Every other error is the answer: a forward that failed after it was
// sent is reported to the caller, never re-sent (requests are not
// idempotent).
type Remote interface {
	Fetch(ctx context.Context, addr, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error)
	Call(ctx context.Context, addr, class, id, name, method string, args []byte, get bool) ([]byte, error)
	// ProxyHTTP relays the client's request r (a WebSocket upgrade) to the
	// node at addr, where ServeObjectHTTP answers it, and relays the answer
	// (and, after a 101, the connection's bytes both ways) to w. It writes
	// an error answer itself when the node cannot be reached.
	ProxyHTTP(w http.ResponseWriter, r *http.Request, addr, class, id, name string)
}

// maxForwardRounds bounds the look-ups of one request (fleet.MaxForwardRounds).
const maxForwardRounds = 3

// unsent reports whether err says a forward never reached the owner.
func unsent(err error) bool {
	var u interface{ Unsent() bool }
	return errors.As(err, &u) && u.Unsent()
}

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
	if _, ok := h.internal[class]; ok && method == internalMethod {
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
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	c.s.post(func() {
		c.unref()
		c.call(name, method, args, get, func(b []byte, err error) { ch <- res{b, err} })
	})
	t := time.NewTimer(h.cfg.RequestTimeout)
	defer t.Stop()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, fmt.Errorf("%w (%s)", ErrTimeout, h.cfg.RequestTimeout)
	}
}

// routed runs here (a local attempt) and, while it or a forward says a live
// other node owns the object, forwards with there to that node's address,
// looking the owner up again after an answer "not the owner" or a forward
// that never reached it, at most maxForwardRounds times. owners remembers
// where scope was last served remotely, so that the next request goes
// there at once (no local look-up); a stale entry costs one round.
//
// Every forward is bounded by the owner's lease (forwardTo): a paused or
// dead owner holds a request no longer than its lease. A forward that never
// reached the owner (refused, not yet written) waits for the lease the
// look-up read to expire, then looks up again, which takes the object over
// here once the lease is no longer live; one that may have reached it is
// answered MaybeAppliedError, never sent again (requests are not
// idempotent; the epoch fence decides what survives).
func routed[T any](ctx context.Context, h *Host, owners *ownerCache, scope string, here func() (T, error), there func(ctx context.Context, addr string) (T, error)) (T, error) {
	var v T
	var err error
	if o, ok := owners.get(scope, time.Now()); ok && h.cfg.Remote != nil {
		v, err = forwardTo(ctx, h, o, there)
		if !isElsewhere(err) && !forwardFailed(err) {
			return v, err
		}
		owners.forget(scope, o.addr)
		if !isElsewhere(err) && !unsent(err) {
			return v, err // sent, no answer: reported, never re-sent
		}
	}
	v, err = here()
	for round := 0; h.cfg.Remote != nil; round++ {
		var elsewhere *ownership.CellOwnedElsewhereError
		if !errors.As(err, &elsewhere) || round >= maxForwardRounds {
			return v, err
		}
		o := ownerRef{addr: elsewhere.Addr, node: elsewhere.Owner, expiresMS: elsewhere.ExpiresMS}
		v, err = forwardTo(ctx, h, o, there)
		if isElsewhere(err) || unsent(err) {
			owners.forget(scope, o.addr)
			if round+1 >= maxForwardRounds {
				return v, err
			}
			if unsent(err) && !waitLeaseExpiry(ctx, o) {
				return v, err
			}
			v, err = here() // look the owner up again
			continue
		}
		if forwardFailed(err) {
			owners.forget(scope, o.addr) // no answer: look up afresh next time
		} else {
			owners.put(scope, o, time.Now())
		}
		return v, err
	}
	return v, err
}

// ownerRef is where a look-up found an object: the owner's address, node
// id and lease expiry (Unix ms; 0 when unknown).
type ownerRef struct {
	addr      string
	node      string
	expiresMS uint64
}

// errOwnerLeaseExpired is the cause of a forward's context cancelled by
// forwardTo: the owner's lease expired with the forward in flight.
var errOwnerLeaseExpired = errors.New("the owner's lease expired")

// leaseReadRetry is how soon forwardTo reads an owner's lease again after
// a failed read.
const leaseReadRetry = 100 * time.Millisecond

// forwardTo runs there(addr) with a context that ends when the owner's
// lease has expired: at the expiry the look-up read, the lease is read
// again; while the owner renews it the forward goes on (a slow object
// is not cut short), and once it is no longer live the forward is
// cancelled. Then a forward that never reached the owner comes back
// unsent (the caller looks up again), and one that may have reached it
// becomes MaybeAppliedError.
func forwardTo[T any](ctx context.Context, h *Host, o ownerRef, there func(context.Context, string) (T, error)) (T, error) {
	read := h.ownerLease
	if read == nil && h.cfg.Node != nil {
		read = h.cfg.Node.NodeLease
	}
	if read == nil || o.node == "" || o.expiresMS == 0 {
		return there(ctx, o.addr)
	}
	fctx, cancel := context.WithCancelCause(ctx)
	stop := make(chan struct{})
	var watching sync.WaitGroup
	watching.Add(1)
	go func() {
		defer watching.Done()
		expires := o.expiresMS
		for {
			t := time.NewTimer(time.Until(time.UnixMilli(int64(expires))) + time.Millisecond)
			select {
			case <-stop:
				t.Stop()
				return
			case <-fctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			rec, live, err := read(fctx, o.node)
			switch {
			case fctx.Err() != nil:
				return
			case err != nil:
				// The bucket does not answer: nobody can renew or take
				// over now; read again shortly (the request's own
				// deadline bounds the wait).
				expires = uint64(time.Now().Add(leaseReadRetry).UnixMilli())
			case live && rec.ExpiresMS > expires:
				expires = rec.ExpiresMS // renewed: the owner is alive
			default:
				cancel(errOwnerLeaseExpired)
				return
			}
		}
	}()
	v, err := there(fctx, o.addr)
	close(stop)
	watching.Wait()
	expired := errors.Is(context.Cause(fctx), errOwnerLeaseExpired)
	cancel(nil)
	if err != nil && expired && ctx.Err() == nil && !unsent(err) && !isElsewhere(err) {
		return v, &MaybeAppliedError{Reason: fmt.Sprintf("the Durable Object's owner (%s at %s) stopped answering and its lease expired after the request was sent to it", o.node, o.addr)}
	}
	return v, err
}

// waitLeaseExpiry waits, after a forward that never reached the owner
// (refused: the owner may be dead), until the owner's lease the look-up
// read has expired, so that the next look-up can take the object over. It
// reports false when ctx ended first.
func waitLeaseExpiry(ctx context.Context, o ownerRef) bool {
	if o.expiresMS == 0 {
		return ctx.Err() == nil
	}
	d := time.Until(time.UnixMilli(int64(o.expiresMS))) + time.Millisecond
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// forwardFailed reports whether err is a forward that got no answer
// (sent or not).
func forwardFailed(err error) bool {
	var u interface{ Unsent() bool }
	return errors.As(err, &u)
}

// ownerCache remembers the address of the node that last served a scope
// remotely, for ownerCacheTTL and never past the owner's lease expiry as
// last read: after that the owner is looked up again, so that a node paused
// or dead with its connections still accepted is noticed once its lease
// expired. Safe for concurrent use; bounded (it starts over when full).
type ownerCache struct {
	mu sync.Mutex
	m  map[string]cachedOwner // by scope; guarded by mu
}

type cachedOwner struct {
	ownerRef
	until time.Time
}

const (
	maxCachedOwners = 1 << 16
	ownerCacheTTL   = time.Second
)

func (c *ownerCache) get(scope string, now time.Time) (ownerRef, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.m[scope]
	if !ok || !now.Before(o.until) || o.expiresMS != 0 && now.UnixMilli() >= int64(o.expiresMS) {
		return ownerRef{}, false
	}
	return o.ownerRef, true
}

func (c *ownerCache) put(scope string, o ownerRef, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedOwners {
		c.m = map[string]cachedOwner{}
	}
	c.m[scope] = cachedOwner{ownerRef: o, until: now.Add(ownerCacheTTL)}
}

// forget drops scope's entry if it still is addr.
func (c *ownerCache) forget(scope, addr string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m[scope].addr == addr {
		delete(c.m, scope)
	}
}

// fetchRouted is FetchHere, forwarded to the owner when another node owns
// the object. Off the loop.
func (h *Host) fetchRouted(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	return routed(ctx, h, &h.owners, class+":"+id,
		func() (*jsapi.HTTPResponse, error) { return h.FetchHere(ctx, class, id, name, req) },
		func(fctx context.Context, addr string) (*jsapi.HTTPResponse, error) {
			if sr, ok := h.cfg.Remote.(SocketRemote); ok && isUpgradeRequest(req) {
				// The relay outlives this call: the request's context,
				// not the forward's.
				return h.remoteSocketResponse(ctx, sr, addr, class, id, name, req)
			}
			// The peer protocol carries bodies as bytes.
			if err := req.BufferBody(maxBodyBytes); err != nil {
				return nil, errBadRequest{err}
			}
			return h.cfg.Remote.Fetch(fctx, addr, class, id, name, req)
		})
}

// callRouted is CallHere, forwarded to the owner. Off the loop.
func (h *Host) callRouted(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	return routed(ctx, h, &h.owners, class+":"+id,
		func() ([]byte, error) { return h.callHere(ctx, class, id, name, method, args, get) },
		func(fctx context.Context, addr string) ([]byte, error) {
			if hasTargetRefs(args) {
				jsapi.ReleaseEnvelopeTargets(args) // the message is dropped
				return nil, jsapi.ErrCapabilityAcrossNodes
			}
			return h.cfg.Remote.Call(fctx, addr, class, id, name, method, args, get)
		})
}

// isElsewhere reports whether err means another live node owns the object.
func isElsewhere(err error) bool {
	var elsewhere *ownership.CellOwnedElsewhereError
	return errors.As(err, &elsewhere)
}

// ServeObjectHTTP answers the HTTP request r (a WebSocket upgrade
// forwarded by another node's Remote.ProxyHTTP) with the object
// class/id on this node, never forwarding it: 503 when another live node
// owns it. Safe from any goroutine. (fleet.Local)
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
// this node owns it or nobody live does, else relayed to the owner as
// bytes (Remote.ProxyHTTP). It reports false when it did not answer (no
// Remote: the ordinary path answers), and the handler's error.
func (h *Host) serveObjectUpgrade(c echo.Context, class, id, name string, req *jsapi.HTTPRequest) (bool, error) {
	if h.cfg.Remote == nil {
		return false, nil
	}
	resp, err := h.FetchHere(c.Request().Context(), class, id, name, req)
	var elsewhere *ownership.CellOwnedElsewhereError
	if errors.As(err, &elsewhere) {
		if sr, ok := h.cfg.Remote.(SocketRemote); ok {
			return true, h.edgeUpgrade(c, sr, elsewhere.Addr, class, id, name, req)
		}
		h.cfg.Remote.ProxyHTTP(c.Response(), c.Request(), elsewhere.Addr, class, id, name)
		return true, nil
	}
	if err != nil {
		return true, err
	}
	return true, h.write(c, resp)
}
