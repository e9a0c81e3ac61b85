package s3store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/s3store"
	"github.com/cellhost/cellhost/plugins/storetest"
)

// testURL returns the bucket URL of the S3 server started by
// .ci/versitygw.sh, skipping the test when there is none, except in CI
// (CI=true), where a missing server fails it.
func testURL(t *testing.T) *url.URL {
	t.Helper()
	raw := os.Getenv("CELLHOST_TEST_S3")
	if raw == "" {
		const msg = "CELLHOST_TEST_S3 is unset: no S3 server to test against. " +
			"Start one with: env=$(bash .ci/versitygw.sh start) && eval \"$env\" (stop: bash .ci/versitygw.sh stop)"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: .ci/run must start it)")
		}
		t.Skip(msg)
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("CELLHOST_TEST_S3: %v", err)
	}
	return u
}

// runID keeps runs that share a bucket apart.
var runID = func() string {
	b := make([]byte, 4)
	rand.Read(b)
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}()

var storeSeq atomic.Int64

// openTestStore opens a store on a fresh prefix below the CELLHOST_TEST_S3
// URL, and deletes what it holds when the test ends.
func openTestStore(t *testing.T) plugins.ObjectStore {
	t.Helper()
	u := *testURL(t)
	u.Path = strings.TrimSuffix(u.Path, "/") + fmt.Sprintf("/test-%s/%03d", runID, storeSeq.Add(1))
	open := func() plugins.ObjectStore {
		s, err := plugins.OpenStore(context.Background(), u.String())
		if err != nil {
			t.Fatalf("OpenStore(%q) = %v", u.Redacted(), err)
		}
		return s
	}
	t.Cleanup(func() {
		s := open()
		defer s.Close()
		ctx := context.Background()
		for {
			page, err := s.List(ctx, "", "", 0)
			if err != nil {
				t.Errorf("clean up: %v", err)
				return
			}
			for _, o := range page.Objects {
				if err := s.Delete(ctx, o.Key, ""); err != nil {
					t.Errorf("clean up: %v", err)
				}
			}
			if page.NextStartAfter == "" {
				return
			}
		}
	})
	return open()
}

func TestStore_Contract(t *testing.T) {
	testURL(t)
	storetest.Run(t, openTestStore)
}

// TestStore_Server checks what the contract suite leaves open, on the real
// server.
func TestStore_Server(t *testing.T) {
	testURL(t)
	ctx := context.Background()
	t.Run("IfMatchMissingIsNotFound", func(t *testing.T) {
		s := openTestStore(t)
		_, err := s.Put(ctx, "absent", []byte("x"), plugins.PutOptions{IfMatch: `"0123456789abcdef0123456789abcdef"`})
		if !errors.Is(err, plugins.ErrNotFound) && !errors.Is(err, plugins.ErrPreconditionFailed) {
			t.Errorf("Put(IfMatch) on a missing key error = %v, want ErrNotFound or ErrPreconditionFailed", err)
		}
		if errors.Is(err, s3store.ErrAmbiguous) {
			t.Errorf("Put(IfMatch) on a missing key error = %v, want a clean rejection", err)
		}
	})
	t.Run("KeyCharacters", func(t *testing.T) {
		s := openTestStore(t)
		keys := []string{"c/plus+sign", "c/space here", "c/percent%20", "c/q?x=1&y", "c/hash#frag", "c/tab\tx", "c/quote\"'", "c/nl\nx", "c/cr\rx", "c/del\x7f"}
		for _, k := range keys {
			etag, err := s.Put(ctx, k, []byte(k), plugins.PutOptions{IfNoneMatch: true})
			if err != nil {
				t.Errorf("Put(%q) = %v", k, err)
				continue
			}
			body, got, err := s.Get(ctx, k)
			if err != nil || string(body) != k || got != etag {
				t.Errorf("Get(%q) = %q, %s, %v; want %q, %s", k, body, got, err, k, etag)
			}
		}
		page, err := s.List(ctx, "c/", "", 0)
		if err != nil {
			t.Fatalf("List() = %v", err)
		}
		if len(page.Objects) != len(keys) {
			t.Errorf("List() = %+v, want %d keys", page.Objects, len(keys))
		}
		for _, o := range page.Objects {
			if _, _, err := s.Get(ctx, o.Key); err != nil {
				t.Errorf("Get(listed key %q) = %v", o.Key, err)
			}
		}
	})
	t.Run("PrefixIsolation", func(t *testing.T) {
		a := openTestStore(t)
		b := openTestStore(t)
		if _, err := a.Put(ctx, "k", []byte("a"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Head(ctx, "k"); !errors.Is(err, plugins.ErrNotFound) {
			t.Errorf("Head() in another prefix error = %v, want ErrNotFound", err)
		}
		page, err := b.List(ctx, "", "", 0)
		if err != nil || len(page.Objects) != 0 {
			t.Errorf("List() in another prefix = %+v, %v; want nothing", page, err)
		}
	})
	t.Run("ErrNoSuchBucket", func(t *testing.T) {
		u := *testURL(t)
		u.Host = "cellhost-no-such-bucket"
		s, err := plugins.OpenStore(ctx, u.String())
		if err != nil {
			t.Fatalf("OpenStore() = %v", err)
		}
		defer s.Close()
		_, _, err = s.Get(ctx, "k")
		if err == nil || errors.Is(err, plugins.ErrNotFound) || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("Get() in a missing bucket error = %v, want a bucket-does-not-exist error that is not ErrNotFound", err)
		}
	})
}
