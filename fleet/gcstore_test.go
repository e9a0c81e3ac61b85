package fleet

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// faultStore wraps a memory store: it records every call, injects
// failures, and counts concurrent deletes. With holdDeletes set, deletes
// wait until that many are in flight at once (or the store is released),
// which makes the bound on concurrency observable without timing.
type faultStore struct {
	*memstore.Store

	mu           sync.Mutex
	calls        []string
	failPut      func(key string) error
	failAfterPut func(key string) error // the write lands, then this error (ambiguous)
	failDelete   func(key string) error
	failList     func(prefix string) error
	inFlight     int
	maxInFlight  int
	holdDeletes  int // hold deletes of keys under holdPrefix until this many are in flight
	holdPrefix   string
	released     chan struct{}
}

func newFaultStore() *faultStore {
	return &faultStore{Store: memstore.New(), released: make(chan struct{})}
}

var _ ownership.Store = (*faultStore)(nil)

func (s *faultStore) record(call string) {
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
}

// callsSince returns the calls recorded from index i on.
func (s *faultStore) callsSince(i int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.calls[i:]...)
}

func (s *faultStore) count(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.calls {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

func (s *faultStore) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	s.record("put " + key)
	if f := s.failPut; f != nil {
		if err := f(key); err != nil {
			return "", err
		}
	}
	tag, err := s.Store.Put(ctx, key, body, opts)
	if f := s.failAfterPut; err == nil && f != nil {
		if ferr := f(key); ferr != nil {
			return "", ferr
		}
	}
	return tag, err
}

func (s *faultStore) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	s.record("list " + prefix)
	if f := s.failList; f != nil {
		if err := f(prefix); err != nil {
			return plugins.ListPage{}, err
		}
	}
	return s.Store.List(ctx, prefix, startAfter, limit)
}

func (s *faultStore) Delete(ctx context.Context, key, ifMatch string) error {
	s.record("delete " + key)
	s.mu.Lock()
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	hold := s.holdDeletes > 0 && strings.HasPrefix(key, s.holdPrefix)
	if hold && s.inFlight == s.holdDeletes {
		close(s.released)
		s.holdDeletes = 0
	}
	s.mu.Unlock()
	if hold {
		select {
		case <-s.released:
		case <-ctx.Done():
		}
	}
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	if f := s.failDelete; f != nil {
		if err := f(key); err != nil {
			return err
		}
	}
	return s.Store.Delete(ctx, key, ifMatch)
}

// fakeNow is a wall clock that moves only when told.
type fakeNow struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeNow) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeNow) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func (c *fakeNow) Monotonic() time.Duration { return time.Duration(c.Now().UnixNano()) }

// AfterFunc never fires: the tests drive passes and polls themselves.
func (c *fakeNow) AfterFunc(time.Duration, func()) ownership.Timer { return stoppedTimer{} }

type stoppedTimer struct{}

func (stoppedTimer) Stop() bool { return false }

// nodeRecord is a node lease record as cellhost writes it.
func nodeRecord(node string, expiresMS uint64) []byte {
	return nodeRecordGen(node, expiresMS, strings.Repeat("1", 64))
}

// nodeRecordGen is nodeRecord with the generation gen.
func nodeRecordGen(node string, expiresMS uint64, gen string) []byte {
	return ownership.NodeRecord{
		Node:                     node,
		ExpiresMS:                expiresMS,
		Addr:                     node + ".cellhost.invalid:9",
		ProbePublicKey:           strings.Repeat("0", 64),
		PeerProtocol:             2,
		OwnershipIndexGeneration: gen,
		Load:                     ownership.UnattractiveLoad(),
	}.Encode()
}

func mustPut(s ownership.Store, key string, body []byte) {
	if _, err := s.Put(context.Background(), key, body, plugins.PutOptions{}); err != nil {
		panic(fmt.Sprintf("put %s: %v", key, err))
	}
}

func exists(s ownership.Store, key string) bool {
	_, _, err := s.Get(context.Background(), key)
	return err == nil
}
