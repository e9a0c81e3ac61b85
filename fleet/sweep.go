package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

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
	var taken, failed atomic.Int64
	err := forEachRenewing(ctx, scopes, MaxSweepInFlight, renew, func(ctx context.Context, scope string) error {
		err := w.local.Wake(ctx, scope)
		var elsewhere *ownership.CellOwnedElsewhereError
		var nac interface{ NotACell() bool }
		switch {
		case err == nil:
			taken.Add(1)
			w.cfg.Log.Info("failover sweep: cell taken over", "scope", scope, "dead_node", node)
			return nil
		case errors.As(err, &elsewhere), errors.As(err, &nac) && nac.NotACell():
			return nil // a live node has it, or it is no cell of this application
		}
		failed.Add(1)
		return fmt.Errorf("take %s: %w", scope, err)
	})
	if n := failed.Load(); err != nil && n > 1 {
		err = fmt.Errorf("%w (and %d more)", err, n-1)
	}
	return int(taken.Load()), err
}
