package jsapi

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"

	"github.com/cellhost/cellhost/jsapi/web"
)

// fakeConn records what a coupled WebSocket sends.
type fakeConn struct {
	out      []string
	accepted int
}

func (f *fakeConn) Send(text bool, data []byte) {
	if text {
		f.out = append(f.out, "text:"+string(data))
	} else {
		f.out = append(f.out, fmt.Sprintf("binary:%v", data))
	}
}
func (f *fakeConn) Close(code int, reason string) {
	f.out = append(f.out, fmt.Sprintf("close:%d:%s", code, reason))
}
func (f *fakeConn) Accepted() { f.accepted++ }

// newWSRuntime returns a runtime with a worker whose module is src, and a
// global ctx (a DurableObjectState with hibernation support over set).
func newWSRuntime(t *testing.T, src string, set *WebSocketSet) (*goja.Runtime, *Worker) {
	t.Helper()
	rt, _ := newWebRuntime(t)
	wsTestTimers = wsTimers{}
	InstallTimers(rt, &wsTestTimers)
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Set("ctx", w.NewState(StateOptions{WebSockets: set})); err != nil {
		t.Fatal(err)
	}
	jstest.Run(t, rt, `globalThis.attempt = (f) => { try { return { ok: f() }; } catch (e) { return { threw: e.name, message: e.message }; } };`)
	return rt, w
}

// wsTimers runs timer callbacks when the test says so (run).
type wsTimers struct{ due []func() }

func (s *wsTimers) AfterFunc(d time.Duration, f func()) func() {
	s.due = append(s.due, f)
	return func() {}
}

func (s *wsTimers) run() {
	for len(s.due) > 0 {
		f := s.due[0]
		s.due = s.due[1:]
		f()
	}
}

var wsTestTimers wsTimers

func wsOf(t *testing.T, rt *goja.Runtime, expr string) *WebSocket {
	t.Helper()
	ws := WebSocketOf(rt, jstest.Run(t, rt, expr))
	if ws == nil {
		t.Fatalf("%s is not a WebSocket", expr)
	}
	return ws
}

func TestWebSocket_PairAndValidation(t *testing.T) {
	rt, _ := newWSRuntime(t, "export class Obj {}\n", &WebSocketSet{})
	jstest.Run(t, rt, `globalThis.p = new WebSocketPair(); globalThis.client = p[0]; globalThis.server = p[1];`)
	for _, tc := range []struct{ expr, want string }{
		{`[Object.keys(p), p[0] instanceof WebSocket, p[1] instanceof EventTarget, [...p].length, Object.values(p)[1] === server]`, `[["0","1"],true,true,2,true]`},
		{`[server.readyState, WebSocket.OPEN, server.READY_STATE_CLOSED, server.url, String(server)]`, `[1,1,3,null,"[object WebSocket]"]`},
		{`attempt(() => server.send("x"))`, `{"threw":"TypeError","message":"You must call one of accept() or state.acceptWebSocket() on this WebSocket before sending messages."}`},
		{`attempt(() => server.close(1006, "x"))`, `{"threw":"InvalidAccessError","message":"Invalid WebSocket close code: 1006."}`},
		{`attempt(() => server.close(2999))`, `{"threw":"InvalidAccessError","message":"Invalid WebSocket close code: 2999."}`},
		{`attempt(() => server.close(5000))`, `{"threw":"InvalidAccessError","message":"Invalid WebSocket close code: 5000."}`},
		{`attempt(() => server.close(1000, "é".repeat(62))).threw`, `"SyntaxError"`},
		{`attempt(() => server.close(undefined, "why"))`, `{"threw":"TypeError","message":"If you specify a WebSocket close reason, you must also specify a code."}`},
		{`attempt(() => new WebSocket("wss://example.com")).threw`, `"NotSupportedError"`},
		{`attempt(() => { server.accept(); server.accept(); return server.readyState; })`, `{"ok":1}`},
		{`attempt(() => ctx.acceptWebSocket(server))`, "{\"threw\":\"Error\",\"message\":\"Cannot call `acceptWebSocket()` if the WebSocket was already accepted via `accept()`\"}"},
		{`attempt(() => ctx.acceptWebSocket({}))`, `{"threw":"TypeError","message":"Failed to execute 'acceptWebSocket' on 'DurableObjectState': parameter 1 is not of type 'WebSocket'."}`},
		{`attempt(() => { server.send("a"); server.close(1000, "r"); server.close(4000); return server.readyState; })`, `{"ok":2}`},
		{`attempt(() => server.send("b"))`, `{"threw":"InvalidStateError","message":"WebSocket is not open"}`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

func TestWebSocket_CoupleFlushesAndForwards(t *testing.T) {
	rt, _ := newWSRuntime(t, "export class Obj {}\n", &WebSocketSet{})
	jstest.Run(t, rt, `globalThis.p = new WebSocketPair(); p[1].accept(); p[1].send("early"); p[1].send(new Uint8Array([1, 2, 3]).subarray(1));`)
	client := wsOf(t, rt, "p[0]")
	conn := &fakeConn{}
	if err := client.Couple(conn); err != nil {
		t.Fatal(err)
	}
	jstest.Run(t, rt, `const b = new Uint8Array([9, 8]); p[1].send(b.buffer); b[0] = 0; p[1].send(42); p[1].close(4000, "done");`)
	want := []string{"text:early", "binary:[2 3]", "binary:[9 8]", "text:42", "close:4000:done"}
	if got := strings.Join(conn.out, " "); got != strings.Join(want, " ") {
		t.Fatalf("sent %s, want %s", got, strings.Join(want, " "))
	}
	if conn.accepted != 1 {
		t.Errorf("Accepted called %d times, want 1", conn.accepted)
	}
	if err := client.Couple(conn); err == nil || err.Error() != "TypeError: Can't return WebSocket that was already used in a response." {
		t.Errorf("second Couple: %v", err)
	}
	if got := jsJSON(t, rt, `attempt(() => p[0].accept())`); got != `{"threw":"TypeError","message":"Can't accept() WebSocket that was already used in a response."}` {
		t.Errorf("accept of the released end: %s", got)
	}

	jstest.Run(t, rt, `globalThis.q = new WebSocketPair(); q[0].accept();`)
	if err := wsOf(t, rt, "q[0]").Couple(conn); err == nil || !strings.Contains(err.Error(), "after calling accept()") {
		t.Errorf("Couple of an accepted end: %v", err)
	}
}

func TestWebSocket_Hibernation(t *testing.T) {
	set := &WebSocketSet{}
	src := `export class Obj {
  webSocketMessage(ws, m) { globalThis.log.push(["message", typeof m === "string" ? m : [...new Uint8Array(m)], ws.deserializeAttachment()]); return Promise.resolve("handled"); }
  webSocketClose(ws, code, reason, wasClean) { globalThis.log.push(["close", code, reason, wasClean, ws.readyState]); }
  webSocketError(ws, e) { globalThis.log.push(["error", e.name, e.message]); }
}
`
	rt, w := newWSRuntime(t, src, set)
	jstest.Run(t, rt, `globalThis.log = []; globalThis.p = new WebSocketPair(); globalThis.server = p[1];`)
	for _, tc := range []struct{ expr, want string }{
		{`attempt(() => ctx.acceptWebSocket(server, Array.from({length: 11}, (_, i) => "t" + i)))`, `{"threw":"Error","message":"a Hibernatable WebSocket cannot have more than 10 tags"}`},
		{`attempt(() => ctx.acceptWebSocket(server, ["x".repeat(257)])).message.endsWith("x\" is longer than the max tag length (256 characters).")`, `true`},
		{`ctx.acceptWebSocket(server, ["a", "b", "a"]); [ctx.getTags(server), ctx.getWebSockets().length, ctx.getWebSockets("a")[0] === server, ctx.getWebSockets("z").length]`, `[["a","b"],1,true,0]`},
		{`attempt(() => server.accept())`, `{"threw":"TypeError","message":"Can't accept() WebSocket after enabling hibernation."}`},
		{`attempt(() => ctx.acceptWebSocket(new WebSocketPair()[0], []))`, `{}`},
		{`server.serializeAttachment({ n: 1, m: new Map([["k", 2]]) }); const a = server.deserializeAttachment(); [a.n, a.m.get("k"), a === server.deserializeAttachment()]`, `[1,2,false]`},
		{`attempt(() => server.serializeAttachment(() => 1)).threw`, `"DataCloneError"`},
		{`attempt(() => server.serializeAttachment("x".repeat(20000))).message`, `"A WebSocket 'attachment' cannot be larger than 16384 bytes.'attachment' was 20006 bytes."`},
		// the limit is on V8's bytes, as workerd 1.20261117.1 counts them
		// (jsapi/clone/testdata/workerd/v8ser.json, limits)
		{`attempt(() => server.serializeAttachment("x".repeat(16380))).message`, `"A WebSocket 'attachment' cannot be larger than 16384 bytes.'attachment' was 16385 bytes."`},
		{`[new WebSocketPair()[1].deserializeAttachment(), ctx.getWebSocketAutoResponse()]`, `[null,null]`},
		{`ctx.setWebSocketAutoResponse(new WebSocketRequestResponsePair("ping", "pong")); const r = ctx.getWebSocketAutoResponse(); [r.request, r.response, ctx.getWebSocketAutoResponseTimestamp(server)]`, `["ping","pong",null]`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
	inst, err := w.Construct("Obj", rt.NewObject())
	if err != nil {
		t.Fatal(err)
	}
	server := wsOf(t, rt, "server")
	if resp, ok := server.RespondAutomatically(true, []byte("ping")); !ok || resp != "pong" {
		t.Errorf("auto response: %q %v", resp, ok)
	}
	if _, ok := server.RespondAutomatically(true, []byte("pong")); ok {
		t.Error("auto response for another message")
	}
	if got := jsJSON(t, rt, `ctx.getWebSocketAutoResponseTimestamp(server) instanceof Date`); got != "true" {
		t.Errorf("auto response timestamp: %s", got)
	}
	for _, ev := range []WebSocketEvent{
		{Type: WebSocketMessage, Text: true, Data: []byte("hi")},
		{Type: WebSocketMessage, Data: []byte{1, 2}},
		{Type: WebSocketClose, Code: 1006, Reason: DroppedReason},
	} {
		v, err := w.DispatchWebSocket(inst, server, ev)
		if err != nil {
			t.Fatal(err)
		}
		_ = v
	}
	server.Detach()
	want := `[["message","hi",{"n":1,"m":{}}],["message",[1,2],{"n":1,"m":{}}],["close",1006,"WebSocket disconnected without sending Close frame.",false,2]]`
	if got := jsJSON(t, rt, `log`); got != want {
		t.Errorf("handlers saw\n %s\nwant %s", got, want)
	}
	if got := jsJSON(t, rt, `[ctx.getWebSockets().length, attempt(() => server.close(1006)).threw, attempt(() => server.close(1000)), attempt(() => server.send("late"))]`); got != `[1,"InvalidAccessError",{},{}]` {
		t.Errorf("after the drop: %s", got)
	}
}

func TestWebSocket_AcceptedListeners(t *testing.T) {
	rt, w := newWSRuntime(t, "export class Obj {}\n", nil)
	jstest.Run(t, rt, `globalThis.log = []; globalThis.p = new WebSocketPair(); const s = p[1];
s.addEventListener("message", (e) => log.push([e.type, e instanceof MessageEvent, typeof e.data === "string" ? e.data : e.data.byteLength]));
s.addEventListener("close", (e) => log.push([e.type, e.code, e.reason, e.wasClean]));
s.addEventListener("error", (e) => log.push([e.type, e.error.message]));
s.accept();`)
	server := wsOf(t, rt, "p[1]")
	for _, ev := range []WebSocketEvent{
		{Type: WebSocketMessage, Text: true, Data: []byte("hello")},
		{Type: WebSocketMessage, Data: []byte{1, 2, 3}},
		{Type: WebSocketClose, Code: 1000, Reason: "bye", WasClean: true},
		{Type: WebSocketError, Err: "boom"},
	} {
		if _, err := w.DispatchWebSocket(nil, server, ev); err != nil {
			t.Fatal(err)
		}
	}
	want := `[["message",true,"hello"],["message",true,3],["close",1000,"bye",true],["error","boom"]]`
	if got := jsJSON(t, rt, `log`); got != want {
		t.Errorf("listeners saw\n %s\nwant %s", got, want)
	}
	if got := jsJSON(t, rt, `[p[1].readyState, attempt(() => ctx.acceptWebSocket(new WebSocketPair()[1])).message]`); !strings.Contains(got, "no hibernatable WebSocket support") {
		t.Errorf("without a set: %s", got)
	}
}

// A response carrying a WebSocket crosses to another runtime (a stub.fetch
// caller) and back out unchanged; without a SocketBridge the stand-in
// cannot be used there.
func TestWebSocket_CrossRuntimeResponse(t *testing.T) {
	rtA, _ := newWSRuntime(t, "export class Obj {}\n", &WebSocketSet{})
	rtB, _ := newWSRuntime(t, "export class Obj {}\n", &WebSocketSet{})
	v := jstest.Run(t, rtA, `globalThis.p = new WebSocketPair(); ctx.acceptWebSocket(p[1]); new Response(null, { status: 101, webSocket: p[0] })`)
	resp, err := web.ExportResponse(rtA, v)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Socket == nil || resp.Socket != wsOf(t, rtA, "p[0]") {
		t.Fatalf("exported Socket %p", resp.Socket)
	}
	resp.WebSocket = nil // a goja.Value of rtA must not be used in rtB
	jv, err := web.NewResponse(rtB, resp)
	if err != nil {
		t.Fatal(err)
	}
	_ = rtB.Set("r", jv)
	if got := jsJSON(t, rtB, `[r.status, r.webSocket instanceof WebSocket, attempt(() => r.webSocket.accept()).threw]`); got != `[101,true,"TypeError"]` {
		t.Errorf("in the caller's runtime: %s", got)
	}
	again, err := web.ExportResponse(rtB, jstest.Run(t, rtB, `new Response(null, { status: 101, webSocket: r.webSocket })`))
	if err != nil {
		t.Fatal(err)
	}
	if again.Socket != resp.Socket {
		t.Error("the socket changed on its way through the caller")
	}
	back, err := web.NewResponse(rtA, again)
	if err != nil {
		t.Fatal(err)
	}
	_ = rtA.Set("back", back)
	if got := jsJSON(t, rtA, `back.webSocket === p[0]`); got != "true" {
		t.Errorf("back home: %s", got)
	}
}

// A hibernatable socket outlives its runtime: a new runtime's ctx over the
// same set sees it, with its attachment and tags.
func TestWebSocket_MovesToANewRuntime(t *testing.T) {
	set := &WebSocketSet{}
	rtA, _ := newWSRuntime(t, "export class Obj {}\n", set)
	jstest.Run(t, rtA, `const p = new WebSocketPair(); ctx.acceptWebSocket(p[1], ["room"]); p[1].serializeAttachment({ user: "ann" });`)
	rtB, w := newWSRuntime(t, "export class Obj { webSocketMessage(ws, m) { globalThis.got = [m, ws === ctx.getWebSockets()[0]]; } }\n", set)
	if got := jsJSON(t, rtB, `const ws = ctx.getWebSockets("room")[0]; [ws instanceof WebSocket, ws.deserializeAttachment(), ctx.getTags(ws), ws === ctx.getWebSockets()[0]]`); got != `[true,{"user":"ann"},["room"],true]` {
		t.Errorf("in the new runtime: %s", got)
	}
	inst, err := w.Construct("Obj", rtB.Get("ctx").ToObject(rtB))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.DispatchWebSocket(inst, set.sockets[0], WebSocketEvent{Type: WebSocketMessage, Text: true, Data: []byte("m")}); err != nil {
		t.Fatal(err)
	}
	if got := jsJSON(t, rtB, `got`); got != `["m",true]` {
		t.Errorf("handler in the new runtime: %s", got)
	}
}

// Both ends used inside one runtime: what one sends reaches the other's
// listeners in later macrotasks, including what was sent before accept().
func TestWebSocket_LocalPair(t *testing.T) {
	rt, _ := newWSRuntime(t, "export class Obj {}\n", nil)
	jstest.Run(t, rt, `globalThis.log = []; const [a, b] = new WebSocketPair();
a.accept();
a.send("early");
b.addEventListener("message", (e) => log.push(["b", typeof e.data === "string" ? e.data : [...new Uint8Array(e.data)]]));
b.addEventListener("close", (e) => { log.push(["b close", e.code, e.reason]); b.close(e.code, "echo " + e.reason); });
a.addEventListener("message", (e) => log.push(["a", e.data]));
a.addEventListener("close", (e) => log.push(["a close", e.code, e.reason, a.readyState]));
b.accept();
a.send(new Uint8Array([1, 2]));
b.send("to a");
a.close(3000, "done");
log.push("sync");`)
	wsTestTimers.run()
	want := `["sync",["b","early"],["b",[1,2]],["a","to a"],["b close",3000,"done"],["a close",3000,"echo done",3]]`
	if got := jsJSON(t, rt, `log`); got != want {
		t.Errorf("local pair:\n got %s\nwant %s", got, want)
	}
}

// A socket a handler returned (it has an Owner) is a stand-in in the
// caller's runtime, even its own; accept() hands the stand-in to the
// runtime's SocketBridge, and from then on it sends to the bridge's
// connection and receives what the host dispatches.
func TestWebSocket_StandInBridged(t *testing.T) {
	rtA, _ := newWSRuntime(t, "export class Obj {}\n", &WebSocketSet{})
	rtB, wB := newWSRuntime(t, "export class Obj {}\n", nil)
	v := jstest.Run(t, rtA, `globalThis.p = new WebSocketPair(); p[1].accept(); new Response(null, { status: 101, webSocket: p[0] })`)
	resp, err := web.ExportResponse(rtA, v)
	if err != nil {
		t.Fatal(err)
	}
	if resp.WebSocket != nil {
		t.Error("the response carries a goja value of its runtime")
	}
	orig := wsOf(t, rtA, "p[0]")
	orig.Owner = "the object" // as the host claims it when the response leaves
	conn := &fakeConn{}
	var bridged *WebSocket
	wsStateOf(rtB).bridge = func(standIn *WebSocket) (WebSocketConn, error) {
		bridged = standIn
		return conn, nil
	}
	for _, rt := range []*goja.Runtime{rtA, rtB} {
		jv, err := web.NewResponse(rt, resp)
		if err != nil {
			t.Fatal(err)
		}
		_ = rt.Set("r", jv)
	}
	if got := jsJSON(t, rtA, `r.webSocket === p[0]`); got != "false" {
		t.Errorf("in its own runtime, a returned socket is its own object: %s", got)
	}
	if got := jsJSON(t, rtB, `globalThis.log = []; const ws = r.webSocket;
ws.addEventListener("message", (e) => log.push(e.data));
ws.addEventListener("close", (e) => log.push([e.code, e.reason, e.wasClean, ws.readyState]));
[attempt(() => ws.send("early")).threw, attempt(() => ws.accept()).threw, ws.readyState]`); got != `["TypeError",null,1]` {
		t.Errorf("accept: %s", got)
	}
	if bridged == nil || bridged.Remote() != orig || conn.accepted != 1 {
		t.Fatalf("the bridge got %p (remote %p, want %p), accepted %d", bridged, bridged.Remote(), orig, conn.accepted)
	}
	jstest.Run(t, rtB, `ws.send("hi"); ws.send(new Uint8Array([1])); ws.close(1000, "bye")`)
	if got := strings.Join(conn.out, " "); got != "text:hi binary:[1] close:1000:bye" {
		t.Errorf("sent %s", got)
	}
	for _, ev := range []WebSocketEvent{{Type: WebSocketMessage, Text: true, Data: []byte("back")}, {Type: WebSocketClose, Code: 1000, Reason: "ok", WasClean: true}} {
		if _, err := wB.DispatchWebSocket(nil, bridged, ev); err != nil {
			t.Fatal(err)
		}
	}
	if got := jsJSON(t, rtB, `log`); got != `["back",[1000,"ok",true,3]]` {
		t.Errorf("events: %s", got)
	}
	// An accepted stand-in is itself in a Response, and cannot be coupled.
	again, err := web.ExportResponse(rtB, jstest.Run(t, rtB, `new Response(null, { status: 101, webSocket: ws })`))
	if err != nil {
		t.Fatal(err)
	}
	if s := SocketOf(again); s != bridged {
		t.Fatalf("re-exported %p, want the stand-in %p", s, bridged)
	} else if err := s.Couple(conn); err == nil || !strings.Contains(err.Error(), "after calling accept()") {
		t.Errorf("couple an accepted stand-in: %v", err)
	}
}
