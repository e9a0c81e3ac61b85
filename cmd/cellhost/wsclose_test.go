package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// A Close from the client completes the close handshake when workerd's
// web_socket_auto_reply_to_close is on (compatibility date 2026-04-07 or
// later, or the flag), whether or not the program answers it, for
// hibernatable and accept()ed sockets; before that date a program that
// does not answer leaves the client with 1006, as workerd does.
func TestDev_WebSocketClientClose(t *testing.T) {
	for _, tc := range []struct {
		name, date, flags, accept string
		want                      int
	}{
		{"hibernation, 2026-05-01", "2026-05-01", "", `this.ctx.acceptWebSocket(server);`, 1000},
		{"accept, 2026-05-01", "2026-05-01", "", `server.accept();`, 1000},
		{"accept, program answers too", "2026-05-01", "", `server.accept(); server.addEventListener("close", (e) => server.close(e.code, e.reason));`, 1000},
		{"hibernation, the flag", "2026-01-01", `"web_socket_auto_reply_to_close"`, `this.ctx.acceptWebSocket(server);`, 1000},
		{"hibernation, 2026-01-01", "2026-01-01", "", `this.ctx.acceptWebSocket(server);`, 1006},
		{"hibernation, manual flag", "2026-05-01", `"web_socket_manual_reply_to_close"`, `this.ctx.acceptWebSocket(server);`, 1006},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"wrangler.jsonc": `{"name": "w", "main": "index.js", "compatibility_date": "` + tc.date + `", "compatibility_flags": [` + tc.flags + `],
  "durable_objects": {"bindings": [{"name": "R", "class_name": "Room"}]}}`,
				"index.js": `import { DurableObject } from "cloudflare:workers";
export class Room extends DurableObject {
  async fetch(req) {
    const [client, server] = Object.values(new WebSocketPair());
    ` + tc.accept + `
    return new Response(null, { status: 101, webSocket: client });
  }
}
export default { fetch(req, env) { return env.R.getByName("r").fetch(req); } };`,
			})
			d := startDevServer(t, dir, dir, func(o *devOptions) { o.noWatch = true; o.noInspector = true })
			conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(d.base, "http")+"/ws", nil)
			if err != nil {
				t.Fatalf("dial: %v", err)
			}
			defer conn.Close()
			if err := conn.WriteMessage(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "bye")); err != nil {
				t.Fatal(err)
			}
			_ = conn.SetReadDeadline(time.Now().Add(time.Minute)) // a guard, not a synchronisation
			_, _, err = conn.ReadMessage()
			ce, ok := err.(*websocket.CloseError)
			if !ok || ce.Code != tc.want || (tc.want == 1000 && ce.Text != "bye") {
				t.Errorf("the client's read ended with %v, want close %d", err, tc.want)
			}
		})
	}
}
