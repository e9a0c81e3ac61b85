package main

// The hostile suite of issue 23: real cellhost processes on loopback, each
// attack bounded in time, reproducing what took a node down or starved it
// before and checking that now the process survives, the offender gets
// workerd's error, neighbour objects (on the attacked object's shard and
// on another) fail no request and lose no acknowledged write, and memory
// comes back. The short form runs with `go test ./cmd/cellhost` (CI); the
// long form, with the sizes (4 200 unsent bodies, 10 000 idle
// connections), under CELLHOST_HOSTILE=long:
//
//	CELLHOST_HOSTILE=long go test ./cmd/cellhost -run TestHostile -v -timeout 30m

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const hostileJS = `
import { DurableObject } from "cloudflare:workers";
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; }
  async fetch(request) {
    const url = new URL(request.url);
    this.hits++;
    if (url.searchParams.has("peek")) return Response.json({ n: (await this.ctx.storage.get("n")) ?? 0, hits: this.hits });
    const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
    await this.ctx.storage.put("n", n);
    return Response.json({ n, hits: this.hits });
  }
}
export class Evil extends DurableObject {
  async fetch(request) {
    const u = new URL(request.url);
    const a = u.searchParams.get("a");
    const err = (f) => { try { f(); return "allocated" } catch (e) { return e.constructor.name + ": " + e.message } };
    if (a === "alloc") {
      const kept = [];
      const out = [err(() => new Uint8Array(4 * 1024 ** 3)), err(() => new ArrayBuffer(2 ** 32))];
      let last = "";
      for (let i = 0; i < 64 && !last.startsWith("RangeError"); i++) last = err(() => kept.push(new Uint8Array(256 << 20)));
      out.push(last, err(() => Buffer.alloc(2 ** 32)));
      return new Response(out.join("|"));
    }
    if (a === "deepjson") {
      let x = []; for (let i = 0; i < 150000; i++) x = [x];
      return new Response(err(() => JSON.stringify(x)));
    }
    if (a === "echo") return new Response(await request.text());
    if (a === "spin") { // a long job: ms of CPU, or forever
      const ms = u.searchParams.get("ms"), end = Date.now() + (ms === null ? Infinity : +ms);
      while (Date.now() < end) {}
      return new Response("spun " + ms);
    }
    if (a === "fetch") {
      const r = await fetch(u.searchParams.get("u"), { method: "POST", body: "x" });
      return new Response(r.status + " " + (await r.text()).trim());
    }
    return new Response("ok");
  }
}
export default { async fetch(request) { return new Response("worker " + request.method); } };
`

func hostileProject(t *testing.T, top string, limits string) string {
	t.Helper()
	dir := t.TempDir()
	w := `{"name": "rel", "main": "index.js", "compatibility_date": "2026-01-01", "compatibility_flags": ["nodejs_compat"], ` + limits + `
  "durable_objects": {"bindings": [{"name": "COUNTER", "class_name": "Counter"}, {"name": "EVIL", "class_name": "Evil"}]}}`
	for name, body := range map[string]string{"wrangler.jsonc": w, "index.js": top + hostileJS} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func startHostile(t *testing.T, bin string, env ...string) *relNode {
	t.Helper()
	return startHostileWith(t, bin, "", env...)
}

// startHostileWith is startHostile with a wrangler "limits" entry (with its
// trailing comma), such as "\"limits\": {\"cpu_ms\": 1000},".
func startHostileWith(t *testing.T, bin, limits string, env ...string) *relNode {
	t.Helper()
	env = append(hostileQuiet(), env...) // the process's own (cmd.Env), not t.Setenv: TestHostile runs beside others
	cmd, base := startDevEnv(t, bin, env, hostileProject(t, "", limits), "--state", filepath.Join(t.TempDir(), "state"))
	n := &relNode{cmd: cmd, base: base}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	return n
}

func hostileLong() bool { return os.Getenv("CELLHOST_HOSTILE") == "long" }

// rssMB is the process's resident memory now, in MB.
func rssMB(n *relNode) int { return procStatus(n.cmd.Process.Pid, "VmRSS") >> 10 }

// settled waits until the process's resident memory stops falling (the Go
// runtime returns freed memory to the system in the background) or the
// bound passes, and returns it.
func settled(n *relNode) int {
	last := rssMB(n)
	for i := 0; i < 40; i++ {
		time.Sleep(250 * time.Millisecond)
		now := rssMB(n)
		if now >= last {
			return now
		}
		last = now
	}
	return last
}

// checkMemoryBack: once the attack and the neighbours' traffic are over,
// memory comes back within 20% of its level before the attack (plus 16 MB:
// the neighbours' own data, and the runtime's span and GC metadata, which Go
// never frees, for the largest heap the process had). The attack's memory
// is garbage by then, but at GOGC 1000 a process that saw traffic keeps
// its heap goal, 11x the live heap: without traffic nothing collects, and
// the scavenger keeps what lies under the goal. internal/memrelief gives it
// back after a quiet period (30 s; CELLHOST_MEMRELIEF_QUIET=2s in the short
// form, hostileQuiet), so the wait is bounded by that period, not by Go's
// two-minute forced collection. Measured with cellhost dev, 10 000 idle
// connections then 30 s of reads: 65 MB before, 364 MB after the reads,
// 83 MB 30 s later (without the relief: 230 MB after 100 s, for good; the
// reads alone with no attack took 66 MB to 193 MB).
func checkMemoryBack(t *testing.T, n *relNode, before int) {
	t.Helper()
	bound := before*6/5 + 16
	peak := rssMB(n)
	after := peak
	wait := 20 * time.Second
	if hostileLong() {
		wait = 60 * time.Second // the default 30 s quiet period
	}
	for end := time.Now().Add(wait); after > bound && time.Now().Before(end); after = rssMB(n) {
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("RSS before %d MB, right after the attack %d MB, after a quiet period %d MB (bound %d MB)", before, peak, after, bound)
	if after > bound {
		t.Errorf("RSS %d MB after the attack, %d MB before: not back within 20%%", after, before)
	}
}

// hostileQuiet is the quiet period of the relief (internal/memrelief): the
// short form's is short, the long form's the default.
func hostileQuiet() []string {
	if hostileLong() {
		return nil
	}
	return []string{"CELLHOST_MEMRELIEF_QUIET=2s"}
}

func TestHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	parallel(t) // its processes' settings go through cmd.Env; no lease times it
	bin := buildCellhost(t)

	// 23.1: allocations sized past the limit were Go's fatal out of memory.
	t.Run("Allocations", func(t *testing.T) {
		n := startHostile(t, bin)
		before := settled(n)
		nb := startNeighbours(t, n, "alloc")
		status, body := get(t, n.base+"/do/Evil/alloc?a=alloc")
		nb.finish(t, n)
		const failed = "RangeError: Array buffer allocation failed"
		if want := strings.Repeat(failed+"|", 3) + failed; status != 200 || body != want || !n.alive(t) {
			t.Fatalf("allocations: %d %q, alive %v\nwant 200 %q", status, body, n.alive(t), want)
		}
		checkMemoryBack(t, n, before)
	})

	// 23.5: JSON.stringify of a 150 000-deep array held its shard for 118 s.
	t.Run("DeepJSON", func(t *testing.T) {
		n := startHostile(t, bin)
		nb := startNeighbours(t, n, "deep")
		start := time.Now()
		status, body := get(t, n.base+"/do/Evil/deep?a=deepjson")
		took := time.Since(start)
		nb.finish(t, n)
		t.Logf("the deep JSON.stringify answered after %v", took.Round(time.Millisecond))
		if status != 200 || body != "RangeError: Maximum call stack size exceeded" || !n.alive(t) {
			t.Fatalf("deep JSON: %d %q", status, body)
		}
	})

	// 23.2: connections announcing a 64 KiB body and sending none starved
	// every small POST of the body budget for minutes.
	t.Run("UnsentBodies", func(t *testing.T) {
		n := startHostile(t, bin)
		before := settled(n)
		nb := startNeighbours(t, n, "none")
		for nb.acked.Load() < int64(len(nb.names)) {
			time.Sleep(10 * time.Millisecond)
		}
		conns := 500
		if hostileLong() {
			conns = 4200
		}
		addr := strings.TrimPrefix(n.base, "http://")
		var held []net.Conn
		for i := 0; i < conns; i++ {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatalf("connection %d: %v", i, err)
			}
			held = append(held, c)
			io.WriteString(c, "POST /do/Counter/starved HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\n")
		}
		// The probes have a transport of their own: a connection they
		// open past the cap is answered 503 at once, and in the shared
		// pool that answer reached a neighbour's request instead
		// (net/http: "Unsolicited response received on idle HTTP
		// channel"), failing it although the neighbour's own connection
		// was never refused.
		probes := &http.Transport{MaxIdleConnsPerHost: 1}
		defer probes.CloseIdleConnections()
		client := &http.Client{Timeout: 20 * time.Second, Transport: probes}
		post := func() int {
			resp, err := client.Post(n.base+"/do/Counter/poster", "text/plain", strings.NewReader("small"))
			if err != nil {
				return -1 // no answer (before the fix: hung for minutes)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp.StatusCode
		}
		statuses := map[int]int{}
		for i := 0; i < 20; i++ {
			statuses[post()]++
		}
		// Past the connection cap (the long form's 4 200 > 4 096) a new
		// connection is answered 503 until the server times the unsent
		// bodies out (408 after 30 s) and closes them: a POST then
		// succeeds while the attacker still holds its sockets.
		var recovered time.Duration
		if statuses[200] != 20 {
			start := time.Now()
			for time.Since(start) < 90*time.Second && post() != 200 {
				time.Sleep(time.Second)
			}
			recovered = time.Since(start)
		}
		for _, c := range held {
			c.Close()
		}
		nb.finish(t, n)
		t.Logf("%d connections holding an unsent 64 KiB body: 20 small POSTs answered %v (status: count; -1 no answer); a POST succeeded %v later", conns, statuses, recovered.Round(time.Second))
		if statuses[-1] > 0 || (!hostileLong() && statuses[200] != 20) || (hostileLong() && post() != 200) {
			t.Errorf("small POSTs during the attack: %v", statuses)
		}
		checkMemoryBack(t, n, before)
	})

	// 23.4: idle connections were held forever, and past the descriptor
	// limit every new request timed out. Past the cap a new connection is
	// answered 503 at once; the neighbours (connected before) go on.
	t.Run("Connections", func(t *testing.T) {
		maxConns, idle := 64, 200
		env := []string{"CELLHOST_MAX_CONNECTIONS=" + strconv.Itoa(maxConns)}
		if hostileLong() {
			env, idle = nil, 10000
		}
		n := startHostile(t, bin, env...)
		before := settled(n)
		// The neighbours keep their connections (their own client, see
		// neighbours.client): those they opened before hold their slots.
		nb := startNeighbours(t, n, "none")
		for nb.acked.Load() < int64(len(nb.names)) { // each has its connection
			time.Sleep(10 * time.Millisecond)
		}
		addr := strings.TrimPrefix(n.base, "http://")
		var held []net.Conn
		refused := 0
		for i := 0; i < idle; i++ {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Logf("connection %d: %v", i, err)
				break
			}
			held = append(held, c)
		}
		// A connection that did not get a slot is answered 503 (or, past
		// the answers in flight, closed) at once: none waits. Those that
		// got one wait for their request (read deadline).
		closed, waiting := 0, 0
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, c := range held {
			wg.Go(func() {
				c.SetReadDeadline(time.Now().Add(time.Second))
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				var ne net.Error
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && resp.StatusCode == 503:
					refused++
				case errors.As(err, &ne) && ne.Timeout():
					waiting++
				default:
					closed++
				}
			})
		}
		wg.Wait()
		for _, c := range held {
			c.Close()
		}
		nb.finish(t, n)
		t.Logf("%d idle connections: %d answered 503 at once, %d closed at once, %d hold a slot", len(held), refused, closed, waiting)
		if !hostileLong() && (refused == 0 || waiting > maxConns) {
			t.Errorf("past the cap of %d: %d answered 503, %d hold a slot", maxConns, refused, waiting)
		}
		if !n.alive(t) {
			t.Fatal("the process died")
		}
		checkMemoryBack(t, n, before)
	})

	// The documented same-shard wait: one object's long job holds its
	// shard's loop (a goja runtime runs one job at a time), so the
	// neighbours on that shard wait for it, those on other shards do not.
	// It is bounded by cpu_ms: a job past it is interrupted and its
	// object reset. Measured and reported, not asserted (a timing).
	t.Run("SameShardWait", func(t *testing.T) {
		const cpuMS = 1000
		n := startHostileWith(t, bin, `"limits": {"cpu_ms": 1000},`)
		for _, job := range []struct{ path, want string }{
			{"/do/Evil/spin?a=spin&ms=700", "spun 700"},
			{"/do/Evil/spin?a=spin", "Durable Object exceeded its CPU time limit and was reset."},
		} {
			nb := startNeighbours(t, n, "spin")
			for nb.acked.Load() < int64(len(nb.names)) {
				time.Sleep(10 * time.Millisecond)
			}
			start := time.Now()
			status, body := get(t, n.base+job.path)
			took := time.Since(start)
			nb.finish(t, n)
			t.Logf("%s (cpu_ms %d) answered %d after %v; the longest answer of a neighbour on its shard %v, on another shard %v",
				job.path, cpuMS, status, took.Round(time.Millisecond), time.Duration(nb.maxSame.Load()).Round(time.Millisecond), time.Duration(nb.maxOther.Load()).Round(time.Millisecond))
			if !strings.Contains(body, job.want) {
				t.Errorf("%s: %d %q, want %q", job.path, status, body, job.want)
			}
		}
	})

	// 23.9: a malformed chunked body was the program's 500.
	t.Run("MalformedChunked", func(t *testing.T) {
		n := startHostile(t, bin)
		c, err := net.Dial("tcp", strings.TrimPrefix(n.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "POST /do/Evil/chunky?a=echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil || resp.StatusCode != 400 {
			t.Fatalf("malformed chunked body: %v %v, want 400", resp, err)
		}
	})

	// 23.8: object code reached the dev inspector.
	t.Run("FetchInspector", func(t *testing.T) {
		n := startHostile(t, bin)
		status, body := get(t, n.base+"/do/Evil/peek?a=fetch&u="+n.base+"/_cellhost")
		if status != 200 || body != "403 a script cannot reach the inspector" {
			t.Fatalf("the object's fetch of the inspector: %d %q", status, body)
		}
	})

	// 23.6: a top-level endless loop hung `cellhost dev` at start.
	t.Run("ModuleScopeLoop", func(t *testing.T) {
		project := hostileProject(t, "for (;;) {}\n", `"limits": {"cpu_ms": 500},`)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "dev", project, "--state", filepath.Join(t.TempDir(), "state"), "--port", strconv.Itoa(freePort(t)))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ctx.Err() != nil || err == nil || !strings.Contains(out.String(), "Script startup exceeded CPU time limit (500ms)") {
			t.Fatalf("dev with a top-level loop: %v\n%s", err, out.String())
		}
		t.Logf("dev exits: %s", strings.TrimSpace(out.String()))
	})

	// 23.3: unsigned 130 MB POSTs to the internal listener were read whole
	// (8 took a node from 79 MB to 2.24 GB); object code reached it too.
	t.Run("PeerListener", func(t *testing.T) {
		internal := "127.0.0.1:" + strconv.Itoa(freePort(t))
		sn := startServe(t, bin, hostileProject(t, "", ""), "--bucket", "file://"+filepath.Join(t.TempDir(), "bucket"),
			"--state", filepath.Join(t.TempDir(), "state"), "--internal-listen", internal)
		n := &relNode{cmd: sn.cmd, base: sn.base}
		before := settled(n)
		nb := startNeighbours(t, n, "none")
		body := bytes.Repeat([]byte("p"), 130<<20)
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Go(func() {
				resp, err := http.Post("http://"+internal+"/cellhost-peer/v1/fetch", "application/json", bytes.NewReader(body))
				if err != nil {
					statuses[i] = -1
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				statuses[i] = resp.StatusCode
			})
		}
		wg.Wait()
		peak := procStatus(sn.cmd.Process.Pid, "VmHWM") >> 10
		status, fetched := get(t, sn.base+"/do/Evil/peek?a=fetch&u=http://"+internal+"/cellhost-peer/v1/ping")
		nb.finish(t, n)
		t.Logf("8 unsigned 130 MB peer POSTs: %v; peak RSS %d MB; the object's fetch of the internal listener: %q", statuses, peak, fetched)
		for _, s := range statuses {
			if s != 401 && s != -1 { // -1: the server answered 401 and closed before the body was sent
				t.Errorf("an unsigned peer POST: %d, want 401", s)
			}
		}
		if status != 200 || fetched != "403 a script cannot reach this node's internal listener" {
			t.Errorf("the object's fetch of the internal listener: %d %q", status, fetched)
		}
		checkMemoryBack(t, n, before)
		if peak > before+200 {
			t.Errorf("peak RSS %d MB during the attack, %d MB before: the bodies were read", peak, before)
		}
	})
}
