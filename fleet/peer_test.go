package fleet

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/ownership"
)

// fakeLocal answers with function fields and counts the requests it ran.
type fakeLocal struct {
	ran   atomic.Int32
	fetch func(class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error)
	call  func(class, id, name, method string, args []byte, get bool) ([]byte, error)
}

func (f *fakeLocal) FetchHere(_ context.Context, class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
	f.ran.Add(1)
	return f.fetch(class, id, name, req)
}

func (f *fakeLocal) CallHere(_ context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	f.ran.Add(1)
	return f.call(class, id, name, method, args, get)
}

func testSecret(b byte) Secret { return Secret{Version: 1, Key: bytes.Repeat([]byte{b}, 32)} }

func echoLocal() *fakeLocal {
	return &fakeLocal{
		fetch: func(class, id, name string, req *httpmsg.Request) (*httpmsg.Response, error) {
			body := class + "/" + id + "/" + name + " " + req.Method + " " + req.URL + " " + string(req.Body)
			return &httpmsg.Response{Status: 201, StatusText: "Created", Header: [][2]string{{"x-a", "1"}, {"x-a", "2"}}, Body: []byte(body)}, nil
		},
		call: func(class, id, name, method string, args []byte, get bool) ([]byte, error) {
			return append([]byte(method+":"), args...), nil
		},
	}
}

func TestClient_Fetch(t *testing.T) {
	defer goleak.VerifyNone(t)
	local := echoLocal()
	srv := httptest.NewServer(NewServer(ServerConfig{Secret: testSecret(1), Local: local}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c := NewClient(testSecret(1), "node_a")
	defer c.Close()

	resp, err := c.Fetch(context.Background(), addr, "C", "abc", "alice", &httpmsg.Request{Method: "POST", URL: "http://x/y", Header: [][2]string{{"h", "v"}}, Body: []byte("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Status != 201 || resp.StatusText != "Created" || string(resp.Body) != "C/abc/alice POST http://x/y hi" || len(resp.Header) != 2 {
		t.Errorf("Fetch = %+v %q", resp, resp.Body)
	}
	res, err := c.Call(context.Background(), addr, "C", "abc", "", "inc", []byte{1, 2}, false)
	if err != nil || string(res) != "inc:\x01\x02" {
		t.Errorf("Call = %q, %v", res, err)
	}
}

func TestClient_Errors(t *testing.T) {
	defer goleak.VerifyNone(t)
	tests := []struct {
		name  string
		err   error
		check func(t *testing.T, err error)
	}{
		{"NotOwner", &ownership.CellOwnedElsewhereError{Scope: "C:abc", Owner: "node_b", Addr: "b:1", Epoch: 7}, func(t *testing.T, err error) {
			var e *ownership.CellOwnedElsewhereError
			if !errors.As(err, &e) || *e != (ownership.CellOwnedElsewhereError{Scope: "C:abc", Owner: "node_b", Addr: "b:1", Epoch: 7}) {
				t.Errorf("err = %#v", err)
			}
		}},
		{"LostRecord", &ownership.LostRecordError{Scope: "C:abc", NewestEpoch: 3}, func(t *testing.T, err error) {
			var e *ownership.LostRecordError
			if !errors.As(err, &e) || e.NewestEpoch != 3 || e.Scope != "C:abc" {
				t.Errorf("err = %#v", err)
			}
		}},
		{"Script", &httpmsg.ScriptError{Name: "TypeError", Message: "boom", Stack: "TypeError: boom\n at x"}, func(t *testing.T, err error) {
			var e *httpmsg.ScriptError
			if !errors.As(err, &e) || e.Name != "TypeError" || e.Message != "boom" || e.Stack == "" {
				t.Errorf("err = %#v", err)
			}
		}},
		{"Other", errors.New("Durable Object reset because x"), func(t *testing.T, err error) {
			var e *RemoteError
			if !errors.As(err, &e) || e.Message != "Durable Object reset because x" {
				t.Errorf("err = %#v", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local := &fakeLocal{fetch: func(string, string, string, *httpmsg.Request) (*httpmsg.Response, error) { return nil, tt.err }}
			srv := httptest.NewServer(NewServer(ServerConfig{Secret: testSecret(1), Local: local}))
			defer srv.Close()
			c := NewClient(testSecret(1), "node_a")
			defer c.Close()
			_, err := c.Fetch(context.Background(), strings.TrimPrefix(srv.URL, "http://"), "C", "abc", "", &httpmsg.Request{Method: "GET", URL: "http://x/"})
			tt.check(t, err)
		})
	}
}

// TestServer_Refuses checks that requests that are not signed with the
// fleet secret, replayed, out of the clock window or tampered with never
// reach the object.
func TestServer_Refuses(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	local := echoLocal()
	srv := NewServer(ServerConfig{Secret: testSecret(1), Local: local, Now: func() time.Time { return now }})
	sign := func(s Secret, path, ts, nonce string, body []byte) *http.Request {
		r := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		r.Header.Set(hdrPeer, peerHeader(s))
		r.Header.Set(hdrNode, "node_a")
		r.Header.Set(hdrTime, ts)
		r.Header.Set(hdrNonce, nonce)
		r.Header.Set(hdrSignature, s.sign(requestSigningString(path, "node_a", ts, nonce, body)))
		r.Header.Set(hdrHead, s.sign(headSigningString(path, "node_a", ts, nonce, int64(len(body)))))
		return r
	}
	body := []byte(`{"class":"C","id":"abc","req":{"method":"GET","url":"http://x/","header":[]}}`)
	ts := "1000000000"
	nonce := strings.Repeat("ab", 16)
	serve := func(r *http.Request) int {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		return w.Code
	}
	if got := serve(sign(testSecret(1), PathFetch, ts, nonce, body)); got != 200 {
		t.Fatalf("a good request: %d", got)
	}
	tests := []struct {
		name string
		req  *http.Request
	}{
		{"Replay", sign(testSecret(1), PathFetch, ts, nonce, body)},
		{"WrongSecret", sign(testSecret(2), PathFetch, ts, strings.Repeat("01", 16), body)},
		{"TooOld", sign(testSecret(1), PathFetch, "969999999", strings.Repeat("02", 16), body)},
		{"TooNew", sign(testSecret(1), PathFetch, "1030000001", strings.Repeat("03", 16), body)},
		{"OtherPath", func() *http.Request {
			r := sign(testSecret(1), PathCall, ts, strings.Repeat("04", 16), body)
			r.URL.Path = PathFetch
			return r
		}()},
		{"TamperedBody", func() *http.Request {
			r := sign(testSecret(1), PathFetch, ts, strings.Repeat("05", 16), body)
			r.Body = io.NopCloser(bytes.NewReader(bytes.Replace(body, []byte("abc"), []byte("abd"), 1)))
			return r
		}()},
		{"OtherVersion", func() *http.Request {
			r := sign(testSecret(1), PathFetch, ts, strings.Repeat("06", 16), body)
			r.Header.Set(hdrPeer, "9.1")
			return r
		}()},
		{"BadNonce", sign(testSecret(1), PathFetch, ts, "short", body)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := serve(tt.req); got != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", got)
			}
		})
	}
	if n := local.ran.Load(); n != 1 {
		t.Errorf("the object ran %d requests, want only the good one", n)
	}
	// The nonce is forgotten once no request carrying it can be accepted.
	now = now.Add(2*DefaultSkew + time.Millisecond)
	if got := serve(sign(testSecret(1), PathFetch, "1000060001", nonce, body)); got != 200 {
		t.Errorf("an old nonce after the window: %d", got)
	}
}

// TestClient_Stage checks the stage a failed forward reports: never sent
// (connection refused) may be sent again; sent without an answer, or with
// an answer not signed by the fleet, may not.
func TestClient_Stage(t *testing.T) {
	defer goleak.VerifyNone(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := ln.Addr().String()
	ln.Close()

	hangUp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
	}))
	defer hangUp.Close()
	forged := httptest.NewServer(NewServer(ServerConfig{Secret: testSecret(9), Local: echoLocal()}))
	defer forged.Close()
	unsigned := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		_, _ = w.Write([]byte(`{"status":200}`))
	}))
	defer unsigned.Close()

	tests := []struct {
		name   string
		addr   string
		unsent bool
	}{
		{"Refused", refused, true},
		{"HungUp", strings.TrimPrefix(hangUp.URL, "http://"), false},
		{"OtherSecret", strings.TrimPrefix(forged.URL, "http://"), false},
		{"Unsigned", strings.TrimPrefix(unsigned.URL, "http://"), false},
	}
	c := NewClient(testSecret(1), "node_a")
	defer c.Close()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Fetch(context.Background(), tt.addr, "C", "abc", "", &httpmsg.Request{Method: "GET", URL: "http://x/"})
			var fe *ForwardError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *ForwardError", err)
			}
			if fe.Unsent() != tt.unsent {
				t.Errorf("Unsent() = %v, want %v (%v)", fe.Unsent(), tt.unsent, err)
			}
		})
	}
}

func TestClient_Ping(t *testing.T) {
	defer goleak.VerifyNone(t)
	srv := httptest.NewServer(NewServer(ServerConfig{Node: "node_b", Secret: testSecret(1), Local: echoLocal()}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	c1, c2 := NewClient(testSecret(1), "node_a"), NewClient(testSecret(2), "node_a")
	defer c1.Close()
	defer c2.Close()
	node, err := c1.Ping(context.Background(), addr)
	if err != nil || node != "node_b" {
		t.Errorf("Ping = %q, %v; want node_b", node, err)
	}
	if _, err := c2.Ping(context.Background(), addr); err == nil {
		t.Error("Ping with another fleet secret succeeded")
	}
}

// httpLocal records what ServeObjectHTTP got.
type httpLocal struct {
	*fakeLocal
	got *http.Request
	obj string
}

func (h *httpLocal) ServeObjectHTTP(w http.ResponseWriter, r *http.Request, class, id, name string) {
	h.got, h.obj = r, class+"/"+id+"/"+name
	w.WriteHeader(http.StatusTeapot)
}

// TestClient_ProxyHTTP relays a (WebSocket upgrade) request to the owner:
// the object sees the client's URL and headers, not the peer headers; a
// request that is no upgrade, or that is unsigned, is refused there.
func TestClient_ProxyHTTP(t *testing.T) {
	defer goleak.VerifyNone(t)
	local := &httpLocal{fakeLocal: echoLocal()}
	owner := httptest.NewServer(NewServer(ServerConfig{Secret: testSecret(1), Local: local}))
	defer owner.Close()
	addr := strings.TrimPrefix(owner.URL, "http://")
	c := NewClient(testSecret(1), "node_a")
	defer c.Close()
	edge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.ProxyHTTP(w, r, addr, "C", "abc", "room")
	}))
	defer edge.Close()

	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	req, _ := http.NewRequest("GET", edge.URL+"/do/C/room/x?q=1", nil)
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("X-App", "1")
	req.Header.Set("Cellhost-Peer-Node", "forged")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTeapot || local.got == nil {
		t.Fatalf("status %d, object reached: %v", resp.StatusCode, local.got != nil)
	}
	g := local.got
	if local.obj != "C/abc/room" || g.RequestURI != "/do/C/room/x?q=1" || g.Host != strings.TrimPrefix(edge.URL, "http://") || g.Header.Get("X-App") != "1" {
		t.Errorf("object got %s %q host %q headers %v", local.obj, g.RequestURI, g.Host, g.Header)
	}
	for k := range g.Header {
		if strings.HasPrefix(strings.ToLower(k), "cellhost-peer") {
			t.Errorf("peer header %s reached the object", k)
		}
	}

	local.got = nil
	plain, _ := http.NewRequest("POST", edge.URL+"/do/C/room", strings.NewReader("body"))
	if resp, err := hc.Do(plain); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a plain POST relayed: %d", resp.StatusCode)
	}
	unsigned, _ := http.NewRequest("GET", owner.URL+PathHTTP, nil)
	unsigned.Header.Set("Upgrade", "websocket")
	if resp, err := hc.Do(unsigned); err != nil {
		t.Fatal(err)
	} else if resp.Body.Close(); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("an unsigned upgrade: %d", resp.StatusCode)
	}
	if local.got != nil {
		t.Error("a refused request reached the object")
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	n    atomic.Int64
	left int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	k := int64(min(len(p), 1<<16))
	k = min(k, c.left)
	c.left -= k
	c.n.Add(k)
	return int(k), nil
}

// TestServer_AuthenticatesBeforeReadingTheBody: a peer request whose
// headers are not signed with the fleet secret (or announce a body past
// the limit) is refused before a byte of its body is read (before, the
// server read up to 140 MiB first: issue 23.3); one past the bound on
// requests in flight gets 503 without being read either.
func TestServer_AuthenticatesBeforeReadingTheBody(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	local := echoLocal()
	srv := NewServer(ServerConfig{Secret: testSecret(1), Local: local, Now: func() time.Time { return now }})
	ts, nonce := "1000000000", strings.Repeat("cd", 16)
	for _, tt := range []struct {
		name   string
		length int64
		head   func(h http.Header)
		status int
	}{
		{"Unsigned", 130 << 20, func(h http.Header) {}, http.StatusUnauthorized},
		{"WrongSecret", 130 << 20, func(h http.Header) {
			h.Set(hdrHead, testSecret(2).sign(headSigningString(PathFetch, "node_a", ts, nonce, 130<<20)))
		}, http.StatusUnauthorized},
		{"OtherLength", 130 << 20, func(h http.Header) {
			h.Set(hdrHead, testSecret(1).sign(headSigningString(PathFetch, "node_a", ts, nonce, 10)))
		}, http.StatusUnauthorized},
		{"TooLarge", maxEnvelope + 1, func(h http.Header) {
			h.Set(hdrHead, testSecret(1).sign(headSigningString(PathFetch, "node_a", ts, nonce, maxEnvelope+1)))
		}, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := &countingReader{left: tt.length}
			r := httptest.NewRequest(http.MethodPost, PathFetch, body)
			r.ContentLength = tt.length
			r.Header.Set(hdrPeer, peerHeader(testSecret(1)))
			r.Header.Set(hdrNode, "node_a")
			r.Header.Set(hdrTime, ts)
			r.Header.Set(hdrNonce, nonce)
			r.Header.Set(hdrSignature, "00")
			tt.head(r.Header)
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, r)
			if w.Code != tt.status || body.n.Load() != 0 {
				t.Fatalf("status %d after reading %d bytes, want %d and nothing read", w.Code, body.n.Load(), tt.status)
			}
		})
	}
	// Every slot in flight taken: a signed request is refused unread.
	for i := 0; i < cap(srv.inflight); i++ {
		srv.inflight <- struct{}{}
	}
	b := []byte(`{"class":"C","id":"abc","req":{"method":"GET","url":"http://x/","header":[]}}`)
	body := &countingReader{left: int64(len(b))}
	r := httptest.NewRequest(http.MethodPost, PathFetch, body)
	r.ContentLength = int64(len(b))
	r.Header.Set(hdrPeer, peerHeader(testSecret(1)))
	r.Header.Set(hdrNode, "node_a")
	r.Header.Set(hdrTime, ts)
	r.Header.Set(hdrNonce, nonce)
	r.Header.Set(hdrHead, testSecret(1).sign(headSigningString(PathFetch, "node_a", ts, nonce, int64(len(b)))))
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	if w.Code != http.StatusServiceUnavailable || body.n.Load() != 0 || local.ran.Load() != 0 {
		t.Fatalf("past the bound in flight: %d, %d bytes read, %d ran", w.Code, body.n.Load(), local.ran.Load())
	}
}

// TestServer_RefuseFrom: a request from an address RefuseFrom names (cmd:
// a connection a script's fetch() opened) is refused with 403 before
// anything else, even signed.
func TestServer_RefuseFrom(t *testing.T) {
	local := echoLocal()
	srv := httptest.NewServer(NewServer(ServerConfig{Secret: testSecret(1), Local: local,
		RefuseFrom: func(remote string) bool { return strings.HasPrefix(remote, "127.0.0.1:") }}))
	defer srv.Close()
	c := NewClient(testSecret(1), "node_a")
	defer c.Close()
	_, err := c.Fetch(context.Background(), strings.TrimPrefix(srv.URL, "http://"), "C", "abc", "", &httpmsg.Request{Method: "GET", URL: "http://x/"})
	if err == nil || local.ran.Load() != 0 {
		t.Fatalf("a refused address: %v, %d ran", err, local.ran.Load())
	}
	resp, err := http.Get(srv.URL + PathPing)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
}
