package host

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/cellhost/cellhost/storage"
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
func (s *shard) backupChanged() {
	for _, c := range s.h.cellsOf(s) {
		if c.db == nil || c.log == nil || c.backingUp || c.committed == c.backedUp {
			continue
		}
		c.startBackup()
	}
}

// startBackup hands a snapshot of the cell to a goroutine. No checkpoint
// runs until it is back (maybeCheckpoint checks backingUp), so the
// snapshot reads a consistent WAL and main file. On the loop.
func (c *cell) startBackup() {
	c.backingUp = true
	seq, l, db := c.committed, c.log, c.db
	go func() {
		err := saveSnapshot(c.s.h, l)
		c.s.post(func() {
			c.backingUp = false
			if err != nil {
				c.s.h.logf("%s: backup: %v", c.scope, err)
				return
			}
			if c.db == db && seq > c.backedUp {
				c.backedUp = seq
			}
		})
	}()
}

// saveSnapshot uploads the whole committed database as the next LTX file of
// the cell's epoch, then checks ownership.
func saveSnapshot(h *Host, l *cellLog) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.retired.Load() {
		return errLogRetired
	}
	ps, err := l.capture.Snapshot()
	if err != nil {
		return err
	}
	if ps == nil || len(ps.Pages) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), uploadDeadline)
	defer cancel()
	// Every save is a snapshot: the first of an epoch is the L0 file of
	// TXID 1, later ones cover TXIDs 1 to theirs at the compaction level
	// and make the earlier ones obsolete (see compactLevel).
	first := l.txid == 0
	txid := l.txid + 1
	level, minTXID := 0, txid
	if !first {
		level, minTXID = compactLevel, 1
	}
	var buf bytes.Buffer
	if err := storage.EncodeLTX(&buf, ps, minTXID, txid, time.Now()); err != nil {
		return fmt.Errorf("encode LTX of %s: %w", l.scope, err)
	}
	key := storage.LTXKey(l.scope, l.epoch(), level, minTXID, txid)
	if err := putWithRetry(ctx, h.cfg.Bucket, key, buf.Bytes()); err != nil {
		return err
	}
	l.txid = txid
	if l.lease != nil {
		if err := checkWithRetry(ctx, l.lease); err != nil {
			return err
		}
	}
	deleteKeys(h.cfg.Bucket, l.uploaded(key, buf.Len(), true))
	if first && l.lease != nil && l.lease.Epoch > 1 {
		deleteOlderEpochs(h.cfg.Bucket, l.scope, l.lease.Epoch)
	}
	return nil
}
