package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const workflowCrashWorker = `
import { DurableObject, WorkflowEntrypoint } from "cloudflare:workers";
export class Log extends DurableObject {
  async add(line) {
    const log = (await this.ctx.storage.get("log")) ?? [];
    log.push(line);
    await this.ctx.storage.put("log", log);
  }
  async get() { return (await this.ctx.storage.get("log")) ?? []; }
}
export class Job extends WorkflowEntrypoint {
  async run(event, step) {
    const log = this.env.LOG.get(this.env.LOG.idFromName("log"));
    const one = await step.do("one", async () => { await log.add("one"); return 1; });
    const two = await step.do("two", async () => {
      await log.add("two");
      // The test's server holds this request until the process is killed.
      await (await fetch(this.env.HOLD + "/hold")).text();
      return 2;
    });
    const three = await step.do("three", async () => { await log.add("three"); return 3; });
    return one + two + three;
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/create") return Response.json((await env.JOB.create({ id: "job" })).id);
    if (url.pathname === "/status") return Response.json(await (await env.JOB.get("job")).status());
    if (url.pathname === "/log") return Response.json(await env.LOG.get(env.LOG.idFromName("log")).get());
    return new Response("", { status: 404 });
  },
};
`

const workflowCrashConfig = `{
  "name": "workflow-crash", "main": "index.js", "compatibility_date": "2025-01-01",
  "durable_objects": {"bindings": [{"name": "LOG", "class_name": "Log"}]},
  "migrations": [{"tag": "v1", "new_sqlite_classes": ["Log"]}],
  "workflows": [{"name": "job", "binding": "JOB", "class_name": "Job"}]
}`

// TestCrash_WorkflowResumesAfterKill kills a real cellhost dev with
// SIGKILL in the middle of a workflow's step "two", restarts it on the
// same state and bucket, and checks that the instance completes without
// running its finished step "one" again: the wake index wakes the
// instance's cell when the dead run's lease ends, and the replay takes
// step one's result from the cell.
func TestCrash_WorkflowResumesAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	parallel(t)
	var hold atomic.Bool
	hold.Store(true)
	held := make(chan struct{}, 10)
	release := make(chan struct{})
	defer close(release)
	holder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hold.Load() {
			held <- struct{}{}
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}
		io.WriteString(w, "ok")
	}))
	defer holder.Close()

	project := writeProject(t, map[string]string{"wrangler.jsonc": workflowCrashConfig, "index.js": workflowCrashWorker})
	dir := t.TempDir()
	bin := buildCellhost(t)
	args := []string{project, "--state", filepath.Join(dir, "state"), "--bucket", "file://" + filepath.Join(dir, "bucket"), "--var", "HOLD:" + holder.URL}
	cmd, base := startDev(t, bin, args...)
	getJSON := func(path string, v any) int {
		t.Helper()
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == 200 {
			if err := json.Unmarshal(b, v); err != nil {
				t.Fatalf("%s: %s: %v", path, b, err)
			}
		}
		return resp.StatusCode
	}
	var id string
	if code := getJSON("/create", &id); code != 200 || id != "job" {
		t.Fatalf("create: %d %q", code, id)
	}
	select {
	case <-held: // step two is running
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("step two never ran")
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
	var st struct {
		Status string
		Output any
	}
	for deadline := time.Now().Add(90 * time.Second); st.Status != "complete" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		getJSON("/status", &st)
	}
	if st.Status != "complete" || st.Output != 6.0 {
		t.Fatalf("after the restart: status %q output %v, want complete and 6", st.Status, st.Output)
	}
	var log []string
	getJSON("/log", &log)
	want := []string{"one", "two", "two", "three"}
	if len(log) != len(want) || log[0] != "one" || log[1] != "two" || log[2] != "two" || log[3] != "three" {
		t.Errorf("steps run: %v, want %v (step one replayed from the cell, step two run again)", log, want)
	}
}
