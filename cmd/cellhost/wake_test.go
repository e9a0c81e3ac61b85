package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// alarmProject is a worker whose Counter arms an alarm on ?arm=<ms> and
// logs ALARM-FIRED <id> when it runs.
const alarmProject = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  async fetch(request) {
    const u = new URL(request.url);
    if (u.searchParams.has("arm")) {
      await this.ctx.storage.setAlarm(Date.now() + Number(u.searchParams.get("arm")));
      return new Response(this.ctx.id.toString());
    }
    return new Response("ok");
  }
  async alarm() {
    console.log("ALARM-FIRED " + this.ctx.id.toString());
  }
}
export default { fetch() { return new Response("worker"); } };
`

func writeAlarmProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"wrangler.jsonc": `{"name":"alarms","main":"src/index.js","compatibility_date":"2026-01-01",
 "durable_objects":{"bindings":[{"name":"COUNTER","class_name":"Counter"}]},
 "migrations":[{"tag":"v1","new_sqlite_classes":["Counter"]}]}`,
		"src/index.js": alarmProject,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// devProcess is a running `cellhost dev` whose stderr lines arrive on
// lines.
type devProcess struct {
	cmd   *exec.Cmd
	base  string
	lines chan string
}

func startDevLogged(t *testing.T, bin string, args ...string) *devProcess {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, append([]string{"dev"}, append(args, "--port", strconv.Itoa(port))...)...)
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &devProcess{cmd: cmd, base: "http://127.0.0.1:" + strconv.Itoa(port), lines: make(chan string, 100000)}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case p.lines <- sc.Text():
			default: // never block the process on its stderr
			}
		}
		close(p.lines)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for i := 0; i < 400; i++ {
		if resp, err := http.Get(p.base + "/"); err == nil {
			resp.Body.Close()
			return p
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("cellhost dev did not start")
	return nil
}

// arm arms the alarm of the Counter named name ms from now and returns
// its id.
func (p *devProcess) arm(t *testing.T, name string, ms int) string {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("%s/do/Counter/%s?arm=%d", p.base, name, ms))
	if err != nil {
		t.Fatal(err)
	}
	id, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(id) != 64 {
		t.Fatalf("arm: %d %q", resp.StatusCode, id)
	}
	return string(id)
}

// waitLine waits for a stderr line containing want (the process's own
// deadline is the test timeout; no timing is asserted).
func (p *devProcess) waitLine(t *testing.T, want string, limit time.Duration) string {
	t.Helper()
	timeout := time.After(limit)
	var seen []string
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("the process ended without logging %q:\n%s", want, strings.Join(seen, "\n"))
			}
			seen = append(seen, line)
			if strings.Contains(line, want) {
				return line
			}
		case <-timeout:
			t.Fatalf("no line %q within %v:\n%s", want, limit, strings.Join(seen, "\n"))
		}
	}
}

// TestWake_AlarmSurvivesRestart arms an alarm on a real `cellhost dev`,
// waits until its wake entry is in the bucket, kills the process with
// SIGKILL before the alarm is due, and restarts it: the alarm fires with no
// request (the start-up read of the wake index activates the cell).
//
// With --durability local (no bucket) the index lives in <state>/wake.
func TestWake_AlarmSurvivesRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	parallel(t) // beside the other waiting process tests (see TestCrash_AcknowledgedWritesSurvive)
	bin := buildCellhost(t)
	project := writeAlarmProject(t)
	t.Run("log", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "state")
		alarmAcrossRestart(t, bin, project, state, "file://"+filepath.Join(state, "bucket"), 1)
	})
	t.Run("local", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "state")
		alarmAcrossRestart(t, bin, project, state, "file://"+filepath.Join(state, "wake"), 0, "--durability", "local")
	})
	// The S3 server .ci/run starts (CELLHOST_TEST_S3, see plugins/s3store).
	s3 := os.Getenv("CELLHOST_TEST_S3")
	if s3 == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CELLHOST_TEST_S3 is not set: .ci/run must start the S3 server")
		}
		t.Skip("no S3 server: start one with .ci/versitygw.sh start (CELLHOST_TEST_S3)")
	}
	u, err := url.Parse(s3)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = fmt.Sprintf("/wake-%d", time.Now().UnixNano())
	t.Run("s3", func(t *testing.T) {
		state := filepath.Join(t.TempDir(), "state")
		alarmAcrossRestart(t, bin, project, state, u.String(), 1, "--bucket", u.String())
	})
}

// alarmAcrossRestart: the wake index is in the store at indexURL, and the
// published entries carry epoch wantEpoch.
func alarmAcrossRestart(t *testing.T, bin, project, state, indexURL string, wantEpoch uint64, flags ...string) {
	args := append([]string{project, "--state", state}, flags...)

	p := startDevLogged(t, bin, args...)
	id := p.arm(t, "sleeper", 3000)
	scope := "Counter:" + id

	// The entry is published after the commit is durable, beside the
	// reply: wait for it before the kill.
	store, err := plugins.OpenStore(context.Background(), indexURL)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	entry := waitWakeEntry(t, store, scope)
	body, _, err := store.Get(context.Background(), entry)
	if err != nil {
		t.Fatal(err)
	}
	e, err := fleet.DecodeWakeEntry(entry, body)
	if err != nil {
		t.Fatal(err)
	}
	// The epoch is the cell's ownership epoch: 1 on a bucket, 0 without.
	if e.Epoch != wantEpoch || e.Cell != scope {
		t.Errorf("wake entry %s: %s, want cell %s at epoch %d", entry, body, scope, wantEpoch)
	}
	t.Logf("wake entry %s: %s", entry, body)

	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	for range p.lines { // drain: nothing fired before the kill
	}

	q := startDevLogged(t, bin, args...)
	line := q.waitLine(t, "ALARM-FIRED "+id, 60*time.Second)
	t.Logf("after the restart, with no request: %s", line)

	// Fired and deleted: the entry is retired.
	waitNoWakeEntry(t, store, scope)
}

func wakeEntries(t *testing.T, store plugins.ObjectStore, scope string) []string {
	t.Helper()
	page, err := store.List(context.Background(), bucketkey.WakeEntriesPrefix, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, o := range page.Objects {
		if k, err := bucketkey.ParseWakeKey(o.Key); err == nil && k.Scope == scope {
			out = append(out, o.Key)
		}
	}
	return out
}

func waitWakeEntry(t *testing.T, store plugins.ObjectStore, scope string) string {
	t.Helper()
	for i := 0; i < 600; i++ {
		if keys := wakeEntries(t, store, scope); len(keys) > 0 {
			return keys[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no wake entry for %s", scope)
	return ""
}

func waitNoWakeEntry(t *testing.T, store plugins.ObjectStore, scope string) {
	t.Helper()
	for i := 0; i < 600; i++ {
		if len(wakeEntries(t, store, scope)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal(fmt.Sprintf("the wake entry of %s was not retired: %v", scope, wakeEntries(t, store, scope)))
}

// TestWake_FailoverAndDeadNodeGC runs two `cellhost dev` nodes on one
// bucket. An alarm armed on the first fires on the second after the first
// is killed (once its node lease expired, the elected waker takes the
// cell), and the waker's dead-node GC then removes the killed node's
// markers and lease record.
func TestWake_FailoverAndDeadNodeGC(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	parallel(t) // beside the other waiting process tests (see TestCrash_AcknowledgedWritesSurvive)
	bin := buildCellhost(t)
	project := writeAlarmProject(t)
	dir := t.TempDir()
	bucket := "file://" + filepath.Join(dir, "bucket")
	fast := []string{"--bucket", bucket, "--wake-poll", "1s", "--waker-tick", "300ms"}
	p1 := startDevLogged(t, bin, append([]string{project, "--state", filepath.Join(dir, "s1")}, fast...)...)
	p2 := startDevLogged(t, bin, append([]string{project, "--state", filepath.Join(dir, "s2")}, fast...)...)

	id := p1.arm(t, "failover", 2000)
	store, err := plugins.OpenStore(context.Background(), bucket)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	waitWakeEntry(t, store, "Counter:"+id)
	node1, err := os.ReadFile(filepath.Join(dir, "s1", "node-id"))
	if err != nil {
		t.Fatal(err)
	}
	dead := strings.TrimSpace(string(node1))
	if keys := listPrefix(t, store, bucketkey.NodeMarkersPrefix(dead)); len(keys) == 0 {
		t.Fatalf("no node-cells marker of %s before the kill", dead)
	}

	killed := time.Now()
	if err := p1.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = p1.cmd.Wait()

	line := p2.waitLine(t, "ALARM-FIRED "+id, 90*time.Second)
	t.Logf("on the survivor %v after the kill: %s", time.Since(killed).Round(100*time.Millisecond), line)

	for i := 0; ; i++ {
		markers := listPrefix(t, store, bucketkey.NodeMarkersPrefix(dead))
		_, _, err := store.Get(context.Background(), bucketkey.NodeKey(dead))
		if len(markers) == 0 && err != nil {
			break
		}
		if i == 1500 {
			t.Fatalf("after GC: markers %v, record read error %v; want both gone", markers, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the killed node's markers and lease record are gone %v after the kill", time.Since(killed).Round(100*time.Millisecond))
}

func listPrefix(t *testing.T, store plugins.ObjectStore, prefix string) []string {
	t.Helper()
	page, err := store.List(context.Background(), prefix, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range page.Objects {
		keys = append(keys, o.Key)
	}
	return keys
}
