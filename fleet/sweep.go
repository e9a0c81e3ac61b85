package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
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
// WebSockets an edge node is re-attaching waits for a request.
//
// The sweep is rate-limited with back-off per cell (issue 31): at most
// MaxSweepPerPass cells of a dead node per waker tick, MaxSweepInFlight at
// once; each cell taken has its markers deleted at once; a cell that fails
// to activate keeps its markers and backs off alone (GC's RetryDelayMS,
// per cell), while the others, and the node's GC, go on.

// MaxSweepInFlight bounds the activations of one sweep at once.
const MaxSweepInFlight = 8

// sweepCells is the Wake's SweepFunc.
func (w *Wake) sweepCells(ctx context.Context, node string, scopes []string, renew func(context.Context) error) (int, map[string]error, error) {
	if w.local == nil {
		return 0, nil, errors.New("no local node to take cells over")
	}
	var taken atomic.Int64
	var mu sync.Mutex
	failed := map[string]error{}
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
		mu.Lock()
		failed[scope] = fmt.Errorf("take %s: %w", scope, err)
		mu.Unlock()
		return nil // this cell backs off alone; the others go on
	})
	return int(taken.Load()), failed, err
}
