package host_test

import (
	"context"
	"errors"
	"net"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins/faultstore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// stuckClock is an ownership.Clock that moves only when told and whose
// timers never fire: the node's renewals never run (it cannot renew), and
// neither does its deadline timer, as in a process that was paused and
// has just woken up past its lease, before its timers ran.
type stuckClock struct {
	mu   sync.Mutex
	wall time.Time
	mono time.Duration
}

func (c *stuckClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.wall
}

func (c *stuckClock) Monotonic() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mono
}

type neverTimer struct{}

func (neverTimer) Stop() bool { return true }

func (c *stuckClock) AfterFunc(time.Duration, func()) ownership.Timer { return neverTimer{} }

func (c *stuckClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.wall, c.mono = c.wall.Add(d), c.mono+d
	c.mu.Unlock()
}

// TestBackup_NoAckWithoutLease: in the backup mode a write is acknowledged
// after the local fsync only while the node can acknowledge. Once its
// lease could have lapsed (no renewal landed for TTL - margin, on a fake
// clock), the next write is not acknowledged: 503 "may or may not have
// been applied" (the local file has it), though the node has not fenced
// yet and the cell's lease was never lost.
func TestBackup_NoAckWithoutLease(t *testing.T) {
	bucket := memstore.New()
	clock := &stuckClock{wall: time.Unix(1_800_000_000, 0), mono: time.Hour}
	const ttl = 10 * time.Second
	node, err := ownership.New(ownership.Config{Store: bucket, TTL: ttl, Clock: clock, SkipProbe: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := node.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer node.Close(context.Background())
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Durability = host.DurabilityBackup
		c.Bucket = bucket
		c.Node = node
		c.BackupInterval = time.Hour
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	if body, err := fetchBody(t, h, "a", "/"); err != nil || !strings.Contains(body, `"n":1`) {
		t.Fatalf("write with a live lease: %q, %v", body, err)
	}
	clock.Advance(ttl * 4 / 5) // the fence point: TTL - FenceMargin (TTL/5)
	if node.Fenced() {
		t.Fatal("the node fenced: the test needs a node whose deadline timer has not run")
	}
	body, err := fetchBody(t, h, "a", "/")
	var ma *host.MaybeAppliedError
	if !errors.As(err, &ma) || !errors.Is(err, ownership.ErrFenced) && !strings.Contains(err.Error(), "lease could have lapsed") {
		t.Fatalf("write after the lease could have lapsed: %q, %v; want MaybeAppliedError (not acknowledged)", body, err)
	}
}

// TestActivation_BucketUnreachable: an object whose activation fails
// because the bucket does not answer (a refused connection) is answered
// 503 with a sentence saying the request was not run, never a bare 500.
func TestActivation_BucketUnreachable(t *testing.T) {
	bucket := faultstore.Wrap(memstore.New())
	node := startNode(t, bucket)
	h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
		c.Bucket = bucket
		c.Node = node
	})
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	bucket.Inject(faultstore.Fault{Fail: true, Err: refused, Prefix: "cells/"})
	code, body := get(t, srv, "/do/Counter/x")
	if code != 503 || !strings.Contains(body, "could not be activated: the bucket did not answer, or changed under the restore; the request was not run") {
		t.Fatalf("request while the bucket refuses connections: %d %q, want 503 saying the request was not run", code, body)
	}
	bucket.Clear()
	if code, body := get(t, srv, "/do/Counter/x"); code != 200 || !strings.Contains(body, `"n":1`) {
		t.Fatalf("after the bucket answers again: %d %q", code, body)
	}
}

// TestRead_NoAnswerWithoutLease: a read (no write, so nothing to make
// durable) is answered from the instance in memory, which is only the
// object's state while the node holds its lease. Once the lease could
// have lapsed (on a fake clock whose timers never fire: a process just
// resumed from a pause, before its deadline timer ran), a read is not
// answered from memory: another node may own the object and have
// acknowledged later writes (issue 31's chaos run answered a stale value
// 2 ms after SIGCONT). Before, the read answered the stale value.
func TestRead_NoAnswerWithoutLease(t *testing.T) {
	for _, mode := range []string{host.DurabilityLog, host.DurabilityBackup} {
		t.Run(mode, func(t *testing.T) {
			bucket := memstore.New()
			clock := &stuckClock{wall: time.Unix(1_800_000_000, 0), mono: time.Hour}
			const ttl = 10 * time.Second
			node, err := ownership.New(ownership.Config{Store: bucket, TTL: ttl, Clock: clock, SkipProbe: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := node.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			defer node.Close(context.Background())
			h := newHostB(t, gateJS, t.TempDir(), func(c *host.Config) {
				c.Durability = mode
				c.Bucket = bucket
				c.Node = node
				c.BackupInterval = time.Hour
			})
			if err := h.Open(); err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			if body, err := fetchBody(t, h, "a", "/"); err != nil || !strings.Contains(body, `"n":1`) {
				t.Fatalf("write with a live lease: %q, %v", body, err)
			}
			if body, err := fetchBody(t, h, "a", "/read"); err != nil || !strings.Contains(body, `"n":1`) {
				t.Fatalf("read with a live lease: %q, %v", body, err)
			}
			clock.Advance(ttl * 4 / 5) // the fence point: TTL - FenceMargin (TTL/5)
			if node.Fenced() {
				t.Fatal("the node fenced: the test needs a node whose deadline timer has not run")
			}
			body, err := fetchBody(t, h, "a", "/read")
			var ma *host.MaybeAppliedError
			if !errors.As(err, &ma) {
				t.Fatalf("read after the lease could have lapsed: %q, %v; want MaybeAppliedError (no answer from memory)", body, err)
			}
		})
	}
}
