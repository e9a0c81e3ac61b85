package ownership

import (
	"context"
	"fmt"
	"time"
)

// A node whose renewals stopped landing (the bucket down, hung, or out of
// space) fences itself: it acknowledges nothing more and loses every cell.
// That is right, but exiting is not: with Config.Rejoin the renewal
// goroutine keeps trying, with back-off, to take a new lease under a new
// generation (bucket-protocol.md 4: "a fenced node takes a new lease only
// by restarting its ownership"). The new lease is written as at Start
// (create, or CAS over the record of this node id); the cells are taken
// again one by one by TryAcquire, each at a new epoch, and restored from
// the bucket. Leases from before the fence stay lost: their Check fails
// even after the rejoin.

// rejoinable reports whether the node fenced for lack of renewals and may
// take a new lease.
func (n *Node) rejoinable() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rejoinableLocked()
}

func (n *Node) rejoinableLocked() bool {
	return n.rejoin && n.lapsed && !n.stopped && n.state == stateStarted
}

// Rejoined is closed when the node, fenced, has taken a new lease (only
// with Config.Rejoin). A new channel is made for the next rejoin: call
// Rejoined again after it closes.
func (n *Node) Rejoined() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.rejoined
}

// rejoinLoop tries to rejoin until it succeeds (true) or ctx ends (false).
// Attempts back off from ttl/10 to ttl.
func (n *Node) rejoinLoop(ctx context.Context) bool {
	delay := max(n.ttl/10, time.Millisecond)
	for attempt := 1; ; attempt++ {
		wake := make(chan struct{})
		t := n.clock.AfterFunc(delay, func() { close(wake) })
		select {
		case <-ctx.Done():
			t.Stop()
			return false
		case <-wake:
		}
		err := n.tryRejoin(ctx)
		if err == nil {
			return true
		}
		if ctx.Err() != nil || !n.rejoinable() {
			return false
		}
		if attempt == 1 || attempt%10 == 0 {
			n.logWarn("ownership: node %s cannot rejoin yet (attempt %d): %v", n.id, attempt, err)
		}
		delay = min(delay*2, n.ttl)
	}
}

// tryRejoin takes a new lease under a new generation.
func (n *Node) tryRejoin(ctx context.Context) error {
	n.mu.Lock()
	if !n.rejoinableLocked() {
		n.mu.Unlock()
		return fmt.Errorf("rejoin node %s: %w", n.id, ErrClosed)
	}
	n.generation = NewGeneration()
	n.joining = true
	n.pending = nil
	n.leases = map[string]*Lease{} // all lost at the fence
	n.refused = map[string]lostRecord{}
	n.mu.Unlock()

	actx, cancel := context.WithTimeout(ctx, n.ttl/3)
	err := n.acquireNodeLease(actx)
	cancel()

	n.mu.Lock()
	defer n.mu.Unlock()
	n.joining = false
	if err != nil {
		return err
	}
	if n.stopped || n.state != stateStarted {
		return fmt.Errorf("rejoin node %s: %w", n.id, ErrClosed)
	}
	n.fenced, n.lapsed = nil, false
	n.done = make(chan struct{})
	close(n.rejoined)
	n.rejoined = make(chan struct{})
	// Warn, like the fence: the end of an outage is news to an operator
	// (cellhost dev shows both without --verbose).
	n.logWarn("ownership: node %s rejoined with generation %s after its bucket answered again", n.id, n.generation)
	return nil
}

// lostError returns why a lost lease may not acknowledge, or nil.
func (l *Lease) lostError() error {
	select {
	case <-l.lost:
		return &FencedError{Scope: l.Scope, Reason: "the cell's lease was lost (the node fenced itself or another node took the cell)"}
	default:
		return nil
	}
}
