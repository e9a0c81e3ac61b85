// Package memstore is an in-memory plugins.ObjectStore for tests, registered
// for "mem://" bucket URLs.
//
// "mem://name" opens a process-wide store shared by every open of the same
// name (data lives until the process exits); "mem://" opens a fresh,
// unshared one. Keys must pass plugins.CheckKey, as on the file store.
package memstore

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cellhost/cellhost/plugins"
)

func init() {
	plugins.RegisterStore("mem", openURL)
}

// DefaultListLimit is the page size of List when limit <= 0.
const DefaultListLimit = 1000

var (
	namedMu sync.Mutex
	named   = map[string]*bucket{} // guarded by namedMu
)

// Store is a handle on an in-memory bucket. Its methods are safe for
// concurrent use.
type Store struct {
	b      *bucket
	closed atomic.Bool
}

type bucket struct {
	mu      sync.Mutex
	objects map[string]object // guarded by mu
	gen     uint64            // guarded by mu; bumped on every write
}

type object struct {
	body []byte
	etag string
}

// New returns a new, empty store shared with nobody.
func New() *Store {
	return &Store{b: &bucket{objects: map[string]object{}}}
}

// Open returns a handle on the process-wide store called name, creating it
// empty on first use. Closing a handle does not discard the data.
func Open(name string) *Store {
	namedMu.Lock()
	defer namedMu.Unlock()
	b, ok := named[name]
	if !ok {
		b = &bucket{objects: map[string]object{}}
		named[name] = b
	}
	return &Store{b: b}
}

func openURL(_ context.Context, u *url.URL) (plugins.ObjectStore, error) {
	if u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("parse mem url: only mem://name is supported")
	}
	name := u.Opaque
	if name == "" {
		name = u.Host + u.Path
	}
	name = strings.Trim(name, "/")
	if name == "" {
		return New(), nil
	}
	return Open(name), nil
}

func (s *Store) check(ctx context.Context, key string) error {
	if s.closed.Load() {
		return plugins.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return plugins.CheckKey(key)
}

// Get implements plugins.ObjectStore.
func (s *Store) Get(ctx context.Context, key string) ([]byte, string, error) {
	if err := s.check(ctx, key); err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	s.b.mu.Lock()
	o, ok := s.b.objects[key]
	s.b.mu.Unlock()
	if !ok {
		return nil, "", fmt.Errorf("get object %q: %w", key, plugins.ErrNotFound)
	}
	return append([]byte{}, o.body...), o.etag, nil
}

// Head implements plugins.ObjectStore.
func (s *Store) Head(ctx context.Context, key string) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	s.b.mu.Lock()
	o, ok := s.b.objects[key]
	s.b.mu.Unlock()
	if !ok {
		return "", fmt.Errorf("head object %q: %w", key, plugins.ErrNotFound)
	}
	return o.etag, nil
}

// Put implements plugins.ObjectStore.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	if opts.IfNoneMatch && opts.IfMatch != "" {
		return "", fmt.Errorf("put object %q: IfNoneMatch and IfMatch are mutually exclusive", key)
	}
	sum := sha256.Sum256(body)
	body = append([]byte{}, body...)

	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	cur, exists := s.b.objects[key]
	switch {
	case opts.IfNoneMatch && exists:
		return "", fmt.Errorf("put object %q: %w", key, plugins.ErrPreconditionFailed)
	case opts.IfMatch != "" && !exists:
		return "", fmt.Errorf("put object %q: %w", key, plugins.ErrNotFound)
	case opts.IfMatch != "" && cur.etag != opts.IfMatch:
		return "", fmt.Errorf("put object %q: %w", key, plugins.ErrPreconditionFailed)
	}
	s.b.gen++
	etag := fmt.Sprintf(`"%x-%d"`, sum[:8], s.b.gen)
	s.b.objects[key] = object{body: body, etag: etag}
	return etag, nil
}

// Delete implements plugins.ObjectStore.
func (s *Store) Delete(ctx context.Context, key string, ifMatch string) error {
	if err := s.check(ctx, key); err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if ifMatch != "" {
		cur, exists := s.b.objects[key]
		if !exists {
			return fmt.Errorf("delete object %q: %w", key, plugins.ErrNotFound)
		}
		if cur.etag != ifMatch {
			return fmt.Errorf("delete object %q: %w", key, plugins.ErrPreconditionFailed)
		}
	}
	delete(s.b.objects, key)
	return nil
}

// List implements plugins.ObjectStore.
func (s *Store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	if s.closed.Load() {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", plugins.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", err)
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	s.b.mu.Lock()
	var objs []plugins.Object
	for k, o := range s.b.objects {
		if strings.HasPrefix(k, prefix) && k > startAfter {
			objs = append(objs, plugins.Object{Key: k, ETag: o.etag, Size: int64(len(o.body))})
		}
	}
	s.b.mu.Unlock()
	sort.Slice(objs, func(i, j int) bool { return objs[i].Key < objs[j].Key })
	var page plugins.ListPage
	if len(objs) > limit {
		objs = objs[:limit]
		page.NextStartAfter = objs[limit-1].Key
	}
	page.Objects = objs
	return page, nil
}

// Close implements plugins.ObjectStore. It closes this handle only: the
// data of a named store stays for later opens.
func (s *Store) Close() error {
	s.closed.Store(true)
	return nil
}

var _ plugins.ObjectStore = (*Store)(nil)
