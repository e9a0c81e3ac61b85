package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/cellhost/cellhost/ownership"
)

// The failover sweep (seed 000: a standby takes a dead owner's cells over
// once its lease expired, restores them and resumes them). The elected
// waker runs it in its dead-node GC pass, before the markers of a dead
// node are deleted: every cell the node owned (its node-cells markers) is
// activated here through CellWaker.Wake, which takes the cell by CAS
// (epoch + 1) unless a live node owns it already, restores it, arms its
// stored alarm and tells the wake index about it. A cell that needs
// nothing more is evicted when idle, like any cell. So neither a cell with
// an alarm whose wake entry never landed nor one whose hibernated
// WebSockets an edge node is re-attaching waits for a request. A cell that
// fails to activate keeps the node's markers, and the sweep is retried
// with GC's back-off.

// MaxSweepInFlight bounds the activations of one sweep at once.
const MaxSweepInFlight = 8

// sweepCells is the Wake's SweepFunc.
func (w *Wake) sweepCells(ctx context.Context, node string, scopes []string, renew func(context.Context) error) (int, error) {
	if w.local == nil {
		return 0, errors.New("no local node to take cells over")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		taken    int
		failed   int
		firstErr error
		wg       sync.WaitGroup
	)
	sem := make(chan struct{}, MaxSweepInFlight)
	for i, scope := range scopes {
		if i > 0 && i%(4*MaxSweepInFlight) == 0 {
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
			err := w.local.Wake(ctx, scope)
			var elsewhere *ownership.CellOwnedElsewhereError
			var nac interface{ NotACell() bool }
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				taken++
				w.cfg.Log.Info("failover sweep: cell taken over", "scope", scope, "dead_node", node)
			case errors.As(err, &elsewhere), errors.As(err, &nac) && nac.NotACell():
				// a live node has it, or it is no cell of this application
			default:
				failed++
				firstErr = cmpErr(firstErr, fmt.Errorf("take %s: %w", scope, err))
			}
		}()
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil && failed > 1 {
		firstErr = fmt.Errorf("%w (and %d more)", firstErr, failed-1)
	}
	return taken, firstErr
}
