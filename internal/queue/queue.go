// Package queue is the mutex + slice + wake-channel queue that the host's
// event loops, its syncer, its WebSocket writers and the file store's
// writer all consume (goja_nodejs eventloop's auxJobs pattern), and the one
// group-commit linger policy two of them share.
package queue

import (
	"sync"
	"time"
)

// Queue is an unbounded FIFO with one consumer. Push never blocks and may be
// called from any goroutine; Drain, Wake and Run belong to the consumer.
// After Close, Push refuses new items, and the consumer still gets those
// pushed before.
type Queue[T any] struct {
	mu     sync.Mutex
	items  []T  // guarded by mu
	closed bool // guarded by mu
	wake   chan struct{}
}

// New returns an empty, open queue.
func New[T any]() *Queue[T] {
	return &Queue[T]{wake: make(chan struct{}, 1)}
}

// Push appends v and wakes the consumer. It reports false, dropping v, once
// the queue is closed.
func (q *Queue[T]) Push(v T) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.items = append(q.items, v)
	q.mu.Unlock()
	q.signal()
	return true
}

func (q *Queue[T]) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Len is how many items wait.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}

// Drain takes every waiting item, handing spare (emptied) to the queue for
// reuse, and reports whether the queue is closed. A closed queue that
// returns no items will never return any again.
func (q *Queue[T]) Drain(spare []T) (items []T, closed bool) {
	clear(spare)
	q.mu.Lock()
	items, q.items = q.items, spare[:0]
	closed = q.closed
	q.mu.Unlock()
	return items, closed
}

// Wake is signalled after a Push or Close; it may be signalled with nothing
// to drain (a token left from items already taken).
func (q *Queue[T]) Wake() <-chan struct{} { return q.wake }

// Close refuses later Pushes and wakes the consumer. Safe to call more
// than once.
func (q *Queue[T]) Close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// Next blocks until items are waiting or the queue is closed and empty,
// then drains as Drain does; ok is false only for the latter.
func (q *Queue[T]) Next(spare []T) (items []T, ok bool) {
	for {
		items, closed := q.Drain(spare)
		if len(items) > 0 {
			return items, true
		}
		if closed {
			return nil, false
		}
		spare = items
		<-q.wake
	}
}

// LingerWindow: a round of group commit that starts less than this after
// the previous one ended may be under load, and may wait for more items
// (Linger). An idle consumer never waits.
const LingerWindow = 20 * time.Millisecond

// Linger is the group-commit policy of a batching consumer (the host's
// syncer, the file store's writer), adaptive as a good group commit is: a
// round waits Wait(prev) before it drains, prev being the previous round's
// size, so that the producers about to arrive share its cost (an fsync, an
// upload), but only when there is something else to batch: the previous
// round ended less than LingerWindow ago and several producers were at work
// (it served more than one, or more items were already waiting when it
// ended). A lone producer, whose next item comes only after the reply to
// its last one, makes rounds of one that end with nothing waiting, and
// never waits. The zero value never waits. Used by one round at a time
// (the consumer goroutine's, or a lone producer's that commits on its own
// goroutine under the consumer's lock, as the file store's writer does).
type Linger struct {
	// Wait is how long a round under load waits after a round of prev
	// items; nil or 0: not at all.
	Wait func(prev int) time.Duration
	// Sleep waits d (time.Sleep when nil; tests record it instead).
	Sleep func(d time.Duration)
	// Now is Run's clock (time.Now when nil; tests freeze it).
	Now func() time.Time

	lastEnd  time.Time
	lastSize int
	lastBusy bool // the last round showed several producers
}

// Before is called when a round is about to drain: it waits as the policy
// says, and reports whether it waited.
func (l *Linger) Before(now time.Time) bool {
	if l.Wait == nil || l.lastSize == 0 || !l.lastBusy || now.Sub(l.lastEnd) >= LingerWindow {
		return false
	}
	d := l.Wait(l.lastSize)
	if d <= 0 {
		return false
	}
	if l.Sleep != nil {
		l.Sleep(d)
		return true
	}
	time.Sleep(d)
	return true
}

func (l *Linger) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// Busy reports whether the last round, ended less than LingerWindow before
// now, showed several producers at work: then a producer that finds no round
// running should still queue for the next one rather than commit alone, so
// that the round forms (see the file store's writer).
func (l *Linger) Busy(now time.Time) bool {
	return l.lastSize > 0 && l.lastBusy && now.Sub(l.lastEnd) < LingerWindow
}

// After records a round of size (the policy's measure) that ended at now;
// busy: it showed several producers at work (see Linger). A round of size
// 0 (nothing to make durable) leaves the record as it was.
func (l *Linger) After(now time.Time, size int, busy bool) {
	if size > 0 {
		l.lastEnd, l.lastSize, l.lastBusy = now, size, busy
	}
}

// Run consumes q in rounds until it is closed and drained: each round
// lingers as l says, drains every waiting item and hands them to round,
// which returns the round's size for the policy (Linger.Wait) and how many
// producers it served (those waiting on it: items, or the requests behind
// them), counting one more when items were waiting before it released
// them: those came from other producers, while a lone producer's next item
// comes only after the release (so a look at the queue after the round,
// which may come after that item when the consumer was descheduled, would
// take a lone producer for several). l may be nil.
func Run[T any](q *Queue[T], l *Linger, round func(batch []T) (size, producers int)) {
	var batch []T
	for {
		// Wait for work before lingering: an idle consumer never waits.
		for {
			n, closed := q.peekClosed()
			if n > 0 {
				break
			}
			if closed {
				return
			}
			<-q.wake
		}
		if l != nil {
			l.Before(l.now())
		}
		var ok bool
		if batch, ok = q.Next(batch); !ok {
			return
		}
		n, p := round(batch)
		if l != nil {
			l.After(l.now(), n, p > 1)
		}
	}
}

func (q *Queue[T]) peekClosed() (n int, closed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items), q.closed
}
