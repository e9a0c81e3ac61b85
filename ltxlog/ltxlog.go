// Package ltxlog is the commit path of a cell into the bucket: its LTX
// log, in one place (what litestream keeps in its Replica). A commit goes
//
//	capture (storage.WALCapture: the pages since the last upload)
//	-> encode (storage.EncodeLTXBuffer: one LTX file)
//	-> put with retry (a plain PUT: the epoch in the key fences it)
//	-> ownership check (ownership.CheckAll: own.json still names this
//	   node at the lease's epoch; one read for a whole round)
//	-> record (the chain of files, compaction into level 1, background
//	   deletes of what a snapshot made obsolete and of older epochs).
//
// The host creates a Log per activated cell (New) and calls Writer.Round
// for each sync round of the log mode (the reply waits for it), or
// Writer.Save for the backup mode's snapshots. Nothing here starts a
// goroutine per upload or per cell: an upload's context ends with the
// lease through context.AfterFunc, and a round's uploads share a bounded
// fan-out.
package ltxlog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/internal/backoff"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/storage"
)

// Bounds of the log's uploads.
const (
	// UploadDeadline: past it a commit failed to become durable.
	UploadDeadline = 30 * time.Second
	uploadParallel = 32 // cells uploaded at once per round
)

// retry is the back-off of the uploads and the ownership checks: 50 ms
// doubling up to 2 s.
var retry = backoff.Policy{First: 50 * time.Millisecond, Max: 2 * time.Second}

// Compaction keeps a cell's log from growing without bound: once at least
// compactMinFiles L0 files were uploaded since the last snapshot and they
// hold more bytes than that snapshot, the next upload is a snapshot of the
// whole database at level 1, covering TXIDs 1 to its own
// (cells/<scope>/ltx/e<epoch>/0001/<1>-<txid>.ltx). Restore prefers it to
// the files it covers (the file that extends the chain furthest wins), and
// once it is durable and ownership is confirmed those files are deleted,
// in the background. The first snapshot of an epoch likewise deletes the
// files of the cell's older epochs, which restore never reads again once a
// newer epoch has data (bucket-protocol.md section 7). A delete that fails
// leaves garbage, never a gap: nothing a chain needs is deleted before the
// snapshot that replaces it is durable. Another node that listed the log
// just before a compaction may find a file gone while it restores; its
// activation fails and the next one lists again.
//
// So a cell's log is its last snapshot and the L0 files after it: about
// compactMinFiles of them, more while they weigh less than a large
// database, so that a compaction (which rewrites the database) never costs
// more than the uploads since the last one. Every file is deleted once,
// the obsolete ones of a compaction all at once. Measured with one object
// and 64 clients (A/B against no compaction, server CPU per request):
// 32 files with one Delete after another cost 5-13% (each Delete a round
// of the file store, with its fsync); 32 files deleted at once 2-6%; 128
// files deleted at once -3..+2%, noise.
const (
	compactMinFiles = 128
	compactLevel    = 1
	deleteTimeout   = time.Minute
	deleteParallel  = 32
)

// ErrRetired means the cell let go of its log while a commit waited for
// its upload.
var ErrRetired = errors.New("the cell was deactivated before its commit was uploaded")

// Writer uploads the logs of one host's cells to its bucket.
type Writer struct {
	Bucket plugins.ObjectStore
	// Background runs work no reply waits for (the deletes of obsolete
	// files) with a context that ends when the host closes; nil runs it
	// on a goroutine of its own with context.Background.
	Background func(func(context.Context))
}

// Log is a cell's place in the bucket: its lease (epoch) and the position
// of its LTX log. The cell's loop creates it, attaches and detaches the
// WAL capture and retires it; uploads run under its mutex.
type Log struct {
	scope string
	lease *ownership.Lease // nil without ownership

	// retired is set when the cell lets go of the log; atomic so that the
	// loop never waits for an upload in progress (which holds mu).
	retired atomic.Bool

	mu      sync.Mutex
	capture *storage.WALCapture // nil while the database is closed
	txid    uint64              // last TXID uploaded in this epoch; 0 = next is the snapshot
	// chain holds the keys of this epoch's files that the next compaction
	// makes obsolete; sinceSnap counts the bytes of the L0 files uploaded
	// since the last snapshot, snapBytes is that snapshot's size.
	chain     []string
	sinceSnap int
	snapBytes int
	sinceN    int // L0 files uploaded since the last snapshot
}

// New returns the log of scope, held by lease (nil: no ownership, epoch 1).
func New(scope string, lease *ownership.Lease) *Log {
	return &Log{scope: scope, lease: lease}
}

// Scope is the cell's scope.
func (l *Log) Scope() string { return l.scope }

// Lease is the cell's lease (nil without ownership).
func (l *Log) Lease() *ownership.Lease { return l.lease }

// SetLease sets the lease the log's uploads are made under, before its
// first upload.
func (l *Log) SetLease(lease *ownership.Lease) { l.lease = lease }

// Epoch is the ownership epoch the log writes under (1 without ownership).
func (l *Log) Epoch() uint64 {
	if l.lease == nil {
		return 1
	}
	return l.lease.Epoch
}

// Attach starts reading the commits of a freshly opened database. On the
// cell's loop.
func (l *Log) Attach(c *storage.WALCapture) {
	l.mu.Lock()
	l.capture = c
	l.mu.Unlock()
}

// Detach stops reading the database (it is about to close), waiting for
// an upload in progress, and closes the capture.
func (l *Log) Detach() error {
	l.mu.Lock()
	c := l.capture
	l.capture = nil
	l.mu.Unlock()
	if c == nil {
		return nil
	}
	return c.Close()
}

// Close retires the log (an upload or save in progress or queued gives
// up: ErrRetired) and closes its capture, without waiting for an upload
// in progress. On the goroutine that attaches and detaches the capture.
func (l *Log) Close() error {
	l.retired.Store(true)
	if c := l.capture; c != nil { // nil while detached (a parked cell)
		return c.Close()
	}
	return nil
}

// OnLeaseLost arranges for f to run, on a goroutine of its own, when the
// log's lease is lost (never without a lease); stop cancels it.
func (l *Log) OnLeaseLost(f func()) (stop func() bool) {
	if l.lease == nil {
		return func() bool { return false }
	}
	return context.AfterFunc(l.lease.Context(), f)
}

// uploadContext bounds an upload by UploadDeadline and ends it as soon as
// the lease is lost (the node fenced itself, e.g. in a bucket outage): a
// write that can no longer be acknowledged fails at once instead of
// retrying until the deadline.
func (l *Log) uploadContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, UploadDeadline)
	if l.lease == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(l.lease.Context(), cancel)
	return ctx, func() { stop(); cancel() }
}

// compactDue reports whether the next upload should be a compacting
// snapshot. Under l.mu.
func (l *Log) compactDue() bool {
	return l.txid > 0 && l.sinceN >= compactMinFiles && l.sinceSnap >= l.snapBytes
}

// uploaded records a file of the log that is now durable and acknowledged:
// its key, its size and whether it is a snapshot. It returns the keys the
// file made obsolete. Under l.mu.
func (l *Log) uploaded(key string, size int, snapshot bool) (obsolete []string) {
	if !snapshot {
		l.chain = append(l.chain, key)
		l.sinceSnap += size
		l.sinceN++
		return nil
	}
	obsolete = l.chain
	l.chain = []string{key}
	l.snapBytes, l.sinceSnap, l.sinceN = size, 0, 0
	return obsolete
}

// pending is a file of the log that is in the bucket, not yet recorded
// (see record).
type pending struct {
	key      string
	size     int
	snapshot bool
	first    bool // the epoch's first file
}

// Round is the log mode's part of a sync round: for every log whose
// database the local stage made durable (errs nil, or errs[i] nil; a nil
// log is one retired before the round), it reads the commits from the WAL
// and uploads them as one LTX file; logs upload in parallel (up to
// uploadParallel), each log's files in order, the last one on the calling
// goroutine (a round of one cell, a lone writer's, hands nothing to
// another goroutine). Then it checks the ownership of every cell of the
// round at once (ownership.CheckAll: one read of all their own.json on a
// file bucket), the bucket protocol's acknowledgement check, shared by
// every commit of the round, and records the files. It returns nil when
// all are durable and acknowledged, else one error per log.
func (w *Writer) Round(ctx context.Context, logs []*Log, errs []error) []error {
	out := make([]error, len(logs))
	done := make([]*pending, len(logs))
	held := make([]bool, len(logs)) // l.mu held, from the capture to the record
	var wg sync.WaitGroup
	sem := make(chan struct{}, uploadParallel)
	for i, l := range logs {
		switch {
		case errs != nil && errs[i] != nil:
			out[i] = errs[i]
			continue
		case l == nil:
			out[i] = ErrRetired
			continue
		case i == len(logs)-1:
			done[i], held[i], out[i] = w.upload(ctx, l)
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			done[i], held[i], out[i] = w.upload(ctx, l)
		}()
	}
	wg.Wait()
	defer func() {
		for i, l := range logs {
			if held[i] {
				l.mu.Unlock()
			}
		}
	}()
	var (
		leases []*ownership.Lease
		which  []int
	)
	for i, l := range logs {
		if out[i] == nil && l.lease != nil {
			leases = append(leases, l.lease)
			which = append(which, i)
		}
	}
	if len(leases) > 0 {
		cctx, cancel := context.WithTimeout(ctx, UploadDeadline)
		for j, err := range checkAll(cctx, leases) {
			out[which[j]] = err
		}
		cancel()
	}
	failed := false
	for i, l := range logs {
		if out[i] != nil {
			failed = true
		} else if done[i] != nil {
			w.record(l, done[i])
		}
	}
	if failed {
		return out
	}
	return nil
}

// upload makes the log's committed transactions durable in the bucket:
// one LTX file holding every page changed since the last upload (the first
// of an epoch is a snapshot at TXID 1). It returns the file uploaded (nil
// when there was nothing to upload), which Round records once ownership is
// checked. held reports that l.mu is still locked: the caller unlocks it
// after recording.
func (w *Writer) upload(ctx context.Context, l *Log) (done *pending, held bool, err error) {
	l.mu.Lock()
	defer func() {
		if err != nil {
			l.mu.Unlock()
			held = false
		}
	}()
	if l.retired.Load() || l.capture == nil {
		return nil, true, ErrRetired
	}
	var ps *storage.PageSet
	first, compact := l.txid == 0, l.compactDue()
	if first || compact {
		ps, err = l.capture.Snapshot()
	} else {
		ps, err = l.capture.Read()
	}
	if err != nil {
		return nil, true, fmt.Errorf("capture pages of %s: %w", l.scope, err)
	}
	if ps == nil || len(ps.Pages) == 0 {
		return nil, true, nil
	}
	uctx, cancel := l.uploadContext(ctx)
	defer cancel()
	done, err = w.put(uctx, l, ps, first || compact)
	return done, true, err
}

// Save uploads the whole committed database as the next LTX file of the
// log's epoch, checks ownership and records it: the backup mode's save.
// Every save is a snapshot: after the epoch's first, each covers TXIDs 1
// to its own and makes the earlier ones obsolete.
func (w *Writer) Save(ctx context.Context, l *Log) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retired.Load() || l.capture == nil {
		return ErrRetired
	}
	ps, err := l.capture.Snapshot()
	if err != nil {
		return err
	}
	if ps == nil || len(ps.Pages) == 0 {
		return nil
	}
	ctx, cancel := l.uploadContext(ctx)
	defer cancel()
	done, err := w.put(ctx, l, ps, true)
	if err != nil {
		return err
	}
	if l.lease != nil {
		if err := checkAll(ctx, []*ownership.Lease{l.lease})[0]; err != nil {
			return err
		}
	}
	w.record(l, done)
	return nil
}

// put encodes ps as the next file of the log and uploads it, under l.mu:
// the L0 file of TXID l.txid+1, or, when ps is a snapshot other than the
// epoch's first file, a snapshot at compactLevel covering TXIDs 1 to that
// one.
func (w *Writer) put(ctx context.Context, l *Log, ps *storage.PageSet, snapshot bool) (*pending, error) {
	first := l.txid == 0
	txid := l.txid + 1
	level, minTXID := 0, txid
	if snapshot && !first {
		level, minTXID = compactLevel, 1
	}
	key := bucketkey.LTXKey(l.scope, l.Epoch(), level, minTXID, txid)
	buf, err := storage.EncodeLTXBuffer(ps, minTXID, txid, time.Now())
	if err != nil {
		return nil, fmt.Errorf("encode LTX of %s: %w", l.scope, err)
	}
	size := len(buf.Bytes())
	err = putWithRetry(ctx, w.Bucket, key, buf.Bytes()) // Put does not retain the body
	buf.Release()
	if err != nil {
		return nil, err
	}
	l.txid = txid
	return &pending{key: key, size: size, snapshot: snapshot, first: first}, nil
}

// record records a file of the log once it is durable and ownership is
// confirmed, and deletes, in the background, what the file made obsolete
// (see compactMinFiles). Under l.mu.
func (w *Writer) record(l *Log, f *pending) {
	w.deleteKeys(l.uploaded(f.key, f.size, f.snapshot))
	if f.first && l.lease != nil && l.lease.Epoch > 1 {
		w.deleteOlderEpochs(l.scope, l.lease.Epoch)
	}
}

// putWithRetry uploads body (a plain PUT: the epoch in the key fences it),
// retrying with back-off until ctx ends.
func putWithRetry(ctx context.Context, store plugins.ObjectStore, key string, body []byte) error {
	for failures := 1; ; failures++ {
		_, err := store.Put(ctx, key, body, plugins.PutOptions{})
		if err == nil {
			return nil
		}
		if !retry.Wait(ctx, failures) {
			return fmt.Errorf("upload %s: %w (gave up after %s)", key, err, UploadDeadline)
		}
	}
}

// checkAll is the acknowledgement check of the leases of a round: own.json
// still names this node at each lease's epoch, checked together
// (ownership.CheckAll). The ones that failed with a store error are
// checked again, together, after a back-off; a decided failure (a lost
// lease) is not.
func checkAll(ctx context.Context, leases []*ownership.Lease) []error {
	errs := ownership.CheckAll(ctx, leases)
	for failures := 1; ; failures++ {
		var again []int
		for i, err := range errs {
			if err != nil && !finalCheckError(err) {
				again = append(again, i)
			}
		}
		if len(again) == 0 {
			return errs
		}
		if !retry.Wait(ctx, failures) {
			for _, i := range again {
				errs[i] = fmt.Errorf("check ownership of %s: %w", leases[i].Scope, errs[i])
			}
			return errs
		}
		sub := make([]*ownership.Lease, len(again))
		for j, i := range again {
			sub[j] = leases[i]
		}
		for j, err := range ownership.CheckAll(ctx, sub) {
			errs[again[j]] = err
		}
	}
}

// finalCheckError reports whether a failed check decided something (the
// lease is lost, the node fenced, the cell released), so that checking
// again is pointless; a store error decides nothing.
func finalCheckError(err error) bool {
	var lost *ownership.LeaseLostError
	var fenced *ownership.FencedError
	return errors.As(err, &lost) || errors.As(err, &fenced) || errors.Is(err, ownership.ErrFenced) || errors.Is(err, ownership.ErrReleased)
}

// background runs f as Writer.Background says.
func (w *Writer) background(f func(context.Context)) {
	if w.Background != nil {
		w.Background(f)
		return
	}
	go f(context.Background())
}

// deleteKeys deletes keys from the bucket in the background,
// deleteParallel at a time (a file store then deletes those in one round:
// one fsync, not one per key), ignoring failures: they leave garbage that
// nothing reads.
func (w *Writer) deleteKeys(keys []string) {
	if len(keys) == 0 {
		return
	}
	w.background(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
		defer cancel()
		deleteAll(ctx, w.Bucket, keys)
	})
}

func deleteAll(ctx context.Context, store plugins.ObjectStore, keys []string) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, deleteParallel)
	for _, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			_ = store.Delete(ctx, k, "")
		}()
	}
	wg.Wait()
}

// deleteOlderEpochs deletes, in the background, the LTX files of scope's
// epochs older than epoch: a newer epoch has data, so restore never reads
// them again.
func (w *Writer) deleteOlderEpochs(scope string, epoch uint64) {
	w.background(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, deleteTimeout)
		defer cancel()
		files, err := storage.ListLTX(ctx, w.Bucket, scope)
		if err != nil {
			return
		}
		var keys []string
		for _, f := range files {
			if f.Epoch < epoch {
				keys = append(keys, f.String())
			}
		}
		deleteAll(ctx, w.Bucket, keys)
	})
}
