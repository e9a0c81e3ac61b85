package main

import (
	"context"
	"path/filepath"
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
		// The wake entry is published after the commit is durable, not
		// before the reply: wait until it is in the bucket (a kill before
		// that leaves no hint; the alarm then runs at the cell's next
		// activation).
		store := openBucket(t, bucket)
		for deadline := time.Now().Add(30 * time.Second); ; {
			page, err := store.List(context.Background(), bucketkey.WakeEntriesPrefix, "", 0)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, o := range page.Objects {
				found = found || strings.HasSuffix(o.Key, "/Counter:"+id)
			}
			if found {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no wake entry for Counter:%s within 30 s:\n%s", id, a.logs)
			}
			time.Sleep(20 * time.Millisecond) // polling the bucket
		}
		if err := a.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = a.cmd.Wait()
		killed := time.Now()
		for !strings.Contains(b.logs.String(), "ALARM-FIRED "+id) {
			if time.Since(killed) > 60*time.Second {
				t.Fatalf("the alarm did not fire on b within 60 s of the kill:\n%s", b.logs)
			}
			time.Sleep(100 * time.Millisecond) // polling b's log
		}
		t.Logf("alarm armed on a (due 1.5 s later), a killed: it fired on b %v after the kill (lease TTL %v)", time.Since(killed).Round(time.Millisecond), fleetTTL)
	})
}
