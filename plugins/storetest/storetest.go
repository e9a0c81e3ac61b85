// Package storetest is the contract suite every plugins.ObjectStore must
// pass: read after write, conditional create, overwrite and delete, races
// between goroutines, and listing.
//
// A store's tests call Run with a constructor:
//
//	func TestStore_Contract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) plugins.ObjectStore { return memstore.New() })
//	}
package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/plugins"
)

// Run runs the contract suite against stores made by newStore, which is
// called once per subtest and must return an empty store; Run closes it
// when the subtest ends.
//
// One choice is left to the store: If-Match (on Put or Delete) on a missing
// key should fail with plugins.ErrNotFound, as AWS answers 404, but
// plugins.ErrPreconditionFailed (412 on some S3-compatible servers) is
// accepted. Callers treat both as a clean rejection.
func Run(t *testing.T, newStore func(t *testing.T) plugins.ObjectStore) {
	tests := []struct {
		name string
		fn   func(*testing.T, plugins.ObjectStore)
	}{
		{"ReadAfterWrite", testReadAfterWrite},
		{"Overwrite", testOverwrite},
		{"GetMissing", testGetMissing},
		{"PutCopiesBody", testPutCopiesBody},
		{"IfNoneMatch", testIfNoneMatch},
		{"IfMatch", testIfMatch},
		{"IfMatchMissing", testIfMatchMissing},
		{"Delete", testDelete},
		{"DeleteIfMatch", testDeleteIfMatch},
		{"DeleteThenCreate", testDeleteThenCreate},
		{"ConcurrentCreate", testConcurrentCreate},
		{"ConcurrentCAS", testConcurrentCAS},
		{"List", testList},
		{"ListPagination", testListPagination},
		{"UnicodeKeys", testUnicodeKeys},
		{"EmptyBody", testEmptyBody},
		{"LargeBody", testLargeBody},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Errorf("Close() = %v", err)
				}
			})
			tt.fn(t, s)
		})
	}
}

func put(t *testing.T, s plugins.ObjectStore, key, body string) string {
	t.Helper()
	etag, err := s.Put(context.Background(), key, []byte(body), plugins.PutOptions{})
	if err != nil {
		t.Fatalf("Put(%q) = %v", key, err)
	}
	if etag == "" {
		t.Fatalf("Put(%q) returned an empty etag", key)
	}
	return etag
}

// wantObject checks that key holds body with etag ("" = any etag).
func wantObject(t *testing.T, s plugins.ObjectStore, key, body, etag string) {
	t.Helper()
	ctx := context.Background()
	got, gotETag, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%q) = %v", key, err)
	}
	if string(got) != body {
		t.Errorf("Get(%q) body = %q, want %q", key, got, body)
	}
	if etag != "" && gotETag != etag {
		t.Errorf("Get(%q) etag = %s, want %s", key, gotETag, etag)
	}
	headETag, err := s.Head(ctx, key)
	if err != nil {
		t.Fatalf("Head(%q) = %v", key, err)
	}
	if headETag != gotETag {
		t.Errorf("Head(%q) = %s, want the Get etag %s", key, headETag, gotETag)
	}
}

func wantMissing(t *testing.T, s plugins.ObjectStore, key string) {
	t.Helper()
	ctx := context.Background()
	if _, _, err := s.Get(ctx, key); !errors.Is(err, plugins.ErrNotFound) {
		t.Errorf("Get(%q) error = %v, want ErrNotFound", key, err)
	}
	if _, err := s.Head(ctx, key); !errors.Is(err, plugins.ErrNotFound) {
		t.Errorf("Head(%q) error = %v, want ErrNotFound", key, err)
	}
}

func isRejected(err error) bool {
	return errors.Is(err, plugins.ErrNotFound) || errors.Is(err, plugins.ErrPreconditionFailed)
}

func testReadAfterWrite(t *testing.T, s plugins.ObjectStore) {
	etag := put(t, s, "a/b/c.json", `{"n":1}`)
	wantObject(t, s, "a/b/c.json", `{"n":1}`, etag)
}

func testOverwrite(t *testing.T, s plugins.ObjectStore) {
	e1 := put(t, s, "k", "one")
	e2 := put(t, s, "k", "two")
	if e1 == e2 {
		t.Errorf("etags of different contents are equal: %s", e1)
	}
	wantObject(t, s, "k", "two", e2)
}

func testGetMissing(t *testing.T, s plugins.ObjectStore) {
	wantMissing(t, s, "missing")
	put(t, s, "dir/k", "v")
	wantMissing(t, s, "dir/missing")
}

func testPutCopiesBody(t *testing.T, s plugins.ObjectStore) {
	body := []byte("original")
	if _, err := s.Put(context.Background(), "k", body, plugins.PutOptions{}); err != nil {
		t.Fatalf("Put() = %v", err)
	}
	copy(body, "CHANGED!")
	got, _, err := s.Get(context.Background(), "k")
	if err != nil {
		t.Fatalf("Get() = %v", err)
	}
	copy(got, "ALTERED!")
	wantObject(t, s, "k", "original", "")
}

func testIfNoneMatch(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	create := plugins.PutOptions{IfNoneMatch: true}
	etag, err := s.Put(ctx, "lease", []byte("first"), create)
	if err != nil {
		t.Fatalf("first create: Put() = %v", err)
	}
	_, err = s.Put(ctx, "lease", []byte("second"), create)
	if !errors.Is(err, plugins.ErrPreconditionFailed) {
		t.Fatalf("second create: Put() error = %v, want ErrPreconditionFailed", err)
	}
	wantObject(t, s, "lease", "first", etag)
}

func testIfMatch(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	e1 := put(t, s, "own.json", "v1")
	e2, err := s.Put(ctx, "own.json", []byte("v2"), plugins.PutOptions{IfMatch: e1})
	if err != nil {
		t.Fatalf("Put(IfMatch current) = %v", err)
	}
	if e2 == "" || e2 == e1 {
		t.Errorf("Put(IfMatch current) etag = %q, want a new etag (old %s)", e2, e1)
	}
	wantObject(t, s, "own.json", "v2", e2)

	_, err = s.Put(ctx, "own.json", []byte("v3"), plugins.PutOptions{IfMatch: e1})
	if !errors.Is(err, plugins.ErrPreconditionFailed) {
		t.Errorf("Put(IfMatch stale) error = %v, want ErrPreconditionFailed", err)
	}
	wantObject(t, s, "own.json", "v2", e2)
}

func testIfMatchMissing(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	etag := put(t, s, "gone", "v")
	if err := s.Delete(ctx, "gone", ""); err != nil {
		t.Fatalf("Delete() = %v", err)
	}
	_, err := s.Put(ctx, "gone", []byte("v2"), plugins.PutOptions{IfMatch: etag})
	if !isRejected(err) {
		t.Errorf("Put(IfMatch) on a missing key error = %v, want ErrNotFound (or ErrPreconditionFailed)", err)
	}
	wantMissing(t, s, "gone")
}

func testDelete(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	put(t, s, "d/k", "v")
	if err := s.Delete(ctx, "d/k", ""); err != nil {
		t.Fatalf("Delete() = %v", err)
	}
	wantMissing(t, s, "d/k")
	if err := s.Delete(ctx, "d/k", ""); err != nil {
		t.Errorf("Delete() of a missing key = %v, want nil", err)
	}
}

func testDeleteIfMatch(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	e1 := put(t, s, "k", "v1")
	e2 := put(t, s, "k", "v2")
	if err := s.Delete(ctx, "k", e1); !errors.Is(err, plugins.ErrPreconditionFailed) {
		t.Errorf("Delete(stale etag) error = %v, want ErrPreconditionFailed", err)
	}
	wantObject(t, s, "k", "v2", e2)
	if err := s.Delete(ctx, "k", e2); err != nil {
		t.Fatalf("Delete(current etag) = %v", err)
	}
	wantMissing(t, s, "k")
	if err := s.Delete(ctx, "k", e2); !isRejected(err) {
		t.Errorf("Delete(etag) of a missing key error = %v, want ErrNotFound (or ErrPreconditionFailed)", err)
	}
}

func testDeleteThenCreate(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	e1 := put(t, s, "k", "v1")
	if err := s.Delete(ctx, "k", e1); err != nil {
		t.Fatalf("Delete() = %v", err)
	}
	e2, err := s.Put(ctx, "k", []byte("v2"), plugins.PutOptions{IfNoneMatch: true})
	if err != nil {
		t.Fatalf("Put(IfNoneMatch) after Delete = %v", err)
	}
	wantObject(t, s, "k", "v2", e2)
}

func testConcurrentCreate(t *testing.T, s plugins.ObjectStore) {
	const racers = 20
	ctx := context.Background()
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errs  = make([]error, racers)
		etags = make([]string, racers)
	)
	for i := range racers {
		wg.Go(func() {
			<-start
			etags[i], errs[i] = s.Put(ctx, "race/lease", []byte(strconv.Itoa(i)), plugins.PutOptions{IfNoneMatch: true})
		})
	}
	close(start)
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Errorf("racers %d and %d both created the key", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, plugins.ErrPreconditionFailed):
			t.Errorf("racer %d: Put() error = %v, want nil or ErrPreconditionFailed", i, err)
		}
	}
	if winner < 0 {
		t.Fatalf("no racer created the key")
	}
	wantObject(t, s, "race/lease", strconv.Itoa(winner), etags[winner])
}

func testConcurrentCAS(t *testing.T, s plugins.ObjectStore) {
	const workers, increments = 16, 10
	ctx := context.Background()
	put(t, s, "counter", "0")
	var wg sync.WaitGroup
	start := make(chan struct{})
	for w := range workers {
		wg.Go(func() {
			<-start
			for range increments {
				if err := Increment(ctx, s, "counter"); err != nil {
					t.Errorf("worker %d: %v", w, err)
					return
				}
			}
		})
	}
	close(start)
	wg.Wait()
	wantObject(t, s, "counter", strconv.Itoa(workers*increments), "")
}

// Increment adds one to the decimal counter at key with a read-then-CAS
// loop, retrying while the CAS is rejected. It is exported for store tests
// that race processes.
func Increment(ctx context.Context, s plugins.ObjectStore, key string) error {
	for {
		body, etag, err := s.Get(ctx, key)
		if err != nil {
			return fmt.Errorf("increment counter: %w", err)
		}
		n, err := strconv.Atoi(string(body))
		if err != nil {
			return fmt.Errorf("increment counter: %w", err)
		}
		_, err = s.Put(ctx, key, []byte(strconv.Itoa(n+1)), plugins.PutOptions{IfMatch: etag})
		if errors.Is(err, plugins.ErrPreconditionFailed) {
			continue
		}
		if err != nil {
			return fmt.Errorf("increment counter: %w", err)
		}
		return nil
	}
}

// listKeys are in byte order; a walk of directories in name order would
// put "list/a/b" before "list/a-b".
var listKeys = []string{"list/a-b", "list/a/b", "list/a0", "list/b", "list/é"}

func putListKeys(t *testing.T, s plugins.ObjectStore) map[string]plugins.Object {
	t.Helper()
	want := map[string]plugins.Object{}
	// Put in reverse, with neighbours outside the prefix.
	for _, k := range []string{"lisa", "list.x", "lisu/x", "lis"} {
		put(t, s, k, "outside")
	}
	for i := len(listKeys) - 1; i >= 0; i-- {
		k := listKeys[i]
		body := k + "-body"
		want[k] = plugins.Object{Key: k, ETag: put(t, s, k, body), Size: int64(len(body))}
	}
	return want
}

func keysOf(objs []plugins.Object) []string {
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return keys
}

func equalKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testList(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	want := putListKeys(t, s)
	tests := []struct {
		prefix, startAfter string
		want               []string
	}{
		{"list/", "", listKeys},
		{"list", "", append([]string{"list.x"}, listKeys...)},
		{"list/a", "", []string{"list/a-b", "list/a/b", "list/a0"}},
		{"list/a/", "", []string{"list/a/b"}},
		{"list/", "list/a0", []string{"list/b", "list/é"}},
		{"list/", "list/a.", []string{"list/a/b", "list/a0", "list/b", "list/é"}},
		{"list/", "list/a/", []string{"list/a/b", "list/a0", "list/b", "list/é"}},
		{"list/", "list/a/b", []string{"list/a0", "list/b", "list/é"}},
		{"list/", "list/é", nil},
		{"list/", "a", listKeys},
		{"nothing/", "", nil},
		{"", "lisu/", []string{"lisu/x"}},
		{"", "", []string{"lis", "lisa", "list.x", "list/a-b", "list/a/b", "list/a0", "list/b", "list/é", "lisu/x"}},
	}
	for _, tt := range tests {
		page, err := s.List(ctx, tt.prefix, tt.startAfter, 100)
		if err != nil {
			t.Fatalf("List(%q, %q) = %v", tt.prefix, tt.startAfter, err)
		}
		if got := keysOf(page.Objects); !equalKeys(got, tt.want) {
			t.Errorf("List(%q, %q) = %q, want %q", tt.prefix, tt.startAfter, got, tt.want)
		}
		if page.NextStartAfter != "" {
			t.Errorf("List(%q, %q).NextStartAfter = %q, want \"\"", tt.prefix, tt.startAfter, page.NextStartAfter)
		}
		for _, o := range page.Objects {
			if w, ok := want[o.Key]; ok && o != w {
				t.Errorf("List(%q, %q) object = %+v, want %+v", tt.prefix, tt.startAfter, o, w)
			}
		}
	}
}

func testListPagination(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	putListKeys(t, s)
	var got [][]string
	startAfter := ""
	for range 10 {
		page, err := s.List(ctx, "list/", startAfter, 2)
		if err != nil {
			t.Fatalf("List(startAfter %q) = %v", startAfter, err)
		}
		got = append(got, keysOf(page.Objects))
		if page.NextStartAfter == "" {
			break
		}
		startAfter = page.NextStartAfter
	}
	want := [][]string{listKeys[0:2], listKeys[2:4], listKeys[4:5]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages of 2 = %q, want %q", got, want)
	}

	// A page that ends exactly at the last key completes the listing.
	page, err := s.List(ctx, "list/", "", len(listKeys))
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	if got := keysOf(page.Objects); !equalKeys(got, listKeys) || page.NextStartAfter != "" {
		t.Errorf("List(limit %d) = %q, NextStartAfter %q; want %q, \"\"", len(listKeys), got, page.NextStartAfter, listKeys)
	}
}

func testUnicodeKeys(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	keys := []string{"u/Zürich", "u/ascii", "u/ключ/значение", "u/日本語", "u/😀 emoji+sign=1"}
	for _, k := range keys {
		put(t, s, k, "body of "+k)
	}
	for _, k := range keys {
		wantObject(t, s, k, "body of "+k, "")
	}
	page, err := s.List(ctx, "u/", "", 0)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	want := []string{"u/Zürich", "u/ascii", "u/ключ/значение", "u/日本語", "u/😀 emoji+sign=1"}
	if got := keysOf(page.Objects); !equalKeys(got, want) {
		t.Errorf("List() = %q, want %q", got, want)
	}
}

func testEmptyBody(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	etag, err := s.Put(ctx, "marker/x", nil, plugins.PutOptions{IfNoneMatch: true})
	if err != nil {
		t.Fatalf("Put(empty) = %v", err)
	}
	wantObject(t, s, "marker/x", "", etag)
	page, err := s.List(ctx, "marker/", "", 0)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	want := []plugins.Object{{Key: "marker/x", ETag: etag, Size: 0}}
	if fmt.Sprint(page.Objects) != fmt.Sprint(want) {
		t.Errorf("List() = %+v, want %+v", page.Objects, want)
	}
}

func testLargeBody(t *testing.T, s plugins.ObjectStore) {
	ctx := context.Background()
	body := make([]byte, 1<<20)
	r := rand.NewChaCha8([32]byte{1})
	r.Read(body)
	etag, err := s.Put(ctx, "big", body, plugins.PutOptions{})
	if err != nil {
		t.Fatalf("Put(1 MiB) = %v", err)
	}
	got, gotETag, err := s.Get(ctx, "big")
	if err != nil {
		t.Fatalf("Get() = %v", err)
	}
	if !bytes.Equal(got, body) {
		t.Errorf("Get() returned %d bytes that differ from the %d put", len(got), len(body))
	}
	if gotETag != etag {
		t.Errorf("Get() etag = %s, want %s", gotETag, etag)
	}
	page, err := s.List(ctx, "big", "", 0)
	if err != nil {
		t.Fatalf("List() = %v", err)
	}
	if len(page.Objects) != 1 || page.Objects[0].Size != 1<<20 {
		t.Errorf("List() = %+v, want one object of size %d", page.Objects, 1<<20)
	}
}
