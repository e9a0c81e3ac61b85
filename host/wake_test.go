package host_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
)

const alarmJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    const u = new URL(request.url);
    if (u.searchParams.has("arm")) {
      await this.ctx.storage.setAlarm(Date.now() + Number(u.searchParams.get("arm")));
    }
    return new Response("ok");
  }
  async alarm() { await this.ctx.storage.put("fired", true); }
}
export class Plain {}
export default { fetch() { return new Response("worker"); } };
`

type alarmCall struct {
	scope string
	due   int64
	armed bool
	epoch uint64
}

// recordingSink is a host.AlarmSink that hands every call to a channel.
type recordingSink struct{ calls chan alarmCall }

func (s *recordingSink) AlarmDurable(scope string, due int64, armed bool, epoch uint64) {
	s.calls <- alarmCall{scope, due, armed, epoch}
}

func (s *recordingSink) next(t *testing.T) alarmCall {
	t.Helper()
	select {
	case c := <-s.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("no AlarmDurable call")
		return alarmCall{}
	}
}

// heldSyncer holds each Sync until the test releases it.
type heldSyncer struct {
	inner   host.Syncer
	entered chan struct{}
	release chan struct{}
}

func (g *heldSyncer) Sync(dbs []*storage.DB) []error {
	g.entered <- struct{}{}
	<-g.release
	return g.inner.Sync(dbs)
}

func fetchDO(h *host.Host, name, path string) (string, error) {
	id := host.IDFromName("counter", "Counter", name)
	resp, err := h.FetchObject(context.Background(), "Counter", id, name, &jsapi.HTTPRequest{Method: "GET", URL: "http://do" + path})
	if err != nil {
		return "", err
	}
	return string(resp.Body), nil
}

// TestAlarmSink_AfterTheDurableCommit: the sink hears of the stored alarm at
// activation, and of a new one only once the commit that set it is durable; an idle object with a published alarm
// is evicted, and Wake brings it back with its stored alarm.
func TestAlarmSink_AfterTheDurableCommit(t *testing.T) {
	state := t.TempDir()
	sink := &recordingSink{calls: make(chan alarmCall, 10)}
	gate := &heldSyncer{inner: host.LocalSync{Dir: state}, entered: make(chan struct{}), release: make(chan struct{})}
	h := newHostB(t, alarmJS, state, func(c *host.Config) {
		c.AlarmSink = sink
		c.Syncer = gate
		c.IdleTimeout = -1 // no ticker: the test evicts
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	scope := "Counter:" + host.IDFromName("counter", "Counter", "later")

	before := time.Now().UnixMilli()
	done := make(chan error, 1)
	go func() { _, err := fetchDO(h, "later", "/?arm=3600000"); done <- err }()
	<-gate.entered
	// The activation reports the stored alarm (none yet).
	if c := sink.next(t); c.armed || c.scope != scope {
		t.Fatalf("activation: %+v, want %s disarmed", c, scope)
	}
	select {
	case c := <-sink.calls:
		t.Fatalf("AlarmDurable before the commit was durable: %+v", c)
	default:
	}
	close(gate.release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	c := sink.next(t)
	if c.scope != scope || !c.armed || c.epoch != 0 || c.due < before+3600000 || c.due > time.Now().UnixMilli()+3600000 {
		t.Fatalf("AlarmDurable = %+v, want %s armed an hour ahead, epoch 0", c, scope)
	}

	if n := host.EvictIdle(h); n != 1 {
		t.Fatalf("evicted %d cells, want the idle one with a published alarm", n)
	}
	if err := h.Wake(context.Background(), scope); err != nil {
		t.Fatal(err)
	}
	if again := sink.next(t); again != c {
		t.Errorf("after Wake: %+v, want the stored alarm %+v again", again, c)
	}
	if err := h.Wake(context.Background(), "Nope:"+strings.Repeat("0", 64)); !errors.Is(err, host.ErrNotACell) {
		t.Errorf("Wake(unknown class) = %v, want ErrNotACell", err)
	}
}

// TestAlarmSink_FiredAlarmIsCleared: an alarm that fires and is deleted
// reaches the sink as disarmed.
func TestAlarmSink_FiredAlarmIsCleared(t *testing.T) {
	sink := &recordingSink{calls: make(chan alarmCall, 10)}
	h := newHostB(t, alarmJS, t.TempDir(), func(c *host.Config) { c.AlarmSink = sink })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if _, err := fetchDO(h, "now", "/?arm=0"); err != nil {
		t.Fatal(err)
	}
	if c := sink.next(t); c.armed {
		t.Fatalf("activation: %+v, want disarmed (nothing stored)", c)
	}
	// Armed, then (after alarm() ran) disarmed; a disarm that lands before
	// the arm was durable replaces it.
	c := sink.next(t)
	if c.armed {
		c = sink.next(t)
	}
	if c.armed || c.due != 0 {
		t.Fatalf("after alarm(): %+v, want disarmed", c)
	}
	if body, err := fetchDO(h, "now", "/"); err != nil || body != "ok" {
		t.Fatalf("after alarm(): %q, %v", body, err)
	}
}

// TestAlarm_PinsWithoutSink: without a sink nobody would wake an evicted
// object, so an armed alarm keeps it resident.
func TestAlarm_PinsWithoutSink(t *testing.T) {
	h := newHostB(t, alarmJS, t.TempDir(), func(c *host.Config) { c.IdleTimeout = -1 })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if _, err := fetchDO(h, "pinned", "/?arm=3600000"); err != nil {
		t.Fatal(err)
	}
	if _, err := fetchDO(h, "plain", "/"); err != nil {
		t.Fatal(err)
	}
	if n := host.EvictIdle(h); n != 1 {
		t.Errorf("evicted %d, want only the object without an alarm", n)
	}
}

// TestAlarm_DueSoonStaysResident: an idle object whose published alarm is
// due within the idle timeout stays, so that its own timer fires it on
// time; one whose alarm is further away is evicted.
func TestAlarm_DueSoonStaysResident(t *testing.T) {
	sink := &recordingSink{calls: make(chan alarmCall, 10)}
	var skew atomic.Int64 // the eviction clock runs this far ahead
	clock := func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	h := newHostB(t, alarmJS, t.TempDir(), func(c *host.Config) {
		c.AlarmSink = sink
		c.IdleTimeout = time.Minute
	}, host.WithClock(clock))
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if _, err := fetchDO(h, "soon", "/?arm=150000"); err != nil {
		t.Fatal(err)
	}
	if _, err := fetchDO(h, "far", "/?arm=600000"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ { // two activations, two durable alarms
		sink.next(t)
	}
	skew.Store(int64(2 * time.Minute)) // both idle; "soon" due within a minute of then
	if n := host.EvictIdle(h); n != 1 {
		t.Fatalf("evicted %d, want only the object whose alarm is 10 minutes away", n)
	}
	if n := host.EvictIdle(h); n != 0 {
		t.Errorf("second pass evicted %d, want 0 (the other alarm is due soon)", n)
	}
}

// publishingSink is a host.AlarmPublisher whose PublishAlarm waits for
// the test.
type publishingSink struct {
	recordingSink
	published chan []host.DurableAlarm
	release   chan error
}

func (s *publishingSink) PublishAlarm(ctx context.Context, scope string, dueMS int64, epoch uint64) error {
	s.published <- []host.DurableAlarm{{Scope: scope, DueMS: dueMS, Epoch: epoch}}
	return <-s.release
}

// TestAlarmPublisher_ReplyWaitsForTheEntry: the reply to a request that
// armed an alarm leaves only after PublishAlarm returned (a kill between
// the reply and the wake-index publish cannot leave the alarm unindexed);
// a failed publish still lets it go, and AlarmDurable follows either way.
func TestAlarmPublisher_ReplyWaitsForTheEntry(t *testing.T) {
	sink := &publishingSink{recordingSink: recordingSink{calls: make(chan alarmCall, 10)},
		published: make(chan []host.DurableAlarm, 1), release: make(chan error)}
	h := newHostB(t, alarmJS, t.TempDir(), func(c *host.Config) { c.AlarmSink = sink })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	scope := "Counter:" + host.IDFromName("counter", "Counter", "pub")
	for i, pubErr := range []error{nil, errors.New("bucket down")} {
		before := time.Now().UnixMilli()
		done := make(chan error, 1)
		go func() { _, err := fetchDO(h, "pub", "/?arm=3600000"); done <- err }()
		got := <-sink.published
		if len(got) != 1 || got[0].Scope != scope || got[0].DueMS < before+3600000 {
			t.Fatalf("round %d: PublishAlarm(%+v), want %s an hour ahead", i, got, scope)
		}
		select {
		case err := <-done:
			t.Fatalf("round %d: the reply (%v) left before the publish returned", i, err)
		default:
		}
		sink.release <- pubErr
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		for {
			if c := sink.next(t); c.armed {
				if c.due != got[0].DueMS {
					t.Fatalf("AlarmDurable(%+v), want due %d", c, got[0].DueMS)
				}
				break
			}
		}
	}
	// A request that changes no alarm does not wait for the sink.
	if _, err := fetchDO(h, "pub", "/"); err != nil {
		t.Fatal(err)
	}
}

// TestHost_StaleSocketRows: rows of hibernated WebSockets that no
// connection holds (their node died with the client) are deleted by the
// activation's GC; a held socket's row stays.
func TestHost_StaleSocketRows(t *testing.T) {
	h := newHostB(t, alarmJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if _, err := fetchDO(h, "ws", "/"); err != nil {
		t.Fatal(err)
	}
	if err := host.StoreSocketRow(h, "Counter", "ws", "stale", false); err != nil {
		t.Fatal(err)
	}
	if err := host.StoreSocketRow(h, "Counter", "ws", "held", true); err != nil {
		t.Fatal(err)
	}
	n, left, err := host.SweepSocketRows(h, "Counter", "ws")
	if err != nil || n != 1 || len(left) != 1 || left[0] != "held" {
		t.Fatalf("SweepSocketRows = %d, %v, %v; want 1 deleted, [held] left", n, left, err)
	}
}
