package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// TestFleet_StoppedOwner pauses the owner of an object (SIGSTOP) past its
// lease TTL while writes go through another node, which takes the object
// over; then resumes it (SIGCONT). The paused node acknowledges nothing
// after the takeover: every acknowledged value is distinct and the count
// goes on from the last one, through either node, and the resumed node
// serves again without a restart.
func TestFleet_StoppedOwner(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), counterProject(t)
		a := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "a"))
		b := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "b"))
		// A forward to the paused node is cut at its lease's expiry (503);
		// clients give up after 5 s all the same (a failure).
		client := &http.Client{Timeout: 5 * time.Second}
		timeouts := 0
		last := 0
		refused := 0 // 500s from the resumed node: writes it could not acknowledge
		resumed := false
		var (
			store   plugins.ObjectStore
			stopped time.Time
			acks    []string // every acknowledgement: via, when, and the owner then
		)
		// noteAck names the node that acknowledged n: the owner own.json
		// names right after the acknowledgement (only the owner at its
		// epoch can acknowledge; a later takeover would show a higher
		// epoch).
		noteAck := func(via *serveNode, n int) {
			if store == nil {
				return
			}
			rec := ownerOf(t, store, "s")
			label := func(id string) string {
				switch id {
				case a.id:
					return "a"
				case b.id:
					return "b"
				}
				return fmt.Sprintf("%q", id)
			}
			when := "before the SIGSTOP"
			if !stopped.IsZero() {
				when = fmt.Sprintf("%v after the SIGSTOP", time.Since(stopped).Round(time.Millisecond))
			}
			acks = append(acks, fmt.Sprintf("n=%d via %s %s, own.json then: %s at epoch %d (a's process state %s)", n, label(via.id), when, label(rec.Node), rec.Epoch, procState(a.cmd.Process.Pid)))
		}
		ack := func(via *serveNode) bool {
			status, r, raw, err := getCounter(client, via.base+"/do/Counter/s")
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() {
				timeouts++
				return false
			}
			if err != nil {
				t.Fatalf("via %s: %v", via.id, err)
			}
			if status == 503 && strings.Contains(raw, host.MsgMaybeApplied) && resumed && via == a {
				// The resumed node's old instance ran the request, but its
				// commit could not be acknowledged (the lease was lost):
				// 503 "may or may not have been applied", never an
				// acknowledgement.
				refused++
				return false
			}
			if status != 200 {
				if status != 503 && status != 502 {
					t.Fatalf("via %s: %d %s\n%s", via.id, status, raw, via.logs)
				}
				return false
			}
			if r.N <= last {
				t.Fatalf("via %s: acknowledged n=%d after n=%d: a write acknowledged twice or lost", via.id, r.N, last)
			}
			last = r.N
			noteAck(via, r.N)
			return true
		}
		for range 5 {
			if !ack(a) {
				t.Fatal("a did not serve its own object")
			}
		}
		store = openBucket(t, bucket)
		genBefore := nodeGeneration(t, store, a.id)

		if err := a.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		stopped = time.Now()
		// kill(2) returns before the signal is delivered: a request
		// forwarded now could still be answered by a (issue 31: CI once
		// saw b acknowledge 0.67 s after the SIGSTOP with own.json still
		// naming a). Wait until a is stopped (state T) before asking.
		waitProcStopped(t, a.cmd.Process.Pid)
		deadline := stopped.Add(60 * time.Second)
		for !ack(b) {
			if time.Now().After(deadline) {
				t.Fatalf("b did not take the object over within 60 s\n%s", b.logs)
			}
			time.Sleep(50 * time.Millisecond) // a client's back-off
		}
		tookOver := time.Since(stopped)
		// own.json names b, unless b fenced itself meanwhile (a renewal
		// that did not land in time on this loaded machine): then its
		// cells were reset and released, {"node":"",...} at b's epoch,
		// which is the failure seen once (issue 31, no logs kept then).
		rec := ownerOf(t, store, "s")
		if rec.Node == "" && rec.Epoch > 1 && strings.Contains(b.logs.String(), "fenced") {
			t.Logf("b fenced itself after its takeover and released the object (own.json %+v)", rec)
			for deadline := time.Now().Add(60 * time.Second); !ack(b); time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("b did not serve again within 60 s of its fence\n%s", b.logs)
				}
			}
		} else if rec.Node != b.id {
			t.Fatalf("own.json after the takeover = %+v, want b (%s); a's lease generation %s, b's %s; acknowledgements:\n%s\n--- a:\n%s\n--- b:\n%s",
				rec, b.id, nodeGeneration(t, store, a.id), nodeGeneration(t, store, b.id), strings.Join(acks, "\n"), a.logs, b.logs)
		}
		for range 3 {
			if !ack(b) {
				t.Fatal("b failed after taking the object")
			}
		}
		resumed = true
		if err := a.cmd.Process.Signal(syscall.SIGCONT); err != nil {
			t.Fatal(err)
		}
		// Through the resumed node: it must not answer from its old
		// instance; it forwards to b (or fails) until it knows.
		deadline = time.Now().Add(60 * time.Second)
		resumedAcks := 0
		for resumedAcks < 5 {
			if ack(a) {
				resumedAcks++
			} else {
				time.Sleep(50 * time.Millisecond)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the resumed node did not serve within 60 s\n%s", a.logs)
			}
		}
		if !ack(b) {
			t.Fatal("b failed after a resumed")
		}
		status, r, raw, err := getCounter(client, b.base+"/do/Counter/s?peek=1")
		if err != nil || status != 200 || r.N != last {
			t.Fatalf("peek: %d %s %v, want n=%d", status, raw, err, last)
		}
		rejoined := strings.Contains(a.logs.String(), "rejoining the fleet")
		t.Logf("acknowledgements:\n%s", strings.Join(acks, "\n"))
		t.Logf("SIGSTOP -> b acknowledged after %v (TTL %v); %d requests timed out, %d refused by the resumed node; a rejoined with a new generation: %v (generation %s -> %s); n=%d",
			tookOver.Round(time.Millisecond), fleetTTL, timeouts, refused, rejoined, short(genBefore), short(nodeGeneration(t, store, a.id)), last)
	})
}

// nodeGeneration reads node's lease and returns its generation.
func nodeGeneration(t *testing.T, store interface {
	Get(context.Context, string) ([]byte, string, error)
}, node string) string {
	t.Helper()
	body, _, err := store.Get(context.Background(), bucketkey.NodeKey(node))
	if err != nil {
		return "(" + err.Error() + ")"
	}
	rec, err := ownership.DecodeNodeRecord(bucketkey.NodeKey(node), body)
	if err != nil {
		t.Fatal(err)
	}
	return rec.OwnershipIndexGeneration
}

// procState returns the state of process pid, the third field of
// /proc/<pid>/stat ("T": stopped), or "?" where there is none.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "?"
	}
	// "pid (comm) S ...": comm may hold spaces and parentheses.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return string(b[i+2])
	}
	return "?"
}

// waitProcStopped waits until process pid is stopped (state T), for at
// most 30 s; where /proc is not, it cannot tell and returns at once.
func waitProcStopped(t *testing.T, pid int) {
	t.Helper()
	st := procState(pid)
	for deadline := time.Now().Add(30 * time.Second); st != "T" && st != "?"; st = procState(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d in state %s 30 s after SIGSTOP, not T", pid, st)
		}
		time.Sleep(time.Millisecond)
	}
}
