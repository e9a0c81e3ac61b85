package host

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/cellhost/cellhost/storage"
)

// A resident cell whose instance is gone keeps its lease and its log, but
// not its database: park closes the SQLite connection (its page cache, its
// file descriptors: database, WAL, shared memory, and the WAL capture's),
// and the next event reopens it (reopen) before it runs, as an activation
// opens it, but without acquiring or restoring anything. So an idle object
// costs little more than its record, and descriptors bound only the
// databases open at once (Config.MaxOpenDatabases), not the objects
// resident.
//
// A cell parks when its instance is dropped for idleness (clock.go), and,
// least recently used first, when the shard needs room for another open
// database (makeOpenRoom): then its instance goes first, if it may go.
// Only a cell with nothing running, waiting or held parks: no event, no
// open transaction or gate, nothing left to make durable or to back up, no
// JS timer, no WebSocket it accepted without hibernation (parkable). Every
// use of the database is an event (fetch, RPC, alarm, a hibernated
// WebSocket's message), and an event reaches a parked cell through
// deliver, which holds it in the input gate's queue until the database is
// open again. Armed alarms stay armed; hibernatable WebSockets stay
// connected.
//
// The connection closes off the loop (a checkpoint in the local and backup
// modes costs fsyncs); whatever opens the file next waits for it
// (cell.closing).

// DefaultMaxOpenDatabases is Config.MaxOpenDatabases when zero: 4 096
// descriptors, and at most about 200 MB of SQLite's memory.
const DefaultMaxOpenDatabases = 1024

// maxOpen is the shard's share of Config.MaxOpenDatabases (0: no bound).
func (s *shard) maxOpen() int {
	m := s.h.cfg.MaxOpenDatabases
	if m <= 0 {
		return 0
	}
	return (m + len(s.h.shards) - 1) / len(s.h.shards)
}

// setOpen records whether the cell's database is open or opening: it is
// then in the shard's list of open databases. On the loop.
func (c *cell) setOpen(on bool) {
	if on {
		c.s.open.pushFront(c)
	} else {
		c.s.open.remove(c)
	}
}

// parkable reports whether the cell may close its database now. On the
// loop.
func (c *cell) parkable() bool {
	switch {
	case c.db == nil, c.opening, c.parked:
		return false
	case c.inst != nil && !c.instanceEvictable():
		return false
	case !c.settled(), c.db.InTx():
		return false
	}
	return true
}

// park drops the instance, if any, and closes the database off the loop,
// the cell staying resident. On the loop, when parkable.
func (c *cell) park() {
	if c.inst != nil {
		c.evictInstance()
	}
	db := c.db
	c.db = nil
	c.parked = true
	c.setOpen(false)
	c.commitsSinceCheckpoint = 0 // closing checkpoints
	if l := c.log; l != nil {
		if err := l.Detach(); err != nil {
			c.logger().Error("close WAL capture: " + err.Error())
		}
	}
	done := make(chan struct{})
	c.closing = done
	c.s.h.counted.parked.Add(1)
	c.s.h.goFunc(func(context.Context) {
		defer close(done)
		if err := db.Close(); err != nil {
			c.logger().Error("close: " + err.Error())
		}
	})
}

// reopen opens a parked cell's database again off the loop, then delivers
// the events that waited for it. If it does not open, the cell lets go of
// its lease (the next event activates it afresh) and they fail. On the
// loop.
func (c *cell) reopen() {
	c.opening = true
	s := c.s
	s.makeOpenRoom()
	c.setOpen(true)
	closing := c.closing
	path, opts := s.h.dbPath(c.class, c.id), c.dbOptions(c.dbName, c.log != nil)
	s.h.counted.reopened.Add(1)
	s.h.goFunc(func(context.Context) {
		if closing != nil {
			<-closing
		}
		db, err := storage.Open(path, opts)
		posted := s.post(func() {
			c.opening = false
			if err == nil && s.h.closing.Load() {
				_ = db.Close()
				err = ErrClosed
			}
			if err != nil {
				c.setOpen(false)
				c.parked = false
				_ = c.closeDB(false)
				if err != ErrClosed {
					err = fmt.Errorf("activate %s: %w", c.scope, err)
				}
				c.failWaiting(err)
				return
			}
			c.parked = false
			c.closing = nil
			c.db = db
			if l := c.log; l != nil {
				// A new capture: the closed connection checkpointed and
				// removed the WAL that the last one read to its end.
				l.Attach(db.WALCapture())
			}
			c.scheduleSocketRowGC()
			c.wakeNext()
		})
		if !posted && err == nil {
			_ = db.Close()
		}
	})
}

// makeOpenRoom parks, least recently used first, idle cells of the shard
// until one more database fits in its bound. On the loop, before a
// database opens. Like the resident bound it is soft: when no open cell
// may park, the database opens over the bound.
func (s *shard) makeOpenRoom() { s.trimOpen(1) }

// trimOpen parks, least recently used first, idle cells of the shard until
// room more databases fit in its bound. The idle-instance pass calls it
// with 0 (clock.go): a burst that went over the bound shrinks back within
// a tenth of InstanceIdleTimeout. On the loop.
func (s *shard) trimOpen(room int) {
	max := s.maxOpen()
	if max == 0 || s.open.n+room <= max {
		return
	}
	for c := s.open.tail; c != nil && s.open.n+room > max; {
		prev := c.byOpen.prev
		if c.parkable() {
			c.park()
		}
		c = prev
	}
}

// parkIdle parks the cells whose instance is gone and whose database is
// idle since before the instance idle cutoff (clock.go). On the loop.
func (c *cell) parkIdle() {
	if c.inst == nil && c.parkable() {
		c.park()
	}
}

// stillClosing reports whether the database park closed is still closing:
// the record must stay (a new one would open the file meanwhile). On the
// loop.
func (c *cell) stillClosing() bool {
	if c.closing == nil {
		return false
	}
	select {
	case <-c.closing:
		c.closing = nil
		return false
	default:
		return true
	}
}

// releaseAfterParked is how many databases closed since the last time make
// the next idle-instance tick give the memory they and their instances
// held back to the operating system (releaseMemory).
const releaseAfterParked = 256

// releaseMemory returns freed memory to the operating system
// (debug.FreeOSMemory: a collection, then every free page) once
// releaseAfterParked databases closed since the last time: Go's own
// scavenger keeps what a burst of activations left free for minutes, and
// an idle host should be as small as what it holds. Off the loops, on
// the idle-instance ticks (clock.go).
func (h *Host) releaseMemory() {
	n := h.counted.parked.Load()
	if n-h.releasedAt.Load() < releaseAfterParked {
		return
	}
	h.releasedAt.Store(n)
	h.goFunc(func(context.Context) { debug.FreeOSMemory() })
}
