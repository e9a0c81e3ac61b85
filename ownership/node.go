package ownership

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// DefaultTTL is the node lease's time to live when Config.TTL is zero.
const DefaultTTL = 10 * time.Second

// Config configures a Node. Only Store is required.
type Config struct {
	// Store is the bucket shared by the fleet.
	Store Store
	// NodeID is this node's id, "node_<32 lowercase hex>"; "" picks a
	// random one. A configured id is a singleton: a second Node started
	// with the same id takes the lease over and the first fences itself.
	NodeID string
	// Addr is the address other nodes reach this one at; "" advertises
	// DefaultAddr(NodeID), which never resolves.
	Addr string
	// TTL is the lease's time to live (DefaultTTL when zero); the lease is
	// renewed every RenewEvery.
	TTL time.Duration
	// RenewEvery is how long after a landed renewal the next one starts
	// (TTL/3 when zero; at most TTL/3). A shorter period leaves more of
	// the TTL - FenceMargin window for retries when a write is slow:
	// with TTL/3 a renewal that times out (after TTL/3) leaves no time
	// for its read-back and a retry before the node must fence, which a
	// loaded machine's slow bucket write was enough to cause (issue 31).
	RenewEvery time.Duration
	// HedgeAfter, when positive, is how long a renewal's write may be in
	// flight before another is sent beside it (same If-Match, a newer
	// stamp; at most two more, each HedgeAfter after the last): on a
	// store whose latency varies per request, one slow write then no
	// longer fences the node (see renew). 0: one write at a time.
	HedgeAfter time.Duration
	// FenceMargin is how long before its expires_ms the node stops
	// acknowledging writes (TTL/5 when zero): the clock skew between nodes
	// it tolerates. It must be less than TTL*2/3.
	FenceMargin time.Duration
	// Clock is the time source (SystemClock when nil).
	Clock Clock
	// Log receives one record per notable event: fences, ambiguous or
	// slow renewals, takeovers at Warn; starts, acquisitions, releases at
	// Info (nil discards them).
	Log *slog.Logger
	// SkipProbe skips the storage probe in Start (for tests with stores
	// that script every call).
	SkipProbe bool
	// Rejoin makes a node that fenced itself because no renewal landed in
	// time (the bucket was unreachable or refused writes) take a new lease,
	// with a new generation, as soon as the bucket answers again (see
	// rejoin.go). A node fenced because another writer changed its record
	// never rejoins.
	Rejoin bool
}

// Node is this process's membership in the fleet: its lease on
// nodes/<node>.json and the cells it owns.
//
// Lifecycle: New (no side effects) → Start (once) → TryAcquire, Lease.Check,
// Lease.Release from any goroutines, concurrently → Close (once; later calls
// return nil). CanAck, Fenced, Done, Err, ID and Generation may be called
// at any time from any goroutine.
//
// Start starts two things that Close stops: the renewal goroutine and the
// deadline timer. If renewals stop landing, the deadline timer fences the
// node when its lease could have lapsed: CanAck turns false, every Lease's
// Lost closes, Done closes. A renewal rejected by the store (another
// writer changed the record) fences at once. A fenced node never renews
// again, unless Config.Rejoin: then, when the fence came from renewals
// that did not land, it takes a new lease with a new generation once the
// bucket answers (rejoin.go); the leases of before the fence stay lost.
type Node struct {
	store      Store
	id         string
	generation string // guarded by mu (it changes when the node rejoins)
	addr       string
	probeKey   string
	ttl        time.Duration
	every      time.Duration // renewal period (Config.RenewEvery)
	hedgeAfter time.Duration // Config.HedgeAfter
	margin     time.Duration
	clock      Clock
	log        *slog.Logger
	skipProbe  bool
	rejoin     bool
	key        string

	cancel context.CancelFunc // stops run
	wg     sync.WaitGroup     // run
	ops    sync.WaitGroup     // TryAcquire calls in flight; Add only under mu while started

	mu      sync.Mutex
	state   nodeState     // guarded by mu
	etag    string        // guarded by mu; ETag of my last lease write
	pending *pendingWrite // guarded by mu; an ambiguous lease write not yet resolved
	// late are ambiguous lease writes that a read-back found not (yet)
	// landed: a conditional write the store still held (a file store's
	// queue, an S3 request the server applies after the client gave up)
	// can land afterwards, and the next renewal's If-Match then fails on
	// my own write. Cleared when a write lands. Guarded by mu.
	late []pendingWrite
	// attemptAt is when the renewal in flight started (monotonic; 0:
	// none), for the fence's reason. Guarded by mu.
	attemptAt time.Duration
	fenceAt   time.Duration         // guarded by mu; monotonic time after which I must not acknowledge
	anchor    time.Duration         // guarded by mu; monotonic time of my last landed lease write
	expires   uint64                // guarded by mu; expires_ms of my last landed lease write
	fenced    *FencedError          // guarded by mu; non-nil once fenced
	lapsed    bool                  // guarded by mu; fenced because no renewal landed in time
	joining   bool                  // guarded by mu; a rejoin's lease write is in flight
	rejoined  chan struct{}         // guarded by mu; closed when the node rejoins
	stopped   bool                  // guarded by mu; renewals stopped by Close
	done      chan struct{}         // closed when fenced or when Close begins
	deadline  Timer                 // guarded by mu
	leases    map[string]*Lease     // guarded by mu; by scope
	refused   map[string]lostRecord // guarded by mu; by scope
	// elsewhere is the owner TryAcquire last found owning a scope while
	// its lease was live (CellOwnedElsewhereError), by scope: the next
	// TryAcquire of that scope (the takeover once that lease expired)
	// reads the owner's lease together with own.json instead of after
	// it. Bounded by maxElsewhere (it starts over when full). Guarded by mu.
	elsewhere map[string]string
}

type nodeState int

const (
	stateNew nodeState = iota
	stateStarting
	stateStarted
	stateClosing
	stateClosed
)

// pendingWrite is a lease write whose outcome is unknown.
type pendingWrite struct {
	body  []byte
	stamp stamp
}

type lostRecord struct {
	until time.Duration // monotonic
	err   *LostRecordError
}

// New returns a Node for cfg. It validates cfg and touches nothing.
func New(cfg Config) (*Node, error) {
	if cfg.Store == nil {
		return nil, errors.New("new ownership node: no store")
	}
	if cfg.NodeID == "" {
		cfg.NodeID = NewNodeID()
	}
	if err := ValidateNodeID(cfg.NodeID); err != nil {
		return nil, fmt.Errorf("new ownership node: %w", err)
	}
	if cfg.Addr == "" {
		cfg.Addr = DefaultAddr(cfg.NodeID)
	}
	if cfg.TTL == 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.TTL < 3*time.Millisecond {
		return nil, fmt.Errorf("new ownership node: ttl %v is too short", cfg.TTL)
	}
	if cfg.FenceMargin == 0 {
		cfg.FenceMargin = cfg.TTL / 5
	}
	if cfg.FenceMargin < 0 || cfg.FenceMargin >= cfg.TTL*2/3 {
		return nil, fmt.Errorf("new ownership node: fence margin %v must be positive and less than 2/3 of the ttl %v", cfg.FenceMargin, cfg.TTL)
	}
	if cfg.RenewEvery <= 0 || cfg.RenewEvery > cfg.TTL/3 {
		cfg.RenewEvery = cfg.TTL / 3
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new ownership node: %w", err)
	}
	return &Node{
		store:      cfg.Store,
		id:         cfg.NodeID,
		generation: NewGeneration(),
		addr:       cfg.Addr,
		probeKey:   hex.EncodeToString(pub),
		ttl:        cfg.TTL,
		every:      cfg.RenewEvery,
		hedgeAfter: cfg.HedgeAfter,
		margin:     cfg.FenceMargin,
		clock:      cfg.Clock,
		log:        cfg.Log,
		skipProbe:  cfg.SkipProbe,
		rejoin:     cfg.Rejoin,
		rejoined:   make(chan struct{}),
		key:        bucketkey.NodeKey(cfg.NodeID),
		done:       make(chan struct{}),
		leases:     map[string]*Lease{},
		refused:    map[string]lostRecord{},
		elsewhere:  map[string]string{},
	}, nil
}

// ID returns the node id.
func (n *Node) ID() string { return n.id }

// Generation returns this Node's ownership index generation (64 hex), the
// <generation> of its node-cells markers.
func (n *Node) Generation() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.generation
}

// Start runs the storage probe (unless Config.SkipProbe), takes the node
// lease, and starts renewing it. ctx bounds the start-up calls only. Start
// may be retried after a failure; it fails once it has succeeded.
func (n *Node) Start(ctx context.Context) error {
	n.mu.Lock()
	switch n.state {
	case stateNew:
	case stateClosing, stateClosed:
		n.mu.Unlock()
		return fmt.Errorf("start node %s: %w", n.id, ErrClosed)
	default:
		n.mu.Unlock()
		return fmt.Errorf("start node %s: already started", n.id)
	}
	n.state = stateStarting
	n.mu.Unlock()

	err := n.start(ctx)
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.state = stateNew
		return fmt.Errorf("start node %s: %w", n.id, err)
	}
	n.state = stateStarted
	n.armDeadlineLocked()
	rctx, cancel := context.WithCancel(context.Background())
	n.cancel = cancel
	n.wg.Add(1)
	go n.run(rctx)
	n.logInfo("ownership: node %s started (generation %s, lease %s, ttl %v)", n.id, n.generation, n.key, n.ttl)
	return nil
}

func (n *Node) start(ctx context.Context) error {
	if !n.skipProbe {
		if _, err := Probe(ctx, n.store); err != nil {
			return err
		}
	}
	return n.acquireNodeLease(ctx)
}

// acquireNodeLease creates my lease with If-None-Match: *, or CASes over an
// existing record for my node id.
func (n *Node) acquireNodeLease(ctx context.Context) error {
	const attempts = 3
	var lastErr error
	for range attempts {
		mono, body := n.stamp()
		etag, err := n.store.Put(ctx, n.key, body, plugins.PutOptions{IfNoneMatch: true})
		if errors.Is(err, plugins.ErrPreconditionFailed) {
			var cur []byte
			var curEtag string
			cur, curEtag, err = n.store.Get(ctx, n.key)
			if errors.Is(err, plugins.ErrNotFound) {
				lastErr = err
				continue // deleted since: create again
			}
			if err != nil {
				return fmt.Errorf("read %s: %w", n.key, err)
			}
			if rec, derr := DecodeNodeRecord(n.key, cur); derr != nil {
				n.logWarn("ownership: replacing undecodable %v", derr)
			} else if rec.Live(n.key, n.clock.Now()) {
				n.logWarn("ownership: %s is live (generation %s): taking it over; the process holding it fences itself", n.key, rec.OwnershipIndexGeneration)
			}
			mono, body = n.stamp()
			etag, err = n.store.Put(ctx, n.key, body, plugins.PutOptions{IfMatch: curEtag})
		}
		switch {
		case err == nil:
			n.landed(etag, mono)
			return nil
		case rejected(err):
			lastErr = err
			continue
		case ctx.Err() != nil:
			return fmt.Errorf("write %s: %w", n.key, err)
		}
		// Ambiguous: read it back.
		lastErr = err
		got, gotEtag, gerr := n.store.Get(ctx, n.key)
		if gerr == nil && bytes.Equal(got, body) {
			n.landed(gotEtag, mono)
			return nil
		}
		if gerr != nil && !errors.Is(gerr, plugins.ErrNotFound) {
			return fmt.Errorf("write %s: %w (read back: %v)", n.key, err, gerr)
		}
	}
	return fmt.Errorf("write %s: gave up after %d attempts: %w", n.key, attempts, lastErr)
}

// stamp returns the monotonic anchor and the lease body whose expires_ms is
// computed from the wall clock read at that anchor.
func (n *Node) stamp() (stamp, []byte) {
	mono := n.clock.Monotonic()
	wall := n.clock.Now()
	n.mu.Lock()
	gen := n.generation
	n.mu.Unlock()
	rec := NodeRecord{
		Node:                     n.id,
		ExpiresMS:                uint64(wall.UnixMilli() + n.ttl.Milliseconds()),
		Addr:                     n.addr,
		ProbePublicKey:           n.probeKey,
		PeerProtocol:             peerProtocol,
		OwnershipIndexGeneration: gen,
		Load:                     UnattractiveLoad(),
	}
	return stamp{mono: mono, expires: rec.ExpiresMS}, rec.Encode()
}

// stamp is when a lease write was computed: the monotonic anchor and the
// expires_ms it carries.
type stamp struct {
	mono    time.Duration
	expires uint64
}

// landed records a lease write that reached the store.
func (n *Node) landed(etag string, st stamp) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fenced != nil && !n.joining {
		return // a fenced node never extends its lease (but by rejoining)
	}
	if !n.joining && n.fenceAt > 0 && (n.state == stateStarted || n.state == stateClosing) && n.clock.Monotonic() >= n.fenceAt {
		// The lease could have lapsed before this renewal landed (the
		// process was paused, or the deadline timer has not run yet):
		// other nodes may have taken cells over meanwhile, so the node
		// fences exactly as the deadline timer would, rather than
		// extending the lease and answering from its old instances (a
		// stale read seen in TestChaos after a SIGCONT).
		n.fenceLocked(fmt.Sprintf("no lease renewal landed in time: the lease could have lapsed (a renewal landed %v after the deadline)", (n.clock.Monotonic() - n.fenceAt).Round(time.Millisecond)))
		return
	}
	n.etag = etag
	n.late = nil // none of them can land on the new etag
	if fa := st.mono + n.ttl - n.margin; fa > n.fenceAt {
		n.fenceAt = fa
		n.anchor = st.mono
		n.expires = st.expires
	}
	if n.state == stateStarted || n.state == stateClosing {
		n.armDeadlineLocked()
	}
}

// logInfo and logWarn log one line, formatted, at their level.
func (n *Node) logInfo(format string, args ...any) { n.logAt(slog.LevelInfo, format, args...) }
func (n *Node) logWarn(format string, args ...any) { n.logAt(slog.LevelWarn, format, args...) }

func (n *Node) logAt(lv slog.Level, format string, args ...any) {
	ctx := context.Background()
	if n.log.Enabled(ctx, lv) {
		n.log.Log(ctx, lv, fmt.Sprintf(format, args...))
	}
}

// armDeadlineLocked (re)starts the deadline timer for fenceAt.
func (n *Node) armDeadlineLocked() {
	if n.deadline != nil {
		n.deadline.Stop()
	}
	n.deadline = n.clock.AfterFunc(n.fenceAt-n.clock.Monotonic(), n.onDeadline)
}

func (n *Node) onDeadline() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fenced != nil || n.stopped || n.state == stateClosed {
		return
	}
	now := n.clock.Monotonic()
	if now < n.fenceAt {
		n.armDeadlineLocked()
		return
	}
	reason := fmt.Sprintf("no lease renewal landed in time: the lease could have lapsed (the last landed %v ago", (now - n.anchor).Round(time.Millisecond))
	if n.attemptAt > 0 {
		reason += fmt.Sprintf("; a renewal has been in flight for %v", (now - n.attemptAt).Round(time.Millisecond))
	} else {
		reason += "; no renewal in flight"
	}
	n.fenceLocked(reason + ")")
	n.lapsed = true
}

// fenceLocked fences the node: no more acknowledgements or renewals, every
// owned cell is lost.
func (n *Node) fenceLocked(reason string) {
	if n.fenced != nil {
		return
	}
	n.fenced = &FencedError{Reason: reason}
	n.logWarn("ownership: node %s fenced: %s", n.id, reason)
	if n.deadline != nil {
		n.deadline.Stop()
	}
	for _, l := range n.leases {
		l.lose()
	}
	n.closeDoneLocked()
}

func (n *Node) closeDoneLocked() {
	select {
	case <-n.done:
	default:
		close(n.done)
	}
}

func (n *Node) fence(reason string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.fenceLocked(reason)
}

// run renews the lease every n.every until ctx ends or the node fences.
// Wake-ups are absolute monotonic times, so a clock that moved on before a
// timer was set only makes the timer fire sooner.
func (n *Node) run(ctx context.Context) {
	defer n.wg.Done()
	wake := make(chan struct{}, 1)
	retry := max(n.ttl/10, time.Millisecond)
	n.mu.Lock()
	next := n.anchor + n.every
	n.mu.Unlock()
	for {
		t := n.clock.AfterFunc(next-n.clock.Monotonic(), func() {
			select {
			case wake <- struct{}{}:
			default:
			}
		})
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-wake:
		}
		if n.Fenced() {
			if !n.rejoinable() || !n.rejoinLoop(ctx) {
				return
			}
			n.mu.Lock()
			next = n.anchor + n.every
			n.mu.Unlock()
			continue
		}
		woke := n.clock.Monotonic()
		if n.renew(ctx) {
			n.mu.Lock()
			next = n.anchor + n.every
			n.mu.Unlock()
		} else {
			next = woke + retry
		}
	}
}

// renew writes the lease with If-Match of my last write's ETag. It reports
// whether the lease was extended.
//
// With Config.HedgeAfter, a write still in flight after HedgeAfter gets a
// sibling: the same If-Match, a newer stamp, sent beside it (at most
// maxHedges of them, each HedgeAfter after the last). A slow store's
// latency varies per request (a queued request, a stalled connection, a
// process starved on a loaded machine): one slow write no longer costs the
// whole fence window (issue 31: healthy nodes fenced when one S3 write took
// more than the 1.2 s left of a 2 s TTL). Safety is unchanged: the writes
// carry one If-Match, so at most one of them lands; a landed write's fence
// point counts from when that write was stamped (before it was sent); a
// rejected one is another writer unless the record read back is one of my
// own writes (adoptLate), as for a single write.
func (n *Node) renew(ctx context.Context) bool {
	n.mu.Lock()
	pending := n.pending != nil
	n.mu.Unlock()
	if pending {
		rctx, rcancel := context.WithTimeout(ctx, n.ttl/3)
		resolved := n.resolvePending(rctx)
		rcancel()
		if !resolved {
			return false
		}
	}
	if n.Fenced() {
		return false
	}
	n.mu.Lock()
	etag, anchor := n.etag, n.anchor
	n.mu.Unlock()

	type result struct {
		w    pendingWrite
		etag string
		err  error
	}
	results := make(chan result, maxHedges+1) // every write's goroutine sends once and ends
	sent := 0
	launch := func() {
		mono, body := n.stamp()
		w := pendingWrite{body: body, stamp: mono}
		if sent == 0 {
			n.mu.Lock()
			n.attemptAt = mono.mono
			n.mu.Unlock()
		}
		sent++
		pctx, cancel := context.WithTimeout(ctx, n.attemptTimeout())
		n.wg.Add(1) // Close waits for it (ctx is the renewal loop's)
		go func() {
			defer n.wg.Done()
			defer cancel()
			newEtag, err := n.store.Put(pctx, n.key, body, plugins.PutOptions{IfMatch: etag})
			if took := n.clock.Monotonic() - mono.mono; took > n.ttl/4 {
				n.logWarn("ownership: lease renewal of %s took %v (err: %v)", n.key, took.Round(time.Millisecond), err)
			}
			results <- result{w, newEtag, err}
		}()
	}
	var (
		hedge   chan struct{}
		hedgeT  Timer
		unknown []pendingWrite // writes whose outcome is unknown
		lastErr error
		refused bool // a write was rejected: the record was not etag
	)
	armHedge := func() {
		hedge = nil
		if n.hedgeAfter > 0 && sent <= maxHedges {
			h := make(chan struct{})
			hedge = h
			hedgeT = n.clock.AfterFunc(n.hedgeAfter, func() { close(h) })
		}
	}
	defer func() {
		if hedgeT != nil {
			hedgeT.Stop()
		}
		n.mu.Lock()
		n.attemptAt = 0
		n.mu.Unlock()
	}()
	launch()
	armHedge()
	for outstanding := 1; outstanding > 0; {
		select {
		case r := <-results:
			outstanding--
			switch {
			case r.err == nil:
				// The others carry the same If-Match: none of them can
				// land now; their goroutines end on their own.
				n.landed(r.etag, r.w.stamp)
				return true
			case rejected(r.err):
				refused, lastErr = true, r.err
			default:
				unknown, lastErr = append(unknown, r.w), r.err
			}
		case <-hedge:
			if n.Fenced() || ctx.Err() != nil {
				hedge = nil
				continue
			}
			n.logWarn("ownership: lease renewal of %s still in flight after %v; sending another beside it", n.key, (time.Duration(sent) * n.hedgeAfter).Round(time.Millisecond))
			launch()
			outstanding++
			armHedge()
		}
	}

	if refused {
		// Another writer, or one of my own writes (an unknown one of
		// this renewal, or an earlier late one) landed unheard.
		n.addLate(unknown...)
		if n.adoptLate(ctx) {
			return false // my own late write, or unreadable: try again soon
		}
		n.fence(fmt.Sprintf("lease renewal rejected: another writer changed %s (%v)", n.key, lastErr))
		return false
	}
	n.logWarn("ownership: lease renewal of %s ambiguous: %v", n.key, lastErr)
	last := unknown[len(unknown)-1]
	n.addLate(unknown[:len(unknown)-1]...)
	n.mu.Lock()
	n.pending = &last
	n.mu.Unlock()
	if ctx.Err() != nil {
		return false // Close resolves it
	}
	// The read-back is bounded like the write: a hung read would hold
	// every later renewal until the deadline fenced the node.
	rctx, rcancel := context.WithTimeout(ctx, n.ttl/3)
	resolved := n.resolvePending(rctx)
	rcancel()
	if !resolved {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fenced == nil && n.anchor != anchor
}

// addLate remembers writes whose outcome is unknown and that may land
// later (Node.late), keeping the newest maxLate.
func (n *Node) addLate(ws ...pendingWrite) {
	if len(ws) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.late = append(n.late, ws...)
	if len(n.late) > maxLate {
		n.late = n.late[len(n.late)-maxLate:]
	}
}

// resolvePending reads the lease back to settle an ambiguous write. It
// reports whether the outcome is now known (landed or not); the node is
// fenced when someone else wrote the record.
func (n *Node) resolvePending(ctx context.Context) bool {
	n.mu.Lock()
	p, etag := n.pending, n.etag
	n.mu.Unlock()
	if p == nil {
		return true
	}
	body, gotEtag, err := n.store.Get(ctx, n.key)
	switch {
	case errors.Is(err, plugins.ErrNotFound):
		n.fence(fmt.Sprintf("%s was deleted by another writer", n.key))
	case err != nil:
		n.logWarn("ownership: read back %s: %v", n.key, err)
		return false
	case gotEtag == etag:
		// The write did not land (yet: it may still, see late).
		n.mu.Lock()
		n.late = append(n.late, *p)
		if len(n.late) > maxLate {
			n.late = n.late[len(n.late)-maxLate:]
		}
		n.mu.Unlock()
	case bytes.Equal(body, p.body):
		n.landed(gotEtag, p.stamp)
	default:
		// A sibling write of the same renewal (Config.HedgeAfter), or an
		// earlier late one, may be what landed.
		n.mu.Lock()
		late := append([]pendingWrite(nil), n.late...)
		n.mu.Unlock()
		mine := false
		for _, w := range late {
			if bytes.Equal(body, w.body) {
				n.landed(gotEtag, w.stamp)
				mine = true
				break
			}
		}
		if !mine {
			n.fence(fmt.Sprintf("another writer changed %s", n.key))
		}
	}
	n.mu.Lock()
	n.pending = nil
	n.mu.Unlock()
	return true
}

// attemptTimeout bounds one renewal write: at least TTL/3, and otherwise
// until shortly before the fence point. A slow bucket (an S3 server whose
// p99 is near TTL/3 on a loaded machine) lands a write after 700 ms that
// a TTL/3 timeout would have cancelled, leaving too little time for the
// read-back and a retry; a write that has not landed by the fence point
// is useless anyway.
func (n *Node) attemptTimeout() time.Duration {
	n.mu.Lock()
	left := n.fenceAt - n.clock.Monotonic() - n.ttl/20
	n.mu.Unlock()
	return max(n.ttl/3, left)
}

// maxLate bounds Node.late.
const maxLate = 8

// maxHedges is how many writes one renewal sends beside its first
// (Config.HedgeAfter).
const maxHedges = 2

// adoptLate is called when a renewal's If-Match was rejected after
// ambiguous writes that did not seem to land (late): if the record now
// holds one of them, it landed late, and is adopted (its etag, its
// stamp). It reports true when the node must not fence for the
// rejection: the write was mine, or the record cannot be read now (the
// deadline timer fences if nothing lands). False: another writer.
func (n *Node) adoptLate(ctx context.Context) bool {
	n.mu.Lock()
	late := append([]pendingWrite(nil), n.late...)
	n.mu.Unlock()
	if len(late) == 0 {
		return false
	}
	rctx, cancel := context.WithTimeout(ctx, n.ttl/3)
	defer cancel()
	body, etag, err := n.store.Get(rctx, n.key)
	switch {
	case errors.Is(err, plugins.ErrNotFound):
		return false
	case err != nil:
		n.logWarn("ownership: read back %s after a rejected renewal: %v", n.key, err)
		return true
	}
	for _, p := range late {
		if bytes.Equal(body, p.body) {
			n.logWarn("ownership: an earlier renewal of %s landed late; adopting it", n.key)
			n.landed(etag, p.stamp)
			return true
		}
	}
	return false
}

// rejected reports whether a conditional write was cleanly rejected: 412 or
// 409, or If-Match on a missing key.
func rejected(err error) bool {
	return errors.Is(err, plugins.ErrPreconditionFailed) || errors.Is(err, plugins.ErrNotFound)
}

// CanAck reports whether the node may acknowledge a write now: it is
// started, not fenced, Close has not stopped its renewals, and its last
// landed lease write is less than TTL - FenceMargin old on the monotonic
// clock (from just before that write was sent).
func (n *Node) CanAck() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.canAckLocked()
}

func (n *Node) canAckLocked() bool {
	return (n.state == stateStarted || n.state == stateClosing) && n.fenced == nil && !n.stopped &&
		n.clock.Monotonic() < n.fenceAt
}

// ExpiresMS returns the expires_ms of the node's last landed lease write
// (0 before Start).
func (n *Node) ExpiresMS() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.expires
}

// Fenced reports whether the node has fenced itself (a renewal was
// rejected, or the deadline passed without one). It never turns false.
func (n *Node) Fenced() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.fenced != nil
}

// Done is closed when the node fences itself or Close begins.
// With Config.Rejoin a rejoined node has a new Done channel: call Done
// again after Rejoined closes.
func (n *Node) Done() <-chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.done
}

// Err returns nil while the node runs, a *FencedError once it fenced, or
// ErrClosed once Close began (when it did not fence first).
func (n *Node) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.fenced != nil:
		return n.fenced
	case n.state == stateClosing || n.state == stateClosed:
		return ErrClosed
	}
	return nil
}

// ackError returns why scope's writes cannot be acknowledged, or nil.
func (n *Node) ackError(scope string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.ackErrorLocked(scope)
}

func (n *Node) ackErrorLocked(scope string) error {
	switch {
	case n.fenced != nil:
		return &FencedError{Scope: scope, Reason: n.fenced.Reason}
	case n.state == stateNew || n.state == stateStarting:
		return ErrNotStarted
	case n.state == stateClosed || n.stopped:
		return ErrClosed
	case !n.canAckLocked():
		return &FencedError{Scope: scope, Reason: "the lease could have lapsed (no renewal landed in time)"}
	}
	return nil
}

// Close ends the node: it refuses new TryAcquire calls, waits for those in
// flight, releases every cell still owned (closing their Lost), stops
// renewing, and deletes the lease (conditional on my last write's ETag).
// It returns the errors of the releases and the delete; a cell another
// node took meanwhile is not an error. The host stops serving its cells
// (making their logs durable) before calling Close. Later calls return nil.
func (n *Node) Close(ctx context.Context) error {
	n.mu.Lock()
	prev := n.state
	switch prev {
	case stateClosing, stateClosed:
		n.mu.Unlock()
		return nil
	case stateStarting:
		n.mu.Unlock()
		return errors.New("close node: Start in progress")
	}
	n.state = stateClosing
	n.closeDoneLocked()
	n.mu.Unlock()
	if prev == stateNew {
		n.mu.Lock()
		n.state = stateClosed
		n.mu.Unlock()
		return nil
	}

	n.ops.Wait()
	n.mu.Lock()
	leases := make([]*Lease, 0, len(n.leases))
	for _, l := range n.leases {
		leases = append(leases, l)
	}
	n.mu.Unlock()

	var (
		errsMu sync.Mutex
		errs   []error
		wg     sync.WaitGroup
		sem    = make(chan struct{}, 16)
	)
	for _, l := range leases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			err := l.Release(ctx)
			l.lose()
			var lost *LeaseLostError
			switch {
			case errors.As(err, &lost):
				n.logWarn("ownership: close: %v", err)
			case err != nil:
				errsMu.Lock()
				errs = append(errs, err)
				errsMu.Unlock()
			}
		}()
	}
	wg.Wait()

	n.cancel()
	n.wg.Wait()
	n.mu.Lock()
	n.stopped = true
	if n.deadline != nil {
		n.deadline.Stop()
	}
	n.mu.Unlock()

	if err := n.deleteLease(ctx); err != nil {
		errs = append(errs, err)
	}
	n.mu.Lock()
	n.state = stateClosed
	n.mu.Unlock()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close node %s: %w", n.id, err)
	}
	n.logInfo("ownership: node %s closed", n.id)
	return nil
}

// deleteLease deletes my lease record, conditional on my last write.
func (n *Node) deleteLease(ctx context.Context) error {
	n.mu.Lock()
	pending := n.pending != nil
	n.mu.Unlock()
	if pending && !n.resolvePending(ctx) {
		return fmt.Errorf("delete %s: last renewal %w", n.key, ErrUnresolved)
	}
	n.mu.Lock()
	etag := n.etag
	n.mu.Unlock()
	err := deleteKey(ctx, n.store, n.key, etag)
	switch {
	case err == nil, errors.Is(err, plugins.ErrNotFound):
		return nil
	case errors.Is(err, plugins.ErrPreconditionFailed):
		n.logWarn("ownership: %s was changed by another writer; left in place", n.key)
		return nil
	}
	return fmt.Errorf("delete %s: %w", n.key, err)
}
