package host

import "time"

// Idle objects are evicted: the instance is dropped, the database closed
// and the cell released in the bucket (its lease given back), so that a
// host serves many more objects than it keeps in memory, and another node
// may take them. The next event activates the cell again (restoring it from
// the bucket in the log and backup modes), as on workerd.

// DefaultIdleTimeout is Config.IdleTimeout when zero.
const DefaultIdleTimeout = 2 * time.Minute

// everyShard posts job to every shard each interval until Close begins
// (the backup and eviction tickers).
func everyShard[T any](h *Host, interval time.Duration, job func(*shard) T) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			for _, s := range h.shards {
				s.post(func() { job(s) })
			}
		}
	}
}

// evictable reports whether nothing holds the cell in memory: no event in
// flight or waiting, no open transaction or gate, nothing left to make
// durable or to back up, no alarm running, or armed but unpublished (an
// AlarmSink holds published ones) or due within the idle timeout, and no
// activity since cutoff. On the loop.
func (c *cell) evictable(cutoff time.Time) bool {
	switch {
	case c.db == nil && !c.parked, c.opening, !c.settled():
		return false
	case c.alarmCancel != nil && !c.alarmPublished():
		return false // nobody would wake it
	case c.alarmCancel != nil && c.alarmDue < c.s.h.now().Add(c.s.h.cfg.IdleTimeout).UnixMilli():
		return false // due soon: its own timer fires it on time
	}
	return c.lastActive.Before(cutoff)
}

// settled reports whether nothing is in flight for the cell: no event
// running or waiting, no gate blocked, no uncommitted or undurable write,
// no backup pending (the next backup saves it first), no running alarm,
// nothing keeping it alive. Both eviction and parking need it. On the loop.
func (c *cell) settled() bool {
	switch {
	case c.inflight > 0, len(c.waiting) > 0, c.blocked > 0, c.dirty:
		return false
	case c.synced != c.committed, c.backingUp, c.alarmRunning:
		return false
	case c.s.h.cfg.Durability == DurabilityBackup && c.committed != c.backedUp:
		return false
	case c.keepAlive != nil && c.keepAlive():
		return false
	}
	return true
}

// evict drops the instance and releases the cell. On the loop.
func (c *cell) evict() {
	c.s.w.ReleaseOwner(c.inst)
	c.inst = nil
	c.gen++
	c.timers = 0
	_ = c.closeDB(false)
	c.maybeDrop()
}
