package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cellhost/cellhost/ltxlog"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/storage"
)

// Durability modes (Config.Durability).
const (
	// DurabilityLocal: a reply waits for the local fsync of its commit. No
	// bucket; RPO 0 only as long as the disk survives.
	DurabilityLocal = "local"
	// DurabilityLog: every commit is uploaded as an LTX file to the bucket
	// and checked against own.json before its reply leaves (RPO 0).
	DurabilityLog = "log"
	// DurabilityBackup: replies wait for the local fsync; changed cells are
	// saved to the bucket every BackupInterval and at close (RPO = the
	// interval).
	DurabilityBackup = "backup"
)

// checkpointEvery is the number of commits between WAL checkpoints of a
// cell.
const checkpointEvery = 256

// cellLog is a cell's LTX log (package ltxlog: the commit path into the
// bucket, its lease and position) with what only the host knows of it.
type cellLog struct {
	*ltxlog.Log
	// local: the backup mode kept the local database, newer than the
	// bucket (localwins.go); it is saved at the next backup tick.
	local bool
	// stopWatch cancels the reset on the lease's loss (attachLog).
	stopWatch func() bool
}

// ltx is the host's writer of cell logs into its bucket; deletes run
// under goFunc (Close waits for them or cancels them).
func (h *Host) ltx() *ltxlog.Writer {
	return &ltxlog.Writer{Bucket: h.cfg.Bucket, Background: h.goFunc}
}

// logOf is the ltxlog.Log of l (nil for nil).
func logOf(l *cellLog) *ltxlog.Log {
	if l == nil {
		return nil
	}
	return l.Log
}

// acquire takes the cell for this node, brings its database up to date
// from the bucket and calls open to open it: off the loop. Without a
// bucket it only calls open (with a nil log).
func (h *Host) acquire(ctx context.Context, c *cell, path string, open func(*cellLog) error) (*cellLog, error) {
	if h.cfg.Bucket == nil {
		return nil, open(nil)
	}
	l := &cellLog{Log: ltxlog.New(c.scope, nil)}
	// The bucket wins over the local file (bucket-protocol.md section 5),
	// except for the backup mode's newer local database (localwins.go).
	prepare := func(lease *ownership.Lease) error {
		local, err := h.localWins(ctx, c.scope, path)
		if err != nil {
			return fmt.Errorf("restore %s: %w", c.scope, err)
		}
		l.local = local
		if !local {
			if err := h.restore(ctx, c.scope, path, lease != nil && lease.Created); err != nil {
				return err
			}
		}
		if h.dur.keepsLocal() {
			if err := writeOwnerMark(path, ownerMark{Node: h.nodeID(), Epoch: l.Epoch()}); err != nil {
				return fmt.Errorf("activate %s: %w", c.scope, err)
			}
		}
		return open(l)
	}
	if h.cfg.Node == nil {
		if err := prepare(nil); err != nil {
			return nil, err
		}
		return l, nil
	}
	// The restore and the open run while the lease's marker is written
	// (TryAcquireThen releases the lease if either fails).
	lease, err := h.cfg.Node.TryAcquireThen(ctx, c.scope, func(lease *ownership.Lease) error {
		l.SetLease(lease)
		return prepare(lease)
	})
	if err != nil {
		if bucketUnreachable(err) && ctx.Err() == nil {
			return nil, &BucketUnavailableError{Scope: c.scope, Err: err}
		}
		return nil, err
	}
	l.SetLease(lease)
	return l, nil
}

// restore replaces the local database at path with the bucket's newest
// generation of scope, or removes it when the bucket has none. created:
// the lease created the cell's ownership record, so the bucket holds
// nothing for it (ownership.Lease.Created) and is not asked again.
func (h *Host) restore(ctx context.Context, scope, path string, created bool) error {
	found := false
	if !created {
		res, err := storage.Restore(ctx, h.cfg.Bucket, scope, path)
		if err != nil {
			return fmt.Errorf("restore %s: %w", scope, err)
		}
		found = res.Found
	}
	if !found {
		for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
			if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("start %s empty: %w", scope, err)
			}
		}
		// A new object: the mode prepares its file (the log mode an
		// empty WAL-mode database without fsync; the backup mode's local
		// file must be durable on its own, so SQLite creates it).
		if err := h.dur.startEmpty(path); err != nil {
			return fmt.Errorf("start %s empty: %w", scope, err)
		}
	}
	return nil
}

// release gives the cell back: its log is done, its lease released.
func (l *cellLog) release(h *Host) {
	if l.Lease() == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Lease().Release(ctx); err != nil {
		h.log.Error("release: "+err.Error(), "scope", l.Scope())
	}
}

// attachLog starts using a freshly opened database's log: the syncer learns
// it, and a lost lease resets the cell (context.AfterFunc on the lease: no
// goroutine waits for it). On the loop.
func (c *cell) attachLog(l *cellLog) {
	if l == nil {
		return
	}
	l.Attach(c.db.WALCapture())
	c.log = l
	l.stopWatch = l.OnLeaseLost(func() {
		c.s.post(func() {
			if c.log == l {
				// What it was running, or had committed but not yet
				// acknowledged, may or may not be in the bucket the
				// next owner restores.
				c.deactivate("the node's lease lapsed", &MaybeAppliedError{Reason: "this node lost the Durable Object's lease (its lease lapsed or another node took the object over) before the write was acknowledged"})
			}
		})
	})
}

// deactivate resets the object and lets go of its database and lease, so
// that the next event acquires and restores the cell again (the last
// durable state is what the bucket holds). On the loop.
// cause is what the events it held fail with (nil: BrokenObjectError).
func (c *cell) deactivate(reason string, cause error) {
	c.resetWith(reason, cause)
	_ = c.closeDB(false)
}

// closeDB closes the database and releases the cell (in the background,
// unless wait), returning the database's close error. On the loop, or
// after the loops stopped.
func (c *cell) closeDB(wait bool) error {
	if c.alarmCancel != nil {
		c.alarmCancel()
		c.alarmCancel = nil
	}
	if l := c.log; l != nil {
		c.log = nil
		if l.stopWatch != nil {
			l.stopWatch()
		}
		// A backup or upload in progress gives up.
		if err := l.Close(); err != nil {
			c.logger().Error("close WAL capture: " + err.Error())
		}
		if wait {
			l.release(c.s.h)
		} else {
			c.s.h.goFunc(func(context.Context) { l.release(c.s.h) })
		}
	}
	var err error
	if c.db != nil {
		if err = c.db.Close(); err != nil {
			c.logger().Error("close: " + err.Error())
		}
		c.db = nil
	}
	c.parked = false
	c.setOpen(false)
	c.setResident(false)
	c.commitsSinceCheckpoint = 0
	return err
}

// maybeCheckpoint truncates the WAL once every commit is in the bucket and
// enough have piled up. On the loop, between turns.
func (c *cell) maybeCheckpoint() {
	if c.db == nil || c.log == nil || c.backingUp || c.dirty || c.synced != c.committed || c.commitsSinceCheckpoint < checkpointEvery {
		return
	}
	if err := c.db.Checkpoint(); err != nil {
		c.logger().Error(err.Error())
		return
	}
	c.commitsSinceCheckpoint = 0
}

// logLingerAfterOne is how long the log mode waits before a round that
// follows a round of one database (see logLinger).
const logLingerAfterOne = 800 * time.Microsecond

// logLinger is the log mode's linger policy: after a round that uploaded
// one cell's log, wait logLingerAfterOne, so that the commits of more turns
// share the next upload (one LTX file, one PUT, one ownership check). One
// object under load: each upload waits for the previous one, so this is
// where its commits gather. Measured with one object and 64 clients in log
// mode (A/B runs of the two binaries, server CPU per request): 400 us -4.5%
// against none, 800 us another -4%; 1.5 ms saved 2.5% more CPU but no more
// requests per second, as replies then wait longer than the load can hide.
// After a round of several cells the file store waits on its own side
// (plugins/filestore: a round that several writers shared), so this does
// not wait.
func logLinger(prev int) time.Duration {
	if prev == 1 {
		return logLingerAfterOne
	}
	return 0
}
