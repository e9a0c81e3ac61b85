package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// CellWaker brings a cell back so that its stored alarm decides whether
// anything runs (*host.Host satisfies it). Wake fails with
// *ownership.CellOwnedElsewhereError when a live node owns the cell.
type CellWaker interface {
	Wake(ctx context.Context, scope string) error
}

// WakeConfig configures a Wake.
type WakeConfig struct {
	Store ownership.Store
	Node  string // this node's id
	// Poll is wakePollMs (DefaultWakePoll ms when zero).
	Poll time.Duration
	// Tick is the waker tick (DefaultWakerTick when zero); the waker
	// lease's TTL is WakerTTLTicks ticks.
	Tick time.Duration
	// LeaseTTL is the fleet's node lease TTL (--lease-ttl; 0: none): the
	// waker lease honours it, the tick being at most LeaseTTL /
	// WakerTTLTicks, so that the role moves, and a dead node's cells are
	// swept, about as soon after a death as its cells can be taken over.
	LeaseTTL time.Duration
	Clock    ownership.Clock // SystemClock when nil
	Log      *slog.Logger    // discards when nil
	// FailoverSweep makes the elected waker take over every cell a dead
	// node owned (its node-cells markers) before GC deletes the markers
	// (sweep.go), so that no cell of a dead owner waits for a request.
	FailoverSweep bool
}

// DefaultWakerTick is WakeConfig.Tick when zero.
const DefaultWakerTick = 5 * time.Second

// WakeStats are the counters of a Wake (cellhost diagnose, the logs).
type WakeStats struct {
	// wake index writes
	Published     int64 `json:"published"`
	Retired       int64 `json:"retired"`
	PublishErrors int64 `json:"publish_errors"`
	// cells activated by the index
	Woken      int64   `json:"woken"`
	WakeErrors int64   `json:"wake_errors"`
	WakerHeld  bool    `json:"waker_held"` // this node holds wake/waker.json
	GC         GCStats `json:"gc"`
}

// Wake is the wake index of one node (bucket protocol, section 6) and its
// share of the elected waker's duties (waker.go, gc.go). It implements
// host.AlarmSink: AlarmDurable queues the index change of a cell, and one
// goroutine writes the changes in order (the new entry, then the
// retirement of the old). Every Poll it reads the index and wakes the
// cells whose alarms come due before the next poll: its own cells, and, if
// it holds the waker role, every cell no live node owns.
//
// NewWake has no side effects; Start reads the index once and starts the
// goroutines; Close stops them, waiting for the writes already queued.
type Wake struct {
	cfg   WakeConfig
	local CellWaker

	flushMu sync.Mutex // one flush at a time: a cell's writes stay in order

	mu      sync.Mutex
	queue   map[string]*WakeEntryBody // latest change per scope; nil value: disarmed
	order   []string                  // scopes in queue, first queued first
	known   map[string][]WakeEntryBody
	warned  map[string]bool // scopes whose failed wake was logged as a warning
	wakeup  chan struct{}
	started bool

	waker   waker
	gc      *DeadNodeGc
	stats   WakeStats
	logged  WakeStats // the counters last logged (logCounters)
	woken   atomic.Int64
	wakeErr atomic.Int64

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// NewWake returns a Wake that is not running yet.
func NewWake(cfg WakeConfig) (*Wake, error) {
	if cfg.Store == nil || cfg.Node == "" {
		return nil, errors.New("new wake: need a store and a node id")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultWakePoll * time.Millisecond
	}
	if cfg.Tick <= 0 {
		cfg.Tick = DefaultWakerTick
	}
	if cfg.LeaseTTL > 0 {
		cfg.Tick = max(min(cfg.Tick, cfg.LeaseTTL/WakerTTLTicks), time.Millisecond)
	}
	if cfg.Clock == nil {
		cfg.Clock = ownership.SystemClock
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	w := &Wake{
		cfg:    cfg,
		queue:  map[string]*WakeEntryBody{},
		known:  map[string][]WakeEntryBody{},
		warned: map[string]bool{},
		wakeup: make(chan struct{}, 1),
		gc:     NewDeadNodeGc(cfg.Store, cfg.Log),
	}
	w.waker = waker{store: cfg.Store, node: cfg.Node, ttl: WakerTTLTicks * cfg.Tick}
	if cfg.FailoverSweep {
		w.gc.SetSweep(w.sweepCells)
	}
	return w, nil
}

// AlarmDurable implements host.AlarmSink. Safe from any goroutine; never
// blocks.
func (w *Wake) AlarmDurable(scope string, dueMS int64, armed bool, epoch uint64) {
	var next *WakeEntryBody
	if armed {
		next = &WakeEntryBody{Cell: scope, DueMS: dueMS, Epoch: epoch}
	}
	w.mu.Lock()
	if _, queued := w.queue[scope]; !queued {
		w.order = append(w.order, scope)
	}
	w.queue[scope] = next
	w.mu.Unlock()
	select {
	case w.wakeup <- struct{}{}:
	default:
	}
}

// PublishAlarm implements host.AlarmPublisher: it queues the entry of an
// armed alarm and writes the queue now (each new entry, then the
// retirement of the one it replaces), returning an error unless the entry
// is in the bucket. Before Start the change stays queued for Start's first
// write.
func (w *Wake) PublishAlarm(ctx context.Context, scope string, dueMS int64, epoch uint64) error {
	w.AlarmDurable(scope, dueMS, true, epoch)
	w.mu.Lock()
	started := w.started
	w.mu.Unlock()
	if !started {
		return nil
	}
	w.flush(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.known[scope], WakeEntryBody{Cell: scope, DueMS: dueMS, Epoch: epoch}) {
		return fmt.Errorf("wake entry of %s (due %d) not written", scope, dueMS)
	}
	return nil
}

// Start reads the wake index, wakes what is due, and starts the writer,
// the poll and the waker goroutines. local receives the wakes.
func (w *Wake) Start(ctx context.Context, local CellWaker) error {
	w.local = local
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.tickWaker(ctx)
	if err := w.Poll(ctx); err != nil {
		w.cancel()
		return fmt.Errorf("start wake: %w", err)
	}
	w.started = true
	w.wg.Add(3)
	go func() { defer w.wg.Done(); w.runWriter() }()
	go func() { defer w.wg.Done(); w.every(w.cfg.Poll, func() { _ = w.Poll(w.ctx) }) }()
	go func() { defer w.wg.Done(); w.every(w.cfg.Tick, func() { w.tickWaker(w.ctx) }) }()
	return nil
}

// Close stops the goroutines after writing the index changes already
// queued, and gives up the waker role if this node holds it.
func (w *Wake) Close(ctx context.Context) error {
	if !w.started {
		return nil
	}
	w.started = false
	w.flush(ctx)
	w.cancel()
	w.wg.Wait()
	w.waker.release(ctx)
	return nil
}

// every runs f each interval (on the Clock) until Close.
func (w *Wake) every(interval time.Duration, f func()) {
	for {
		fired := make(chan struct{})
		t := w.cfg.Clock.AfterFunc(interval, func() { close(fired) })
		select {
		case <-w.ctx.Done():
			t.Stop()
			return
		case <-fired:
			f()
		}
	}
}

// runWriter writes queued index changes until Close.
func (w *Wake) runWriter() {
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-w.wakeup:
			w.flush(w.ctx)
		}
	}
}

// flush writes every queued change, in queue order. A change that fails
// is queued again (unless a newer one replaced it) for the next flush.
func (w *Wake) flush(ctx context.Context) {
	w.flushMu.Lock()
	defer w.flushMu.Unlock()
	for {
		w.mu.Lock()
		if len(w.order) == 0 {
			w.mu.Unlock()
			return
		}
		scope := w.order[0]
		w.order = w.order[1:]
		next := w.queue[scope]
		delete(w.queue, scope)
		cur := w.known[scope]
		w.mu.Unlock()

		known, err := w.apply(ctx, cur, next)
		w.mu.Lock()
		if len(known) == 0 {
			delete(w.known, scope)
		} else {
			w.known[scope] = known
		}
		if err != nil {
			w.stats.PublishErrors++
			w.cfg.Log.Warn("wake index: write failed; trying again at the next poll", "scope", scope, "err", err)
			if _, newer := w.queue[scope]; !newer {
				w.queue[scope] = next
				w.order = append(w.order, scope)
			}
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// apply writes WakeTransition(cur, next) and returns the entries known
// in the bucket afterwards. After a failed write it returns cur (plus next
// once it was put): retrying the transition from there is safe, since
// retirements and deletes can be written twice.
func (w *Wake) apply(ctx context.Context, cur []WakeEntryBody, next *WakeEntryBody) ([]WakeEntryBody, error) {
	known := cur
	for _, op := range WakeTransition(cur, next) {
		var err error
		switch op.Kind {
		case PutEntry, PutRetired:
			_, err = w.cfg.Store.Put(ctx, op.Key, op.Body, plugins.PutOptions{})
		case DeleteOld:
			if err = w.cfg.Store.Delete(ctx, op.Key, ""); errors.Is(err, plugins.ErrNotFound) {
				err = nil
			}
		}
		if err != nil {
			return known, fmt.Errorf("write %s: %w", op.Key, err)
		}
		switch op.Kind {
		case PutEntry:
			known = append(slices.Clip(cur), *next)
			w.count(func(s *WakeStats) { s.Published++ })
		case DeleteOld:
			w.count(func(s *WakeStats) { s.Retired++ })
		}
	}
	if next != nil {
		return []WakeEntryBody{*next}, nil
	}
	return nil, nil
}

func (w *Wake) count(f func(*WakeStats)) {
	w.mu.Lock()
	f(&w.stats)
	w.mu.Unlock()
}

// Stats returns the counters.
func (w *Wake) Stats() WakeStats {
	w.mu.Lock()
	s := w.stats
	w.mu.Unlock()
	s.Woken, s.WakeErrors = w.woken.Load(), w.wakeErr.Load()
	s.WakerHeld = w.waker.held()
	s.GC = w.gc.Stats()
	return s
}

// Poll reads the wake index once: it learns every entry (so that a later
// change of the cell retires it) and wakes the cells of entries due before
// the next poll that this node may wake (wakeAllowed). Queued changes are
// written first.
func (w *Wake) Poll(ctx context.Context) error {
	w.flush(ctx)
	// No flush runs while the listing replaces what is known: the bucket
	// is the truth (entries other nodes wrote or removed included), and a
	// queued change applies on top of it.
	w.flushMu.Lock()
	entries, err := w.list(ctx)
	if err != nil {
		w.flushMu.Unlock()
		return err
	}
	now := w.cfg.Clock.Now().UnixMilli()
	var due []WakeEntryBody
	w.mu.Lock()
	for scope := range w.known {
		if _, listed := entries[scope]; !listed {
			delete(w.known, scope)
		}
	}
	for scope, es := range entries {
		w.known[scope] = withBodies(w.known[scope], es)
		for _, e := range es {
			if WakeDue(e, now, w.cfg.Poll.Milliseconds()) {
				due = append(due, e)
				break
			}
		}
	}
	w.mu.Unlock()
	w.flushMu.Unlock()
	sort.Slice(due, func(i, j int) bool { return due[i].DueMS < due[j].DueMS })
	isWaker := w.waker.held()
	for _, e := range due {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !w.wakeAllowed(ctx, e.Cell, isWaker) {
			continue
		}
		if err := w.local.Wake(ctx, e.Cell); err != nil {
			w.wakeErr.Add(1)
			var elsewhere *ownership.CellOwnedElsewhereError
			w.mu.Lock()
			first := !w.warned[e.Cell]
			w.warned[e.Cell] = true
			w.mu.Unlock()
			switch {
			case errors.As(err, &elsewhere):
				w.cfg.Log.Debug("wake: a live node owns the cell", "scope", e.Cell, "owner", elsewhere.Owner)
			case first: // once per cell until it wakes: a poll retries it
				w.cfg.Log.Warn("wake: activation failed; retrying every poll", "scope", e.Cell, "err", err)
			}
			continue
		}
		w.mu.Lock()
		delete(w.warned, e.Cell)
		w.mu.Unlock()
		w.woken.Add(1)
		w.cfg.Log.Info("wake: cell activated for its alarm", "scope", e.Cell, "due_ms", e.DueMS)
	}
	w.logCounters()
	return nil
}

// logCounters logs the counters when they changed since the last time.
func (w *Wake) logCounters() {
	st := w.Stats()
	cmp := st
	cmp.GC.Passes = w.logged.GC.Passes // a pass per tick is not news
	w.mu.Lock()
	changed := cmp != w.logged
	w.logged = st
	w.mu.Unlock()
	if !changed {
		return
	}
	w.cfg.Log.Info("wake: counters",
		"published", st.Published, "retired", st.Retired, "publish_errors", st.PublishErrors,
		"woken", st.Woken, "wake_errors", st.WakeErrors, "waker", st.WakerHeld,
		"gc_passes", st.GC.Passes, "gc_swept", st.GC.Swept, "gc_retries", st.GC.Retries,
		"gc_deletes", st.GC.Deletes, "gc_retired", st.GC.Retired, "gc_skipped", st.GC.Skipped, "gc_taken", st.GC.Taken)
}

// wakeAllowed decides whether this node wakes scope: the waker wakes any
// cell (taking it refuses live owners); another node only its own cells
// (own.json names it: a restart with the same node id).
func (w *Wake) wakeAllowed(ctx context.Context, scope string, isWaker bool) bool {
	if isWaker {
		return true
	}
	key := bucketkey.OwnKey(scope)
	body, _, err := w.cfg.Store.Get(ctx, key)
	if err != nil {
		return false
	}
	rec, err := ownership.DecodeOwnRecord(key, body)
	return err == nil && rec.Node == w.cfg.Node
}

// list returns every wake entry, by scope. The key's minute stands for the
// due time (its start): the body is not read.
func (w *Wake) list(ctx context.Context) (map[string][]WakeEntryBody, error) {
	out := map[string][]WakeEntryBody{}
	after := ""
	for {
		page, err := w.cfg.Store.List(ctx, bucketkey.WakeEntriesPrefix, after, 0)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", bucketkey.WakeEntriesPrefix, err)
		}
		for _, o := range page.Objects {
			k, err := bucketkey.ParseWakeKey(o.Key)
			if err != nil || k.Retired {
				continue
			}
			out[k.Scope] = append(out[k.Scope], WakeEntryBody{Cell: k.Scope, DueMS: k.MinuteMS})
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			return out, nil
		}
		after = page.NextStartAfter
	}
}

// withBodies returns the listed entries, each replaced by the known one of
// the same key (which carries the body: due_ms and epoch).
func withBodies(known, listed []WakeEntryBody) []WakeEntryBody {
	out := make([]WakeEntryBody, len(listed))
	for i, l := range listed {
		out[i] = l
		for _, k := range known {
			if k.Key() == l.Key() {
				out[i] = k
			}
		}
	}
	return out
}

// Wake is a host.AlarmPublisher (fleet does not import host).
var _ interface {
	PublishAlarm(ctx context.Context, scope string, dueMS int64, epoch uint64) error
} = (*Wake)(nil)
