package host

import (
	"container/heap"
	"time"
)

// Timers of a shard (JS timers, alarms, blockConcurrencyWhile deadlines)
// run in the order of their deadlines, and timers with the same deadline in
// the order they were set, as HTML's timer task source and workerd run
// them: five setTimeout(f, 0) set in a row fire in that order (schedulers
// such as Effect's depend on it). The clock's own timers (time.AfterFunc:
// one goroutine each) post in whatever order the Go scheduler runs them, so
// the clock only says that a deadline passed: when a timer's clock fires,
// the loop takes every pending timer due no later than it, in order, into
// the ready list, and runs the ready list one timer per job.

// shardTimer is one pending timer. Owned by the loop.
type shardTimer struct {
	at       time.Time
	seq      uint64 // order set, among equal deadlines
	f        func()
	epoch    int  // s.epoch when set: a replaced runtime's timers never run
	canceled bool // also set once it ran
	index    int  // in shard.timers; -1 once taken out
}

// before reports whether t is due before u (or is u).
func (t *shardTimer) before(u *shardTimer) bool {
	return t.at.Before(u.at) || t.at.Equal(u.at) && t.seq <= u.seq
}

type timerHeap []*shardTimer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	return h[i].at.Before(h[j].at) || h[i].at.Equal(h[j].at) && h[i].seq < h[j].seq
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *timerHeap) Push(x any) {
	t := x.(*shardTimer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	t.index = -1
	return t
}

// AfterFunc implements jsapi.Scheduler: f runs on the loop after d, as a
// job of its own, after every timer of the shard with an earlier deadline
// or the same one set before it. Called on the loop; so is cancel.
func (s *shard) AfterFunc(d time.Duration, f func()) (cancel func()) {
	s.timerSeq++
	t := &shardTimer{at: s.h.clock.Now().Add(d), seq: s.timerSeq, f: f, epoch: s.epoch}
	heap.Push(&s.timers, t)
	stop := s.h.clock.AfterFunc(d, func() { s.post(func() { s.timerDue(t) }) })
	return func() {
		if !t.canceled {
			t.canceled = true
			if t.index >= 0 {
				heap.Remove(&s.timers, t.index)
			}
		}
		stop()
	}
}

// timerDue runs when t's deadline passed (its clock fired): every pending
// timer due no later than t joins the ready list, in order; the first
// ready timer runs. On the loop.
func (s *shard) timerDue(t *shardTimer) {
	for len(s.timers) > 0 && s.timers[0].before(t) {
		s.readyTimers = append(s.readyTimers, heap.Pop(&s.timers).(*shardTimer))
	}
	s.runReadyTimer()
}

// runReadyTimer runs the first ready timer not canceled, and posts itself
// again while more are ready, so that each timer is a macrotask of its own
// (microtasks and commits run between them). On the loop.
func (s *shard) runReadyTimer() {
	for len(s.readyTimers) > 0 {
		t := s.readyTimers[0]
		s.readyTimers[0] = nil
		s.readyTimers = s.readyTimers[1:]
		if t.canceled || t.epoch != s.epoch {
			continue
		}
		t.canceled = true
		if len(s.readyTimers) > 0 {
			s.post(s.runReadyTimer)
		}
		t.f()
		return
	}
}
