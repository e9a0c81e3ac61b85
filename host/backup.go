package host

import (
	"context"
	"time"
)

// The backup durability mode (seed: "a log, a backup, or both"): replies
// wait for the local fsync; every BackupInterval each cell that changed
// since its last save uploads a snapshot of its whole database as the next
// LTX file of its epoch, and a final one when the host closes. RPO = the
// interval. The files form the same chain the log mode writes (TXID 1 is a
// snapshot, each later file TXID+1 holding every page), so Restore needs
// no special case.

// DefaultBackupInterval is Config.BackupInterval when zero.
const DefaultBackupInterval = 30 * time.Second

// backupChanged starts a save of every cell of the shard that committed
// since its last one. On the loop.
func (s *shard) backupChanged() (n int) {
	for _, c := range s.h.cellsOf(s) {
		if c.db == nil || c.log == nil || c.backingUp || c.committed == c.backedUp {
			continue
		}
		c.startBackup()
		n++
	}
	return n
}

// startBackup hands a snapshot of the cell to a goroutine. No checkpoint
// runs until it is back (maybeCheckpoint checks backingUp), so the
// snapshot reads a consistent WAL and main file. On the loop.
func (c *cell) startBackup() {
	c.backingUp = true
	seq, l, db := c.committed, c.log, c.db
	c.s.h.goFunc(func(ctx context.Context) {
		err := saveSnapshot(ctx, c.s.h, l)
		c.s.post(func() {
			c.backingUp = false
			if err != nil {
				c.logger().Error("backup: " + err.Error())
				return
			}
			if c.db == db && seq > c.backedUp {
				c.backedUp = seq
			}
		})
	})
}

// saveSnapshot uploads the whole committed database as the next LTX file of
// the cell's epoch, then checks ownership (ltxlog.Writer.Save).
func saveSnapshot(ctx context.Context, h *Host, l *cellLog) error {
	return h.ltx().Save(ctx, l.Log)
}
