package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// ErrWakerLost means this node does not hold (or no longer holds) the
// waker role.
var ErrWakerLost = errors.New("the waker role is held by another node")

// waker is this node's claim on wake/waker.json (bucket protocol, section
// 6): created with If-None-Match: * when absent, overwritten with If-Match
// when this node holds it or it expired, TTL = WakerTTLTicks ticks.
type waker struct {
	store ownership.Store
	node  string
	ttl   time.Duration

	mu      sync.Mutex
	etag    string // of my last write; "" when I do not hold the role
	expires int64  // expires_ms of my last write
}

// held reports whether this node holds the role as of its last claim.
func (k *waker) held() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.etag != ""
}

// claim claims or renews the role at now and reports whether this node
// holds it. A rejected write means another node won; an ambiguous one is
// settled by reading the record back.
func (k *waker) claim(ctx context.Context, now time.Time) (bool, error) {
	body, etag, err := k.store.Get(ctx, bucketkey.WakerKey)
	present := err == nil
	if err != nil && !errors.Is(err, plugins.ErrNotFound) {
		k.drop()
		return false, fmt.Errorf("read %s: %w", bucketkey.WakerKey, err)
	}
	var cur WakerRecord
	ok := false
	if present {
		cur, err = DecodeWakerRecord(body)
		ok = err == nil
	}
	nowMS := now.UnixMilli()
	decision := DecideWakerClaim(cur, present, ok, k.node, nowMS)
	if decision == NoClaim {
		k.drop()
		return false, nil
	}
	rec := WakerRecord{Node: k.node, ExpiresMS: nowMS + k.ttl.Milliseconds()}
	opts := plugins.PutOptions{IfNoneMatch: decision == ClaimCreate}
	if decision == ClaimCAS {
		opts.IfMatch = etag
	}
	newTag, err := k.store.Put(ctx, bucketkey.WakerKey, rec.Encode(), opts)
	switch {
	case err == nil:
	case errors.Is(err, plugins.ErrPreconditionFailed), errors.Is(err, plugins.ErrNotFound):
		k.drop() // clean rejection: another node wrote (or deleted) it first
		return false, nil
	default: // ambiguous: did it land?
		body, tag, rerr := k.store.Get(ctx, bucketkey.WakerKey)
		if rerr != nil {
			k.drop()
			return false, fmt.Errorf("claim %s: %w (reading back: %w)", bucketkey.WakerKey, err, rerr)
		}
		if got, derr := DecodeWakerRecord(body); derr != nil || got != rec {
			k.drop()
			return false, nil
		}
		newTag = tag
	}
	k.mu.Lock()
	k.etag, k.expires = newTag, rec.ExpiresMS
	k.mu.Unlock()
	return true, nil
}

func (k *waker) drop() {
	k.mu.Lock()
	k.etag = ""
	k.mu.Unlock()
}

// renew renews the role this node holds, with If-Match on its last write
// (no read first). Any failure gives the role up: ErrWakerLost.
func (k *waker) renew(ctx context.Context, now time.Time) error {
	k.mu.Lock()
	etag := k.etag
	k.mu.Unlock()
	if etag == "" {
		return ErrWakerLost
	}
	rec := WakerRecord{Node: k.node, ExpiresMS: now.UnixMilli() + k.ttl.Milliseconds()}
	tag, err := k.store.Put(ctx, bucketkey.WakerKey, rec.Encode(), plugins.PutOptions{IfMatch: etag})
	if err != nil {
		k.drop()
		return fmt.Errorf("%w: renew: %w", ErrWakerLost, err)
	}
	k.mu.Lock()
	k.etag, k.expires = tag, rec.ExpiresMS
	k.mu.Unlock()
	return nil
}

// release deletes the record if this node holds it (conditional on my last
// write), so that another node takes the role at once.
func (k *waker) release(ctx context.Context) {
	k.mu.Lock()
	etag := k.etag
	k.etag = ""
	k.mu.Unlock()
	if etag != "" {
		_ = k.store.Delete(ctx, bucketkey.WakerKey, etag)
	}
}

// tickWaker is one waker tick: claim or renew the role, and while holding
// it run the dead-node GC pass (which renews the role as it goes and stops
// when a renewal fails).
func (w *Wake) tickWaker(ctx context.Context) {
	was := w.waker.held()
	held, err := w.waker.claim(ctx, w.cfg.Clock.Now())
	if err != nil {
		w.cfg.Log.Warn("waker: claim failed", "err", err)
	}
	if held != was {
		w.cfg.Log.Info("waker: role changed", "held", held, "node", w.cfg.Node)
	}
	if !held {
		return
	}
	renew := func(ctx context.Context) error { return w.waker.renew(ctx, w.cfg.Clock.Now()) }
	if err := w.gc.RunElectedPass(ctx, renew, w.cfg.Clock.Now, w.cfg.Tick.Milliseconds()); err != nil {
		w.cfg.Log.Warn("dead-node gc: pass stopped", "err", err)
		return
	}
	if err := w.deleteOldRetirements(ctx, renew); err != nil {
		w.cfg.Log.Warn("wake index: deleting old retirements stopped", "err", err)
	}
}

// maxRetiredDeletesPerTick bounds the retirements one waker tick deletes.
const maxRetiredDeletesPerTick = 1000

// deleteOldRetirements deletes the retirements RetiredExpired allows, in
// key (= minute) order, at most maxRetiredDeletesPerTick per tick, renewing
// the waker lease first.
func (w *Wake) deleteOldRetirements(ctx context.Context, renew func(context.Context) error) error {
	if err := renew(ctx); err != nil {
		return err
	}
	now := w.cfg.Clock.Now().UnixMilli()
	n := 0
	after := ""
	for n < maxRetiredDeletesPerTick {
		page, err := w.cfg.Store.List(ctx, bucketkey.WakeRetiredPrefix, after, 0)
		if err != nil {
			return fmt.Errorf("list %s: %w", bucketkey.WakeRetiredPrefix, err)
		}
		for _, o := range page.Objects {
			k, err := bucketkey.ParseWakeKey(o.Key)
			if err != nil {
				continue // not ours to judge
			}
			if !RetiredExpired(k, now) {
				return nil // keys are in minute order: the rest are newer
			}
			if err := w.cfg.Store.Delete(ctx, o.Key, ""); err != nil && !errors.Is(err, plugins.ErrNotFound) {
				return fmt.Errorf("delete %s: %w", o.Key, err)
			}
			if n++; n == maxRetiredDeletesPerTick {
				return nil
			}
		}
		if page.NextStartAfter == "" || page.NextStartAfter <= after {
			return nil
		}
		after = page.NextStartAfter
	}
	return nil
}
