package main

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

const roomModule = `import { DurableObject } from "cloudflare:workers";
export class Room extends DurableObject {
  async fetch(request) {
    if (request.headers.get("Upgrade") !== "websocket") return new Response("room " + new URL(request.url).pathname);
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(ws, msg) {
    const n = (this.ctx.storage.kv.get("n") ?? 0) + 1;
    this.ctx.storage.kv.put("n", n);
    ws.send("echo " + n + " " + msg);
  }
}
export default { async fetch(request, env) {
  const url = new URL(request.url);
  if (url.pathname.startsWith("/talk/")) {
    // the worker is the object's client
    const resp = await env.ROOM.getByName(url.pathname.slice(6)).fetch("http://do/", { headers: { Upgrade: "websocket" } });
    const ws = resp.webSocket;
    ws.accept();
    const got = new Promise((resolve) => ws.addEventListener("message", (e) => resolve(e.data)));
    ws.send("from the worker");
    const msg = await got;
    ws.close(1000, "done");
    return new Response(msg);
  }
  return new Response("worker");
} };`

// TestFleet_WebSocketThroughAnotherNode connects a WebSocket to an object
// through a node that does not own it: the upgrade and then every frame go
// to the owner, whose object answers. A worker on that node can be the
// object's client too (it accepts the socket its stub fetch got).
func TestFleet_WebSocketThroughAnotherNode(t *testing.T) {
	parallel(t) // a real process with its own ports and directories (see docs/testing.md)
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir := t.TempDir()
		project := writeProject(t, map[string]string{
			"wrangler.jsonc": `{"name": "rooms", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "ROOM", "class_name": "Room"}]}}`,
			"index.js": roomModule,
		})
		a := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "a"))
		b := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "b"))
		if status, body := getText(t, a.base+"/do/Room/r/x"); status != 200 || body != "room /do/Room/r/x" {
			t.Fatalf("plain request via a: %d %q", status, body)
		}
		store := openBucket(t, bucket)
		scope := "Room:" + hostIDFromName("rooms", "Room", "r")
		if rec := ownerOfScope(t, store, scope); rec.Node != a.id {
			t.Fatalf("own.json = %+v, want a", rec)
		}
		if status, body := getText(t, b.base+"/do/Room/r/y?q=1"); status != 200 || body != "room /do/Room/r/y" {
			t.Fatalf("plain request via b: %d %q", status, body)
		}
		dialer := websocket.Dialer{HandshakeTimeout: 30 * time.Second}
		conn, resp, err := dialer.Dial("ws"+strings.TrimPrefix(b.base, "http")+"/do/Room/r", nil)
		if err != nil {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Fatalf("dial via b: %v (status %d)\nb:\n%s\na:\n%s", err, status, b.logs, a.logs)
		}
		defer conn.Close()
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		for i, msg := range []string{"hi", "yo"} {
			if err := conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			_, got, err := conn.ReadMessage()
			if err != nil {
				t.Fatal(err)
			}
			if want := "echo " + string(rune('1'+i)) + " " + msg; string(got) != want {
				t.Errorf("message %d = %q, want %q", i, got, want)
			}
		}
		if status, body := getText(t, b.base+"/talk/r"); status != 200 || body != "echo 3 from the worker" {
			t.Errorf("the worker on b as the client: %d %q\nb:\n%s", status, body, b.logs)
		}
		if rec := ownerOfScope(t, store, scope); rec.Node != a.id {
			t.Errorf("own.json after the WebSocket = %+v, want still a", rec)
		}
	})
}

const survivorModule = `import { DurableObject } from "cloudflare:workers";
export class Room extends DurableObject {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.headers.get("Upgrade") !== "websocket") return new Response("room");
    const pair = new WebSocketPair();
    if (url.searchParams.get("plain")) {
      pair[1].accept();
      pair[1].addEventListener("message", (e) => pair[1].send("plain " + e.data));
    } else {
      const user = url.searchParams.get("user");
      this.ctx.acceptWebSocket(pair[1], ["room", "u:" + user]);
      pair[1].serializeAttachment({ user });
    }
    return new Response(null, { status: 101, webSocket: pair[0] });
  }
  webSocketMessage(ws, msg) {
    const n = (this.ctx.storage.kv.get("n") ?? 0) + 1;
    this.ctx.storage.kv.put("n", n);
    ws.send(JSON.stringify({ n, msg, att: ws.deserializeAttachment(), tags: this.ctx.getTags(ws),
      room: this.ctx.getWebSockets("room").length }));
  }
  webSocketClose(ws, code, reason) { ws.close(code, "bye"); }
}
export default { fetch(request, env) {
  const url = new URL(request.url);
  if (url.pathname.startsWith("/room/")) {
    return env.ROOM.get(env.ROOM.idFromName(url.pathname.slice(6))).fetch(request);
  }
  return new Response("worker");
} };`

// TestFleet_WebSocketSurvivesOwnerDeath: a client connected through node a
// to an object owned by node b keeps its connection when b is killed
// (kill -9). The hibernated socket is re-attached on the node that takes
// the object over (a), with its tags and attachment, and the client's next
// message reaches webSocketMessage there; a socket accepted with accept()
// is closed with 1012 and a reason that says why.
//
// With SIGTERM instead (a graceful handover) the same holds, without the
// TTL wait.
func TestFleet_WebSocketSurvivesOwnerDeath(t *testing.T) {
	leaseTimed(t) // timed by leases: one at a time, beside the other process tests (main_test.go)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) { testWebSocketSurvives(t, sig) })
	}
}

func testWebSocketSurvives(t *testing.T, sig syscall.Signal) {
	fleetBuckets(t, func(t *testing.T, bucket string) {
		bin := fleetBinary(t)
		dir := t.TempDir()
		project := writeProject(t, map[string]string{
			"wrangler.jsonc": `{"name": "rooms", "main": "index.js", "compatibility_date": "2026-01-01",
  "durable_objects": {"bindings": [{"name": "ROOM", "class_name": "Room"}]}}`,
			"index.js": survivorModule,
		})
		a := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "a"))
		b := startServe(t, bin, project, "--bucket", bucket, "--state", filepath.Join(dir, "b"))
		for _, name := range []string{"r", "p"} {
			if status, body := getText(t, b.base+"/do/Room/"+name); status != 200 || body != "room" {
				t.Fatalf("plain request via b: %d %q", status, body)
			}
		}
		store := openBucket(t, bucket)
		scope := "Room:" + hostIDFromName("rooms", "Room", "r")
		if rec := ownerOfScope(t, store, scope); rec.Node != b.id {
			t.Fatalf("own.json = %+v, want b", rec)
		}
		ws := "ws" + strings.TrimPrefix(a.base, "http")
		dialer := websocket.Dialer{HandshakeTimeout: 30 * time.Second}
		hib, _, err := dialer.Dial(ws+"/do/Room/r?user=u1", nil)
		if err != nil {
			t.Fatalf("dial via a: %v\na:\n%s\nb:\n%s", err, a.logs, b.logs)
		}
		defer hib.Close()
		plain, _, err := dialer.Dial(ws+"/do/Room/p?plain=1", nil)
		if err != nil {
			t.Fatalf("dial via a: %v", err)
		}
		defer plain.Close()
		_ = hib.SetReadDeadline(time.Now().Add(60 * time.Second))
		_ = plain.SetReadDeadline(time.Now().Add(60 * time.Second))
		want := `{"n":1,"msg":"hi","att":{"user":"u1"},"tags":["room","u:u1"],"room":1}`
		if got := exchange(t, hib, "hi"); got != want {
			t.Fatalf("before the kill: %s, want %s", got, want)
		}
		if got := exchange(t, plain, "hi"); got != "plain hi" {
			t.Fatalf("plain before the kill: %q", got)
		}
		// Through the worker's stub fetch on a to the object on b.
		worker, _, err := dialer.Dial(ws+"/room/r?user=u2", nil)
		if err != nil {
			t.Fatalf("dial the worker via a: %v\na:\n%s", err, a.logs)
		}
		defer worker.Close()
		_ = worker.SetReadDeadline(time.Now().Add(60 * time.Second))
		want = `{"n":2,"msg":"w","att":{"user":"u2"},"tags":["room","u:u2"],"room":2}`
		if got := exchange(t, worker, "w"); got != want {
			t.Fatalf("through the worker: %s, want %s", got, want)
		}

		if err := b.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		_ = b.cmd.Wait()
		killed := time.Now()

		// The accept() socket cannot move: closed with a reason.
		_, _, err = plain.ReadMessage()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 1012 || !strings.Contains(ce.Text, "accept()") {
			t.Fatalf("the accept() socket after the kill: %v, want close 1012 naming accept()", err)
		}
		// Both hibernated sockets are re-attached on the node that took the
		// object over; their next messages reach it, and getWebSockets
		// lists both. (Waiting for the edge's log line first: a message
		// sent while the owner dies may die with it, as on workerd.)
		if !a.logs.waitForN("re-attached a WebSocket on the Durable Object's new owner", 2, 60*time.Second) {
			t.Fatalf("a did not re-attach both sockets:\n%s", a.logs)
		}
		t.Logf("%v of the owner: both hibernated sockets re-attached on a %v later (lease TTL %v)", sig, time.Since(killed).Round(time.Millisecond), fleetTTL)
		want = `{"n":3,"msg":"again","att":{"user":"u1"},"tags":["room","u:u1"],"room":2}`
		if got := exchange(t, hib, "again"); got != want {
			t.Fatalf("after the kill: %s, want %s\na:\n%s", got, want, a.logs)
		}
		want = `{"n":4,"msg":"w2","att":{"user":"u2"},"tags":["room","u:u2"],"room":2}`
		if got := exchange(t, worker, "w2"); got != want {
			t.Fatalf("through the worker after the kill: %s, want %s", got, want)
		}
		if rec := ownerOfScope(t, store, scope); rec.Node != a.id {
			t.Errorf("own.json after the takeover = %+v, want a", rec)
		}
		// The close handshake is the program's, through the edge.
		if err := hib.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(4000, "done")); err != nil {
			t.Fatal(err)
		}
		_, _, err = hib.ReadMessage()
		if !errors.As(err, &ce) || ce.Code != 4000 || ce.Text != "bye" {
			t.Errorf("close: %v, want 4000 bye", err)
		}
	})
}

func exchange(t *testing.T, conn *websocket.Conn, msg string) string {
	t.Helper()
	if err := conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, got, err := conn.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}
