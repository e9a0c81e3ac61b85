package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// GCStats are the counters of dead-node GC.
type GCStats struct {
	Passes  int64 `json:"passes"`  // passes run (as the waker)
	Swept   int64 `json:"swept"`   // dead nodes whose markers are all deleted
	Retired int64 `json:"retired"` // dead node records removed (tombstone, then delete)
	Retries int64 `json:"retries"` // sweeps that failed and backed off
	Deletes int64 `json:"deletes"` // markers deleted
	Skipped int64 `json:"skipped"` // undecodable node records left alone
	Taken   int64 `json:"taken"`   // dead nodes' cells taken over by the failover sweep
	// StaleMarkers counts markers of generations that are over (a node
	// that rejoined, or whose record is gone), deleted.
	StaleMarkers int64 `json:"stale_markers"`
}

// SweepFunc is the failover sweep (SetSweep): it takes over the cells a
// dead node owned (scopes, from its markers) before GC deletes their
// markers, renewing the waker lease as it goes. It returns how many it
// took, the cells that must be tried again (their markers stay, each
// backing off on its own), and an error that stops the pass (a lost
// waker lease, ctx).
type SweepFunc func(ctx context.Context, node string, scopes []string, renew func(context.Context) error) (taken int, failed map[string]error, err error)

// MaxSweepPerPass bounds the cells of one dead node the failover sweep
// activates in one pass: a node that dies with 100 000 cells is taken
// over a slice per waker tick, not all at once on the waker (its restores
// and the evictions they force), and its GC goes on cell by cell.
const MaxSweepPerPass = 256

// DeadNodeGc is dead-node garbage collection (bucket protocol, section 8;
// seed 003), run by the holder of wake/waker.json once per waker tick. Its
// state across passes is swept (nodes whose markers are gone) and retries
// (failed sweeps per node, with the time of the next attempt).
type DeadNodeGc struct {
	store ownership.Store
	log   *slog.Logger

	mu      sync.Mutex
	swept   map[string]bool
	retries map[string]int
	nextTry map[string]int64 // Unix ms of the next attempt after a failure
	stats   GCStats
	sweep   SweepFunc // nil: no failover sweep
	// cellRetries and cellNextTry are the failover sweep's per-cell
	// back-off (by scope): one cell that fails to activate waits alone.
	cellRetries map[string]int
	cellNextTry map[string]int64
	passes      int64 // passes run; every staleMarkerEvery-th collects stale markers
}

// SetSweep makes every pass run sweep on a dead node's cells before it
// deletes their markers. Call it before the first pass.
func (g *DeadNodeGc) SetSweep(sweep SweepFunc) { g.sweep = sweep }

// NewDeadNodeGc returns a GC with empty state.
func NewDeadNodeGc(store ownership.Store, log *slog.Logger) *DeadNodeGc {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &DeadNodeGc{store: store, log: log, swept: map[string]bool{}, retries: map[string]int{}, nextTry: map[string]int64{},
		cellRetries: map[string]int{}, cellNextTry: map[string]int64{}}
}

// Stats returns the counters.
func (g *DeadNodeGc) Stats() GCStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// Retries returns the failure count of node's sweep (0: none pending).
func (g *DeadNodeGc) Retries(node string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.retries[node]
}

// Swept reports whether node's markers are known to be gone.
func (g *DeadNodeGc) Swept(node string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.swept[node]
}

// RunElectedPass is run_elected_pass: one pass over nodes/. renew renews
// the waker lease; it runs before the pass and before each step that
// writes, and the pass stops at once (returning its error) when it fails.
// now is the wall clock; tickMS the waker tick (the back-off unit).
//
//  1. LIST nodes/; a record is dead per NodeRecordIsDead. An undecodable
//     record is skipped with a warning, never deleted.
//  2. For each dead node not swept and not backing off: LIST its markers
//     (any generation) and DELETE them, at most MaxGCDeletesInFlight at
//     once. Any failure: back off RetryDelayMS(tick, failures); else swept.
//  3. For each swept node: re-read its record, CAS a tombstone
//     (expires_ms 0) with If-Match, then DELETE it unconditionally.
func (g *DeadNodeGc) RunElectedPass(ctx context.Context, renew func(context.Context) error, now func() time.Time, tickMS int64) error {
	if err := renew(ctx); err != nil {
		return err
	}
	g.mu.Lock()
	g.stats.Passes++
	g.mu.Unlock()
	dead, err := g.deadNodes(ctx, now().UnixMilli())
	if err != nil {
		return err
	}
	for _, node := range dead {
		g.mu.Lock()
		attempt := GCAttempt(g.swept[node], g.nextTry[node], now().UnixMilli())
		g.mu.Unlock()
		if attempt {
			if err := renew(ctx); err != nil {
				return err
			}
			n, err := g.gcMarkers(ctx, node, renew, now, tickMS)
			g.mu.Lock()
			g.stats.Deletes += int64(n)
			if errors.Is(err, errSweepPending) {
				// Some cells are left for later passes (the per-pass
				// bound, or their own back-off): no back-off of the node.
				g.mu.Unlock()
				continue
			}
			if err != nil {
				if errors.Is(err, ErrWakerLost) {
					g.mu.Unlock()
					return err
				}
				g.retries[node]++
				delay := RetryDelayMS(tickMS, g.retries[node])
				g.nextTry[node] = now().UnixMilli() + delay
				g.stats.Retries++
				g.mu.Unlock()
				g.log.Warn("dead-node gc: marker sweep failed; backing off", "node", node, "failures", g.retries[node], "retry_delay_ms", delay, "err", err)
				continue
			}
			g.swept[node] = true
			delete(g.retries, node)
			delete(g.nextTry, node)
			g.stats.Swept++
			g.mu.Unlock()
			g.log.Info("dead-node gc: markers deleted", "node", node, "deleted", n)
		}
		g.mu.Lock()
		swept := g.swept[node]
		g.mu.Unlock()
		if !swept {
			continue
		}
		if err := renew(ctx); err != nil {
			return err
		}
		if err := g.retireDeadNode(ctx, node, now); err != nil {
			g.log.Warn("dead-node gc: retiring the record failed; next pass", "node", node, "err", err)
			continue
		}
		g.mu.Lock()
		delete(g.swept, node)
		g.stats.Retired++
		g.mu.Unlock()
		g.log.Info("dead-node gc: node record retired", "node", node)
	}
	g.mu.Lock()
	g.passes++
	stalePass := g.passes%staleMarkerEvery == 1
	g.mu.Unlock()
	if stalePass {
		if err := g.gcStaleMarkers(ctx, renew, now().UnixMilli()); err != nil {
			if errors.Is(err, ErrWakerLost) {
				return err
			}
			g.log.Warn("dead-node gc: stale markers: next time", "err", err)
		}
	}
	return nil
}

// staleMarkerEvery is how often (in passes) a pass also collects the
// markers of generations that are over (gcStaleMarkers): it lists every
// marker, which costs more than the pass over nodes/.
const staleMarkerEvery = 4

// gcStaleMarkers deletes the markers of generations that are over
// (StaleMarkers): of nodes that rejoined with a new generation, or whose
// record is gone (a graceful stop, a retired record). It lists node-cells/
// first and reads the records after, as StaleMarkers requires. A dead
// node's markers, every generation, are left to the dead-node path (the
// failover sweep reads them first).
func (g *DeadNodeGc) gcStaleMarkers(ctx context.Context, renew func(context.Context) error, nowMS int64) error {
	var keys []string
	after := ""
	for {
		page, err := g.store.List(ctx, bucketkey.MarkersPrefix, after, 0)
		if err != nil {
			return fmt.Errorf("list %s: %w", bucketkey.MarkersPrefix, err)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			break
		}
		after = page.NextStartAfter
	}
	current := map[string]string{}
	for _, k := range keys {
		m, err := bucketkey.ParseMarkerKey(k)
		if err != nil {
			continue
		}
		if _, seen := current[m.Node]; seen {
			continue
		}
		key := bucketkey.NodeKey(m.Node)
		body, _, err := g.store.Get(ctx, key)
		switch {
		case errors.Is(err, plugins.ErrNotFound):
			current[m.Node] = ""
		case err != nil:
			return fmt.Errorf("read %s: %w", key, err)
		default:
			rec, derr := ownership.DecodeNodeRecord(key, body)
			if derr != nil || NodeRecordIsDead(key, rec, nowMS) {
				// Never judged on what cannot be read; a dead node's
				// markers are the dead-node path's.
				current[m.Node] = "-"
				continue
			}
			current[m.Node] = rec.OwnershipIndexGeneration
		}
	}
	for node, gen := range current {
		if gen == "-" {
			delete(current, node)
		}
	}
	stale := StaleMarkers(keys, current)
	if len(stale) == 0 {
		return nil
	}
	var deleted atomic.Int64
	err := forEachRenewing(ctx, stale, MaxGCDeletesInFlight, renew, func(ctx context.Context, key string) error {
		err := g.store.Delete(ctx, key, "")
		if err == nil || errors.Is(err, plugins.ErrNotFound) {
			deleted.Add(1)
			return nil
		}
		return fmt.Errorf("delete %s: %w", key, err)
	})
	g.mu.Lock()
	g.stats.Deletes += deleted.Load()
	g.stats.StaleMarkers += deleted.Load()
	g.mu.Unlock()
	g.log.Info("dead-node gc: markers of old generations deleted", "deleted", deleted.Load(), "stale", len(stale))
	return err
}

// deadNodes is dead_nodes: the nodes whose records under nodes/ are dead at
// nowMS, in key order. A node seen live again forgets its GC state.
func (g *DeadNodeGc) deadNodes(ctx context.Context, nowMS int64) ([]string, error) {
	var dead []string
	after := ""
	for {
		page, err := g.store.List(ctx, bucketkey.NodesPrefix, after, 0)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", bucketkey.NodesPrefix, err)
		}
		for _, o := range page.Objects {
			node, err := bucketkey.ParseNodeKey(o.Key)
			if err != nil {
				continue
			}
			body, _, err := g.store.Get(ctx, o.Key)
			if errors.Is(err, plugins.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", o.Key, err)
			}
			rec, err := ownership.DecodeNodeRecord(o.Key, body)
			if err != nil {
				g.mu.Lock()
				g.stats.Skipped++
				g.mu.Unlock()
				g.log.Warn("dead-node gc: undecodable node record skipped (never deleted)", "key", o.Key, "err", err)
				continue
			}
			if NodeRecordIsDead(o.Key, rec, nowMS) {
				dead = append(dead, node)
			} else {
				g.mu.Lock()
				delete(g.swept, node)
				delete(g.retries, node)
				delete(g.nextTry, node)
				g.mu.Unlock()
			}
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			sort.Strings(dead)
			return dead, nil
		}
		after = page.NextStartAfter
	}
}

// gcMarkers is gc_markers: it deletes every marker of node (any generation)
// with at most MaxGCDeletesInFlight deletes at once, renewing the waker
// lease between batches. It returns how many it deleted and the first
// error (ErrWakerLost-wrapped when a renewal failed).
//
// With a failover sweep, the cells are taken over first, at most
// MaxSweepPerPass per pass and each out of its own back-off; the markers
// of the cells done are deleted at once, and errSweepPending says that
// some are left for later passes.
func (g *DeadNodeGc) gcMarkers(ctx context.Context, node string, renew func(context.Context) error, now func() time.Time, tickMS int64) (int, error) {
	prefix := bucketkey.NodeMarkersPrefix(node)
	var keys []string
	after := ""
	for {
		page, err := g.store.List(ctx, prefix, after, 0)
		if err != nil {
			return 0, fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range page.Objects {
			keys = append(keys, o.Key)
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			break
		}
		after = page.NextStartAfter
	}
	keys = CellsIndexedByNodes(keys, map[string]bool{node: true})[node]
	pending := 0
	if g.sweep != nil && len(keys) > 0 {
		var scopes []string
		seen := map[string]bool{}
		nowMS := now().UnixMilli()
		g.mu.Lock()
		for _, k := range keys {
			_, scope, ok := ParseMarkerKey(k)
			if !ok || seen[scope] {
				continue
			}
			seen[scope] = true
			if len(scopes) < MaxSweepPerPass && nowMS >= g.cellNextTry[scope] {
				scopes = append(scopes, scope)
			}
		}
		g.mu.Unlock()
		taken, failed, err := g.sweep(ctx, node, scopes, renew)
		g.mu.Lock()
		g.stats.Taken += int64(taken)
		done := map[string]bool{}
		for _, scope := range scopes {
			if ferr, bad := failed[scope]; bad {
				g.cellRetries[scope]++
				delay := RetryDelayMS(tickMS, g.cellRetries[scope])
				g.cellNextTry[scope] = now().UnixMilli() + delay
				g.stats.Retries++
				g.log.Warn("failover sweep: cell backs off", "scope", scope, "dead_node", node, "failures", g.cellRetries[scope], "retry_delay_ms", delay, "err", ferr)
				continue
			}
			if err == nil {
				done[scope] = true
				delete(g.cellRetries, scope)
				delete(g.cellNextTry, scope)
			}
		}
		g.mu.Unlock()
		if err != nil {
			return 0, fmt.Errorf("failover sweep: %w", err)
		}
		// Only the markers of the cells done are deleted now.
		kept := keys[:0]
		for _, k := range keys {
			if _, scope, ok := ParseMarkerKey(k); ok && !done[scope] {
				pending++
				continue
			}
			kept = append(kept, k)
		}
		keys = kept
	}

	var deleted atomic.Int64
	err := forEachRenewing(ctx, keys, MaxGCDeletesInFlight, renew, func(ctx context.Context, key string) error {
		err := g.store.Delete(ctx, key, "")
		if err == nil || errors.Is(err, plugins.ErrNotFound) {
			deleted.Add(1)
			return nil
		}
		return fmt.Errorf("delete %s: %w", key, err)
	})
	if err == nil && pending > 0 {
		err = fmt.Errorf("%w: %d markers of %s wait for their cells", errSweepPending, pending, node)
	}
	return int(deleted.Load()), err
}

// errSweepPending: a dead node's sweep took some of its cells over in this
// pass and left the others for later passes.
var errSweepPending = errors.New("failover sweep not finished")

// forEachRenewing runs do for every item, at most limit at once, renewing
// the waker lease (renew) before each run of 4*limit items; a failed
// renewal stops the rest. It returns the first error do or renew gave (a
// lost waker lease wins, cmpErr), else ctx's error if ctx ended first.
// The dead-node GC's deletes and the failover sweep's activations share it.
func forEachRenewing(ctx context.Context, items []string, limit int, renew func(context.Context) error, do func(ctx context.Context, item string) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, limit)
	for i, item := range items {
		if i > 0 && i%(4*limit) == 0 {
			if err := renew(ctx); err != nil {
				mu.Lock()
				firstErr = cmpErr(firstErr, err)
				mu.Unlock()
				cancel()
				break
			}
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := do(ctx, item); err != nil {
				mu.Lock()
				firstErr = cmpErr(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	return firstErr
}

// cmpErr keeps the first error, but a lost waker lease wins.
func cmpErr(first, err error) error {
	if first == nil || errors.Is(err, ErrWakerLost) {
		return err
	}
	return first
}

// retireDeadNode is retire_dead_node: the two-step fence. It re-reads the
// record, CASes a tombstone (the same record, expires_ms 0) with If-Match,
// then deletes it unconditionally. A crash between the steps leaves a
// record that still reads as dead; the next pass finishes it.
func (g *DeadNodeGc) retireDeadNode(ctx context.Context, node string, now func() time.Time) error {
	key := bucketkey.NodeKey(node)
	body, etag, err := g.store.Get(ctx, key)
	if errors.Is(err, plugins.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", key, err)
	}
	rec, err := ownership.DecodeNodeRecord(key, body)
	if err != nil {
		return err // never delete what cannot be read
	}
	if !NodeRecordIsDead(key, rec, now().UnixMilli()) {
		return fmt.Errorf("%s is live again", key)
	}
	if rec.ExpiresMS != 0 {
		tomb, err := Tombstone(body)
		if err != nil {
			return err
		}
		if _, err := g.store.Put(ctx, key, tomb, plugins.PutOptions{IfMatch: etag}); err != nil {
			return fmt.Errorf("tombstone %s: %w", key, err)
		}
	}
	if err := g.store.Delete(ctx, key, ""); err != nil && !errors.Is(err, plugins.ErrNotFound) {
		return fmt.Errorf("delete %s: %w", key, err)
	}
	return nil
}
