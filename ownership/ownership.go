// Package ownership implements the bucket protocol: the node lease
// (nodes/<node>.json) with renewal and self-fencing, cell ownership records
// (cells/<scope>/own.json) taken and released by compare-and-swap, the
// node-cells markers, and the storage probe, on top of an object store with
// conditional writes (see ../shared/spec/bucket-protocol.md, sections 1-5).
//
// How a host uses it:
//
//   - At start: New, then Start (runs the storage probe, takes the lease,
//     starts renewing it). Start fails on a store that applies writes it
//     must reject (*StoreFaultError).
//   - Activating a cell: TryAcquire(scope) before restoring it; restore
//     from the bucket at Lease.Epoch and write LTX under e<Epoch>/. Map
//     *CellOwnedElsewhereError and *LostRecordError to the user-visible
//     errors (their messages are the exact texts).
//   - Acknowledging: after a commit's LTX upload finished, call Lease.Check
//     (one GET; it may cover every commit of that upload) and release the
//     replies only if it returns nil. Any error means: do not acknowledge.
//     Node.CanAck is the cheap clock-only test; it is not a substitute.
//   - Losing a cell: when Lease.Lost closes (another node took the cell,
//     the node fenced, Close released it), reset the cell at once
//     (BrokenObjectError), acknowledge nothing more, then call Release.
//   - Losing the node: when Node.Done closes with Node.Err wrapping
//     ErrFenced, every cell is lost; build a new Node (a new generation) to
//     take cells again, and Close the old one.
//   - Evicting a cell: make its log durable, then Lease.Release.
//   - Shutdown: stop the cells, then Node.Close (releases what is left,
//     deletes the lease).
package ownership

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// Store is the part of plugins.ObjectStore that ownership uses; every
// plugins.ObjectStore is one. A Node calls it from its own goroutines and
// from the goroutines calling TryAcquire, Check and Release, concurrently.
// A conditional write failing with an error other than
// plugins.ErrPreconditionFailed or plugins.ErrNotFound is ambiguous: the
// write may have landed.
type Store interface {
	Get(ctx context.Context, key string) (body []byte, etag string, err error)
	Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (etag string, err error)
	Delete(ctx context.Context, key string, ifMatch string) error
	List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error)
}

var _ Store = plugins.ObjectStore(nil)

var (
	// ErrInvalidScope means a scope is not 1-255 bytes of [A-Za-z0-9_.:$-]
	// or is "." or "..".
	ErrInvalidScope = bucketkey.ErrInvalidScope
	// ErrInvalidNodeID means a node id is not "node_<32 lowercase hex>".
	ErrInvalidNodeID = errors.New("invalid node id")
	// ErrCorruptRecord is wrapped by every *RecordError.
	ErrCorruptRecord = errors.New("corrupt record")
	// ErrNotStarted means a Node was used before Start succeeded.
	ErrNotStarted = errors.New("ownership node not started")
	// ErrClosed means a Node was used after Close began.
	ErrClosed = errors.New("ownership node closed")
	// ErrFenced is wrapped by every *FencedError: this node's lease has
	// lapsed, or could have, or another writer took it.
	ErrFenced = errors.New("this node's lease has lapsed")
	// ErrReleased means a Lease was used after Release.
	ErrReleased = errors.New("lease released")
	// ErrUnresolved means a conditional write had an ambiguous outcome that
	// reading back could not settle.
	ErrUnresolved = errors.New("conditional write outcome unknown")
)

// deleteAttempts is how often deleteKey tries a delete.
const deleteAttempts = 3

// deleteKey deletes key, trying again after an error that is neither a
// clean answer (not found, precondition failed) nor the context's. A delete
// is idempotent: if an attempt applied, the next finds nothing (nil
// unconditionally, ErrNotFound with ifMatch, which callers take as done).
// This rides over spurious failures such as a file store's directory
// cleanup racing a concurrent delete of a sibling key.
func deleteKey(ctx context.Context, store Store, key, ifMatch string) error {
	var err error
	for range deleteAttempts {
		err = store.Delete(ctx, key, ifMatch)
		if err == nil || errors.Is(err, plugins.ErrNotFound) || errors.Is(err, plugins.ErrPreconditionFailed) || ctx.Err() != nil {
			return err
		}
	}
	return err
}

// RecordError means a record in the bucket could not be decoded. The cell or
// node it belongs to is refused; nothing is overwritten.
type RecordError struct {
	Key string
	Err error
}

func (e *RecordError) Error() string { return fmt.Sprintf("decode %s: %v", e.Key, e.Err) }

// Unwrap returns ErrCorruptRecord and the cause.
func (e *RecordError) Unwrap() []error { return []error{ErrCorruptRecord, e.Err} }

// CellOwnedElsewhereError means a live other node owns the cell. Addr is
// that node's advertised address (where a request may be forwarded when
// peers are configured).
type CellOwnedElsewhereError struct {
	Scope string // "<Class>:<id>"
	Owner string // the owning node id
	Addr  string // the owner's addr from its lease
	Epoch uint64 // the owner's epoch
	// ExpiresMS is the owner's lease's expires_ms as it was read (0:
	// unknown). A forward to the owner is bounded by it: past it, the
	// forwarding node reads the lease again (host/remote.go).
	ExpiresMS uint64
}

func (e *CellOwnedElsewhereError) Error() string {
	class, id, ok := splitScope(e.Scope)
	if !ok {
		return fmt.Sprintf("Durable Object %s is owned by another node", e.Scope)
	}
	return fmt.Sprintf("Durable Object %s/%s is owned by another node", class, id)
}

// LostRecordError means cells/<scope>/own.json is missing while the bucket
// holds LTX for the cell (bucket-protocol.md 5.1). The cell is refused for
// LostRecordRefusal, then checked again.
type LostRecordError struct {
	Scope       string
	NewestEpoch uint64 // the numerically highest e<N> under cells/<scope>/ltx/
}

func (e *LostRecordError) Error() string {
	return fmt.Sprintf(`ownership record lost: cells/%s/own.json is missing, but the bucket holds LTX (newest epoch %d); write {"node": "", "epoch": %d} to repair`,
		e.Scope, e.NewestEpoch, e.NewestEpoch)
}

// LostRecordRefusal is how long TryAcquire refuses a cell whose ownership
// record was lost before it looks at the bucket again.
const LostRecordRefusal = 10 * time.Second

// LeaseLostError means a cell's own.json no longer names this node at the
// lease's epoch: another node took the cell (or an operator rewrote it).
type LeaseLostError struct {
	Scope string
	Epoch uint64 // the lease's epoch
	// Found is what own.json holds now; Missing is true when it is absent.
	Found   OwnRecord
	Missing bool
}

func (e *LeaseLostError) Error() string {
	if e.Missing {
		return fmt.Sprintf("cell %s: lease at epoch %d lost: %s is missing", e.Scope, e.Epoch, bucketkey.OwnKey(e.Scope))
	}
	owner := e.Found.Node
	if owner == "" {
		owner = `"" (released)`
	}
	return fmt.Sprintf("cell %s: lease at epoch %d lost: %s names node %s at epoch %d", e.Scope, e.Epoch, bucketkey.OwnKey(e.Scope), owner, e.Found.Epoch)
}

// MarkerError means the node-cells marker of a cell just acquired could
// not be written (bucket-protocol step 6): the lease was released and
// nothing was served, so the request was not run. It answers 503 (its
// Unavailable method), never a bare 500 (issue 31: the chaos suite saw a
// 500 when versitygw answered a marker write 409 while dead-node GC
// deleted the markers beside it).
type MarkerError struct {
	Scope string
	Err   error
}

func (e *MarkerError) Error() string {
	return "the Durable Object " + e.Scope + " could not be activated: its node-cells marker could not be written to the bucket; the request was not run (" + e.Err.Error() + ")"
}

func (e *MarkerError) Unwrap() error { return e.Err }

// Unavailable marks the error as a 503 for the host (host/http.go).
func (e *MarkerError) Unavailable() bool { return true }

// FencedError means the node has fenced itself: its lease has lapsed or
// could have, so writes to the cell must not be acknowledged. Its message
// is the user-visible self-fencing text of durable-objects.md section 8.
type FencedError struct {
	Scope  string // the cell; "" for node-wide errors
	Reason string // why the node fenced, for logs
}

func (e *FencedError) Error() string {
	if e.Scope == "" {
		return "this node's lease has lapsed; the write is refused (" + e.Reason + ")"
	}
	return e.Scope + ": this node's lease has lapsed; the write is refused"
}

// Unwrap returns ErrFenced.
func (e *FencedError) Unwrap() error { return ErrFenced }

// Clock is a Node's time source. Wall time (Now) goes into expires_ms and
// decides whether other nodes' leases are live; the monotonic reading
// (Monotonic) decides self-fencing, so that a wall-clock step never extends
// a lease. AfterFunc timers are on the monotonic clock. Every method is
// called from any goroutine.
type Clock interface {
	Now() time.Time
	// Monotonic returns the time elapsed since a fixed, arbitrary origin.
	Monotonic() time.Duration
	// AfterFunc calls f in its own goroutine once d has elapsed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call.
type Timer interface {
	// Stop prevents the call if it has not started; it reports whether it
	// did.
	Stop() bool
}

// SystemClock is the real clock: time.Now, and the monotonic reading the
// runtime attaches to it.
var SystemClock Clock = systemClock{}

var processStart = time.Now()

type systemClock struct{}

func (systemClock) Now() time.Time           { return time.Now() }
func (systemClock) Monotonic() time.Duration { return time.Since(processStart) }
func (systemClock) AfterFunc(d time.Duration, f func()) Timer {
	return time.AfterFunc(d, f)
}
