package main

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
)

// TestFleet_AlarmOfAKilledOwner arms an alarm on a serve node and kills it
// with SIGKILL before the alarm is due: the other node, as the elected
// waker, takes the cell once the dead node's lease expired and runs the
// alarm, with no request.
func TestFleet_AlarmOfAKilledOwner(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), writeAlarmProject(t)
		fast := []string{"--bucket", bucket, "--wake-poll", "1s", "--waker-tick", "300ms"}
		a := startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "a")}, fast...)...)
		b := startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "b")}, fast...)...)
		status, id := getText(t, a.base+"/do/Counter/al?arm=1500")
		if status != 200 || len(id) != 64 {
			t.Fatalf("arm via a: %d %q", status, id)
		}
		// The reply waited for the wake entry (published after the durable
		// commit, before the reply): it is in the bucket now, so a kill
		// right after the reply cannot leave the alarm unindexed.
		store := openBucket(t, bucket)
		page, err := store.List(context.Background(), bucketkey.WakeEntriesPrefix, "", 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, o := range page.Objects {
			found = found || strings.HasSuffix(o.Key, "/Counter:"+id)
		}
		if !found {
			t.Fatalf("no wake entry for Counter:%s when the reply arrived:\n%s", id, a.logs)
		}
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = a.cmd.Wait()
		killed := time.Now()
		if !b.logs.waitFor("ALARM-FIRED "+id, 60*time.Second) {
			t.Fatalf("the alarm did not fire on b within 60 s of the kill:\n%s", b.logs)
		}
		t.Logf("alarm armed on a (due 1.5 s later), a killed: it fired on b %v after the kill (lease TTL %v)", time.Since(killed).Round(time.Millisecond), fleetTTL)
		// diagnose shows b's running counters: the alarm it fired and the
		// cell it took over.
		var stdout, stderr bytes.Buffer
		if code := run([]string{"diagnose", "--bucket", bucket}, &stdout, &stderr); code != 0 {
			t.Fatalf("diagnose: %s\n%s", stderr.String(), stdout.String())
		}
		// (b brought the cell back through the wake index or the failover
		// sweep, whichever came first.)
		out := stdout.String()
		woken := regexp.MustCompile(`[1-9]\d* cells woken`).MatchString(out) || regexp.MustCompile(`failover sweep: [1-9]\d* cells taken over`).MatchString(out)
		if !regexp.MustCompile(`alarms: [1-9]\d* fired`).MatchString(out) || !woken {
			t.Errorf("diagnose does not show b's alarm counters:\n%s", stdout.String())
		}
	})
}

// TestFleet_FailoverSweep: a cell without an alarm whose owner is killed
// is taken over by the elected waker (the failover sweep) once the owner's
// lease expired, with no request, and its state is there.
func TestFleet_FailoverSweep(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir, project := t.TempDir(), counterProject(t)
		fast := []string{"--bucket", bucket, "--wake-poll", "1s", "--waker-tick", "300ms"}
		a := startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "a")}, fast...)...)
		b := startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "b")}, fast...)...)
		client := &http.Client{Timeout: 30 * time.Second}
		for i := 1; i <= 2; i++ {
			if status, r, raw, err := getCounter(client, a.base+"/do/Counter/swept"); err != nil || status != 200 || r.N != i {
				t.Fatalf("increment via a: %d %s %v", status, raw, err)
			}
		}
		store := openBucket(t, bucket)
		if rec := ownerOf(t, store, "swept"); rec.Node != a.id {
			t.Fatalf("own.json = %+v, want a", rec)
		}
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = a.cmd.Wait()
		scope := "Counter:" + counterID("swept")
		if !b.logs.waitForRe(regexp.MustCompile(`failover sweep: cell taken over" .*scope=`+regexp.QuoteMeta(scope)), 60*time.Second) {
			t.Fatalf("b did not take the cell over:\n%s", b.logs)
		}
		if rec := ownerOf(t, store, "swept"); rec.Node != b.id {
			t.Errorf("own.json after the sweep = %+v, want b", rec)
		}
		if status, r, raw, err := getCounter(client, b.base+"/do/Counter/swept?peek=1"); err != nil || status != 200 || r.N != 2 {
			t.Errorf("peek via b after the sweep: %d %s %v, want n=2", status, raw, err)
		}
	})
}
