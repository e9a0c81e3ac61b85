package host_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
)

// rawRequest sends s on a new connection to addr and returns the
// connection and a reader of its answers.
func rawRequest(t *testing.T, addr, s string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

func readAnswer(t *testing.T, br *bufio.Reader) (int, string) {
	t.Helper()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHTTP_BodyAbuse: a body announced and not sent holds only the bytes
// that arrived of the host-wide body budget (before: its whole
// Content-Length, until the client let go, so that 4 200 such connections
// made every small POST hang: issue 23.2), and fails with 408 once the
// buffered-body deadline passes; a malformed chunked body or a body
// shorter than announced is the client's error, 400, not the program's
// 500.
func TestHTTP_BodyAbuse(t *testing.T) {
	defer host.SetBufferedBodyTimeout(time.Minute)()
	h := newHostB(t, methodJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	const stalled = 40
	var conns []net.Conn
	for i := 0; i < stalled; i++ {
		c, _ := rawRequest(t, addr, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 65536\r\n\r\na")
		conns = append(conns, c)
	}
	for end := time.Now().Add(time.Minute); host.BodyBytesHeld(h) < stalled; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the stalled bodies hold %d bytes", host.BodyBytesHeld(h))
		}
	}
	if got := host.BodyBytesHeld(h); got != stalled {
		t.Fatalf("%d connections that sent 1 byte of 65536 hold %d bytes of the body budget, want %d", stalled, got, stalled)
	}
	resp, err := http.Post(srv.URL+"/x", "text/plain", strings.NewReader("small"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "worker POST small" {
		t.Fatalf("a small POST during the attack: %d %q", resp.StatusCode, b)
	}
	for _, c := range conns {
		c.Close()
	}

	for _, tt := range []struct {
		name, req string
		status    int
	}{
		{"malformed chunked", "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400},
		{"malformed chunked to an object", "POST /do/Counter/a HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\nq\r\n", 400},
	} {
		_, br := rawRequest(t, addr, tt.req)
		if status, body := readAnswer(t, br); status != tt.status {
			t.Errorf("%s: %d %q, want %d", tt.name, status, body, tt.status)
		}
	}
	c, br := rawRequest(t, addr, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello")
	c.(*net.TCPConn).CloseWrite()
	if status, body := readAnswer(t, br); status != 400 {
		t.Errorf("a body shorter than announced: %d %q, want 400", status, body)
	}

	restore := host.SetBufferedBodyTimeout(50 * time.Millisecond)
	_, br = rawRequest(t, addr, "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhel")
	status, body := readAnswer(t, br)
	restore()
	if status != http.StatusRequestTimeout {
		t.Errorf("a body that stopped arriving: %d %q, want 408", status, body)
	}
	for end := time.Now().Add(time.Minute); host.BodyBytesHeld(h) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("after the requests the body budget still holds %d bytes", host.BodyBytesHeld(h))
		}
	}
}
