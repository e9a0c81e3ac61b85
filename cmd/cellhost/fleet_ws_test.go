package main

import (
	"path/filepath"
	"strings"
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
export default { fetch() { return new Response("worker"); } };`

// TestFleet_WebSocketThroughAnotherNode connects a WebSocket to an object
// through a node that does not own it: the upgrade and then every frame go
// to the owner, whose object answers.
func TestFleet_WebSocketThroughAnotherNode(t *testing.T) {
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
		if rec := ownerOfScope(t, store, scope); rec.Node != a.id {
			t.Errorf("own.json after the WebSocket = %+v, want still a", rec)
		}
	})
}
