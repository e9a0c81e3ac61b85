package host

import (
	"sync"
	"time"

	"github.com/cellhost/cellhost/storage"
)

// Syncer makes committed transactions durable: the output gate releases a
// reply only after the Syncer has returned for the commit it depends on.
// Sync is called on the host's syncer goroutine, one batch at a time, with
// the databases that committed writes since the last call; it returns nil
// when all are durable, else one error per database (nil where durable).
type Syncer interface {
	Sync(dbs []*storage.DB) []error
}

// A Lingerer is a Syncer whose rounds can cost the same however few
// databases they hold: under load (the previous round, of prev databases,
// ended less than lingerWindow ago) the host waits Linger(prev) before
// starting a round, so that more commits share it.
type Lingerer interface {
	Linger(prev int) time.Duration
}

// lingerWindow: a round that follows the previous one within this time is
// under load and may wait for more commits; an idle host never waits.
const lingerWindow = 20 * time.Millisecond

// syncFSThreshold is the batch size above which one syncfs(2) of the state
// directory's filesystem is cheaper than an fsync per database.
const syncFSThreshold = 8

// LocalSync is the default Syncer: an fsync of each database's WAL, or one
// syncfs of the state directory for large batches (group commit).
type LocalSync struct {
	Dir string // the state directory (for syncfs)
}

// Linger implements Lingerer: after a round that took a syncfs (more than
// syncFSThreshold databases), which costs the same for 10 databases as for
// 60, wait 500 us. Measured with 1000 objects and 64 clients in local
// mode: 3 957 -> 4 689 req/s (two rounds each); one object (an fsync per
// round) does not wait; the log syncer has its own policy (logSyncer.Linger).
func (l LocalSync) Linger(prev int) time.Duration {
	if prev > syncFSThreshold && l.Dir != "" {
		return 500 * time.Microsecond
	}
	return 0
}

// Sync implements Syncer.
func (l LocalSync) Sync(dbs []*storage.DB) []error {
	if len(dbs) > syncFSThreshold && l.Dir != "" {
		if err := storage.SyncFS(l.Dir); err != nil {
			errs := make([]error, len(dbs))
			for i := range errs {
				errs[i] = err
			}
			return errs
		}
		return nil
	}
	// fsyncs of different files in parallel: the filesystem's journal
	// commits them together.
	errs := make([]error, len(dbs))
	failed := false
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, localSyncParallel)
	for i, db := range dbs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := db.Sync(); err != nil {
				mu.Lock()
				errs[i], failed = err, true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if !failed {
		return nil
	}
	return errs
}

// localSyncParallel bounds the fsyncs LocalSync runs at once.
const localSyncParallel = 16

// syncBatch is one turn's commits and the replies that wait for them.
type syncBatch struct {
	s       *shard
	cells   []*cell
	seqs    []uint64 // cells[i].committed at the end of the turn
	dbs     []*storage.DB
	replies []func()
}

// syncer runs the Syncer on its own goroutine so that event loops never
// wait for a disk: commits that pile up while one sync runs share the next.
type syncer struct {
	sync     Syncer
	lingerer Lingerer // nil: start each round at once

	mu      sync.Mutex
	pending []*syncBatch // guarded by mu
	closed  bool         // guarded by mu
	wake    chan struct{}
	done    chan struct{}
}

func newSyncer(s Syncer) *syncer {
	y := &syncer{sync: s, wake: make(chan struct{}, 1), done: make(chan struct{})}
	y.lingerer, _ = s.(Lingerer)
	return y
}

// submit queues a batch. Safe from any goroutine.
func (y *syncer) submit(b *syncBatch) {
	y.mu.Lock()
	y.pending = append(y.pending, b)
	y.mu.Unlock()
	select {
	case y.wake <- struct{}{}:
	default:
	}
}

// run syncs every pending batch at once, then hands each batch back to its
// shard's loop, in submission order.
func (y *syncer) run() {
	defer close(y.done)
	var (
		lastEnd  time.Time // when the previous round ended
		lastSize int       // and how many databases it synced
	)
	for {
		if y.lingerer != nil && time.Since(lastEnd) < lingerWindow {
			if d := y.lingerer.Linger(lastSize); d > 0 {
				time.Sleep(d)
			}
		}
		y.mu.Lock()
		batches := y.pending
		y.pending = nil
		closed := y.closed
		y.mu.Unlock()
		if len(batches) == 0 {
			if closed {
				return
			}
			<-y.wake
			continue
		}
		var dbs []*storage.DB
		index := map[*storage.DB]int{}
		for _, b := range batches {
			for _, db := range b.dbs {
				if _, ok := index[db]; !ok {
					index[db] = len(dbs)
					dbs = append(dbs, db)
				}
			}
		}
		var errs []error
		if len(dbs) > 0 {
			errs = y.sync.Sync(dbs)
			lastEnd, lastSize = time.Now(), len(dbs)
		}
		for _, b := range batches {
			var berrs []error
			if errs != nil {
				berrs = make([]error, len(b.dbs))
				for i, db := range b.dbs {
					berrs[i] = errs[index[db]]
				}
			}
			b.s.post(func() { b.s.synced(b, berrs) })
		}
	}
}

// close stops the syncer after the batches already submitted.
func (y *syncer) close() {
	y.mu.Lock()
	y.closed = true
	y.mu.Unlock()
	select {
	case y.wake <- struct{}{}:
	default:
	}
	<-y.done
}

// synced runs on the loop when a batch is durable (errs nil) or failed
// (errs[i] for cells[i]): it advances the cells' durable marks, resets the
// cells whose commits failed, and releases the replies (which fail with
// BrokenObjectError if their object was reset).
func (s *shard) synced(b *syncBatch, errs []error) {
	for i, c := range b.cells {
		if errs != nil && errs[i] != nil {
			s.h.logf("%s: %v", c.scope, errs[i])
			if c.log != nil && c.db == b.dbs[i] {
				// The log has a hole: let the cell go, so that the next
				// event restores the last durable state from the bucket.
				c.deactivate("a commit failed to become durable")
			} else {
				c.reset("a commit failed to become durable")
			}
			continue
		}
		if b.seqs[i] > c.synced {
			c.synced = b.seqs[i]
		}
		c.alarmSynced()
		c.commitsSinceCheckpoint++
		c.maybeCheckpoint()
	}
	for _, r := range b.replies {
		r()
	}
}
