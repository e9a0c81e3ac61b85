package queue_test

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/queue"
)

func TestQueue_PushDrainInOrder(t *testing.T) {
	q := queue.New[int]()
	for i := range 5 {
		if !q.Push(i) {
			t.Fatalf("Push(%d) refused on an open queue", i)
		}
	}
	if n := q.Len(); n != 5 {
		t.Errorf("Len = %d, want 5", n)
	}
	items, closed := q.Drain(nil)
	if !slices.Equal(items, []int{0, 1, 2, 3, 4}) || closed {
		t.Errorf("Drain = %v, %v; want [0 1 2 3 4], false", items, closed)
	}
	// The spare handed back is cleared and reused: the next push lands
	// in it.
	q.Push(9)
	again, _ := q.Drain(items)
	if !slices.Equal(again, []int{9}) {
		t.Errorf("second Drain = %v, want [9]", again)
	}
	if items[1] != 0 {
		t.Errorf("spare not cleared: %v", items)
	}
	q.Push(7)
	third, _ := q.Drain(nil)
	if !slices.Equal(third, []int{7}) || &third[0] != &items[0] {
		t.Errorf("third Drain = %v, want [7] in the spare's array", third)
	}
}

func TestQueue_CloseKeepsWhatWasPushed(t *testing.T) {
	q := queue.New[string]()
	q.Push("a")
	q.Close()
	q.Close() // twice is fine
	if q.Push("b") {
		t.Errorf("Push after Close accepted")
	}
	items, ok := q.Next(nil)
	if !ok || !slices.Equal(items, []string{"a"}) {
		t.Errorf("Next = %v, %v; want [a], true", items, ok)
	}
	if items, ok := q.Next(nil); ok || items != nil {
		t.Errorf("Next on closed, empty queue = %v, %v; want nil, false", items, ok)
	}
}

// TestQueue_ManyProducers: every item pushed by concurrent producers
// reaches the one consumer exactly once, each producer's in order.
func TestQueue_ManyProducers(t *testing.T) {
	q := queue.New[[2]int]()
	const producers, each = 8, 500
	var wg sync.WaitGroup
	for p := range producers {
		wg.Go(func() {
			for i := range each {
				q.Push([2]int{p, i})
			}
		})
	}
	go func() { wg.Wait(); q.Close() }()
	next := make([]int, producers)
	var batch [][2]int
	for {
		var ok bool
		if batch, ok = q.Next(batch); !ok {
			break
		}
		for _, v := range batch {
			if v[1] != next[v[0]] {
				t.Fatalf("producer %d: got item %d, want %d", v[0], v[1], next[v[0]])
			}
			next[v[0]]++
		}
	}
	for p, n := range next {
		if n != each {
			t.Errorf("producer %d: %d items arrived, want %d", p, n, each)
		}
	}
}

func TestRun_RoundsUntilClosed(t *testing.T) {
	q := queue.New[int]()
	rounds := make(chan []int)
	done := make(chan struct{})
	go func() {
		defer close(done)
		queue.Run(q, nil, func(b []int) (int, int) {
			rounds <- slices.Clone(b)
			return len(b), len(b)
		})
	}()
	q.Push(1)
	if got := <-rounds; !slices.Equal(got, []int{1}) {
		t.Errorf("round = %v, want [1]", got)
	}
	q.Push(2)
	q.Push(3)
	q.Close()
	var got []int
	for len(got) < 2 {
		got = append(got, <-rounds...)
	}
	if !slices.Equal(got, []int{2, 3}) {
		t.Errorf("rounds after close = %v, want [2 3]", got)
	}
	<-done
}

// TestLinger_Policy drives the linger policy with explicit times: it waits
// only for a round that follows, within LingerWindow, a recorded round that
// showed several producers, and as long as Wait says for that round's size.
func TestLinger_Policy(t *testing.T) {
	var slept []time.Duration
	l := &queue.Linger{
		Wait:  func(prev int) time.Duration { return time.Duration(prev) * time.Millisecond },
		Sleep: func(d time.Duration) { slept = append(slept, d) },
	}
	t0 := time.Unix(1000, 0)
	l.Before(t0) // nothing recorded: idle, no wait
	l.After(t0, 3, true)
	l.Before(t0.Add(queue.LingerWindow - time.Nanosecond)) // under load: wait 3 ms
	l.After(t0.Add(queue.LingerWindow), 0, false)          // an empty round changes nothing
	l.Before(t0.Add(2 * queue.LingerWindow))               // idle again: no wait
	l.After(t0.Add(2*queue.LingerWindow), 5, true)
	l.Before(t0.Add(2 * queue.LingerWindow)) // wait 5 ms
	l.After(t0.Add(3*queue.LingerWindow), 4, false)
	l.Before(t0.Add(3 * queue.LingerWindow)) // one producer: no wait
	if want := []time.Duration{3 * time.Millisecond, 5 * time.Millisecond}; !slices.Equal(slept, want) {
		t.Errorf("slept %v, want %v", slept, want)
	}
	var zero queue.Linger
	zero.After(t0, 10, true)
	zero.Before(t0) // no Wait: never sleeps (would call time.Sleep otherwise)
}

// TestLinger_Busy: several producers are at work only while the last
// round, ended less than LingerWindow ago, showed them; Before reports
// whether it waited.
func TestLinger_Busy(t *testing.T) {
	l := &queue.Linger{Wait: func(int) time.Duration { return time.Millisecond }, Sleep: func(time.Duration) {}}
	t0 := time.Unix(1000, 0)
	for _, tt := range []struct {
		name       string
		size       int
		busy       bool
		at         time.Time
		want, wait bool
	}{
		{"nothing recorded", 0, false, t0, false, false},
		{"a round of several", 3, true, t0, true, true},
		{"an empty round changes nothing", 0, false, t0.Add(queue.LingerWindow - time.Nanosecond), true, true},
		{"idle since", 3, true, t0.Add(queue.LingerWindow), false, false},
		{"a lone producer's round", 1, false, t0, false, false},
	} {
		l.After(t0, tt.size, tt.busy)
		if got := l.Busy(tt.at); got != tt.want {
			t.Errorf("%s: Busy = %v, want %v", tt.name, got, tt.want)
		}
		if got := l.Before(tt.at); got != tt.wait {
			t.Errorf("%s: Before waited %v, want %v", tt.name, got, tt.wait)
		}
	}
}

// TestRun_LingersUnderLoad: Run consults the policy, with the previous
// round's size, before a round that follows one of several producers (here
// one, plus the items that waited before its release).
func TestRun_LingersUnderLoad(t *testing.T) {
	q := queue.New[int]()
	var prevs []int
	release := make(chan struct{})
	l := &queue.Linger{
		Wait:  func(prev int) time.Duration { prevs = append(prevs, prev); return time.Nanosecond },
		Sleep: func(time.Duration) {},
	}
	done := make(chan struct{})
	started := make(chan struct{})
	var sizes []int
	q.Push(1)
	q.Push(2)
	go func() {
		defer close(done)
		queue.Run(q, l, func(b []int) (int, int) {
			sizes = append(sizes, len(b))
			if len(sizes) == 1 {
				close(started)
				<-release // the second round's items pile up meanwhile
			}
			producers := 1 // one producer, and one more if items wait before the release
			if q.Len() > 0 {
				producers++
			}
			return len(b), producers
		})
	}()
	<-started
	q.Push(3)
	q.Push(4)
	q.Push(5)
	close(release)
	q.Close()
	<-done
	if !slices.Equal(sizes, []int{2, 3}) || !slices.Equal(prevs, []int{2}) {
		t.Errorf("rounds %v, linger consulted with %v; want rounds [2 3], linger [2]", sizes, prevs)
	}
}
