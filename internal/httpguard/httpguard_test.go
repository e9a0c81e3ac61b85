package httpguard

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serve runs h under c on a loopback listener capped at max connections.
func serve(t *testing.T, h http.Handler, c Config, max int) (*Listener, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := Listen(ln, max)
	srv := Server(h, c)
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return l, ln.Addr().String()
}

// waitFor polls cond (state, not time: the deadline only bounds a broken test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(30 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func get(t *testing.T, c net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(strings.NewReader(string(b)))
	return resp
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })

// TestListener_PastTheCapAnswers503: connections past the cap are answered
// 503 and closed, not left waiting in the backlog; one that closes makes
// room for the next.
func TestListener_PastTheCapAnswers503(t *testing.T) {
	l, addr := serve(t, ok, Config{}, 3)
	var held []net.Conn
	for i := 0; i < 3; i++ {
		c := dial(t, addr)
		if r := get(t, c, bufio.NewReader(c)); r.StatusCode != 200 {
			t.Fatalf("connection %d: %d", i, r.StatusCode)
		}
		held = append(held, c) // kept alive, idle
	}
	c := dial(t, addr)
	r := get(t, c, bufio.NewReader(c))
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 503 || string(b) != BusyMessage || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("past the cap: %d %q", r.StatusCode, b)
	}
	if l.Served.Load() != 1 {
		t.Fatalf("Served = %d", l.Served.Load())
	}
	held[0].Close()
	waitFor(t, "the closed connection to be counted", func() bool { return l.Open() == 2 })
	c = dial(t, addr)
	if r := get(t, c, bufio.NewReader(c)); r.StatusCode != 200 {
		t.Fatalf("after one closed: %d", r.StatusCode)
	}
}

// TestServer_IdleAndHeaderLimits: an idle keep-alive connection is closed
// after IdleTimeout; a request with headers past MaxHeaderBytes gets 431;
// one whose headers never end is closed after ReadHeaderTimeout.
func TestServer_IdleAndHeaderLimits(t *testing.T) {
	l, addr := serve(t, ok, Config{IdleTimeout: 50 * time.Millisecond, ReadHeaderTimeout: 50 * time.Millisecond, MaxHeaderBytes: 4096}, 10)
	c := dial(t, addr)
	br := bufio.NewReader(c)
	get(t, c, br)
	if _, err := br.ReadByte(); err != io.EOF {
		t.Fatalf("idle connection: %v, want EOF (closed by the server)", err)
	}
	c = dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("a", 8192)+"\r\n\r\n")
	r, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || r.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("big headers: %v, %v", r, err)
	}
	c = dial(t, addr)
	_, _ = io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n") // never ends
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("slow headers: %v", err)
	}
	waitFor(t, "every connection to be closed", func() bool { return l.Open() == 0 })
}

// TestServer_BodyAndWriteProgress: a body announced and not sent fails its
// read with BodyTimeoutError after BodyProgress; a response to a client
// that does not read fails its write after WriteProgress instead of
// holding the handler (and its memory) forever.
func TestServer_BodyAndWriteProgress(t *testing.T) {
	bodyErr := make(chan error, 1)
	writeErr := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			_, err := io.ReadAll(r.Body)
			bodyErr <- err
			return
		}
		chunk := make([]byte, 1<<20)
		for i := 0; i < 1024; i++ {
			if _, err := w.Write(chunk); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- nil
	})
	_, addr := serve(t, h, Config{BodyProgress: 50 * time.Millisecond, WriteProgress: 50 * time.Millisecond}, 10)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "POST /body HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\nabc")
	var te *BodyTimeoutError
	if err := <-bodyErr; !errors.As(err, &te) {
		t.Fatalf("unsent body: %v, want a BodyTimeoutError", err)
	}
	c = dial(t, addr)
	_, _ = io.WriteString(c, "GET /write HTTP/1.1\r\nHost: x\r\n\r\n") // and never read
	if err := <-writeErr; err == nil {
		t.Fatal("1 GiB written to a client that reads nothing")
	}
}

// TestServer_StalledBodyFreesItsConnection: once a body read failed (it
// stopped arriving), the connection is closed after the answer, not left
// to net/http's discard of the unread rest, which waited for the client
// with no deadline: the long hostile form's 4 200 connections holding
// unsent bodies kept their slots of the connection cap after their 408s,
// and no new connection got one for as long as the attacker held them.
func TestServer_StalledBodyFreesItsConnection(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, "stalled", http.StatusRequestTimeout)
		}
	})
	l, addr := serve(t, h, Config{BodyProgress: 50 * time.Millisecond}, 10)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\nabc")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled body: %v %v, want 408", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	waitFor(t, "the server to close the stalled connection", func() bool { return l.Open() == 0 })
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second)) // bounds a broken test only
	if n, err := br.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the connection after the 408: read %d, %v; want EOF", n, err)
	}
}

// TestServer_HijackClearsDeadlines: a hijacked connection (a WebSocket)
// keeps no deadline of the guard's.
func TestServer_HijackClearsDeadlines(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		_, _ = io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\n\r\n")
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Errorf("hijacked read: %v", err)
		}
		_, _ = c.Write(buf)
	})
	_, addr := serve(t, h, Config{BodyProgress: 20 * time.Millisecond, WriteProgress: 20 * time.Millisecond}, 10)
	c := dial(t, addr)
	_, _ = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
	br := bufio.NewReader(c)
	if line, err := br.ReadString('\n'); err != nil || !strings.Contains(line, "101") {
		t.Fatalf("%q %v", line, err)
	}
	_, _ = br.ReadString('\n')
	time.Sleep(100 * time.Millisecond) // past both progress deadlines: they must not apply
	_, _ = io.WriteString(c, "ping")
	buf := make([]byte, 4)
	if _, err := io.ReadFull(br, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("echo after the deadlines would have passed: %q %v", buf, err)
	}
}

// TestServer_LastFlushAfterAPause: a handler whose last write was longer
// ago than WriteProgress still gets its response out (net/http's flush
// after the handler returns has a deadline of its own).
func TestServer_LastFlushAfterAPause(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first ") // buffered by net/http
		time.Sleep(150 * time.Millisecond) // past the write deadline that write set
	})
	_, addr := serve(t, h, Config{WriteProgress: 50 * time.Millisecond}, 10)
	c := dial(t, addr)
	r := get(t, c, bufio.NewReader(c))
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != 200 || string(b) != "first " {
		t.Fatalf("%d %q", r.StatusCode, b)
	}
}
