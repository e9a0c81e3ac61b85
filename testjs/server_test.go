package testjs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"
)

// testServer is a deterministic HTTP + WebSocket server for replaying
// synthetic cases, with Go's and Node's replayers alike.
type testServer struct {
	URL   string
	conns atomic.Int64  // connections accepted
	done  chan struct{} // closed when the test ends
}

type ctxKey struct{}

// recConn records the bytes the client sent on a connection.
type recConn struct {
	net.Conn
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	if c.buf.Len() < 64<<10 {
		c.buf.Write(p[:n])
	}
	c.mu.Unlock()
	return n, err
}

// head is the request head received so far, with the random WebSocket key
// masked.
func (c *recConn) head() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, _, _ := strings.Cut(c.buf.String(), "\r\n\r\n")
	return regexp.MustCompile(`(?i)(sec-websocket-key: )[^\r]*`).ReplaceAllString(h, "${1}*")
}

type recListener struct {
	net.Listener
	s *testServer
}

func (l recListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.s.conns.Add(1)
	return &recConn{Conn: c}, nil
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	s := &testServer{done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/echo/", s.echo)
	mux.HandleFunc("/echo", s.echo)
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(code)
		fmt.Fprintf(w, "status %d", code)
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{"text/a", "text/b"}
		h["Location"] = []string{"/one", "/two"}
		h["Set-Cookie"] = []string{"a=1", "b=2"}
		h["X-Multi"] = []string{"x", "y"}
		h["X-Latin"] = []string{"caf\xc3\xa9"}
		h["123"] = []string{"numeric"}
		io.WriteString(w, "h")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/echo?from=redirect", http.StatusFound)
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte{0xFF, 0x00, 0xFE, 0x01})
	})
	mux.HandleFunc("/bom", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "\uFEFFhi\uFEFF")
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		time.Sleep(time.Duration(ms) * time.Millisecond)
		fmt.Fprintf(w, "slow %d", ms)
	})
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			c.Close()
		}
	})
	mux.HandleFunc("/nolength", func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nread until close")
			c.Close()
		}
	})
	mux.HandleFunc("/cut", func(w http.ResponseWriter, r *http.Request) {
		c, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
			c.Close()
		}
	})
	mux.HandleFunc("/refuse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain;charset=UTF-8")
		w.WriteHeader(http.StatusUpgradeRequired)
		io.WriteString(w, "websocket upgrade required")
	})
	mux.HandleFunc("/ws", s.ws)
	mux.HandleFunc("/ws/", s.ws)

	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = recListener{srv.Listener, s}
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, ctxKey{}, c)
	}
	srv.Start()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(s.done) }) // runs first: ends hanging handlers
	s.URL = srv.URL
	return s
}

func rawHead(r *http.Request) string {
	if c, ok := r.Context().Value(ctxKey{}).(*recConn); ok {
		return c.head()
	}
	return ""
}

func textOrBase64(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return "base64:" + base64.StdEncoding.EncodeToString(b)
}

// echo reports what the server saw of the request, including its raw head.
func (s *testServer) echo(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var hs []string
	for k, v := range r.Header {
		hs = append(hs, k+": "+strings.Join(v, ", "))
	}
	sort.Strings(hs)
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"method":           r.Method,
		"target":           r.RequestURI,
		"host":             r.Host,
		"contentLength":    r.ContentLength,
		"transferEncoding": r.TransferEncoding,
		"headers":          hs,
		"body":             textOrBase64(body),
		"head":             rawHead(r),
	})
}

// ws is a WebSocket endpoint driven by the text it receives:
//
//	close:CODE:REASON  the server closes with CODE and REASON
//	close-nocode       the server sends a close frame without a code
//	drop               the server drops the connection (no close frame)
//	dropafter:MS       the server drops the connection after MS milliseconds
//	msgclose:X         the server sends X, then closes with 1000 "after X"
//	later:MS:X         the server sends X after MS milliseconds
//	badutf8            the server sends a text frame that is not UTF-8
//	slow:X             after 50 ms: "X seen=N", N the messages received so far
//	hang               the server stops reading (and answering close frames)
//	anything else      "echo:<text>"
//
// Binary frames come back reversed. With ?greet, the first message is the
// handshake's raw head; with ?proto=P, the server accepts subprotocol P.
// Writes happen in order on one goroutine.
func (s *testServer) ws(w http.ResponseWriter, r *http.Request) {
	head := rawHead(r)
	up := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	if p := r.URL.Query().Get("proto"); p != "" {
		up.Subprotocols = []string{p}
	}
	c, err := up.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	// A client's Close frame is answered with its code and reason.
	c.SetCloseHandler(func(code int, text string) error {
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, text), time.Now().Add(time.Second))
		return nil
	})
	var wmu sync.Mutex // one writer at a time (tasks, timers)
	write := func(typ int, b []byte) {
		wmu.Lock()
		defer wmu.Unlock()
		_ = c.WriteMessage(typ, b)
	}
	closeWith := func(code int, reason string) {
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(time.Second))
	}
	tasks := make(chan func(), 100)
	go func() {
		for f := range tasks {
			f()
		}
	}()
	defer close(tasks)
	send := func(typ int, b []byte) func() {
		return func() { write(typ, b) }
	}
	if r.URL.Query().Has("greet") {
		tasks <- send(websocket.TextMessage, []byte(head))
	}
	var seen atomic.Int64
	for {
		typ, data, err := c.ReadMessage()
		if err != nil {
			return
		}
		seen.Add(1)
		if typ == websocket.BinaryMessage {
			rev := make([]byte, len(data))
			for i, b := range data {
				rev[len(data)-1-i] = b
			}
			tasks <- send(websocket.BinaryMessage, rev)
			continue
		}
		msg := string(data)
		cmd, arg, _ := strings.Cut(msg, ":")
		switch cmd {
		case "close":
			code, reason, _ := strings.Cut(arg, ":")
			n, _ := strconv.Atoi(code)
			tasks <- func() { closeWith(n, reason) }
		case "close-nocode":
			tasks <- func() { closeWith(websocket.CloseNoStatusReceived, "") }
		case "drop":
			tasks <- func() { c.Close() }
		case "dropafter":
			n, _ := strconv.Atoi(arg)
			time.AfterFunc(time.Duration(n)*time.Millisecond, func() { c.Close() })
		case "msgclose":
			tasks <- func() {
				write(websocket.TextMessage, []byte(arg))
				closeWith(websocket.CloseNormalClosure, "after "+arg)
			}
		case "later":
			ms, text, _ := strings.Cut(arg, ":")
			n, _ := strconv.Atoi(ms)
			time.AfterFunc(time.Duration(n)*time.Millisecond, func() { write(websocket.TextMessage, []byte(text)) })
		case "hang":
			select {
			case <-s.done:
			case <-ctx.Done():
			}
			return
		case "badutf8":
			tasks <- send(websocket.TextMessage, []byte{'a', 0xFF})
		case "slow":
			tasks <- func() {
				time.Sleep(50 * time.Millisecond)
				write(websocket.TextMessage, []byte(fmt.Sprintf("%s seen=%d", arg, seen.Load())))
			}
		default:
			tasks <- send(websocket.TextMessage, []byte("echo:"+msg))
		}
	}
}

// replaySteps replays steps (a steps.json text) against base.
func replaySteps(t *testing.T, base, steps string) (*Transcript, error) {
	t.Helper()
	c, err := caseFromSteps(t, steps)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tr, err := Replay(ctx, base, c)
	if tr == nil {
		t.Fatalf("Replay returned no transcript: %v", err)
	}
	return tr, err
}

func caseFromSteps(t *testing.T, steps string) (*Case, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "steps.json"), []byte(steps), 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadCase(dir)
}
