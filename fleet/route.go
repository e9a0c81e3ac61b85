package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/cellhost/cellhost/internal/backoff"
	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/ownership"
)

// Placement reaches objects that another live node owns for one host
// (bucket-protocol.md section 9): it implements host.Placement. A request
// runs here first (the host's own look-up, which takes the object over
// when nobody live owns it); while that, or a forward, says a live other
// node owns it, it is forwarded to that node, signed (Client). The owner
// cache sends the next request for the object straight there. WebSocket
// upgrades are relayed message by message by the edge (edge.go), which
// holds the client's connection and re-attaches it when the owner dies.
// One Placement per host (cmd/cellhost makes one for each deployment's
// host): its edge connections close with that host.
type Placement struct {
	client  *Client
	node    string // this node's id (the edge's Open.Edge)
	log     *slog.Logger
	timeout time.Duration // how long a relay's 101 waits to be claimed
	maxBody int64
	// lease reads another node's lease (ownership.Node.NodeLease; tests
	// script it); nil: forwards are not bounded by the owner's lease.
	lease  func(ctx context.Context, node string) (ownership.NodeRecord, bool, error)
	owners ownerCache
	edges  edgeRegistry
}

// PlacementConfig configures a Placement.
type PlacementConfig struct {
	// Client forwards requests and opens relays (required).
	Client *Client
	// Node is this process's membership of the fleet: its id names the
	// edge of a relay, and its NodeLease bounds every forward by the
	// owner's lease. Nil in tests.
	Node *ownership.Node
	// Logger receives the edge's messages (discarded when nil).
	Logger *slog.Logger
	// RequestTimeout is how long a WebSocket a worker's stub fetch got
	// from another node waits to be returned or accept()ed before its
	// relay closes (host.Config's RequestTimeout; 2 minutes when zero).
	RequestTimeout time.Duration
	// MaxBodyBytes bounds a streamed request body buffered to be
	// forwarded (the peer protocol carries bytes); 100 MiB when zero.
	MaxBodyBytes int64
}

// NewPlacement returns a Placement forwarding through cfg.Client.
func NewPlacement(cfg PlacementConfig) *Placement {
	p := &Placement{client: cfg.Client, log: cfg.Logger, timeout: cfg.RequestTimeout, maxBody: cfg.MaxBodyBytes}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	if p.timeout <= 0 {
		p.timeout = 2 * time.Minute
	}
	if p.maxBody <= 0 {
		p.maxBody = 100 << 20
	}
	if cfg.Node != nil {
		p.node = cfg.Node.ID()
		p.lease = cfg.Node.NodeLease
	}
	return p
}

// maxForwardRounds bounds the look-ups of one request.
const maxForwardRounds = MaxForwardRounds

// unsent reports whether err says a forward never reached the owner.
func unsent(err error) bool {
	var u interface{ Unsent() bool }
	return errors.As(err, &u) && u.Unsent()
}

// BadRequestError is a request the Placement could not forward as it
// came (its body past MaxBodyBytes): the client's, answered 400.
type BadRequestError struct{ Err error }

func (e *BadRequestError) Error() string { return e.Err.Error() }
func (e *BadRequestError) Unwrap() error { return e.Err }

// BadRequest marks the error as the client's (host's httpError).
func (e *BadRequestError) BadRequest() bool { return true }

// Fetch implements host.Placement: req for the object, run by here or
// forwarded to its owner; a WebSocket upgrade is relayed (the 101's
// Socket is the relay, a host.RemoteSocket).
func (p *Placement) Fetch(ctx context.Context, class, id, name string, req *httpmsg.Request, here func() (*httpmsg.Response, error)) (*httpmsg.Response, error) {
	return routed(ctx, p, class+":"+id, here,
		func(fctx context.Context, addr string) (*httpmsg.Response, error) {
			if isUpgradeRequest(req) {
				// The relay outlives this call: the request's context,
				// not the forward's.
				return p.remoteSocketResponse(ctx, addr, class, id, name, req)
			}
			// The peer protocol carries bodies as bytes.
			if err := req.BufferBody(p.maxBody); err != nil {
				return nil, &BadRequestError{err}
			}
			return p.client.Fetch(fctx, addr, class, id, name, req)
		})
}

// Call implements host.Placement.
func (p *Placement) Call(ctx context.Context, class, id, name, method string, get bool, here func() ([]byte, error), wire func() ([]byte, error)) ([]byte, error) {
	return routed(ctx, p, class+":"+id, here,
		func(fctx context.Context, addr string) ([]byte, error) {
			args, err := wire()
			if err != nil {
				return nil, err
			}
			return p.client.Call(fctx, addr, class, id, name, method, args, get)
		})
}

// ServedElsewhere implements host.Placement: the owner cache has the
// object.
func (p *Placement) ServedElsewhere(class, id string) bool {
	_, ok := p.owners.get(class+":"+id, time.Now())
	return ok
}

// Upgrade implements host.Placement: the client's WebSocket upgrade for
// an object the node at addr owns, held here by the edge.
func (p *Placement) Upgrade(w http.ResponseWriter, r *http.Request, addr, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
	return p.edgeUpgrade(w, r, addr, class, id, name, req)
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
func routed[T any](ctx context.Context, p *Placement, scope string, here func() (T, error), there func(ctx context.Context, addr string) (T, error)) (T, error) {
	var v T
	var err error
	owners := &p.owners
	if o, ok := owners.get(scope, time.Now()); ok {
		v, err = forwardTo(ctx, p, o, there)
		if !isElsewhere(err) && !forwardFailed(err) {
			return v, err
		}
		owners.forget(scope, o.addr)
		if !isElsewhere(err) && !unsent(err) {
			return v, err // sent, no answer: reported, never re-sent
		}
	}
	v, err = here()
	for round := 0; ; round++ {
		var elsewhere *ownership.CellOwnedElsewhereError
		if !errors.As(err, &elsewhere) || round >= maxForwardRounds {
			return v, err
		}
		o := ownerRef{addr: elsewhere.Addr, node: elsewhere.Owner, expiresMS: elsewhere.ExpiresMS}
		v, err = forwardTo(ctx, p, o, there)
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
func forwardTo[T any](ctx context.Context, p *Placement, o ownerRef, there func(context.Context, string) (T, error)) (T, error) {
	read := p.lease
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
		return v, &httpmsg.MaybeAppliedError{Reason: fmt.Sprintf("the Durable Object's owner (%s at %s) stopped answering and its lease expired after the request was sent to it", o.node, o.addr)}
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
	return backoff.Sleep(ctx, d)
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

// isElsewhere reports whether err means another live node owns the object.
func isElsewhere(err error) bool {
	var elsewhere *ownership.CellOwnedElsewhereError
	return errors.As(err, &elsewhere)
}
