package host

import "time"

// Resident cells are bounded (Config.MaxResidentCells, as celld's
// CELLD_MAX_RESIDENT_CELLS): each holds its lease and log, and, while
// active, its instance and database (the open databases have a bound of
// their own, park.go). Each shard keeps the cells it knows in a list ordered by
// last use (an intrusive doubly linked list, owned by its loop): a cell
// joins it at its first event and moves to the front on each run. Idle
// eviction and pressure eviction walk it from the back, so they cost what
// they evict (plus the cells they must skip: busy ones, or ones a WebSocket
// keeps), never the number of cells ever addressed; and they never take
// the host-wide lock but to drop a record. A record is dropped from the
// registry once the cell is evicted and nothing refers to it: no job on
// its way (refs), no event, no socket, no alarm.
//
// The bound is per shard (MaxResidentCells / shards, rounded up): a shard
// evicts only its own cells. It is soft: when every resident cell is busy
// the activation goes ahead, over the bound, rather than fail a request.

// cellList is a list of a shard's cells in order of last use, most recent
// first, linked through the cellLinks that links picks in each cell (a
// cell is in the shard's list of cells, and, while its database is open,
// in the list of open databases: park.go).
type cellList struct {
	head, tail *cell
	n          int
	links      func(*cell) *cellLinks
}

// cellLinks are a cell's links in one cellList.
type cellLinks struct {
	prev, next *cell
	listed     bool
}

func byUse(c *cell) *cellLinks  { return &c.byUse }
func byOpen(c *cell) *cellLinks { return &c.byOpen }

func (l *cellList) remove(c *cell) {
	k := l.links(c)
	if !k.listed {
		return
	}
	if k.prev != nil {
		l.links(k.prev).next = k.next
	} else {
		l.head = k.next
	}
	if k.next != nil {
		l.links(k.next).prev = k.prev
	} else {
		l.tail = k.prev
	}
	k.prev, k.next, k.listed = nil, nil, false
	l.n--
}

func (l *cellList) pushFront(c *cell) {
	l.remove(c)
	k := l.links(c)
	k.next = l.head
	if l.head != nil {
		l.links(l.head).prev = c
	} else {
		l.tail = c
	}
	l.head = c
	k.listed = true
	l.n++
}

// each calls f for every listed cell, most recent first; f may remove the
// cell it is given.
func (l *cellList) each(f func(*cell)) {
	for c := l.head; c != nil; {
		next := l.links(c).next
		f(c)
		c = next
	}
}

// maxResident is the shard's share of Config.MaxResidentCells (0: none).
func (s *shard) maxResident() int {
	m := s.h.cfg.MaxResidentCells
	if m <= 0 {
		return 0
	}
	return (m + len(s.h.shards) - 1) / len(s.h.shards)
}

// used marks the cell as just used: an event arrived or runs. The list is
// then in lastActive order. On the loop.
func (c *cell) used() {
	c.lastActive = c.s.h.now()
	c.s.cells.pushFront(c)
	if c.byOpen.listed {
		c.s.open.pushFront(c)
	}
}

// setResident records whether the cell holds (or is opening) its database.
// On the loop.
func (c *cell) setResident(on bool) {
	if on != c.resident {
		c.resident = on
		if on {
			c.s.nResident++
		} else {
			c.s.nResident--
		}
	}
}

// makeRoom evicts, least recently used first, idle cells of the shard until
// one more fits in its bound. On the loop, before an activation.
func (s *shard) makeRoom() {
	max := s.maxResident()
	if max == 0 || s.nResident < max {
		return
	}
	always := s.h.now().Add(time.Hour) // any idle cell, however recent
	for c := s.cells.tail; c != nil && s.nResident >= max; {
		prev := c.byUse.prev
		if c.resident && c.evictable(always) {
			c.evict()
		}
		c = prev
	}
}

// evictIdle evicts the shard's cells that have been idle for the idle
// timeout, from the least recently used, and drops records nothing needs.
// On the loop.
// It returns how many it evicted.
func (s *shard) evictIdle() int { return s.evictIdleBefore(s.h.now().Add(-s.h.cfg.IdleTimeout)) }

// evictIdleBefore evicts the cells idle since before cutoff. On the loop.
func (s *shard) evictIdleBefore(cutoff time.Time) (n int) {
	for c := s.cells.tail; c != nil; {
		prev := c.byUse.prev
		if !c.lastActive.Before(cutoff) {
			break // the rest are more recent
		}
		if c.evictable(cutoff) {
			c.evict()
			n++
		} else {
			c.maybeDrop()
		}
		c = prev
	}
	return n
}

// maybeDrop removes the record of a cell nothing refers to from the
// registry and from the shard's list. On the loop.
func (c *cell) maybeDrop() {
	if c.resident || c.db != nil || c.opening || c.inflight > 0 || len(c.waiting) > 0 || c.blocked > 0 ||
		c.alarmCancel != nil || c.alarmRunning || c.dirty || c.backingUp || c.hasSockets() || c.stillClosing() {
		return
	}
	h := c.s.h
	h.mu.Lock()
	if c.refs.Load() != 0 || h.cells[c.scope] != c {
		h.mu.Unlock()
		return
	}
	delete(h.cells, c.scope)
	h.mu.Unlock()
	c.s.cells.remove(c)
}

// hasSockets reports whether WebSockets (connected or hibernated) refer to
// the cell.
func (c *cell) hasSockets() bool {
	return len(c.sockets.conns) > 0 || (c.sockets.set != nil && c.sockets.set.Len() > 0)
}

// cellsOf lists the cells that shard s knows (its list). On s's loop.
func (h *Host) cellsOf(s *shard) []*cell {
	out := make([]*cell, 0, s.cells.n)
	s.cells.each(func(c *cell) { out = append(out, c) })
	return out
}

// ResidentCells returns how many cells are resident (hold their lease), and how many
// records the registry keeps. Safe from any goroutine (it asks the loops).
func (h *Host) ResidentCells() (resident, records int) {
	for _, s := range h.shards {
		ch := make(chan int, 1)
		if s.post(func() { ch <- s.nResident }) {
			resident += <-ch
		}
	}
	h.mu.Lock()
	records = len(h.cells)
	h.mu.Unlock()
	return resident, records
}
