package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const queueCrashWorker = `
import { DurableObject } from "cloudflare:workers";
export class Log extends DurableObject {
  async add(lines) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(...lines);
    await this.ctx.storage.put("log", log);
  }
  async get() { return (await this.ctx.storage.get("log")) ?? []; }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const log = env.LOG.get(env.LOG.idFromName("log"));
    if (url.pathname === "/log") return Response.json(await log.get());
    if (url.pathname === "/send") {
      await env.JOBS.send({ n: Number(url.searchParams.get("n")) });
      return new Response("acknowledged");
    }
    return new Response("", { status: 404 });
  },
  async queue(batch, env) {
    // The test's server holds this request until the process is killed.
    await (await fetch(env.HOLD + "/hold?batch=" + batch.messages.length)).text();
    const log = env.LOG.get(env.LOG.idFromName("log"));
    await log.add(batch.messages.map((m) => m.body.n + "@" + m.attempts));
  },
};
`

const queueCrashConfig = `{
  "name": "queue-crash", "main": "index.js", "compatibility_date": "2025-01-01",
  "durable_objects": {"bindings": [{"name": "LOG", "class_name": "Log"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Log"]}],
  "queues": {
    "producers": [{"binding": "JOBS", "queue": "jobs"}],
    "consumers": [{"queue": "jobs", "max_batch_size": 5, "max_batch_timeout": 0}]
  }
}`

// TestCrash_QueueMessagesSurvive sends messages through a real cellhost
// dev, kills it with SIGKILL while its consumer is in the middle of a
// batch (held by this test's server), restarts it on the same state and
// bucket, and checks that every message send() acknowledged is delivered:
// those of the batch in flight (attempts 2) and those still waiting.
func TestCrash_QueueMessagesSurvive(t *testing.T) {
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
			held <- r.URL.Query().Get("batch")
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		io.WriteString(w, "ok")
	}))
	defer holder.Close()

	project := writeProject(t, map[string]string{"wrangler.jsonc": queueCrashConfig, "index.js": queueCrashWorker})
	dir := t.TempDir()
	bin := buildCellhost(t)
	args := []string{project, "--state", filepath.Join(dir, "state"), "--bucket", "file://" + filepath.Join(dir, "bucket"), "--var", "HOLD:" + holder.URL}
	cmd, base := startDev(t, bin, args...)
	send := func(n int) {
		t.Helper()
		resp, err := http.Get(fmt.Sprintf("%s/send?n=%d", base, n))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "acknowledged" {
			t.Fatalf("send %d: %d %s", n, resp.StatusCode, b)
		}
	}
	send(0)
	select {
	case <-held: // the first batch is in the consumer
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the consumer never ran")
	}
	const total = 8
	for n := 1; n < total; n++ { // acknowledged while the batch is held
		send(n)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	hold.Store(false)
	cmd, base = startDev(t, bin, args...)
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	seen := map[string]bool{}
	var log []string
	for deadline := time.Now().Add(90 * time.Second); len(seen) < total && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get(base + "/log")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			continue
		}
		log = nil
		if err := json.Unmarshal(b, &log); err != nil {
			t.Fatalf("log %s: %v", b, err)
		}
		seen = map[string]bool{}
		for _, l := range log {
			var n, attempts int
			fmt.Sscanf(l, "%d@%d", &n, &attempts)
			seen[fmt.Sprint(n)] = true
		}
	}
	sort.Strings(log)
	if len(seen) != total {
		t.Fatalf("after the restart %d of %d acknowledged messages were delivered: %v", len(seen), total, log)
	}
	if !contains(log, "0@2") {
		t.Errorf("message 0, in the batch the kill interrupted, was not delivered again with attempts 2: %v", log)
	}
	t.Logf("delivered after SIGKILL: %v", log)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
