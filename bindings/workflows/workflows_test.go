package workflows_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/apptest"
)

// startApp serves testdata/app on a real Host (cells in SQLite files
// under a temporary directory) and returns its URL.
func startApp(t *testing.T) string { return apptest.Serve(t, "testdata/app") }

func call(t *testing.T, base, path, id string) any {
	t.Helper()
	res, err := http.Get(base + path + "?id=" + url.QueryEscape(id) + "&v=yes")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var v any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s: %s: %v", path, b, err)
	}
	return v
}

// waitStatus polls an instance's status until it is want (runs are
// asynchronous; the deadline bounds a failing test only).
func waitStatus(t *testing.T, base, id, want string) map[string]any {
	t.Helper()
	var st map[string]any
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, _ = call(t, base, "/status", id).(map[string]any)
		if st["status"] == want {
			return st
		}
	}
	t.Fatalf("instance %s: status %v, want %s", id, st, want)
	return nil
}

// waitLog polls the log until it holds line.
func waitLog(t *testing.T, base, line string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if count(t, base, line) > 0 {
			return
		}
	}
	t.Fatalf("the log never held %q", line)
}

func count(t *testing.T, base, line string) int {
	n := 0
	for _, l := range call(t, base, "/log", "").([]any) {
		if l == line {
			n++
		}
	}
	return n
}

// An instance runs its steps, sleeps, retries a flaky step, does not retry
// a NonRetryableError, waits for an event and completes; each run replays
// the finished steps from the cell instead of running them again.
func TestWorkflow_Lifecycle(t *testing.T) {
	base := startApp(t)
	if got := call(t, base, "/create", "one"); got != "one" {
		t.Fatalf("create = %v", got)
	}
	waitLog(t, base, "one fatal") // then it waits for the event
	if got := call(t, base, "/create", "one"); got != `threw Error: WorkflowError: (instance.already_exists) Workflow instance with id "one" already exists` {
		t.Errorf("second create = %v", got)
	}
	call(t, base, "/event", "one")
	st := waitStatus(t, base, "one", "complete")
	want := map[string]any{"a": map[string]any{"doubled": 42.0, "at": true}, "flaky": "ok after 3", "fatal": "Error: NonRetryableError: no retry", "approved": "yes", "type": "approve"}
	if !reflect.DeepEqual(st["output"], want) {
		t.Errorf("output = %v, want %v", st["output"], want)
	}
	for line, n := range map[string]int{"one first": 1, "one flaky": 3, "one fatal": 1} {
		if got := count(t, base, line); got != n {
			t.Errorf("%q ran %d times, want %d (a replay runs no finished step)", line, got, n)
		}
	}
	if got := call(t, base, "/status", "nope"); got != "threw Error: instance.not_found" {
		t.Errorf("get(nope) = %v", got)
	}
}

func TestWorkflow_PauseResumeTerminateRestart(t *testing.T) {
	base := startApp(t)
	ids := call(t, base, "/batch", "b").([]any)
	if !reflect.DeepEqual(ids, []any{"b-1", "b-2"}) {
		t.Fatalf("createBatch ids = %v", ids)
	}
	waitLog(t, base, "b-1 fatal")
	call(t, base, "/pause", "b-1")
	waitStatus(t, base, "b-1", "paused")
	call(t, base, "/event", "b-1") // kept while paused
	waitStatus(t, base, "b-1", "paused")
	call(t, base, "/resume", "b-1")
	waitStatus(t, base, "b-1", "complete")

	waitLog(t, base, "b-2 fatal")
	call(t, base, "/terminate", "b-2")
	waitStatus(t, base, "b-2", "terminated")
	if got := call(t, base, "/terminate", "b-2"); !strings.HasPrefix(got.(string), "threw Error: instance.not_running") {
		t.Errorf("second terminate = %v", got)
	}
	call(t, base, "/restart", "b-2")
	for deadline := time.Now().Add(60 * time.Second); count(t, base, "b-2 fatal") < 2 && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
	}
	if st := waitStatus(t, base, "b-2", "running"); st["output"] != nil {
		t.Errorf("restarted instance: %v", st)
	}
	if got := count(t, base, "b-2 first"); got != 2 {
		t.Errorf("after restart the first step ran %d times in all, want 2", got)
	}
}
