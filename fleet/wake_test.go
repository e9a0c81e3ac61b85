package fleet

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
)

const (
	cellA = "Counter:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	cellB = "Counter:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	cellC = "Counter:cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
)

// fakeWaker records the scopes it is asked to wake.
type fakeWaker struct {
	mu     sync.Mutex
	scopes []string
	err    func(scope string) error
}

func (f *fakeWaker) Wake(_ context.Context, scope string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scopes = append(f.scopes, scope)
	if f.err != nil {
		return f.err(scope)
	}
	return nil
}

func newTestWake(t *testing.T, s *faultStore, clock *fakeNow, node string) *Wake {
	t.Helper()
	w, err := NewWake(WakeConfig{Store: s, Node: node, Clock: clock, Poll: 30 * time.Second, Tick: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func writes(calls []string) []string {
	var out []string
	for _, c := range calls {
		if !strings.HasPrefix(c, "list ") {
			out = append(out, c)
		}
	}
	return out
}

// TestWake_PublishOrder: the new entry is put before the old one is
// retired; a disarm retires without a new entry.
func TestWake_PublishOrder(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	w := newTestWake(t, s, clock, deadA)
	ctx := context.Background()
	due1 := t0.UnixMilli() + 10*60_000
	due2 := due1 + 60_000
	e1 := WakeEntryBody{Cell: cellA, DueMS: due1, Epoch: 3}
	e2 := WakeEntryBody{Cell: cellA, DueMS: due2, Epoch: 3}

	w.AlarmDurable(cellA, due1, true, 3)
	w.flush(ctx)
	body, _, err := s.Get(ctx, e1.Key())
	if err != nil || string(body) != `{"cell":"`+cellA+`","due_ms":`+itoa(due1)+`,"epoch":3}` {
		t.Fatalf("entry %s = %s, %v", e1.Key(), body, err)
	}

	mark := len(s.callsSince(0))
	w.AlarmDurable(cellA, due1, true, 3) // unchanged: nothing to write
	w.AlarmDurable(cellA, due2, true, 3)
	w.flush(ctx)
	want := []string{"put " + e2.Key(), "put " + e1.RetiredKey(), "delete " + e1.Key()}
	if got := writes(s.callsSince(mark)); !reflect.DeepEqual(got, want) {
		t.Errorf("move: writes %v, want %v", got, want)
	}
	if body, _, _ := s.Get(ctx, e1.RetiredKey()); string(body) != string(e1.Encode()) {
		t.Errorf("retired body %s, want %s", body, e1.Encode())
	}

	mark = len(s.callsSince(0))
	w.AlarmDurable(cellA, 0, false, 3)
	w.flush(ctx)
	want = []string{"put " + e2.RetiredKey(), "delete " + e2.Key()}
	if got := writes(s.callsSince(mark)); !reflect.DeepEqual(got, want) {
		t.Errorf("disarm: writes %v, want %v", got, want)
	}
	if keys := listKeys(t, s, bucketkey.WakeEntriesPrefix); len(keys) != 0 {
		t.Errorf("entries left: %v", keys)
	}
	if st := w.Stats(); st.Published != 2 || st.Retired != 2 {
		t.Errorf("Stats = %+v", st)
	}
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// TestWake_RetriesAFailedWrite: a failed PUT leaves the change queued; the
// next flush writes it, and the old entry is only retired after the new
// one landed.
func TestWake_RetriesAFailedWrite(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	w := newTestWake(t, s, clock, deadA)
	ctx := context.Background()
	due1 := t0.UnixMilli() + 60_000
	e1 := WakeEntryBody{Cell: cellA, DueMS: due1, Epoch: 1}
	w.AlarmDurable(cellA, due1, true, 1)
	w.flush(ctx)

	due2 := due1 + 5*60_000
	e2 := WakeEntryBody{Cell: cellA, DueMS: due2, Epoch: 1}
	s.failPut = func(key string) error {
		if key == e2.Key() {
			return errors.New("injected: 500")
		}
		return nil
	}
	w.AlarmDurable(cellA, due2, true, 1)
	w.flush(ctx)
	if !exists(s, e1.Key()) || exists(s, e2.Key()) {
		t.Fatalf("after a failed put: old entry %v, new %v; want the old one kept", exists(s, e1.Key()), exists(s, e2.Key()))
	}
	s.failPut = nil
	w.flush(ctx)
	if exists(s, e1.Key()) || !exists(s, e2.Key()) {
		t.Errorf("after the retry: old entry %v, new %v", exists(s, e1.Key()), exists(s, e2.Key()))
	}
	if st := w.Stats(); st.PublishErrors != 1 {
		t.Errorf("PublishErrors = %d, want 1", st.PublishErrors)
	}
}

// TestWake_Poll: the waker wakes every cell whose entry is due before the
// next poll; a node that is not the waker only its own cells; an entry
// learned from the index is retired when the cell's alarm changes.
func TestWake_Poll(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	now := t0.UnixMilli()
	for _, e := range []WakeEntryBody{
		{Cell: cellA, DueMS: now - 3_600_000, Epoch: 1}, // long overdue
		{Cell: cellB, DueMS: now + 20_000, Epoch: 1},    // before the next poll
		{Cell: cellC, DueMS: now + 3_600_000, Epoch: 1}, // in an hour
	} {
		mustPut(s, e.Key(), e.Encode())
	}
	mustPut(s, bucketkey.OwnKey(cellA), ownership.OwnRecord{Node: deadA, Epoch: 1}.Encode())
	mustPut(s, bucketkey.OwnKey(cellB), ownership.OwnRecord{Node: "", Epoch: 1}.Encode())

	// Not the waker: only cell A, whose own.json names this node.
	other := newTestWake(t, s, clock, liveB)
	mustPut(s, bucketkey.WakerKey, WakerRecord{Node: liveB, ExpiresMS: now + 15000}.Encode())
	w := newTestWake(t, s, clock, deadA)
	fw := &fakeWaker{}
	w.local = fw
	w.tickWaker(ctx)
	if w.waker.held() {
		t.Fatal("claimed a live waker record of another node")
	}
	if err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{cellA}; !reflect.DeepEqual(fw.scopes, want) {
		t.Errorf("non-waker woke %v, want %v", fw.scopes, want)
	}

	// The waker: A and B (due before the next poll), not C.
	ow := &fakeWaker{}
	other.local = ow
	other.tickWaker(ctx)
	if !other.waker.held() {
		t.Fatal("the waker does not hold its own record")
	}
	if err := other.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	if want := []string{cellA, cellB}; !reflect.DeepEqual(ow.scopes, want) {
		t.Errorf("waker woke %v, want %v", ow.scopes, want)
	}

	// B fired and has no alarm now: its entry (known from the poll) goes.
	other.AlarmDurable(cellB, 0, false, 2)
	other.flush(ctx)
	if keys := listKeys(t, s, bucketkey.WakeEntriesPrefix); len(keys) != 2 || strings.Contains(strings.Join(keys, " "), cellB) {
		t.Errorf("entries after B's disarm: %v", keys)
	}
}

// TestWaker_Claim: wake/waker.json byte for byte, renewal, expiry after
// WakerTTLTicks ticks, and takeover by one node at a time.
func TestWaker_Claim(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	a := newTestWake(t, s, clock, deadA)
	b := newTestWake(t, s, clock, liveB)
	a.local, b.local = &fakeWaker{}, &fakeWaker{}
	ttl := int64(WakerTTLTicks * 5000)

	a.tickWaker(ctx)
	b.tickWaker(ctx)
	if !a.waker.held() || b.waker.held() {
		t.Fatalf("held: a %v, b %v; want only a", a.waker.held(), b.waker.held())
	}
	body, _, _ := s.Get(ctx, bucketkey.WakerKey)
	if want := `{"node":"` + deadA + `","expires_ms":` + itoa(t0.UnixMilli()+ttl) + `}`; string(body) != want {
		t.Errorf("waker.json = %q, want %q", body, want)
	}

	clock.Add(5 * time.Second)
	a.tickWaker(ctx) // renewal
	body, _, _ = s.Get(ctx, bucketkey.WakerKey)
	if rec, _ := DecodeWakerRecord(body); rec.ExpiresMS != clock.Now().UnixMilli()+ttl {
		t.Errorf("renewed expires_ms = %d, want %d", rec.ExpiresMS, clock.Now().UnixMilli()+ttl)
	}

	// a stops ticking: b takes over once the record expired, not before.
	clock.Add(time.Duration(ttl-1) * time.Millisecond)
	b.tickWaker(ctx)
	if b.waker.held() {
		t.Fatal("b took the role before it expired")
	}
	clock.Add(time.Millisecond)
	b.tickWaker(ctx)
	if !b.waker.held() {
		t.Fatal("b did not take the expired role")
	}
	// a's renewal now fails: it gives the role up.
	if err := a.waker.renew(ctx, clock.Now()); !errors.Is(err, ErrWakerLost) || a.waker.held() {
		t.Errorf("a.renew = %v, held %v; want ErrWakerLost", err, a.waker.held())
	}
	a.tickWaker(ctx)
	if a.waker.held() {
		t.Error("a claimed b's live role")
	}
	// Release deletes only the holder's record.
	a.waker.release(ctx)
	if !exists(s, bucketkey.WakerKey) {
		t.Error("a non-holder's release deleted the record")
	}
	b.waker.release(ctx)
	if exists(s, bucketkey.WakerKey) {
		t.Error("the holder's release left the record")
	}
}

// TestWake_StartClose: Start reads the index and wakes what is due before
// it returns; the writer publishes what the host reports; Close writes what
// is queued, gives the waker role up and leaves no goroutine behind.
func TestWake_StartClose(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	due := WakeEntryBody{Cell: cellA, DueMS: t0.UnixMilli() - 1000, Epoch: 1}
	mustPut(s, due.Key(), due.Encode())
	w := newTestWake(t, s, clock, deadA)
	fw := &fakeWaker{}
	if err := w.Start(ctx, fw); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fw.scopes, []string{cellA}) {
		t.Errorf("woken at start: %v, want %v", fw.scopes, []string{cellA})
	}
	if !exists(s, bucketkey.WakerKey) {
		t.Error("no waker record after Start")
	}
	next := WakeEntryBody{Cell: cellB, DueMS: t0.UnixMilli() + 3_600_000, Epoch: 2}
	w.AlarmDurable(cellB, next.DueMS, true, 2)
	if err := w.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if body, _, err := s.Get(ctx, next.Key()); err != nil || string(body) != string(next.Encode()) {
		t.Errorf("after Close: %s = %s, %v; want the queued entry written", next.Key(), body, err)
	}
	if exists(s, bucketkey.WakerKey) {
		t.Error("Close left the waker record held")
	}
}

// TestWaker_AmbiguousClaim: a claim whose write landed but answered with an
// error is settled by reading the record back; one that did not land is not
// a claim.
func TestWaker_AmbiguousClaim(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	a := newTestWake(t, s, clock, deadA)
	a.local = &fakeWaker{}
	s.failAfterPut = func(key string) error {
		if key == bucketkey.WakerKey {
			return errors.New("injected: connection reset after the write")
		}
		return nil
	}
	if held, err := a.waker.claim(ctx, clock.Now()); !held || err != nil {
		t.Fatalf("claim = %v, %v; a landed claim was not recognised", held, err)
	}
	s.failAfterPut = nil
	clock.Add(5 * time.Second)
	if err := a.waker.renew(ctx, clock.Now()); err != nil {
		t.Errorf("renewal after the settled claim: %v (the etag read back must be current)", err)
	}

	// Not landed: another node's live record is what the read-back finds.
	b := newTestWake(t, s, clock, liveB)
	b.local = &fakeWaker{}
	clock.Add(time.Minute) // a's role expired
	s.failPut = func(key string) error {
		if key == bucketkey.WakerKey {
			s.failPut = nil
			mustPut(s.Store, key, WakerRecord{Node: celldC, ExpiresMS: clock.Now().UnixMilli() + 15000}.Encode())
			return errors.New("injected: timeout")
		}
		return nil
	}
	if held, _ := b.waker.claim(ctx, clock.Now()); held || b.waker.held() {
		t.Error("b holds the role after an ambiguous claim that another node won")
	}
}

// TestWaker_DeletesOldRetirements: the waker deletes retirements an hour
// past their minute, and keeps newer ones and every entry.
func TestWaker_DeletesOldRetirements(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	now := t0.UnixMilli()
	old := WakeEntryBody{Cell: cellA, DueMS: now - 2*RetiredKeepMS}
	recent := WakeEntryBody{Cell: cellB, DueMS: now - 60_000}
	entry := WakeEntryBody{Cell: cellC, DueMS: now - 2*RetiredKeepMS}
	mustPut(s, old.RetiredKey(), old.Encode())
	mustPut(s, recent.RetiredKey(), recent.Encode())
	mustPut(s, entry.Key(), entry.Encode())
	w := newTestWake(t, s, clock, deadA)
	w.local = &fakeWaker{}
	w.tickWaker(ctx)
	if exists(s, old.RetiredKey()) || !exists(s, recent.RetiredKey()) || !exists(s, entry.Key()) {
		t.Errorf("after a tick: old retirement %v, recent %v, entry %v; want false, true, true",
			exists(s, old.RetiredKey()), exists(s, recent.RetiredKey()), exists(s, entry.Key()))
	}
}

// TestWake_PollForgetsRemovedEntries: an entry another node removed is not
// retired again; one another node wrote is retired by this node's change.
func TestWake_PollForgetsRemovedEntries(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	ctx := context.Background()
	w := newTestWake(t, s, clock, deadA)
	w.local = &fakeWaker{}
	mine := WakeEntryBody{Cell: cellA, DueMS: t0.UnixMilli() + 3_600_000, Epoch: 1}
	w.AlarmDurable(cellA, mine.DueMS, true, 1)
	w.flush(ctx)
	if err := s.Delete(ctx, mine.Key(), ""); err != nil { // another node took and cleared it
		t.Fatal(err)
	}
	theirs := WakeEntryBody{Cell: cellB, DueMS: t0.UnixMilli() + 7_200_000, Epoch: 4}
	mustPut(s, theirs.Key(), theirs.Encode())
	if err := w.Poll(ctx); err != nil {
		t.Fatal(err)
	}
	mark := len(s.callsSince(0))
	w.AlarmDurable(cellA, 0, false, 1)
	w.AlarmDurable(cellB, 0, false, 5)
	w.flush(ctx)
	want := []string{"put " + theirs.RetiredKey(), "delete " + theirs.Key()}
	if got := writes(s.callsSince(mark)); !reflect.DeepEqual(got, want) {
		t.Errorf("writes %v, want %v", got, want)
	}
}

// TestWake_PublishAlarm: the synchronous publish writes the entry before
// it returns (the output gate's reply waits for it), reports a write that
// failed, and leaves the change queued so the next flush writes it.
func TestWake_PublishAlarm(t *testing.T) {
	s := newFaultStore()
	clock := &fakeNow{t: t0}
	w := newTestWake(t, s, clock, deadA)
	ctx := context.Background()
	w.mu.Lock()
	w.started = true // as after Start, without its goroutines
	w.mu.Unlock()
	e := WakeEntryBody{Cell: cellA, DueMS: t0.UnixMilli() + 60_000, Epoch: 2}
	if err := w.PublishAlarm(ctx, cellA, e.DueMS, 2); err != nil {
		t.Fatal(err)
	}
	if !exists(s, e.Key()) {
		t.Fatalf("PublishAlarm returned before %s was written", e.Key())
	}
	e2 := WakeEntryBody{Cell: cellA, DueMS: e.DueMS + 5*60_000, Epoch: 2}
	s.failPut = func(key string) error {
		if key == e2.Key() {
			return errors.New("injected: 500")
		}
		return nil
	}
	if err := w.PublishAlarm(ctx, cellA, e2.DueMS, 2); err == nil {
		t.Fatal("PublishAlarm = nil after a failed put")
	}
	s.failPut = nil
	w.flush(ctx)
	if exists(s, e.Key()) || !exists(s, e2.Key()) {
		t.Errorf("after the retry: old entry %v, new %v", exists(s, e.Key()), exists(s, e2.Key()))
	}
}

// TestWake_WakerLeaseHonoursLeaseTTL: with a 2 s node lease the waker
// lease is 2 s too (its tick a third of it), not WakerTTLTicks of the
// default 5 s tick; a longer node lease keeps the default tick.
func TestWake_WakerLeaseHonoursLeaseTTL(t *testing.T) {
	for _, tt := range []struct {
		lease, tick, wantTick time.Duration
	}{
		{2 * time.Second, 0, 2 * time.Second / WakerTTLTicks},
		{0, 0, DefaultWakerTick},
		{time.Minute, 0, DefaultWakerTick},
		{2 * time.Second, 300 * time.Millisecond, 300 * time.Millisecond},
	} {
		w, err := NewWake(WakeConfig{Store: newFaultStore(), Node: "node_" + strings.Repeat("a", 32), Tick: tt.tick, LeaseTTL: tt.lease})
		if err != nil {
			t.Fatal(err)
		}
		if w.cfg.Tick != tt.wantTick || w.waker.ttl != WakerTTLTicks*tt.wantTick {
			t.Errorf("lease %v tick %v: waker tick %v ttl %v, want tick %v", tt.lease, tt.tick, w.cfg.Tick, w.waker.ttl, tt.wantTick)
		}
	}
}
