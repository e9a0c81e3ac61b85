package host_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/host"
)

// bridgeJS: an object answers WebSocket upgrades (plain: accept(), else
// ctx.acceptWebSocket()), and the worker, instead of returning the
// object's socket, accepts it itself and relays it to its own client
// through a pair of its own: every frame crosses from the worker's shard
// to the object's and back through the bridge. /talk/<name> has the
// worker be the object's only client (workerd's websocket-hibernation
// test) and answer what it heard.
const bridgeJS = `
import { DurableObject } from "cloudflare:workers";
export class Room extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    // constructed: the instances this object had
    ctx.blockConcurrencyWhile(async () => {
      this.constructed = ((await ctx.storage.get("constructed")) ?? 0) + 1;
      await ctx.storage.put("constructed", this.constructed);
    });
  }
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/closes")) return Response.json((await this.ctx.storage.get("closes")) ?? []);
    const [client, server] = Object.values(new WebSocketPair());
    if (url.searchParams.has("plain")) {
      server.accept();
      server.addEventListener("message", (e) => server.send(typeof e.data === "string" ? "plain:" + e.data + ":" + this.constructed : new Uint8Array(e.data).reverse()));
      server.addEventListener("close", (e) => {
        this.ctx.storage.put("closes", [...(this.ctx.storage.kv.get("closes") ?? []), ["plain", e.code, e.reason, e.wasClean]]);
        server.close(e.code, "plain saw " + e.reason);
      });
    } else {
      this.ctx.acceptWebSocket(server, ["t"]);
      server.send("welcome"); // before the other end is accepted
    }
    return new Response(null, { status: 101, webSocket: client });
  }
  async webSocketMessage(ws, msg) {
    if (typeof msg !== "string") { ws.send(new Uint8Array(msg).reverse()); return; }
    if (msg === "close") { ws.close(4001, "room closes"); return; }
    if (msg === "write") {
      const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
      await this.ctx.storage.put("n", n);
      ws.send("wrote " + n);
      return;
    }
    ws.send("hib:" + msg + ":" + this.constructed + ":" + this.ctx.getWebSockets("t").length);
  }
  async webSocketClose(ws, code, reason, wasClean) {
    const closes = (await this.ctx.storage.get("closes")) ?? [];
    closes.push([code, reason, wasClean]);
    await this.ctx.storage.put("closes", closes);
    ws.close(code === 1005 ? 1000 : code, "room saw " + reason);
  }
}

function relay(remote) {
  const [client, server] = Object.values(new WebSocketPair());
  remote.accept();
  server.accept();
  server.addEventListener("message", (e) => remote.send(e.data));
  remote.addEventListener("message", (e) => server.send(e.data));
  const close = (ws, e) => { try { ws.close(e.code, e.reason); } catch {} };
  // A close goes on to the other side and is answered at once (a
  // connection is let go once its close event was handled); the object
  // hears of it before the client does (the tests then read what the
  // object recorded).
  server.addEventListener("close", (e) => { close(remote, e); close(server, e); });
  remote.addEventListener("close", (e) => { close(remote, e); close(server, e); });
  return new Response(null, { status: 101, webSocket: client });
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const [, route, name] = url.pathname.split("/");
    const stub = env.ROOM.getByName(name);
    if (route === "closes") return stub.fetch("http://do/closes");
    if (route === "relay") {
      const resp = await stub.fetch(request);
      return relay(resp.webSocket);
    }
    if (route === "talk") {
      const resp = await stub.fetch("http://do/?" + url.searchParams, { headers: { Upgrade: "websocket" } });
      const ws = resp.webSocket;
      ws.accept();
      const heard = [];
      const closed = new Promise((resolve) => {
        ws.addEventListener("message", (e) => heard.push(e.data));
        ws.addEventListener("close", (e) => resolve([e.code, e.reason, e.wasClean, ws.readyState]));
      });
      ws.send("hi");
      ws.send("write");
      ws.close(1000, "bye");
      return Response.json({ heard, close: await closed });
    }
    return new Response("no route", { status: 404 });
  },
};
`

// startBridgeHost serves bridgeJS on shards shards, the worker's requests
// on shard worker.
func startBridgeHost(t *testing.T, shards, worker int, opts ...func(*host.Config)) (*host.Host, *httptest.Server) {
	t.Helper()
	opts = append([]func(*host.Config){func(c *host.Config) {
		c.Bindings = []host.Binding{{Name: "ROOM", Class: "Room"}}
		c.Shards = shards
	}, host.WithWorkerShard(worker)}, opts...)
	h := newHostB(t, bridgeJS, t.TempDir(), opts...)
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := h.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return h, srv
}

// roomOn returns a room name whose object lives on shard want (or not on
// it, with other).
func roomOn(t *testing.T, h *host.Host, prefix string, shard int, other bool) string {
	t.Helper()
	for i := 0; i < 1000; i++ {
		name := fmt.Sprintf("%s-%d", prefix, i)
		if (host.ShardOf(h, "Room", host.IDFromName("counter", "Room", name)) == shard) != other {
			return name
		}
	}
	t.Fatal("no room name found")
	return ""
}

// bridgeCases are where the worker and the object run.
var bridgeCases = []struct {
	name  string
	other bool // the object on another shard than the worker's requests
}{{"other shard", true}, {"same shard", false}}

// TestWebSocketBridge_Relay: a client talks to an object through a worker
// that accepted the object's socket, on the worker's shard or another:
// messages both ways (text and binary), a close started by either side.
func TestWebSocketBridge_Relay(t *testing.T) {
	for _, bc := range bridgeCases {
		t.Run(bc.name, func(t *testing.T) {
			h, srv := startBridgeHost(t, 3, 1)
			plain := roomOn(t, h, "plain", 1, bc.other)
			w := dialWS(t, srv, "/relay/"+plain+"?plain")
			w.send(t, "one")
			w.expect(t, "plain:one:1")
			if err := w.c.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3}); err != nil {
				t.Fatal(err)
			}
			if in := w.next(t); in.text || in.data != "\x03\x02\x01" {
				t.Fatalf("binary: %+v", in)
			}
			// The client closes: the worker passes it on.
			w.closeWith(3000, "client done")
			w.expectEnd(t, 3000, "client done")
			if code, body := get(t, srv, "/closes/"+plain); code != 200 || body != `[["plain",3000,"client done",true]]` {
				t.Errorf("the object's close events: %d %s", code, body)
			}

			room := roomOn(t, h, "hib", 1, bc.other)
			w = dialWS(t, srv, "/relay/"+room)
			w.expect(t, "welcome") // sent before the worker accepted
			w.send(t, "x")
			w.expect(t, "hib:x:1:1")
			w.send(t, "write")
			w.expect(t, "wrote 1")
			// The object closes: the worker passes it on and answers it.
			w.send(t, "close")
			w.expectEnd(t, 4001, "room closes")
			if code, body := get(t, srv, "/closes/"+room); code != 200 || body != `[[4001,"room closes",true]]` {
				t.Errorf("the object's webSocketClose calls: %d %s", code, body)
			}
		})
	}
}

// TestWebSocketBridge_Hibernation: the object accepted its end with
// ctx.acceptWebSocket() and the worker holds the other: the object's
// instance is dropped past the idle timeout while the worker's end stays
// open, and the next message builds a new instance that gets the socket.
func TestWebSocketBridge_Hibernation(t *testing.T) {
	for _, bc := range bridgeCases {
		t.Run(bc.name, func(t *testing.T) {
			clock := newFakeClock()
			h, srv := startBridgeHost(t, 3, 0, host.WithClock(clock.Now), func(c *host.Config) { c.IdleTimeout = time.Hour })
			room := roomOn(t, h, "hib", 0, bc.other)
			w := dialWS(t, srv, "/relay/"+room)
			w.expect(t, "welcome")
			w.send(t, "a")
			w.expect(t, "hib:a:1:1")
			if n := host.EvictIdle(h); n != 0 {
				t.Fatalf("evicted %d objects before the idle timeout, want 0", n)
			}
			clock.Advance(2 * time.Hour)
			if n := host.EvictIdle(h); n != 1 {
				t.Fatalf("evicted %d objects past the idle timeout, want 1: a hibernatable socket keeps no instance", n)
			}
			w.send(t, "b")
			w.expect(t, "hib:b:2:1") // a new instance, which holds the socket
			w.closeWith(1000, "bye")
			w.expectEnd(t, 1000, "bye")
			if code, body := get(t, srv, "/closes/"+room); code != 200 || body != `[[1000,"bye",true]]` {
				t.Errorf("the object's webSocketClose calls: %d %s", code, body)
			}
		})
	}
}

// TestWebSocketBridge_WorkerIsTheClient: the worker accepts the object's
// socket, sends, closes, and hears the object's answers and its close, as
// in workerd's websocket-hibernation test.
func TestWebSocketBridge_WorkerIsTheClient(t *testing.T) {
	for _, bc := range bridgeCases {
		t.Run(bc.name, func(t *testing.T) {
			h, srv := startBridgeHost(t, 3, 2)
			for _, tc := range []struct{ query, want string }{
				{"plain", `{"heard":["plain:hi:1","plain:write:1"],"close":[1000,"plain saw bye",true,3]}`},
				{"", `{"heard":["welcome","hib:hi:1:1","wrote 1"],"close":[1000,"room saw bye",true,3]}`},
			} {
				room := roomOn(t, h, "talk"+tc.query, 2, bc.other)
				code, body := get(t, srv, "/talk/"+room+"?"+tc.query)
				if code != 200 || body != tc.want {
					t.Errorf("%q: %d %s\nwant %s", tc.query, code, body, tc.want)
				}
			}
		})
	}
}

// TestWebSocketBridge_ManyShards: many clients relayed at once by workers
// on every shard to objects on every shard. Under -race this pins that
// only frames cross between runtimes.
func TestWebSocketBridge_ManyShards(t *testing.T) {
	const shards, clients, messages = 8, 24, 10
	_, srv := startBridgeHost(t, shards, -1)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- bridgeClient(srv, fmt.Sprintf("many-%d", i), i%2 == 0, messages)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// bridgeClient relays through the worker to room (plain or hibernatable),
// sends n messages, checks each answer and the close.
func bridgeClient(srv *httptest.Server, room string, plain bool, n int) error {
	path := "/relay/" + room
	if plain {
		path += "?plain"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+path, nil)
	if err != nil {
		return fmt.Errorf("%s: dial: %w", room, err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	read := func() (string, error) {
		_, b, err := c.ReadMessage()
		return string(b), err
	}
	if !plain {
		if got, err := read(); err != nil || got != "welcome" {
			return fmt.Errorf("%s: first message %q, %v", room, got, err)
		}
	}
	for i := 0; i < n; i++ {
		msg := fmt.Sprintf("m%d", i)
		if err := c.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
			return err
		}
		want := "hib:" + msg + ":1:1"
		if plain {
			want = "plain:" + msg + ":1"
		}
		if got, err := read(); err != nil || got != want {
			return fmt.Errorf("%s: got %q, %v; want %q", room, got, err, want)
		}
	}
	_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(1000, "done"), time.Now().Add(10*time.Second))
	_, _, err = c.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != 1000 || ce.Text != "done" {
		return fmt.Errorf("%s: end %v, want 1000 done", room, err)
	}
	return nil
}
