package ownership

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

const (
	// maxAcquireRounds bounds the rejected writes one TryAcquire retries
	// (each rejection means another node wrote own.json meanwhile).
	maxAcquireRounds = 16
	// maxReconciles is how many ambiguous own.json writes one TryAcquire
	// reconciles without confirming a win before it fails (section 5 step 5).
	maxReconciles = 3
	// maxReleaseRounds bounds the attempts of one Release.
	maxReleaseRounds = 3
)

// Lease is this node's ownership of one cell at one epoch, from TryAcquire.
// Its methods may be called from any goroutine.
type Lease struct {
	// Scope is the cell, "<Class>:<id>".
	Scope string
	// Epoch is the ownership epoch: the cell's LTX goes under
	// cells/<scope>/ltx/e<Epoch>/.
	Epoch uint64
	// Created reports that TryAcquire created own.json (section 5 step 2):
	// the record was absent and the bucket held no LTX for the cell, so it
	// starts empty and there is nothing to restore.
	Created bool
	// Lost is closed when the lease is lost without Release: Check found
	// another owner, the node fenced itself (its lease lapsed or could
	// have), a later TryAcquire of the same scope superseded it, or Close
	// released it. The host then resets the cell (BrokenObjectError) and
	// acknowledges nothing more of it. Release does not close Lost.
	Lost <-chan struct{}

	n        *Node
	gen      string // the node's generation when acquired (its marker)
	lost     chan struct{}
	lostOnce sync.Once
	lostCtx  context.Context // canceled when lost closes (Context)
	lostStop context.CancelFunc

	mu       sync.Mutex // held across Release's store calls
	released bool       // guarded by mu
}

func (l *Lease) lose() {
	l.lostOnce.Do(func() {
		close(l.lost)
		if l.lostStop != nil {
			l.lostStop()
		}
	})
}

// Context is canceled when Lost closes: what context.AfterFunc or a
// derived context watches for the lease's loss without a goroutine of its
// own.
func (l *Lease) Context() context.Context {
	if l.lostCtx == nil {
		return context.Background() // a Lease not made by TryAcquire
	}
	return l.lostCtx
}

// TryAcquire takes the cell scope for this node (bucket-protocol.md
// section 5, steps 1-6): it reads own.json; creates {me,1} when it is
// absent and the bucket holds no LTX for the cell; CASes {me,epoch+1} when
// it names me, nobody, or a node whose lease is not live; and on success
// writes the node-cells marker. The host restores the cell (section 7)
// only after TryAcquire succeeded, from the Lease's epoch.
//
// Errors: *CellOwnedElsewhereError (a live other node owns it; nothing was
// written), *LostRecordError (own.json missing but LTX present; repeated
// without a bucket read for LostRecordRefusal), *RecordError (a record is
// corrupt; nothing was written), *FencedError, ErrNotStarted, ErrClosed,
// ErrInvalidScope, ErrUnresolved (ambiguous writes could not be
// reconciled), or a store error. Safe for concurrent use. Acquiring a
// scope this Node already holds supersedes the held Lease (epoch + 1; the
// old Lost closes); concurrent calls for one scope are the caller's bug
// (the highest epoch is kept, the others fail with *LeaseLostError).
func (n *Node) TryAcquire(ctx context.Context, scope string) (*Lease, error) {
	return n.TryAcquireThen(ctx, scope, nil)
}

// TryAcquireThen is TryAcquire that runs then, if not nil, as soon as
// own.json names this node (after step 5), while the marker of step 6 is
// being written: the caller restores the cell meanwhile, so an activation
// waits for one of the two, not for both in a row. It returns once both
// are done, so nothing is served before the marker is durable (step 6's
// order: marker, restore, serve). If then fails, or the marker write does,
// the lease is released and the error returned. then must not call
// Lease.Check or Release.
func (n *Node) TryAcquireThen(ctx context.Context, scope string, then func(*Lease) error) (*Lease, error) {
	if err := bucketkey.CheckScope(scope); err != nil {
		return nil, fmt.Errorf("acquire cell: %w", err)
	}
	n.mu.Lock()
	if err := n.acquireErrorLocked(scope); err != nil {
		n.mu.Unlock()
		return nil, fmt.Errorf("acquire cell %s: %w", scope, err)
	}
	if r, ok := n.refused[scope]; ok {
		if n.clock.Monotonic() < r.until {
			n.mu.Unlock()
			return nil, r.err
		}
		delete(n.refused, scope)
	}
	n.ops.Add(1)
	n.mu.Unlock()
	defer n.ops.Done()

	epoch, created, err := n.acquire(ctx, scope)
	if err != nil {
		var lost *LostRecordError
		if errors.As(err, &lost) {
			n.mu.Lock()
			n.refused[scope] = lostRecord{until: n.clock.Monotonic() + LostRecordRefusal, err: lost}
			n.mu.Unlock()
			n.logWarn("ownership: %v", lost)
		}
		return nil, err
	}
	lostC := make(chan struct{})
	l := &Lease{Scope: scope, Epoch: epoch, Created: created, Lost: lostC, n: n, lost: lostC, gen: n.Generation()}
	l.lostCtx, l.lostStop = context.WithCancel(context.Background())

	marked := make(chan error, 1)
	go func() {
		_, err := n.store.Put(ctx, bucketkey.MarkerKey(n.id, l.gen, scope), nil, plugins.PutOptions{})
		marked <- err
	}()
	var thenErr error
	if then != nil {
		thenErr = then(l)
	}
	if err := <-marked; err != nil || thenErr != nil {
		if err != nil {
			err = &MarkerError{Scope: scope, Err: err}
		}
		if err == nil {
			err = thenErr
		}
		if rerr := l.Release(ctx); rerr != nil {
			err = fmt.Errorf("%w (release: %v)", err, rerr)
		}
		return nil, err
	}

	n.mu.Lock()
	if aerr := n.acquireErrorLocked(scope); aerr != nil {
		n.mu.Unlock()
		err := fmt.Errorf("acquire cell %s: %w", scope, aerr)
		if rerr := l.Release(ctx); rerr != nil {
			err = fmt.Errorf("%w (release: %v)", err, rerr)
		}
		return nil, err
	}
	if old := n.leases[scope]; old != nil {
		if old.Epoch > epoch {
			// A concurrent TryAcquire of this scope won a later epoch.
			n.mu.Unlock()
			l.lose()
			return nil, &LeaseLostError{Scope: scope, Epoch: epoch, Found: OwnRecord{Node: n.id, Epoch: old.Epoch}}
		}
		old.lose()
	}
	n.leases[scope] = l
	n.mu.Unlock()
	n.logInfo("ownership: acquired %s at epoch %d", scope, epoch)
	return l, nil
}

// acquireErrorLocked returns why TryAcquire may not take a cell now.
func (n *Node) acquireErrorLocked(scope string) error {
	if n.state == stateClosing {
		return ErrClosed
	}
	return n.ackErrorLocked(scope)
}

// acquire runs steps 1-5 and returns my epoch, and whether my write
// created own.json (step 2: the cell starts empty).
func (n *Node) acquire(ctx context.Context, scope string) (uint64, bool, error) {
	key := bucketkey.OwnKey(scope)
	reconciles := 0
	for range maxAcquireRounds {
		// 1. Read own.json; and, when a live other node owned the cell at
		// the last look, that node's lease at the same time (step 3 reads
		// it after own.json otherwise: one round trip less in a takeover).
		early := n.readOwnerEarly(ctx, scope)
		body, etag, err := n.store.Get(ctx, key)
		var want OwnRecord
		var opts plugins.PutOptions
		switch {
		case errors.Is(err, plugins.ErrNotFound):
			// 2. Absent: lost if the bucket holds LTX, else create {me,1}.
			newest, ok, lerr := NewestLTXEpoch(ctx, n.store, scope)
			if lerr != nil {
				return 0, false, fmt.Errorf("acquire cell %s: %w", scope, lerr)
			}
			if ok {
				// Another node may have created own.json and uploaded
				// its first LTX between my read and my listing: the
				// record is lost only if it is still missing now.
				if _, _, rerr := n.store.Get(ctx, key); rerr == nil {
					continue // back to step 1
				} else if !errors.Is(rerr, plugins.ErrNotFound) {
					return 0, false, fmt.Errorf("acquire cell %s: read %s: %w", scope, key, rerr)
				}
				return 0, false, &LostRecordError{Scope: scope, NewestEpoch: newest}
			}
			want, opts = OwnRecord{Node: n.id, Epoch: 1}, plugins.PutOptions{IfNoneMatch: true}
		case err != nil:
			return 0, false, fmt.Errorf("acquire cell %s: read %s: %w", scope, key, err)
		default:
			cur, derr := DecodeOwnRecord(key, body)
			if derr != nil {
				return 0, false, fmt.Errorf("acquire cell %s: %w", scope, derr)
			}
			if cur.Node != "" && cur.Node != n.id {
				// 3/4. Another node: take over only when its lease is not live.
				var rec NodeRecord
				var live bool
				var lerr error
				if early != nil && early.node == cur.Node {
					r := <-early.c
					rec, live, lerr = r.rec, r.live, r.err
				} else {
					rec, live, lerr = n.nodeLease(ctx, cur.Node)
				}
				if lerr != nil {
					return 0, false, fmt.Errorf("acquire cell %s: owner %s: %w", scope, cur.Node, lerr)
				}
				if live {
					n.noteElsewhere(scope, cur.Node)
					return 0, false, &CellOwnedElsewhereError{Scope: scope, Owner: cur.Node, Addr: rec.Addr, Epoch: cur.Epoch, ExpiresMS: rec.ExpiresMS}
				}
				n.logInfo("ownership: taking %s over from %s (epoch %d), whose lease is not live", scope, cur.Node, cur.Epoch)
			}
			if cur.Epoch == math.MaxUint64 {
				return 0, false, fmt.Errorf("acquire cell %s: epoch %d cannot grow", scope, cur.Epoch)
			}
			want, opts = OwnRecord{Node: n.id, Epoch: cur.Epoch + 1}, plugins.PutOptions{IfMatch: etag}
		}
		_, err = n.store.Put(ctx, key, want.Encode(), opts)
		switch {
		case err == nil:
			n.noteElsewhere(scope, "")
			return want.Epoch, opts.IfNoneMatch, nil
		case rejected(err):
			continue // 5. Another node won: back to step 1.
		}
		// 5. Ambiguous: reconcile by reading.
		got, _, gerr := n.store.Get(ctx, key)
		if gerr == nil {
			if cur, derr := DecodeOwnRecord(key, got); derr == nil && cur == want {
				return want.Epoch, opts.IfNoneMatch, nil
			}
		}
		reconciles++
		n.logWarn("ownership: write of %s ambiguous (%v); reconcile %d/%d did not confirm it (read: %v)", key, err, reconciles, maxReconciles, gerr)
		if reconciles >= maxReconciles {
			return 0, false, fmt.Errorf("acquire cell %s: write %s: %w after %d reconciles: %v", scope, key, ErrUnresolved, reconciles, err)
		}
	}
	return 0, false, fmt.Errorf("acquire cell %s: %d writes of %s rejected in a row", scope, maxAcquireRounds, key)
}

// earlyLease is a read of a node's lease made together with own.json's.
type earlyLease struct {
	node string
	c    chan earlyResult // one result; buffered, so an unused read ends alone
}

type earlyResult struct {
	rec  NodeRecord
	live bool
	err  error
}

// maxElsewhere bounds Node.elsewhere.
const maxElsewhere = 1 << 14

// readOwnerEarly starts reading the lease of the node that owned scope at
// the last look (Node.elsewhere), or returns nil. Reading the lease before
// own.json rather than after it is as safe: the lease can be renewed right
// after either read, and the takeover's conditional write on own.json (and
// the owner's check of own.json before it acknowledges) is what decides.
func (n *Node) readOwnerEarly(ctx context.Context, scope string) *earlyLease {
	n.mu.Lock()
	owner := n.elsewhere[scope]
	n.mu.Unlock()
	if owner == "" {
		return nil
	}
	e := &earlyLease{node: owner, c: make(chan earlyResult, 1)}
	go func() {
		rec, live, err := n.nodeLease(ctx, owner)
		e.c <- earlyResult{rec, live, err}
	}()
	return e
}

// noteElsewhere remembers that a live owner (owner; "" forgets) held scope.
func (n *Node) noteElsewhere(scope, owner string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if owner == "" {
		delete(n.elsewhere, scope)
		return
	}
	if len(n.elsewhere) >= maxElsewhere {
		clear(n.elsewhere)
	}
	n.elsewhere[scope] = owner
}

// NodeLease reads node's lease (nodes/<node>.json) and reports whether it
// is live now by this node's clock. A missing record is not live; an
// undecodable one is an error. Safe from any goroutine.
func (n *Node) NodeLease(ctx context.Context, node string) (NodeRecord, bool, error) {
	return n.nodeLease(ctx, node)
}

// nodeLease reads node's lease and reports whether it is live now. A
// missing record is not live; an undecodable one is an error.
func (n *Node) nodeLease(ctx context.Context, node string) (NodeRecord, bool, error) {
	key := bucketkey.NodeKey(node)
	body, _, err := n.store.Get(ctx, key)
	if errors.Is(err, plugins.ErrNotFound) {
		return NodeRecord{}, false, nil
	}
	if err != nil {
		return NodeRecord{}, false, fmt.Errorf("read %s: %w", key, err)
	}
	rec, err := DecodeNodeRecord(key, body)
	if err != nil {
		return NodeRecord{}, false, err
	}
	return rec, rec.Live(key, n.clock.Now()), nil
}

// Check is the acknowledgement check (section 5): it re-reads own.json and
// returns nil only if it still names this node at the lease's epoch and the
// node can still acknowledge (CanAck, tested before and after the read).
// Call it after a commit's LTX is in the bucket and before releasing the
// replies that wait for that commit; one Check may cover every commit of
// one upload, but never reuse a result from before the upload finished.
//
// Errors: *LeaseLostError (Lost closes; the cell must reset), *FencedError
// (Lost closes or is about to: the node fenced), ErrReleased, *RecordError,
// or a store error (transient: nothing is decided; do not acknowledge, the
// host may retry within its durability deadline).
func (l *Lease) Check(ctx context.Context) error {
	if err := l.beforeCheck(); err != nil {
		return err
	}
	key := bucketkey.OwnKey(l.Scope)
	body, _, err := l.n.store.Get(ctx, key)
	return l.afterCheck(key, body, err)
}

// CheckAll is Check for several leases (of an upload round) with the reads
// of their own.json made together: one GetMany when the store is a
// plugins.MultiGetter (the file store reads them in one transaction),
// else one Get each, concurrently. errs[i] is what Check would return for
// leases[i]; the same rules apply to every one of them.
func CheckAll(ctx context.Context, leases []*Lease) (errs []error) {
	errs = make([]error, len(leases))
	if len(leases) == 0 {
		return errs
	}
	mg, _ := leases[0].n.store.(plugins.MultiGetter)
	for _, l := range leases[1:] {
		if l.n != leases[0].n {
			mg = nil // leases of two nodes: one Check each
			break
		}
	}
	if mg == nil || len(leases) == 1 {
		// The last on this goroutine: a lone writer's check hands nothing
		// to another one.
		last := len(leases) - 1
		var wg sync.WaitGroup
		for i, l := range leases[:last] {
			wg.Go(func() { errs[i] = l.Check(ctx) })
		}
		errs[last] = leases[last].Check(ctx)
		wg.Wait()
		return errs
	}
	var (
		keys  []string
		which []int // keys[j] is own.json of leases[which[j]]
	)
	for i, l := range leases {
		if errs[i] = l.beforeCheck(); errs[i] == nil {
			keys = append(keys, bucketkey.OwnKey(l.Scope))
			which = append(which, i)
		}
	}
	if len(keys) == 0 {
		return errs
	}
	for j, r := range mg.GetMany(ctx, keys) {
		i := which[j]
		errs[i] = leases[i].afterCheck(keys[j], r.Body, r.Err)
	}
	return errs
}

// beforeCheck is Check's first part: whether this lease and its node may
// acknowledge at all.
func (l *Lease) beforeCheck() error {
	l.mu.Lock()
	released := l.released
	l.mu.Unlock()
	if released {
		return fmt.Errorf("check cell %s: %w", l.Scope, ErrReleased)
	}
	return l.n.ackError(l.Scope)
}

// afterCheck is Check's verdict on own.json as read (at key: body, or the
// read's error).
func (l *Lease) afterCheck(key string, body []byte, err error) error {
	if errors.Is(err, plugins.ErrNotFound) {
		l.lose()
		return &LeaseLostError{Scope: l.Scope, Epoch: l.Epoch, Missing: true}
	}
	if err != nil {
		return fmt.Errorf("check cell %s: read %s: %w", l.Scope, key, err)
	}
	cur, err := DecodeOwnRecord(key, body)
	if err != nil {
		return fmt.Errorf("check cell %s: %w", l.Scope, err)
	}
	if cur != (OwnRecord{Node: l.n.id, Epoch: l.Epoch}) {
		l.lose()
		return &LeaseLostError{Scope: l.Scope, Epoch: l.Epoch, Found: cur}
	}
	if err := l.lostError(); err != nil {
		return err
	}
	return l.n.ackError(l.Scope)
}

// Release gives the cell up (section 5): the host first makes the cell's
// log durable. If own.json still names this node at the lease's epoch it is
// CASed to {"node":"","epoch":<epoch>}; then the node-cells marker is
// deleted. It returns a *LeaseLostError when another node had taken the
// cell (the marker is deleted all the same). Call it once the cell stopped
// serving, also after Lost closed. A second call returns nil; after a store
// error the lease stays held and Release may be called again (Close does).
func (l *Lease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	relErr := l.releaseRecord(ctx)
	var lost *LeaseLostError
	if relErr != nil && !errors.As(relErr, &lost) {
		return relErr
	}
	l.released = true
	n := l.n
	n.mu.Lock()
	if n.leases[l.Scope] == l {
		delete(n.leases, l.Scope)
	}
	n.mu.Unlock()
	if err := deleteKey(ctx, n.store, bucketkey.MarkerKey(n.id, l.gen, l.Scope), ""); err != nil {
		return errors.Join(relErr, fmt.Errorf("release cell %s: delete marker: %w", l.Scope, err))
	}
	if relErr == nil {
		n.logInfo("ownership: released %s at epoch %d", l.Scope, l.Epoch)
	}
	return relErr
}

// releaseRecord CASes own.json to {"",epoch} if it names me at my epoch.
func (l *Lease) releaseRecord(ctx context.Context) error {
	n, key := l.n, bucketkey.OwnKey(l.Scope)
	mine := OwnRecord{Node: n.id, Epoch: l.Epoch}
	freed := OwnRecord{Node: "", Epoch: l.Epoch}
	var lastErr error
	for range maxReleaseRounds {
		body, etag, err := n.store.Get(ctx, key)
		if errors.Is(err, plugins.ErrNotFound) {
			return &LeaseLostError{Scope: l.Scope, Epoch: l.Epoch, Missing: true}
		}
		if err != nil {
			return fmt.Errorf("release cell %s: read %s: %w", l.Scope, key, err)
		}
		cur, err := DecodeOwnRecord(key, body)
		if err != nil {
			return fmt.Errorf("release cell %s: %w", l.Scope, err)
		}
		switch cur {
		case freed:
			return nil // my release landed (an ambiguous write, or someone did it for me)
		case mine:
		default:
			return &LeaseLostError{Scope: l.Scope, Epoch: l.Epoch, Found: cur}
		}
		_, err = n.store.Put(ctx, key, freed.Encode(), plugins.PutOptions{IfMatch: etag})
		if err == nil {
			return nil
		}
		// Rejected: the record changed since the read; ambiguous: it may
		// have landed. Either way the next read decides.
		lastErr = err
	}
	return fmt.Errorf("release cell %s: write %s: %w", l.Scope, key, lastErr)
}

// NewestLTXEpoch returns the numerically highest epoch N that has an object
// under cells/<scope>/ltx/e<N>/ (N decimal, unpadded, at least 1), and false
// when there is none. It lists one key per epoch, skipping over the rest.
// Keys that are not under such an e<N>/ are ignored.
func NewestLTXEpoch(ctx context.Context, store Store, scope string) (uint64, bool, error) {
	prefix := bucketkey.LTXPrefix(scope)
	var newest uint64
	found := false
	startAfter := ""
	for {
		page, err := store.List(ctx, prefix, startAfter, 1)
		if err != nil {
			return 0, false, fmt.Errorf("list %s: %w", prefix, err)
		}
		if len(page.Objects) == 0 {
			return newest, found, nil
		}
		key := page.Objects[0].Key
		dir, _, slash := strings.Cut(strings.TrimPrefix(key, prefix), "/")
		epoch, ok := bucketkey.ParseLTXEpochDir(dir)
		if !slash || !ok {
			startAfter = key
			continue
		}
		if !found || epoch > newest {
			newest, found = epoch, true
		}
		// Skip the rest of e<N>/: every key below sorts before this one.
		startAfter = prefix + dir + "/\U0010FFFF"
	}
}
