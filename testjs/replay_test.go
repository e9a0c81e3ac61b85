package testjs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// echoed is what /echo reports.
type echoed struct {
	Method, Target, Host, Body, Head string
	ContentLength                    int64
	Headers                          []string
}

func decodeEntry(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("step %s: %v", raw, err)
	}
	return m
}

func decodeEcho(t *testing.T, raw json.RawMessage) echoed {
	t.Helper()
	m := decodeEntry(t, raw)
	var e echoed
	body, _ := m["body"].(string)
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("step %s: body: %v", raw, err)
	}
	return e
}

func TestReplay_requests(t *testing.T) {
	s := newTestServer(t)
	before := s.conns.Load()
	tr, err := replaySteps(t, s.URL, `[
		{"req": {"path": "/echo/a?x=1", "headers": {"X-Test": "v", "x-lower": "l"}}},
		{"req": {"method": "post", "path": "/echo", "body": "héllo"}},
		{"req": {"method": "PUT", "path": "/echo"}},
		{"req": {"method": "DELETE", "path": "/echo"}},
		{"req": {"path": "/echo", "body": ""}},
		{"req": {"method": "HEAD", "path": "/echo"}},
		{"req": {"path": "/echo", "headers": {"X-A": "1", "Host": "example.org:8080"}}},
		{"req": {"method": "POST", "path": "/echo", "json": {"b": 1, "a": [1, 2], "7": null}}},
		{"req": {"method": "POST", "path": "/echo", "json": "s", "headers": {"content-type": "text/x"}}},
		{"req": {"method": "POST", "path": "/echo", "bodyBase64": "/wD+AQ=="}},
		{"req": {"method": "POST", "path": "/echo", "body": "abc", "headers": {"Transfer-Encoding": "chunked"}}},
		{"req": {"path": "/echo", "headers": {"x-dup": "1", "X-Dup": ["2", "3"]}}}
	]`)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	if n := s.conns.Load() - before; n != int64(len(tr.Steps)) {
		t.Errorf("%d connections for %d requests, want one per request", n, len(tr.Steps))
	}
	heads := []string{
		"GET /echo/a?x=1 HTTP/1.1\r\nX-Test: v\r\nx-lower: l\r\nHost: conformance.test\r\nConnection: close",
		"POST /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Length: 6\r\nConnection: close",
		"PUT /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Length: 0\r\nConnection: close",
		"DELETE /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Length: 0\r\nConnection: close",
		"GET /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Length: 0\r\nConnection: close",
		"", // HEAD: no body to report
		"GET /echo HTTP/1.1\r\nX-A: 1\r\nHost: example.org:8080\r\nConnection: close",
		"POST /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Type: application/json\r\nContent-Length: 26\r\nConnection: close",
		"POST /echo HTTP/1.1\r\ncontent-type: text/x\r\nHost: conformance.test\r\nContent-Length: 3\r\nConnection: close",
		"POST /echo HTTP/1.1\r\nHost: conformance.test\r\nContent-Length: 4\r\nConnection: close",
		"POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: conformance.test\r\nConnection: close",
		"GET /echo HTTP/1.1\r\nX-Dup: 2\r\nX-Dup: 3\r\nHost: conformance.test\r\nConnection: close",
	}
	bodies := []string{"", "héllo", "", "", "", "", "", `{"7":null,"b":1,"a":[1,2]}`, `"s"`, "base64:/wD+AQ==", "abc", ""}
	labels := []string{"GET /echo/a?x=1", "POST /echo", "PUT /echo", "DELETE /echo", "GET /echo", "HEAD /echo",
		"GET /echo", "POST /echo", "POST /echo", "POST /echo", "POST /echo", "GET /echo"}
	for i, raw := range tr.Steps {
		m := decodeEntry(t, raw)
		if m["req"] != labels[i] || m["status"] != 200.0 || m["contentType"] != "application/json" {
			t.Errorf("step %d = %s", i, raw)
		}
		if i == 5 {
			if m["body"] != "" {
				t.Errorf("HEAD body = %q", m["body"])
			}
			continue
		}
		e := decodeEcho(t, raw)
		if e.Head != heads[i] {
			t.Errorf("step %d: request head\n got %q\nwant %q", i, e.Head, heads[i])
		}
		if e.Body != bodies[i] {
			t.Errorf("step %d: body %q, want %q", i, e.Body, bodies[i])
		}
	}
	if e := decodeEcho(t, tr.Steps[6]); e.Host != "example.org:8080" {
		t.Errorf("Host override: server saw %q", e.Host)
	}
	// The first fields of each entry, in replay.mjs's order.
	if !bytes.HasPrefix(tr.Steps[0], []byte(`{"req":"GET /echo/a?x=1","status":200,"contentType":"application/json","body":"{`)) {
		t.Errorf("entry shape: %s", tr.Steps[0])
	}
}

func TestReplay_responses(t *testing.T) {
	s := newTestServer(t)
	tr, err := replaySteps(t, s.URL, `[
		{"req": {"path": "/redirect", "recordHeaders": ["Location", "X-Missing"]}},
		{"req": {"path": "/headers", "recordHeaders": ["Content-Type", "location", "Set-Cookie", "X-Multi", "X-Latin", "123"]}},
		{"req": {"path": "/binary"}},
		{"req": {"path": "/bom"}},
		{"req": {"path": "/status?code=204"}},
		{"req": {"path": "/status?code=418"}},
		{"req": {"path": "/nolength"}},
		{"sleep": 20},
		{"sleep": 0.5}
	]`)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	want := []string{
		`{"req":"GET /redirect","status":302,"contentType":"text/html; charset=utf-8","body":"<a href=\"/echo?from=redirect\">Found</a>.\n\n","headers":{"location":"/echo?from=redirect","x-missing":null}}`,
		`{"req":"GET /headers","status":200,"contentType":"text/a","body":"h","headers":{"123":"numeric","content-type":"text/a","location":"/one","set-cookie":"a=1, b=2","x-multi":"x, y","x-latin":"cafÃ©"}}`,
		`{"req":"GET /binary","status":200,"contentType":"application/octet-stream","body":"base64:/wD+AQ=="}`,
		`{"req":"GET /bom","status":200,"contentType":"text/plain; charset=utf-8","body":"hi` + "\uFEFF" + `"}`,
		`{"req":"GET /status?code=204","status":204,"contentType":"text/plain","body":""}`,
		`{"req":"GET /status?code=418","status":418,"contentType":"text/plain","body":"status 418"}`,
		`{"req":"GET /nolength","status":200,"contentType":"text/plain","body":"read until close"}`,
		`{"slept":20}`,
		`{"slept":0.5}`,
	}
	checkSteps(t, tr, want)
}

func checkSteps(t *testing.T, tr *Transcript, want []string) {
	t.Helper()
	if len(tr.Steps) != len(want) {
		t.Fatalf("%d steps, want %d:\n%s", len(tr.Steps), len(want), tr.Bytes())
	}
	for i, w := range want {
		if got := string(tr.Steps[i]); got != w {
			t.Errorf("step %d\n got %s\nwant %s", i, got, w)
		}
	}
}

func TestReplay_parallel(t *testing.T) {
	s := newTestServer(t)
	start := time.Now()
	tr, err := replaySteps(t, s.URL, `[
		{"parallel": [{"path": "/slow?ms=300"}, {"req": {"path": "/slow?ms=10"}}, {"method": "POST", "path": "/slow?ms=200"}]},
		{"parallel": []}
	]`)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	checkSteps(t, tr, []string{
		`[{"req":"GET /slow?ms=300","status":200,"contentType":"text/plain; charset=utf-8","body":"slow 300"},` +
			`{"req":"GET /slow?ms=10","status":200,"contentType":"text/plain; charset=utf-8","body":"slow 10"},` +
			`{"req":"POST /slow?ms=200","status":200,"contentType":"text/plain; charset=utf-8","body":"slow 200"}]`,
		`[]`,
	})
	if elapsed >= 500*time.Millisecond {
		t.Errorf("parallel requests took %v, want them concurrent (< 500ms)", elapsed)
	}
}

func TestReplay_websocket(t *testing.T) {
	s := newTestServer(t)
	tr, err := replaySteps(t, s.URL, `[
		{"ws": {"path": "/ws", "send": ["a", "b"], "close": [1000, "bye"]}},
		{"ws": {"path": "/ws", "send": ["slow:a", "slow:b"], "recv": 2, "close": [1000, ""]}},
		{"ws": {"path": "/ws", "send": ["slow:a", "slow:b", "slow:c"], "recv": 1}},
		{"ws": {"path": "/ws", "send": [{"base64": "AQID"}, {"k": 1, "2": true}], "close": [3001, "custom"]}},
		{"ws": {"path": "/ws", "send": ["close:4000:asked"], "recv": 0, "waitClose": true}},
		{"ws": {"path": "/ws", "send": ["close-nocode"], "recv": 0, "waitClose": true}},
		{"ws": {"path": "/ws", "send": ["drop"], "recv": 1}},
		{"ws": {"path": "/ws", "send": ["msgclose:x"], "recv": 1}},
		{"ws": {"path": "/ws", "send": ["msgclose:y"], "recv": 1, "waitClose": true}},
		{"ws": {"path": "/ws", "send": ["close:1000:early"], "recv": 3}},
		{"ws": {"path": "/refuse", "send": ["x"]}},
		{"ws": {"path": "/a/../ws?greet", "headers": {"X-Y": "1", "Host": "h.test"}, "recv": 1, "close": true}},
		{"ws": {"path": "/ws?greet&proto=p2", "protocols": ["p1", "p2"], "headers": {"sec-websocket-protocol": "x", "Connection": "x"}, "recv": 1}}
	]`)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	checkSteps(t, tr, []string{
		`{"ws":"/ws","messages":["echo:a","echo:b"],"closeCode":1000,"closeReason":"bye"}`,
		// lockstep: the second message is sent after the first reply
		`{"ws":"/ws","messages":["a seen=1","b seen=2"],"closeCode":1000,"closeReason":""}`,
		// recv < sends: all sent at once; the connection is dropped, not closed
		`{"ws":"/ws","messages":["a seen=3"],"closeCode":null,"closeReason":null}`,
		`{"ws":"/ws","messages":["base64:AwIB","echo:{\"2\":true,\"k\":1}"],"closeCode":3001,"closeReason":"custom"}`,
		`{"ws":"/ws","messages":[],"closeCode":4000,"closeReason":"asked"}`,
		`{"ws":"/ws","messages":[],"closeCode":1005,"closeReason":""}`,
		`{"ws":"/ws","messages":[],"closeCode":1006,"closeReason":""}`,
		// the close right after the last message is not seen (Node's event loop)
		`{"ws":"/ws","messages":["x"],"closeCode":null,"closeReason":null}`,
		`{"ws":"/ws","messages":["y"],"closeCode":1000,"closeReason":"after y"}`,
		`{"ws":"/ws","messages":[],"closeCode":1000,"closeReason":"early"}`,
		`{"ws":"/refuse","messages":[],"closeCode":null,"closeReason":null,"upgradeStatus":426,"contentType":"text/plain;charset=UTF-8","body":"websocket upgrade required"}`,
		`{"ws":"/a/../ws?greet","messages":["GET /ws?greet HTTP/1.1\r\nX-Y: 1\r\nHost: h.test\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: *\r\nConnection: Upgrade\r\nUpgrade: websocket"],"closeCode":1000,"closeReason":""}`,
		// user headers the ws package sets itself are replaced in place
		`{"ws":"/ws?greet&proto=p2","messages":["GET /ws?greet&proto=p2 HTTP/1.1\r\nSec-WebSocket-Protocol: p1,p2\r\nConnection: Upgrade\r\nHost: conformance.test\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: *\r\nUpgrade: websocket"],"closeCode":null,"closeReason":null}`,
	})
}

// The sleeps leave the server's delayed messages (50-100 ms) a wide margin
// on a busy machine: the test checks the replayer's bookkeeping, not timing.
func TestReplay_namedWebSocket(t *testing.T) {
	s := newTestServer(t)
	tr, err := replaySteps(t, s.URL, `[
		{"ws": {"path": "/ws?greet", "name": "a", "send": ["later:100:hi"], "recv": 1}},
		{"sleep": 2000},
		{"ws": {"name": "a", "path": "/ignored", "send": ["x"], "recv": 2}},
		{"ws": {"name": "b", "path": "/ws", "send": ["later:50:one", "dropafter:100"], "recv": 0}},
		{"sleep": 2000},
		{"ws": {"name": "b", "send": [], "recv": 2}},
		{"ws": {"name": "a", "close": [1000, "done"]}},
		{"ws": {"name": "a", "path": "/ws", "send": ["new"]}},
		{"ws": {"name": "left", "path": "/ws", "send": ["open at the end"]}}
	]`)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	checkSteps(t, tr, []string{
		`{"ws":"/ws?greet","name":"a","messages":["GET /ws?greet HTTP/1.1\r\nHost: conformance.test\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: *\r\nConnection: Upgrade\r\nUpgrade: websocket"],"closeCode":null,"closeReason":null}`,
		`{"slept":2000}`,
		// a message that arrived between steps comes first; path is the kept one
		`{"ws":"/ws?greet","name":"a","messages":["hi","echo:x"],"closeCode":null,"closeReason":null}`,
		`{"ws":"/ws","name":"b","messages":[],"closeCode":null,"closeReason":null}`,
		`{"slept":2000}`,
		// closed while kept: queued messages first, then the close is seen
		`{"ws":"/ws","name":"b","messages":["one"],"closeCode":1006,"closeReason":""}`,
		`{"ws":"/ws?greet","name":"a","messages":[],"closeCode":1000,"closeReason":"done"}`,
		// closed connections are not kept: the name opens a new one
		`{"ws":"/ws","name":"a","messages":["echo:new"],"closeCode":null,"closeReason":null}`,
		`{"ws":"/ws","name":"left","messages":["echo:open at the end"],"closeCode":null,"closeReason":null}`,
	})
}

func TestReplay_transportErrors(t *testing.T) {
	s := newTestServer(t)
	tr, err := replaySteps(t, s.URL, `[
		{"req": {"path": "/hangup"}},
		{"req": {"path": "/cut"}},
		{"ws": {"path": "/ws", "send": ["a"], "recv": 2, "timeoutMs": 200}},
		{"ws": {"path": "/ws", "send": ["badutf8"], "recv": 1}},
		{"ws": {"path": "/ws", "protocols": ["p1"]}},
		{"req": {"path": "/status?code=200"}}
	]`)
	if !errors.Is(err, ErrTransport) || !strings.Contains(err.Error(), "5 step(s)") {
		t.Errorf("Replay error = %v, want ErrTransport for 5 steps", err)
	}
	checkSteps(t, tr, []string{
		`{"req":"GET /hangup","error":"request error: ECONNRESET"}`,
		`{"req":"GET /cut","error":"response error: ECONNRESET"}`,
		`{"ws":"/ws","messages":["echo:a"],"closeCode":null,"closeReason":null,"error":"timeout after 200 ms (got 1 of 2 messages)"}`,
		`{"ws":"/ws","messages":[],"closeCode":null,"closeReason":null,"error":"websocket error: WS_ERR_INVALID_UTF8"}`,
		`{"ws":"/ws","messages":[],"closeCode":null,"closeReason":null,"error":"websocket error: Server sent no subprotocol"}`,
		`{"req":"GET /status?code=200","status":200,"contentType":"text/plain","body":"status 200"}`,
	})

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	tr, err = replaySteps(t, dead, `[{"req": {"path": "/"}}, {"ws": {"path": "/ws"}}]`)
	if !errors.Is(err, ErrTransport) {
		t.Errorf("Replay error = %v, want ErrTransport", err)
	}
	checkSteps(t, tr, []string{
		`{"req":"GET /","error":"request error: ECONNREFUSED"}`,
		`{"ws":"/ws","messages":[],"closeCode":null,"closeReason":null,"error":"websocket error: ECONNREFUSED"}`,
	})
}

// A server that never answers the client's close frame: the ws package
// keeps waiting (30 s), and so does the replayer, so the step times out as
// with replay.mjs.
func TestReplay_closeNotAnswered(t *testing.T) {
	t.Parallel()
	s := newTestServer(t)
	tr, err := replaySteps(t, s.URL, `[{"ws": {"path": "/ws", "send": ["hang"], "recv": 0, "close": [1000, "x"], "timeoutMs": 6000}}]`)
	if !errors.Is(err, ErrTransport) {
		t.Errorf("Replay error = %v, want ErrTransport", err)
	}
	checkSteps(t, tr, []string{
		`{"ws":"/ws","messages":[],"closeCode":null,"closeReason":null,"error":"timeout after 6000 ms (got 0 of 0 messages)"}`,
	})
}

func TestReplay_contextEnds(t *testing.T) {
	s := newTestServer(t)
	c, err := caseFromSteps(t, `[{"sleep": 1}, {"sleep": 10000}, {"sleep": 1}]`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	tr, err := Replay(ctx, s.URL, c)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("Replay = %v after %v, want the context's error at once", err, time.Since(start))
	}
	if tr == nil || len(tr.Steps) != 1 {
		t.Errorf("transcript so far = %+v, want 1 step", tr)
	}
	if _, err := Replay(ctx, "ftp://x", c); err == nil {
		t.Error("Replay accepted an ftp base url")
	}
}

func TestWSTarget(t *testing.T) {
	// as Node's URL parser normalises ws://host<path> (checked against Node 20)
	for in, want := range map[string]string{
		"/ws":                          "/ws",
		"/a b/./c/../d?x y'z\"<>`{}^|": "/a%20b/d?x%20y%27z%22%3C%3E`{}^|",
		"/é/✓?é":                       "/%C3%A9/%E2%9C%93?%C3%A9",
		`/a\b`:                         "/a/b",
		"/%2e/x/%2E%2e/y":              "/y",
		"/x/..":                        "/",
		"/x/.":                         "/x/",
		"//a":                          "//a",
		"/a\tb\nc":                     "/abc",
		"/a^b|c[d]e":                   "/a^b|c[d]e",
		"/\x7f":                        "/%7F",
	} {
		if got := wsTarget(in); got != want {
			t.Errorf("wsTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

// ---------------------------------------------------------------- reference

// anchorDir holds the reference tools (replay.mjs, compare.mjs).
func anchorDir() string {
	if d := os.Getenv("CELLHOST_ANCHOR"); d != "" {
		return d
	}
	return filepath.Join("testdata", "anchor")
}

// nodeWithWS finds node and a node_modules holding ws: NODE_PATH, else the
// repository's .cache/anchor/node_modules (see the package tests' README in
// TestReplay_matchesNode).
func nodeWithWS(t *testing.T) (node, nodePath string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH; the equivalence test with replay.mjs needs Node >= 18")
	}
	var dirs []string
	if p := os.Getenv("NODE_PATH"); p != "" {
		dirs = filepath.SplitList(p)
	}
	dirs = append(dirs, filepath.Join("..", ".cache", "anchor", "node_modules"))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "ws", "package.json")); err == nil {
			abs, err := filepath.Abs(d)
			if err != nil {
				t.Fatal(err)
			}
			return node, abs
		}
	}
	t.Skip("the npm package ws is not installed: mkdir -p .cache/anchor && cd .cache/anchor && npm install ws@8 (or set NODE_PATH)")
	return "", ""
}

// equivalenceSteps covers requests, parallel, sleep and ws steps, including
// transport errors (replay.mjs exits 2 for them).
const equivalenceSteps = `[
	{"req": {"path": "/echo/a?x=1", "headers": {"X-Test": "v", "x-lower": "l"}}},
	{"req": {"method": "post", "path": "/echo", "body": "héllo"}},
	{"req": {"method": "PUT", "path": "/echo"}},
	{"req": {"method": "DELETE", "path": "/echo"}},
	{"req": {"path": "/echo", "body": ""}},
	{"req": {"method": "HEAD", "path": "/echo"}},
	{"req": {"method": "OPTIONS", "path": "/echo/%E2%9C%93?q=%C3%A9"}},
	{"req": {"path": "/echo", "headers": {"X-A": "1", "Host": "example.org:8080", "X-N": 5, "x-dup": "1", "X-Dup": ["2", "3"]}}},
	{"req": {"method": "POST", "path": "/echo", "json": {"b": 1, "a": [1.50, 2e3], "7": null, "s": "<\u2028>"}}},
	{"req": {"method": "POST", "path": "/echo", "json": "s", "headers": {"content-type": "text/x"}}},
	{"req": {"method": "POST", "path": "/echo", "bodyBase64": "/wD+AQ=="}},
	{"req": {"method": "POST", "path": "/echo", "body": "abc", "headers": {"Transfer-Encoding": "chunked"}}},
	{"req": {"path": "/redirect", "recordHeaders": ["Location", "X-Missing"]}},
	{"req": {"path": "/headers", "recordHeaders": ["Content-Type", "location", "Set-Cookie", "X-Multi", "X-Latin", "123", "X-Multi"]}},
	{"req": {"path": "/binary"}},
	{"req": {"path": "/bom"}},
	{"req": {"path": "/status?code=204"}},
	{"req": {"path": "/status?code=418"}},
	{"req": {"path": "/nolength"}},
	{"req": {"path": "/hangup"}},
	{"req": {"path": "/cut"}},
	{"sleep": 20},
	{"parallel": [{"path": "/slow?ms=150"}, {"req": {"path": "/slow?ms=10"}}, {"method": "POST", "path": "/echo", "body": "p"}]},
	{"parallel": []},
	{"ws": {"path": "/ws", "send": ["a", "b"], "close": [1000, "bye"]}},
	{"ws": {"path": "/ws", "send": ["slow:a", "slow:b"], "recv": 2, "close": [1000, ""]}},
	{"ws": {"path": "/ws", "send": ["slow:a", "slow:b", "slow:c"], "recv": 1}},
	{"ws": {"path": "/ws", "send": [{"base64": "AQID"}, {"k": 1, "2": true}, 7, null], "close": [3001, "custom"]}},
	{"ws": {"path": "/ws", "send": ["close:4000:asked"], "recv": 0, "waitClose": true}},
	{"ws": {"path": "/ws", "send": ["close-nocode"], "recv": 0, "waitClose": true}},
	{"ws": {"path": "/ws", "send": ["drop"], "recv": 1}},
	{"ws": {"path": "/ws", "send": ["msgclose:x"], "recv": 1}},
	{"ws": {"path": "/ws", "send": ["msgclose:y"], "recv": 1, "waitClose": true}},
	{"ws": {"path": "/ws", "send": ["close:1000:early"], "recv": 3}},
	{"ws": {"path": "/refuse", "send": ["x"]}},
	{"ws": {"path": "/a/../ws?greet", "headers": {"X-Y": "1", "Host": "h.test"}, "recv": 1, "close": true}},
	{"ws": {"path": "/ws?greet", "name": "a", "send": ["later:100:hi"], "recv": 1}},
	{"sleep": 300},
	{"ws": {"name": "a", "path": "/ignored", "send": ["x"], "recv": 2}},
	{"ws": {"name": "b", "path": "/ws", "send": ["later:50:one", "dropafter:100"], "recv": 0}},
	{"sleep": 300},
	{"ws": {"name": "b", "send": [], "recv": 2}},
	{"ws": {"name": "a", "close": [1000, "done"]}},
	{"ws": {"name": "a", "path": "/ws", "send": ["new"]}},
	{"ws": {"path": "/ws", "send": ["a"], "recv": 2, "timeoutMs": 200}},
	{"ws": {"path": "/ws", "send": ["badutf8"], "recv": 1}},
	{"ws": {"path": "/ws", "protocols": ["p1"]}},
	{"ws": {"path": "/ws?greet&proto=p2", "protocols": ["p1", "p2"], "headers": {"sec-websocket-protocol": "ignored", "Connection": "x"}, "send": ["z"], "recv": 2}},
	{"ws": {"path": "/ws?proto=p3", "protocols": ["p1"]}},
	{"ws": {"path": "/refuse", "name": "r"}},
	{"ws": {"name": "r", "send": ["x"]}},
	{"ws": {"name": "r", "close": true}},
	{"ws": {"name": "left", "path": "/ws", "send": ["open at the end"]}}
]`

// TestReplay_matchesNode replays one synthetic case with the reference
// replay.mjs and with Replay against the same server, and requires
// byte-identical transcripts and the same outcome. It needs node and the npm
// package ws; to install ws for it, from the repository root:
//
//	mkdir -p .cache/anchor && (cd .cache/anchor && npm install ws@8)
func TestReplay_matchesNode(t *testing.T) {
	node, nodePath := nodeWithWS(t)
	script := filepath.Join(anchorDir(), "replay.mjs")
	if _, err := os.Stat(script); err != nil {
		t.Skipf("reference replay.mjs not found (set CELLHOST_ANCHOR): %v", err)
	}
	s := newTestServer(t)
	c, err := caseFromSteps(t, equivalenceSteps)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, s.URL, filepath.Join(c.Dir, "steps.json"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodePath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	nodeErr := cmd.Run()
	var exitErr *exec.ExitError
	if nodeErr != nil && !(errors.As(nodeErr, &exitErr) && exitErr.ExitCode() == 2) {
		t.Fatalf("replay.mjs: %v\n%s", nodeErr, stderr.String())
	}
	if nodeErr == nil {
		t.Fatalf("replay.mjs exited 0, want 2 (the case has transport errors)")
	}

	got, err := Replay(ctx, s.URL, c)
	if !errors.Is(err, ErrTransport) {
		t.Errorf("Replay error = %v, want ErrTransport as replay.mjs exits 2", err)
	}
	if got == nil {
		t.Fatal("no transcript")
	}
	if !bytes.Equal(got.Bytes(), stdout.Bytes()) {
		want, err := ParseTranscript(stdout.Bytes())
		if err != nil {
			t.Fatalf("replay.mjs printed %q: %v", stdout.String(), err)
		}
		for _, d := range Compare(want, got) {
			t.Error(d)
		}
		t.Errorf("transcripts differ:\nreplay.mjs:\n%s\nReplay:\n%s", stdout.String(), got.Bytes())
	}
}

// ---------------------------------------------------------------- workerd

// TestReplay_workerd serves recorded cases on workerd (the oracle) and
// requires Replay to reproduce their expected.json, proving the Go replayer
// records what replay.mjs recorded. Set CELLHOST_WORKERD to the workerd
// binary (npm install workerd@1.20261117.1 esbuild@0.28.2: it is
// node_modules/.bin/workerd, esbuild beside it or in ESBUILD);
// CELLHOST_WORKERD_CASES lists the cases (default: every case).
func TestReplay_workerd(t *testing.T) {
	workerd := os.Getenv("CELLHOST_WORKERD")
	if workerd == "" {
		t.Skip("set CELLHOST_WORKERD to a workerd binary to replay the recorded cases on workerd")
	}
	esbuild := os.Getenv("ESBUILD")
	if esbuild == "" {
		esbuild = filepath.Join(filepath.Dir(workerd), "esbuild")
	}
	if _, err := os.Stat(esbuild); err != nil {
		t.Fatalf("esbuild not found (set ESBUILD): %v", err)
	}
	root := casesDir
	if d := os.Getenv("CELLHOST_CASES"); d != "" {
		root = d
	}
	var names []string
	if list := os.Getenv("CELLHOST_WORKERD_CASES"); list != "" {
		names = strings.Split(list, ",")
	} else {
		dirs, _ := filepath.Glob(filepath.Join(root, "*", "expected.json"))
		for _, d := range dirs {
			names = append(names, filepath.Base(filepath.Dir(d)))
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			c, err := LoadCase(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			if c.Expected == nil {
				t.Skip("no expected.json")
			}
			base := startWorkerd(t, workerd, esbuild, c.Dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := Replay(ctx, base, c)
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			for _, d := range Compare(c.Expected, got) {
				t.Error(d)
			}
			if !bytes.Equal(got.Bytes(), c.Expected.Bytes()) && !t.Failed() {
				t.Logf("equal by compare.mjs's rules but not byte for byte:\n%s", got.Bytes())
			}
		})
	}
}

// startWorkerd serves a fresh copy of caseDir on workerd as record.sh does,
// and returns its base URL; workerd reports its port on --control-fd 3.
func startWorkerd(t *testing.T, workerd, esbuild, caseDir string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"wrangler.jsonc", "index.js"} {
		b, err := os.ReadFile(filepath.Join(caseDir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	log := &lockedBuffer{}
	cmd := exec.Command(workerd, "serve", "-s", "http=127.0.0.1:0", "--control-fd", "3", "wrangler.jsonc")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "WORKERD_ESBUILD="+esbuild, "WRANGLER_SEND_METRICS=false")
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{pw}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		pr.Close()
		if t.Failed() {
			t.Logf("workerd log:\n%s", log.String())
		}
	})
	ports := make(chan int, 1)
	go func() {
		dec := json.NewDecoder(pr)
		for {
			var ev struct {
				Event, Socket string
				Port          int
			}
			if err := dec.Decode(&ev); err != nil {
				return
			}
			if ev.Event == "listen" && ev.Socket == "http" {
				ports <- ev.Port
				return
			}
		}
	}()
	select {
	case p := <-ports:
		return fmt.Sprintf("http://127.0.0.1:%d", p)
	case <-exited:
		t.Fatalf("workerd exited before listening: %v", waitErr)
	case <-time.After(60 * time.Second):
		t.Fatal("workerd did not listen within 60 s")
	}
	return ""
}

// lockedBuffer collects a child's output while it runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
