package host

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/storage"
)

// Internal cells are cells of a class that runs Go instead of JavaScript:
// a D1 database is one (bindings/d1), as miniflare runs each D1 database as
// a Durable Object of a class of its own. Such a cell is stored, logged to
// the bucket, owned, forwarded to its owner and restored exactly like an
// object's, but no JS instance is built for it, no env binding names its
// class, and /do/<Class>/... does not reach it: its class is not in
// h.classes. Code reaches it through the CellCaller a shard hands to
// Config.BindInternal.

// InternalClass is a class of internal cells.
type InternalClass struct {
	// Name is the class part of the cells' scopes ("<Name>:<id>"): a name
	// no exported JavaScript class can have (it contains a '.'), so that no
	// durable_objects binding collides with it.
	Name string
	// Serve answers one request on the cell's database, in a turn of the
	// cell: what it leaves written commits at the end of that turn, and
	// the answer leaves once the commit is durable (in the bucket, in log
	// mode). wrote reports whether it may have written. It must leave no
	// explicit transaction open. On the cell's loop.
	Serve func(db *storage.DB, req []byte) (resp []byte, wrote bool)
	// Alarm, if set, runs when a cell's stored alarm comes due
	// (internalalarm.go); without it a due alarm is deleted.
	Alarm InternalAlarm
	// Start, if set, runs once the host is open, on a goroutine of its
	// own (a queue's consumer tells its cell to arm its alarm).
	Start func(ctx context.Context, w InternalWorker)
}

// CellCaller reaches internal cells from JavaScript running on a shard.
type CellCaller interface {
	// CallCell sends req to the cell of class named key (a D1 database's
	// id), on this node or, through Config.Placement, on the node that owns
	// it, and calls done with the answer on the caller's loop, exactly
	// once. Call it on the loop of the runtime it was given to.
	CallCell(class, key string, req []byte, done func([]byte, error))
}

// InternalID is the id of the internal cell of class named key: the same
// on every node and for every worker script, as a D1 database id names
// one database whichever worker binds it.
func InternalID(class, key string) string { return IDFromName("", class, key) }

// checkInternal validates the internal classes of cfg against its bound
// classes.
func checkInternal(cfg *Config, classes map[string]bool) (map[string]InternalClass, error) {
	out := map[string]InternalClass{}
	for _, ic := range cfg.Internal {
		switch {
		case ic.Serve == nil:
			return nil, fmt.Errorf("internal class %q has no Serve", ic.Name)
		case !strings.Contains(ic.Name, "."):
			return nil, fmt.Errorf("internal class %q: the name needs a '.', which no JavaScript class name has", ic.Name)
		case classes[ic.Name]:
			return nil, fmt.Errorf("class name %q is reserved for cellhost's own cells", ic.Name)
		}
		if err := bucketkey.CheckScope(ic.Name + ":" + InternalID(ic.Name, "")); err != nil {
			return nil, fmt.Errorf("internal class: %w", err)
		}
		out[ic.Name] = ic
	}
	return out, nil
}

// shardCells is a shard's CellCaller.
type shardCells struct{ s *shard }

func (sc shardCells) CallCell(class, key string, req []byte, done func([]byte, error)) {
	s := sc.s
	h := s.h
	if _, ok := h.internal[class]; !ok {
		done(nil, fmt.Errorf("%w %q", ErrUnknownClass, class))
		return
	}
	id := InternalID(class, key)
	done = wrapDone(s, done)
	forward := func() {
		h.goFunc(func(ctx context.Context) {
			ctx, cancel := context.WithTimeout(ctx, h.cfg.RequestTimeout)
			defer cancel()
			resp, err := h.internalRouted(ctx, class, id, req)
			s.post(func() { done(resp, err) })
		})
	}
	if p := h.cfg.Placement; p != nil && p.ServedElsewhere(class, id) {
		// Served by another node a moment ago: straight there, without
		// asking the bucket who owns it (internalRouted looks up again
		// if that node no longer does).
		forward()
		return
	}
	c := h.cellFor(class, id)
	c.s.post(func() {
		c.unref()
		c.serveInternal(req, func(resp []byte, err error) {
			if h.cfg.Placement != nil && isElsewhere(err) {
				forward()
				return
			}
			s.post(func() { done(resp, err) })
		})
	})
}

// CallCell is CellCaller.CallCell for Go code off the loops: it sends req
// to the internal cell of class named key (forwarded to its owner when
// another node owns it) and waits for the answer until ctx ends.
func (h *Host) CallCell(ctx context.Context, class, key string, req []byte) ([]byte, error) {
	if _, ok := h.internal[class]; !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownClass, class)
	}
	return h.internalRouted(ctx, class, InternalID(class, key), req)
}

// internalRouted is internalHere, forwarded to the owner. Off the loop.
func (h *Host) internalRouted(ctx context.Context, class, id string, req []byte) ([]byte, error) {
	here := func() ([]byte, error) { return h.internalHere(ctx, class, id, req) }
	p := h.cfg.Placement
	if p == nil {
		return here()
	}
	return p.Call(ctx, class, id, "", InternalMethod, false, here, func() ([]byte, error) { return req, nil })
}

// internalHere serves req on the internal cell class/id on this node,
// never forwarding it (CallHere's path for internal classes). Off the loop.
func (h *Host) internalHere(ctx context.Context, class, id string, req []byte) ([]byte, error) {
	c := h.cellFor(class, id)
	return h.awaitOnLoop(ctx, c, func(reply func([]byte, error)) { c.serveInternal(req, reply) })
}

// awaitOnLoop runs start on c's shard loop (dropping the reference
// cellFor took) and waits, off the loop, for the reply it is given, for
// ctx or for the request timeout: CallHere's and internalHere's wait. A
// shard that no longer takes jobs (closing) answers ErrClosed at once.
func (h *Host) awaitOnLoop(ctx context.Context, c *cell, start func(reply func([]byte, error))) ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	if !c.s.post(func() {
		c.unref()
		start(func(b []byte, err error) { ch <- res{b, err} })
	}) {
		return nil, ErrClosed
	}
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

// serveInternal runs one request on the internal cell in an event of its
// own, through its input gate; reply gets the answer once the turn's
// commit is durable (the output gate), or the error that kept the cell
// from running it (such as *ownership.CellOwnedElsewhereError). A commit
// that fails resets the cell, and the answers still held fail with it.
// On the cell's loop.
func (c *cell) serveInternal(req []byte, reply func([]byte, error)) {
	serve := c.s.h.internal[c.class].Serve
	c.inflight++
	c.deliver("", func() {
		if c.broken != nil {
			err := c.broken
			c.s.reply(c, func() { c.inflight--; reply(nil, err) })
			return
		}
		gen := c.gen
		c.s.h.counted.events.Add(1)
		carried := c.dirty // writes of an earlier turn, not committed yet
		resp, wrote := serve(c.db, req)
		switch {
		case wrote:
			c.touch()
			c.wrote = true
		case carried:
			c.touch() // it may have read those writes: it waits for them
		default:
			// It read only what earlier turns committed: end its read
			// transaction now rather than let the turn keep it open, so
			// that the answer waits for no later write (only for the
			// commits already made to become durable, as every answer).
			if err := c.db.Commit(); err != nil {
				_ = c.db.Rollback()
			}
		}
		c.s.reply(c, func() {
			c.inflight--
			if c.gen != gen {
				reply(nil, c.resetErr())
				return
			}
			reply(resp, nil)
		})
	})
}

// hasClass reports whether class is a bound class or an internal one.
func (h *Host) hasClass(class string) bool {
	_, internal := h.internal[class]
	return h.classes[class] || internal
}
