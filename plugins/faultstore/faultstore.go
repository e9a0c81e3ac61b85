// Package faultstore wraps a plugins.ObjectStore to inject faults for
// tests: errors, latency, hangs and partial failures (a write that lands
// but reports an error, which the caller must treat as ambiguous).
//
// A fault applies to the calls whose operation and key match it, until it
// is removed (or for its first Count calls). A hang blocks the call until
// the fault is removed or the call's context ends, so tests release a hang
// by removing the fault instead of waiting for a timer.
package faultstore

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/plugins"
)

// Op is a store operation.
type Op string

// The operations of plugins.ObjectStore that faults apply to.
const (
	OpGet    Op = "get"
	OpHead   Op = "head"
	OpPut    Op = "put"
	OpDelete Op = "delete"
	OpList   Op = "list"
)

// ErrInjected is the error a fault returns when its Err is nil.
var ErrInjected = errors.New("faultstore: injected fault")

// Fault describes what happens to matching calls.
type Fault struct {
	// Ops are the operations it applies to (all when empty).
	Ops []Op
	// Prefix selects keys (for List: prefixes) starting with it ("" = all).
	Prefix string
	// Delay is added before the call (or before the error).
	Delay time.Duration
	// Hang blocks the call until the fault is removed or ctx ends (then
	// the call fails with ctx's error, or proceeds once removed).
	Hang bool
	// Fail makes the call fail with Err (ErrInjected when nil). With
	// Landed, the inner call runs first and its result is dropped: the
	// write happened, the caller sees an error (an ambiguous outcome).
	Fail   bool
	Err    error
	Landed bool
	// Count limits the fault to its first Count matching calls (0: all).
	Count int
}

// Injection is an active fault.
type Injection struct {
	s       *Store
	f       Fault
	removed chan struct{}
	hit     chan struct{}
	once    sync.Once
	hitOnce sync.Once
	hits    int // guarded by s.mu
}

// Remove deactivates the fault and releases the calls it holds. It may be
// called more than once.
func (in *Injection) Remove() {
	in.once.Do(func() {
		in.s.mu.Lock()
		for i, x := range in.s.faults {
			if x == in {
				in.s.faults = append(in.s.faults[:i:i], in.s.faults[i+1:]...)
				break
			}
		}
		in.s.mu.Unlock()
		close(in.removed)
	})
}

// Hit is closed when the fault first applies to a call.
func (in *Injection) Hit() <-chan struct{} { return in.hit }

// Hits returns how many calls the fault applied to.
func (in *Injection) Hits() int {
	in.s.mu.Lock()
	defer in.s.mu.Unlock()
	return in.hits
}

// Store is a plugins.ObjectStore that forwards to an inner store, applying
// the active faults. Safe for concurrent use.
type Store struct {
	inner  plugins.ObjectStore
	mu     sync.Mutex
	faults []*Injection // guarded by mu
	calls  map[Op]int   // guarded by mu
}

var _ plugins.ObjectStore = (*Store)(nil)

// Wrap returns a Store over inner with no fault active.
func Wrap(inner plugins.ObjectStore) *Store {
	return &Store{inner: inner, calls: map[Op]int{}}
}

// Inject activates f. Faults apply in the order they were injected; the
// first that matches a call decides it.
func (s *Store) Inject(f Fault) *Injection {
	in := &Injection{s: s, f: f, removed: make(chan struct{}), hit: make(chan struct{})}
	s.mu.Lock()
	s.faults = append(s.faults, in)
	s.mu.Unlock()
	return in
}

// Clear removes every fault.
func (s *Store) Clear() {
	s.mu.Lock()
	faults := append([]*Injection(nil), s.faults...)
	s.mu.Unlock()
	for _, in := range faults {
		in.Remove()
	}
}

// Calls returns how many calls of op the store received.
func (s *Store) Calls(op Op) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}

// Inner returns the wrapped store.
func (s *Store) Inner() plugins.ObjectStore { return s.inner }

// match returns the fault for a call, counting it.
func (s *Store) match(op Op, key string) *Injection {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[op]++
	for _, in := range s.faults {
		f := in.f
		if !strings.HasPrefix(key, f.Prefix) {
			continue
		}
		if len(f.Ops) > 0 {
			ok := false
			for _, o := range f.Ops {
				ok = ok || o == op
			}
			if !ok {
				continue
			}
		}
		if f.Count > 0 && in.hits >= f.Count {
			continue
		}
		in.hits++
		in.hitOnce.Do(func() { close(in.hit) })
		return in
	}
	return nil
}

// before runs the fault's delay and hang; it returns a non-nil error when
// the call must not proceed at all.
func (in *Injection) before(ctx context.Context) error {
	if in.f.Delay > 0 {
		t := time.NewTimer(in.f.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if in.f.Hang {
		select {
		case <-in.removed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (in *Injection) err() error {
	if in.f.Err != nil {
		return in.f.Err
	}
	return ErrInjected
}

// do runs call under the fault for op and key.
func do[T any](s *Store, ctx context.Context, op Op, key string, call func() (T, error)) (T, error) {
	var zero T
	in := s.match(op, key)
	if in == nil {
		return call()
	}
	if err := in.before(ctx); err != nil {
		return zero, err
	}
	if !in.f.Fail {
		return call()
	}
	if in.f.Landed {
		if _, err := call(); err != nil {
			return zero, err
		}
	}
	return zero, in.err()
}

type getResult struct {
	body []byte
	etag string
}

// Get implements plugins.ObjectStore.
func (s *Store) Get(ctx context.Context, key string) ([]byte, string, error) {
	r, err := do(s, ctx, OpGet, key, func() (getResult, error) {
		b, e, err := s.inner.Get(ctx, key)
		return getResult{b, e}, err
	})
	return r.body, r.etag, err
}

// Head implements plugins.ObjectStore.
func (s *Store) Head(ctx context.Context, key string) (string, error) {
	return do(s, ctx, OpHead, key, func() (string, error) { return s.inner.Head(ctx, key) })
}

// Put implements plugins.ObjectStore.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	return do(s, ctx, OpPut, key, func() (string, error) { return s.inner.Put(ctx, key, body, opts) })
}

// Delete implements plugins.ObjectStore.
func (s *Store) Delete(ctx context.Context, key string, ifMatch string) error {
	_, err := do(s, ctx, OpDelete, key, func() (struct{}, error) { return struct{}{}, s.inner.Delete(ctx, key, ifMatch) })
	return err
}

// List implements plugins.ObjectStore.
func (s *Store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	return do(s, ctx, OpList, prefix, func() (plugins.ListPage, error) { return s.inner.List(ctx, prefix, startAfter, limit) })
}

// Close closes the inner store and releases every hang.
func (s *Store) Close() error {
	s.Clear()
	return s.inner.Close()
}
