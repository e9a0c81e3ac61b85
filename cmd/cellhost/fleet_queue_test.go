package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const fleetQueueWorker = `
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/send") {
      await env.JOBS.send(url.searchParams.get("m"), { contentType: "text" });
      return new Response("acknowledged");
    }
    return new Response("", { status: 404 });
  },
  async queue(batch, env) {
    for (const m of batch.messages) {
      // The test's server holds the first delivery until its node is killed.
      await (await fetch(env.HOLD + "/hold?node=" + env.NODE)).text();
      console.log("DELIVERED " + m.body + " attempts=" + m.attempts + " on " + env.NODE);
    }
  },
};
`

const fleetQueueConfig = `{
  "name": "fleet-queue", "main": "index.js", "compatibility_date": "2025-01-01",
  "queues": {
    "producers": [{"binding": "JOBS", "queue": "fleet-jobs"}],
    "consumers": [{"queue": "fleet-jobs", "max_batch_timeout": 0}]
  }
}`

// TestFleet_QueueMessageOfAKilledNode: two serve nodes share a bucket; the
// node that owns the queue's cell is killed with SIGKILL while its
// consumer holds a message; the other node takes the cell over (the wake
// index holds its alarm, the failover sweep its ownership) and delivers
// the message again.
func TestFleet_QueueMessageOfAKilledNode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	parallel(t)
	var hold atomic.Bool
	hold.Store(true)
	held := make(chan string, 10)
	release := make(chan struct{})
	defer close(release)
	holder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() {
			held <- r.URL.Query().Get("node")
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		io.WriteString(w, "ok")
	}))
	defer holder.Close()

	bin := fleetBinary(t)
	dir := t.TempDir()
	project := writeProject(t, map[string]string{"wrangler.jsonc": fleetQueueConfig, "index.js": fleetQueueWorker})
	bucket := "file://" + filepath.Join(dir, "bucket")
	fast := []string{"--bucket", bucket, "--wake-poll", "1s", "--waker-tick", "300ms", "--var", "HOLD:" + holder.URL}
	nodes := map[string]*serveNode{
		"a": startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "a"), "--var", "NODE:a"}, fast...)...),
		"b": startServe(t, bin, append([]string{project, "--state", filepath.Join(dir, "b"), "--var", "NODE:b"}, fast...)...),
	}
	if status, body := getText(t, nodes["a"].base+"/send?m=m1"); status != 200 || body != "acknowledged" {
		t.Fatalf("send via a: %d %s", status, body)
	}
	var owner string
	select {
	case owner = <-held:
	case <-time.After(60 * time.Second):
		t.Fatal("the consumer never ran")
	}
	other := map[string]string{"a": "b", "b": "a"}[owner]
	if err := nodes[owner].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = nodes[owner].cmd.Wait()
	hold.Store(false)
	killed := time.Now()
	if !nodes[other].logs.waitFor("DELIVERED m1 attempts=2 on "+other, 120*time.Second) {
		t.Fatalf("the message held on %s was not delivered on %s after the kill:\n%s", owner, other, nodes[other].logs)
	}
	t.Logf("delivery held on %s, which was killed; delivered again on %s %v later", owner, other, time.Since(killed).Round(time.Millisecond))
}
