package filestore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/plugins"
)

// openStore opens a Store on dir (several may share one, as nodes share a
// bucket directory), closed when the test ends.
func openStore(t *testing.T, dir string) *Store {
	t.Helper()
	s, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func newTestStore(t *testing.T) *Store {
	t.Helper()
	return openStore(t, t.TempDir())
}

// putConcurrently runs put(i) for i in [0, n) in n goroutines released
// together, and returns their errors.
func putConcurrently(n int, put func(i int) error) []error {
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, n)
	)
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = put(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

func TestWriter_ConcurrentPutsShareRounds(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	before := s.w.rounds.Load()
	errs := putConcurrently(64, func(i int) error {
		_, err := s.Put(ctx, fmt.Sprintf("cells/c%d/ltx/e1/0000/%016x-%016x.ltx", i, 1, 1), make([]byte, 4200), plugins.PutOptions{})
		return err
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	// Each round fsyncs (~1 ms): the writers pile up behind the first.
	if n := s.w.rounds.Load() - before; n < 1 || n > 32 {
		t.Errorf("64 concurrent puts took %d rounds, want them shared (1..32)", n)
	}
}

// TestWriter_RejectionsDoNotFailTheRound races creates of existing keys
// (rejected) with plain puts and CAS updates in the same rounds.
func TestWriter_RejectionsDoNotFailTheRound(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	etags := map[string]string{}
	for i := range 16 {
		k := fmt.Sprintf("cas/%d", i)
		e, err := s.Put(ctx, k, []byte("v0"), plugins.PutOptions{})
		if err != nil {
			t.Fatal(err)
		}
		etags[k] = e
	}
	errs := putConcurrently(64, func(i int) error {
		k := fmt.Sprintf("cas/%d", i%16)
		var opts plugins.PutOptions
		switch i % 4 {
		case 0:
			opts.IfNoneMatch = true // exists: rejected
		case 1:
			opts.IfMatch = `"stale"` // rejected
		case 2:
			k = fmt.Sprintf("plain/%d", i) // applies
		case 3:
			return s.Delete(ctx, k, `"stale"`) // rejected
		}
		_, err := s.Put(ctx, k, []byte("v1"), opts)
		return err
	})
	for i, err := range errs {
		if i%4 == 2 && err != nil {
			t.Errorf("plain put %d: %v", i, err)
		}
		if i%4 != 2 && !errors.Is(err, plugins.ErrPreconditionFailed) {
			t.Errorf("conditional op %d: error = %v, want ErrPreconditionFailed", i, err)
		}
	}
	for k, e := range etags {
		if got, err := s.Head(ctx, k); err != nil || got != e {
			t.Errorf("Head(%s) = %s, %v; want unchanged %s", k, got, err, e)
		}
	}
}

// TestWriter_FailedStatementFailsOnlyItsOp makes one operation's statement
// fail: the others of its round are committed.
func TestWriter_FailedStatementFailsOnlyItsOp(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	boom := errors.New("disk on fire")
	s.w.hook = func(o *op) error {
		if o.key == "bad" {
			return boom
		}
		return nil
	}
	errs := putConcurrently(32, func(i int) error {
		k := fmt.Sprintf("good/%d", i)
		if i == 7 {
			k = "bad"
		}
		_, err := s.Put(ctx, k, []byte("v"), plugins.PutOptions{})
		return err
	})
	for i, err := range errs {
		switch {
		case i == 7 && !errors.Is(err, boom):
			t.Errorf("Put(bad) error = %v, want %v", err, boom)
		case i != 7 && err != nil:
			t.Errorf("Put(good/%d) = %v", i, err)
		}
	}
	page, err := s.List(ctx, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Objects) != 31 {
		t.Errorf("List() = %d objects, want the 31 good ones", len(page.Objects))
	}
}

func TestWriter_Close(t *testing.T) {
	ctx := context.Background()
	s := newStoreWithK(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close() = %v", err)
	}
	if err := s.Delete(ctx, "k", ""); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("Delete() after Close error = %v, want ErrClosed", err)
	}
	if _, _, err := s.Get(ctx, "k"); !errors.Is(err, plugins.ErrClosed) {
		t.Errorf("Get() after Close error = %v, want ErrClosed", err)
	}
}

// newStoreWithK opens a store in a fresh directory holding "k" = "v".
func newStoreWithK(t *testing.T) *Store {
	t.Helper()
	s, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(context.Background(), "k", []byte("v"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestWriter_lingers pins when a round waits for more operations, through
// the shared policy: only after a recent round that several writers shared.
func TestWriter_lingers(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name     string
		linger   time.Duration
		lastSize int
		busy     bool // the last round showed several writers
		ago      time.Duration
		want     bool
	}{
		{"after a shared round", defaultLinger, 5, true, time.Millisecond, true},
		{"after a lone writer's round", defaultLinger, 1, false, time.Millisecond, false},
		{"after an idle spell", defaultLinger, 5, true, queue.LingerWindow + time.Millisecond, false},
		{"first round", defaultLinger, 0, false, 0, false},
		{"lingering off", 0, 5, true, time.Millisecond, false},
	}
	for _, tt := range tests {
		w := &writer{linger: tt.linger}
		var slept time.Duration
		l := &queue.Linger{Wait: w.lingerAfter, Sleep: func(d time.Duration) { slept += d }}
		l.After(now.Add(-tt.ago), tt.lastSize, tt.busy)
		l.Before(now)
		if got := slept > 0; got != tt.want || (got && slept != tt.linger) {
			t.Errorf("%s: slept %v, want waiting %v", tt.name, slept, tt.want)
		}
	}
}

// TestWriter_LoneWriterCommitsAtOnce: a Put that finds no round running and
// nothing queued commits on its own goroutine, without lingering; one that
// arrives while a round runs queues for the loop's next round.
func TestWriter_LoneWriterCommitsAtOnce(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	var lone []string // under roundMu
	s.w.hookLone = func(o *op) { lone = append(lone, o.key) }
	s.w.lingerP.Sleep = func(d time.Duration) { t.Errorf("a round lingered %v", d) }
	for _, k := range []string{"k1", "k2", "k3"} {
		if _, err := s.Put(ctx, k, []byte(k), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"k1", "k2", "k3"}; fmt.Sprint(lone) != fmt.Sprint(want) {
		t.Errorf("rounds of their own: %v, want %v", lone, want)
	}

	// A round in progress (held in its statement by the hook): the next
	// writer queues.
	started, release := make(chan struct{}), make(chan struct{})
	s.w.hook = func(o *op) error {
		if o.key == "a" {
			close(started)
			<-release
		}
		return nil
	}
	errs := make(chan error, 2)
	go func() { _, err := s.Put(ctx, "a", []byte("a"), plugins.PutOptions{}); errs <- err }()
	<-started
	queued := make(chan string, 1)
	s.w.hookQueued = func(o *op) { queued <- o.key }
	go func() { _, err := s.Put(ctx, "b", []byte("b"), plugins.PutOptions{}); errs <- err }()
	if k := <-queued; k != "b" {
		t.Errorf("queued %q, want b", k)
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"k1", "k2", "k3", "a"}; fmt.Sprint(lone) != fmt.Sprint(want) {
		t.Errorf("rounds of their own: %v, want %v (b queued behind a)", lone, want)
	}
	for _, k := range []string{"a", "b"} {
		if body, _, err := s.Get(ctx, k); err != nil || string(body) != k {
			t.Errorf("Get(%q) = %q, %v", k, body, err)
		}
	}
}

// TestWriter_BusyWritersQueue: after a round that several writers shared,
// a writer that finds no round running still queues for the loop's next
// round (which lingers for more), so that the rounds under load form.
func TestWriter_BusyWritersQueue(t *testing.T) {
	s := newTestStore(t)
	var lingered []time.Duration
	s.w.roundMu.Lock()
	s.w.lingerP.Sleep = func(d time.Duration) { lingered = append(lingered, d) }
	s.w.lingerP.After(time.Now(), 5, true) // a shared round just ended
	s.w.hookLone = func(o *op) { t.Errorf("%s committed alone after a shared round", o.key) }
	queued := make(chan string, 1)
	s.w.hookQueued = func(o *op) { queued <- o.key }
	s.w.roundMu.Unlock()
	if _, err := s.Put(context.Background(), "k", []byte("v"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if k := <-queued; k != "k" {
		t.Errorf("queued %q, want k", k)
	}
	s.w.roundMu.Lock()
	defer s.w.roundMu.Unlock()
	if len(lingered) != 1 || lingered[0] != defaultLinger {
		t.Errorf("the loop's round lingered %v, want [%v]", lingered, defaultLinger)
	}
}

// TestWriter_SyncWALFollowsTheFile: syncWAL fsyncs the file at the WAL's
// name; should its descriptor lead to another inode (a WAL removed and
// created again), it opens the name again.
func TestWriter_SyncWALFollowsTheFile(t *testing.T) {
	s := newTestStore(t)
	ctx := context.Background()
	if _, err := s.Put(ctx, "a", []byte("1"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	w := s.w
	w.roundMu.Lock()
	defer w.roundMu.Unlock()
	if w.wal == nil {
		t.Fatal("no WAL descriptor after a round")
	}
	same := func() bool {
		t.Helper()
		held, err := w.wal.Stat()
		if err != nil {
			t.Fatal(err)
		}
		now, err := os.Stat(w.walPath)
		if err != nil {
			t.Fatal(err)
		}
		return os.SameFile(held, now)
	}
	if !same() {
		t.Fatal("the WAL descriptor is not the file at the WAL's name")
	}
	other, err := os.Open(w.path) // another inode in its place
	if err != nil {
		t.Fatal(err)
	}
	w.wal.Close()
	w.wal = other
	if err := w.syncWAL(); err != nil {
		t.Fatal(err)
	}
	if !same() {
		t.Error("syncWAL kept a descriptor of another file")
	}
}
