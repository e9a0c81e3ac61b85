package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/goleak"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

const wsJS = `
import { DurableObject } from "cloudflare:workers";
let constructed = 0;
export class Echo extends DurableObject {
  constructor(ctx, env) { super(ctx, env); constructed++; }
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/stats")) {
      const s = this.ctx.storage;
      return Response.json({ constructed, closes: (await s.get("closes")) ?? [], open: this.ctx.getWebSockets().length, n: (await s.get("n")) ?? 0 });
    }
    const [client, server] = Object.values(new WebSocketPair());
    if (url.searchParams.has("late")) {
      setTimeout(() => {
        server.accept();
        server.addEventListener("message", (e) => server.send("late:" + e.data));
      }, 100);
    } else if (url.searchParams.has("plain")) {
      server.accept();
      server.addEventListener("message", (e) => {
        if (e.data === "close") server.close(4001, "plain bye");
        else server.send(typeof e.data === "string" ? "plain:" + e.data + ":" + constructed : e.data);
      });
      server.addEventListener("close", (e) => {
        if (e.code === 4001) return;
        server.close(e.code, "plain saw " + e.reason);
      });
    } else {
      this.ctx.acceptWebSocket(server, ["t"]);
      server.serializeAttachment({ since: constructed });
      if (url.searchParams.has("auto")) this.ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong"));
      server.send("welcome");
    }
    return new Response(null, { status: 101, webSocket: client, headers: { "x-hello": "1" } });
  }
  async webSocketMessage(ws, msg) {
    if (typeof msg !== "string") { ws.send(new Uint8Array(msg).reverse()); return; }
    if (msg === "write") {
      const n = ((await this.ctx.storage.get("n")) ?? 0) + 1;
      await this.ctx.storage.put("n", n);
      ws.send("wrote " + n);
      return;
    }
    if (msg === "close") { ws.close(4000, "bye from server"); return; }
    if (msg.startsWith("flood ")) { const m = "x".repeat(1 << 20); for (let i = +msg.slice(6); i > 0; i--) ws.send(m); return; }
    if (msg === "abort") { ws.send("lost with the instance"); this.ctx.abort("asked to"); }
    if (msg === "info") {
      ws.send(JSON.stringify({ constructed, att: ws.deserializeAttachment(), tags: this.ctx.getTags(ws), open: this.ctx.getWebSockets("t").length, state: ws.readyState }));
      return;
    }
    ws.send("echo:" + msg);
  }
  async webSocketError(ws, e) {
    await this.ctx.storage.put("closes", [...((await this.ctx.storage.get("closes")) ?? []), "error: " + e.message]);
  }
  async webSocketClose(ws, code, reason, wasClean) {
    const closes = (await this.ctx.storage.get("closes")) ?? [];
    closes.push([code, reason, wasClean]);
    await this.ctx.storage.put("closes", closes);
    try {
      ws.close(code, "server saw " + reason);
    } catch (e) {
      closes.push(e.name + ": " + e.message);
      await this.ctx.storage.put("closes", closes);
    }
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/local" || url.pathname === "/bad") {
      const [client, server] = new WebSocketPair();
      server.accept();
      server.addEventListener("message", (e) => e.data === "close" ? server.close(4002, "worker bye") : server.send("worker:" + e.data));
      return new Response(null, { status: 101, webSocket: client });
    }
    return env.ECHO.getByName(url.pathname.slice(1).split("/")[0]).fetch(request);
  },
};
`

// startWSHost serves wsJS; opts adjust the host's configuration.
func startWSHost(t *testing.T, opts ...func(*host.Config)) (*host.Host, *httptest.Server) {
	t.Helper()
	opts = append([]func(*host.Config){func(c *host.Config) {
		c.Bindings = []host.Binding{{Name: "ECHO", Class: "Echo"}}
	}}, opts...)
	h := newHostB(t, wsJS, t.TempDir(), opts...)
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

// wsIn is what the client received: a message, or the end of the
// connection (end set; code -1 when it ended without a Close frame).
type wsIn struct {
	text   bool
	data   string
	end    bool
	code   int
	reason string
}

type wsClient struct {
	c       *websocket.Conn
	resp    *http.Response
	in      chan wsIn
	closing atomic.Bool // the client sent its Close frame
}

func dialWS(t *testing.T, srv *httptest.Server, path string) *wsClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+path, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", path, err)
	}
	w := &wsClient{c: c, resp: resp, in: make(chan wsIn, 100)}
	// A Close frame from the server ends the connection as the reader sees
	// it; the client echoes it (code and reason), unless it is the answer to
	// the client's own (closeWith).
	c.SetCloseHandler(func(code int, text string) error {
		if !w.closing.Load() {
			_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(10*time.Second))
		}
		return nil
	})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			typ, data, err := c.ReadMessage()
			if err != nil {
				in := wsIn{end: true, code: -1}
				var ce *websocket.CloseError
				if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure { // gorilla's name for no Close frame
					in.code, in.reason = ce.Code, ce.Text
				}
				w.in <- in
				return
			}
			w.in <- wsIn{text: typ == websocket.TextMessage, data: string(data)}
		}
	}()
	t.Cleanup(func() { c.Close(); <-done })
	return w
}

func (w *wsClient) next(t *testing.T) wsIn {
	t.Helper()
	select {
	case in := <-w.in:
		return in
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for the server")
		return wsIn{}
	}
}

// expect reads the next message and checks it is the text want.
func (w *wsClient) expect(t *testing.T, want string) {
	t.Helper()
	if in := w.next(t); in.end || !in.text || in.data != want {
		t.Fatalf("received %+v, want text %q", in, want)
	}
}

// expectEnd reads the end of the connection and checks its code and reason.
func (w *wsClient) expectEnd(t *testing.T, code int, reason string) {
	t.Helper()
	if in := w.next(t); !in.end || in.code != code || in.reason != reason {
		t.Fatalf("received %+v, want the end with %d %q", in, code, reason)
	}
}

func (w *wsClient) send(t *testing.T, text string) {
	t.Helper()
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(text)); err != nil {
		t.Fatal(err)
	}
}

// closeWith starts the client's close handshake (its answer arrives as the
// end of the connection).
func (w *wsClient) closeWith(code int, reason string) {
	w.closing.Store(true)
	_ = w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(10*time.Second))
}

type wsStats struct {
	Constructed int   `json:"constructed"`
	Closes      []any `json:"closes"`
	Open        int   `json:"open"`
	N           int   `json:"n"`
}

func stats(t *testing.T, srv *httptest.Server, name string) wsStats {
	t.Helper()
	code, body := get(t, srv, "/do/Echo/"+name+"/stats")
	var s wsStats
	if err := json.Unmarshal([]byte(body), &s); code != 200 || err != nil {
		t.Fatalf("stats: %d %s (%v)", code, body, err)
	}
	return s
}

// waitStats polls the object's stats until ok accepts them, and fails the
// test with the last sample if they do not within 10 s.
func waitStats(t *testing.T, srv *httptest.Server, name string, ok func(wsStats) bool) wsStats {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := stats(t, srv, name)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats of %s after 10 s: %+v", name, s)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWebSocket_EchoBinaryAndClientClose(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/a")
	if got := w.resp.Header.Get("X-Hello"); got != "1" {
		t.Errorf("handshake response header x-hello = %q", got)
	}
	w.expect(t, "welcome") // sent before the response: held until the upgrade
	w.send(t, "hi")
	w.expect(t, "echo:hi")
	if err := w.c.WriteMessage(websocket.BinaryMessage, []byte{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if in := w.next(t); in.text || in.data != "\x03\x02\x01" {
		t.Fatalf("binary echo: %+v", in)
	}
	w.send(t, "info")
	w.expect(t, `{"constructed":1,"att":{"since":1},"tags":["t"],"open":1,"state":1}`)
	w.closeWith(3001, "done")
	w.expectEnd(t, 3001, "server saw done")
	s := waitStats(t, srv, "a", func(s wsStats) bool { return len(s.Closes) > 0 && s.Open == 0 })
	if want := []any{[]any{3001.0, "done", true}}; !reflect.DeepEqual(s.Closes, want) || s.Open != 0 {
		t.Errorf("after the close: %+v, want closes %v and no open socket", s, want)
	}
}

func TestWebSocket_ServerCloseThroughTheWorker(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/b") // the worker returns the object's response (stub.fetch)
	w.expect(t, "welcome")
	w.send(t, "x")
	w.expect(t, "echo:x")
	w.send(t, "close")
	w.expectEnd(t, 4000, "bye from server")
	s := waitStats(t, srv, "b", func(s wsStats) bool { return len(s.Closes) > 0 && s.Open == 0 })
	// The client's answer (its echo of the Close) reaches webSocketClose; the
	// handler's own close() is then a no-op.
	if want := []any{[]any{4000.0, "bye from server", true}}; !reflect.DeepEqual(s.Closes, want) || s.Open != 0 {
		t.Errorf("after the server's close: %+v, want closes %v", s, want)
	}
}

func TestWebSocket_DroppedConnection(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/c")
	w.expect(t, "welcome")
	w.c.Close() // no Close frame
	s := waitStats(t, srv, "c", func(s wsStats) bool { return len(s.Closes) > 1 && s.Open == 0 })
	want := []any{[]any{1006.0, jsapi.DroppedReason, false}, "InvalidAccessError: Invalid WebSocket close code: 1006."}
	if !reflect.DeepEqual(s.Closes, want) || s.Open != 0 {
		t.Errorf("after the drop: %+v, want closes %v", s, want)
	}
}

// TestWebSocket_PlainAcceptKeepsTheObjectResident drives eviction with the
// test's clock: past the idle timeout, the pass evicts an idle object
// without sockets (the bystander) but not the one holding a socket
// accepted with accept(), whose instance then answers again.
func TestWebSocket_PlainAcceptKeepsTheObjectResident(t *testing.T) {
	clock := newFakeClock()
	h, srv := startWSHost(t, host.WithClock(clock.Now), func(c *host.Config) { c.IdleTimeout = time.Hour })
	get(t, srv, "/do/Echo/bystander/stats") // resident, no socket
	w := dialWS(t, srv, "/do/Echo/d?plain")
	w.send(t, "one")
	first := w.next(t).data // "plain:one:<constructed>"
	if err := w.c.WriteMessage(websocket.BinaryMessage, []byte{7}); err != nil {
		t.Fatal(err)
	}
	if in := w.next(t); in.text || in.data != "\x07" {
		t.Fatalf("binary: %+v", in)
	}
	if n := host.EvictIdle(h); n != 0 {
		t.Fatalf("evicted %d objects before the idle timeout, want 0", n)
	}
	clock.Advance(2 * time.Hour)
	if n := host.EvictIdle(h); n != 1 {
		t.Fatalf("evicted %d objects past the idle timeout, want 1 (the bystander)", n)
	}
	w.send(t, "two")
	w.expect(t, strings.Replace(first, "one", "two", 1)) // the same instance
	w.closeWith(1000, "x")
	w.expectEnd(t, 1000, "plain saw x")
}

// TestWebSocket_HibernatableSocketSurvivesEviction: the object holding a
// socket accepted with ctx.acceptWebSocket() is evicted past the idle
// timeout; the next message builds a new instance, which gets the socket.
func TestWebSocket_HibernatableSocketSurvivesEviction(t *testing.T) {
	clock := newFakeClock()
	h, srv := startWSHost(t, host.WithClock(clock.Now), func(c *host.Config) { c.IdleTimeout = time.Hour })
	w := dialWS(t, srv, "/do/Echo/e")
	w.expect(t, "welcome")
	w.send(t, "info")
	w.expect(t, `{"constructed":1,"att":{"since":1},"tags":["t"],"open":1,"state":1}`)
	if n := host.EvictIdle(h); n != 0 {
		t.Fatalf("evicted %d objects before the idle timeout, want 0", n)
	}
	clock.Advance(2 * time.Hour)
	if n := host.EvictIdle(h); n != 1 {
		t.Fatalf("evicted %d objects past the idle timeout, want 1", n)
	}
	w.send(t, "info")
	// A new instance handles the message; the socket, its tags and its
	// attachment are the host's.
	w.expect(t, `{"constructed":2,"att":{"since":1},"tags":["t"],"open":1,"state":1}`)
	w.send(t, "write")
	w.expect(t, "wrote 1")
	w.closeWith(1000, "")
	w.expectEnd(t, 1000, "server saw ")
}

func TestWebSocket_OutputGateHoldsFrames(t *testing.T) {
	g := newGateSyncer()
	_, srv := startWSHost(t, func(c *host.Config) { c.Syncer = g })
	w := dialWS(t, srv, "/do/Echo/f")
	w.expect(t, "welcome")
	g.setHold(true)
	w.send(t, "write")
	w.send(t, "hi") // writes nothing, but must not overtake the frame before it
	<-g.calls       // the write's commit is being made durable
	select {
	case in := <-w.in:
		t.Fatalf("a frame left before its commit was durable: %+v", in)
	case <-time.After(200 * time.Millisecond):
	}
	g.release <- nil
	w.expect(t, "wrote 1")
	w.expect(t, "echo:hi")
	g.setHold(false)
}

func TestWebSocket_FailedSyncLosesFramesAndConnections(t *testing.T) {
	g := newGateSyncer()
	_, srv := startWSHost(t, func(c *host.Config) { c.Syncer = g })
	w := dialWS(t, srv, "/do/Echo/g")
	w.expect(t, "welcome")
	g.setHold(true)
	w.send(t, "write")
	<-g.calls
	g.release <- errors.New("disk on fire")
	w.expectEnd(t, -1, "") // reset: the frame is lost, the connection dropped
	g.setHold(false)
	w2 := dialWS(t, srv, "/do/Echo/g")
	w2.expect(t, "welcome")
	w2.send(t, "hi")
	w2.expect(t, "echo:hi")
}

func TestWebSocket_ResetDropsConnections(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/h")
	w.expect(t, "welcome")
	w.send(t, "abort")
	w.expectEnd(t, -1, "")
	w2 := dialWS(t, srv, "/do/Echo/h")
	w2.expect(t, "welcome")
	w2.send(t, "info")
	w2.expect(t, `{"constructed":2,"att":{"since":2},"tags":["t"],"open":1,"state":1}`)
}

func TestWebSocket_AutoResponse(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/i?auto")
	w.expect(t, "welcome")
	w.send(t, "ping")
	w.expect(t, "pong")
	w.send(t, "pings")
	w.expect(t, "echo:pings")
}

func TestWebSocket_WorkerSocket(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/local")
	w.send(t, "hi")
	w.expect(t, "worker:hi")
	w.send(t, "again")
	w.expect(t, "worker:again")
}

func TestWebSocket_NotAnUpgradeRequest(t *testing.T) {
	_, srv := startWSHost(t)
	if code, body := get(t, srv, "/bad"); code != http.StatusInternalServerError || body != "Internal Server Error" {
		t.Errorf("a WebSocket response to a plain request: %d %q", code, body)
	}
}

func TestWebSocket_HostCloseEndsConnections(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	h, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/j")
	w.expect(t, "welcome")
	p := dialWS(t, srv, "/do/Echo/k?plain")
	p.send(t, "x")
	p.expect(t, "plain:x:1")
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.expectEnd(t, -1, "")
	p.expectEnd(t, -1, "")
}

func TestWebSocket_MessagesWaitForALateAccept(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/l?late")
	w.send(t, "first")
	w.send(t, "second")
	w.expect(t, "late:first")
	w.expect(t, "late:second")
}

func TestWebSocket_TooLargeMessageIsAnError(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/m")
	w.expect(t, "welcome")
	// The server may cut the connection while the frame is still being
	// written: the write error and the end's code do not matter here.
	go w.c.WriteMessage(websocket.TextMessage, []byte(strings.Repeat("x", 1<<20+1)))
	if in := w.next(t); !in.end || (in.code != 1009 && in.code != -1) {
		t.Errorf("after a message over the limit the client got %+v, want the end (1009)", in)
	}
	s := waitStats(t, srv, "m", func(s wsStats) bool { return len(s.Closes) > 0 && s.Open == 0 })
	if want := []any{"error: WebSocket message is too large"}; !reflect.DeepEqual(s.Closes, want) {
		t.Errorf("after a message over the limit: %+v, want closes %v", s, want)
	}
}

// A close code and reason the program sets reach the client in a Close
// frame (not a 1006), for a socket accepted with accept() in an object and
// in the worker, as for a hibernatable one (TestWebSocket_ServerCloseThroughTheWorker).
func TestWebSocket_ServerCloseCodeAndReason(t *testing.T) {
	_, srv := startWSHost(t)
	for _, c := range []struct {
		path, reason string
		code         int
	}{
		{"/do/Echo/p1?plain", "plain bye", 4001},
		{"/p2?plain", "plain bye", 4001},
		{"/local", "worker bye", 4002},
		{"/do/Echo/h1", "bye from server", 4000},
	} {
		w := dialWS(t, srv, c.path)
		if !strings.Contains(c.path, "plain") && c.path != "/local" {
			w.expect(t, "welcome")
		}
		w.send(t, "close")
		w.expectEnd(t, c.code, c.reason)
	}
}

// TestWebSocket_InvalidUTF8TextFrame: a text frame that is not UTF-8 fails
// the connection with Close 1007 (RFC 6455 8.1) and never reaches the
// program, which hears of a close with 1007. Before, the program received
// the bytes as a string.
func TestWebSocket_InvalidUTF8TextFrame(t *testing.T) {
	_, srv := startWSHost(t)
	w := dialWS(t, srv, "/do/Echo/u")
	w.expect(t, "welcome")
	if err := w.c.WriteMessage(websocket.TextMessage, []byte{'a', 0xff, 0xfe}); err != nil {
		t.Fatal(err)
	}
	w.expectEnd(t, 1007, "Invalid UTF-8 in text frame")
	s := waitStats(t, srv, "u", func(s wsStats) bool { return len(s.Closes) > 0 && s.Open == 0 })
	if want := []any{[]any{1007.0, "Invalid UTF-8 in text frame", false}}; !reflect.DeepEqual(s.Closes[:1], want) {
		t.Errorf("the program heard %v, want %v", s.Closes, want)
	}
}

// TestWebSocket_PerObjectCap: past Config.MaxWebSocketsPerObject an upgrade
// to the same object is answered 503 with the reason; another object is
// not affected, and a slot freed by a close can be taken again.
func TestWebSocket_PerObjectCap(t *testing.T) {
	_, srv := startWSHost(t, func(c *host.Config) { c.MaxWebSocketsPerObject = 2 })
	a := dialWS(t, srv, "/do/Echo/capped")
	a.expect(t, "welcome")
	b := dialWS(t, srv, "/do/Echo/capped")
	b.expect(t, "welcome")
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/do/Echo/capped"
	c, resp, err := websocket.DefaultDialer.Dial(url, nil)
	if err == nil {
		c.Close()
		t.Fatal("a third WebSocket on an object capped at 2 was accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third WebSocket: %v %v; want 503", resp, err)
	}
	body, _ := io.ReadAll(resp.Body)
	if want := "This Durable Object has too many open WebSockets (limit 2); close some before opening more.\n"; string(body) != want {
		t.Errorf("503 body %q, want %q", body, want)
	}
	other := dialWS(t, srv, "/do/Echo/other")
	other.expect(t, "welcome")
	a.closeWith(1000, "done")
	a.expectEnd(t, 1000, "server saw done")
	waitStats(t, srv, "capped", func(s wsStats) bool { return s.Open == 1 })
	d := dialWS(t, srv, "/do/Echo/capped")
	d.expect(t, "welcome")
}

// TestWebSocket_SlowClientQueueCap: a client that does not read while the
// object sends 48 MiB holds at most Config.MaxWebSocketQueued (plus what
// the kernel buffers) on the host: past it the connection is closed, the
// program hears of a close, and the rest of what it sends is dropped.
// Before, every byte stayed queued (20 such clients x 50 MB held 1.69 GB).
func TestWebSocket_SlowClientQueueCap(t *testing.T) {
	_, srv := startWSHost(t, func(c *host.Config) { c.MaxWebSocketQueued = 1 << 20 })
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/do/Echo/slow"
	c, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.WriteMessage(websocket.TextMessage, []byte("flood 48")); err != nil {
		t.Fatal(err)
	}
	// The client does not read until the program heard of the close.
	s := waitStats(t, srv, "slow", func(s wsStats) bool { return len(s.Closes) > 0 && s.Open == 0 })
	if cl, ok := s.Closes[0].([]any); !ok || cl[0] != 1006.0 {
		t.Errorf("the program heard %v, want a close with 1006", s.Closes)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got := 0
	for {
		_, _, err := c.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code != websocket.ClosePolicyViolation && ce.Code != websocket.CloseAbnormalClosure {
				t.Errorf("the client's end: %v, want 1008 or no Close frame", err)
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("the connection was not closed: %v", err)
			}
			break
		}
		got++
	}
	if got >= 48 {
		t.Errorf("the client received all %d messages: nothing was dropped", got)
	}
	t.Logf("the client received %d of 48 1 MiB messages before the close", got)
}
