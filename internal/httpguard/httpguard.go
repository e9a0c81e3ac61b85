// Package httpguard bounds what one client can hold of an HTTP server:
// how long it may take to send headers or a body, to read a response or
// stay idle between requests, how large its headers may be, and how many
// connections all clients may hold at once. Past the connection cap a new
// connection is answered 503 and closed at once, so the accept loop never
// stalls on a full descriptor table (issue 23.4).
//
// net/http has the pieces (ReadHeaderTimeout, IdleTimeout, MaxHeaderBytes,
// ResponseController deadlines); what it lacks is a connection cap that
// answers instead of leaving connections in the backlog, and deadlines
// that measure progress rather than a whole request: an absolute
// ReadTimeout or WriteTimeout would cut a legitimate 100 MB upload, a long
// streamed response or a WebSocket. So a body read must make progress every
// BodyProgress, and a response write every WriteProgress.
package httpguard

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Config are a server's limits. The zero value of a field takes its
// default (Defaults).
type Config struct {
	// MaxConns bounds the connections open at once; past it a new one gets
	// 503 and is closed.
	MaxConns int
	// ReadHeaderTimeout: the request line and headers arrive within it.
	ReadHeaderTimeout time.Duration
	// IdleTimeout: a keep-alive connection waits at most this long for its
	// next request.
	IdleTimeout time.Duration
	// BodyProgress: each read of a request body returns within it.
	BodyProgress time.Duration
	// WriteProgress: each write of a response completes within it (a
	// client that stops reading is cut off).
	WriteProgress time.Duration
	// MaxHeaderBytes bounds the request line and headers (431 past it).
	MaxHeaderBytes int
}

// Defaults: Cloudflare's 128 KB of request headers; a 30 s idle keep-alive
// connection; 10 s for headers; a minute without progress on a body or a
// response; 4096 connections.
var Defaults = Config{
	MaxConns:          4096,
	ReadHeaderTimeout: 10 * time.Second,
	IdleTimeout:       30 * time.Second,
	BodyProgress:      60 * time.Second,
	WriteProgress:     60 * time.Second,
	MaxHeaderBytes:    128 << 10,
}

func (c Config) withDefaults() Config {
	d := Defaults
	if c.MaxConns > 0 {
		d.MaxConns = c.MaxConns
	}
	if c.ReadHeaderTimeout > 0 {
		d.ReadHeaderTimeout = c.ReadHeaderTimeout
	}
	if c.IdleTimeout > 0 {
		d.IdleTimeout = c.IdleTimeout
	}
	if c.BodyProgress > 0 {
		d.BodyProgress = c.BodyProgress
	}
	if c.WriteProgress > 0 {
		d.WriteProgress = c.WriteProgress
	}
	if c.MaxHeaderBytes > 0 {
		d.MaxHeaderBytes = c.MaxHeaderBytes
	}
	return d
}

// Server returns an http.Server for h with c's timeouts and header limit,
// h wrapped so that body reads and response writes have progress
// deadlines. Serve it on Listen's listener for the connection cap.
func Server(h http.Handler, c Config) *http.Server {
	c = c.withDefaults()
	return &http.Server{
		Handler:           Handler(h, c),
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
	}
}

// activity counts the requests and connections of every guarded server of
// the process.
var activity atomic.Int64

// Activity is a counter that moves with every request and connection any
// guarded server of the process takes (for internal/memrelief).
func Activity() int64 { return activity.Load() }

// Handler wraps h with c's progress deadlines.
func Handler(h http.Handler, c Config) http.Handler {
	c = c.withDefaults()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		activity.Add(1)
		rc := http.NewResponseController(w)
		// A deadline an earlier request of the connection left must not
		// cut this one (net/http resets only the read deadline).
		_ = rc.SetWriteDeadline(time.Time{})
		gw := &writer{w: w, rc: rc, d: c.WriteProgress}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = &body{r: r.Body, rc: rc, d: c.BodyProgress}
		}
		h.ServeHTTP(gw, r)
		// net/http flushes what is left of the response after the
		// handler returns: give that its own deadline too (a handler
		// whose last write was long ago must not see it fail).
		if !gw.hijacked {
			_ = rc.SetWriteDeadline(time.Now().Add(c.WriteProgress))
		}
	})
}

// body is a request body whose every read must return within d. At its end
// the deadline is cleared: net/http then reads in the background to see
// the client go away, and that read must not time out. A read that failed
// (the body stopped arriving, or was malformed) leaves the deadline past
// instead: net/http discards the unread rest before it writes the answer,
// and with no deadline that discard waited for the client for ever, the
// answer unsent and the connection's slot held (the long hostile form:
// 4 200 connections holding unsent bodies kept every slot of the cap).
type body struct {
	r    io.ReadCloser
	rc   *http.ResponseController
	d    time.Duration
	done bool
}

func (b *body) Read(p []byte) (int, error) {
	if !b.done {
		_ = b.rc.SetReadDeadline(time.Now().Add(b.d))
	}
	n, err := b.r.Read(p)
	if err != nil && !b.done {
		b.done = true
		if err == io.EOF {
			_ = b.rc.SetReadDeadline(time.Time{})
		} else {
			_ = b.rc.SetReadDeadline(time.Now())
		}
	}
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		err = &BodyTimeoutError{After: b.d}
	}
	return n, err
}

func (b *body) Close() error { return b.r.Close() }

// BodyTimeoutError is a request body that made no progress for After.
type BodyTimeoutError struct{ After time.Duration }

// Timeout reports true: a net.Error-like timeout.
func (e *BodyTimeoutError) Timeout() bool { return true }

func (e *BodyTimeoutError) Error() string {
	return "the request body stopped arriving (nothing for " + e.After.String() + ")"
}

// writer gives each write of the response a deadline d away.
type writer struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	d        time.Duration
	hijacked bool
}

func (g *writer) Header() http.Header { return g.w.Header() }

func (g *writer) WriteHeader(code int) { g.w.WriteHeader(code) }

func (g *writer) Write(p []byte) (int, error) {
	_ = g.rc.SetWriteDeadline(time.Now().Add(g.d))
	return g.w.Write(p)
}

func (g *writer) Flush() {
	_ = g.rc.SetWriteDeadline(time.Now().Add(g.d))
	_ = g.rc.Flush()
}

// Hijack hands the connection over (a WebSocket) without deadlines: its
// new owner sets its own.
func (g *writer) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, rw, err := g.rc.Hijack()
	if err == nil {
		g.hijacked = true
		_ = c.SetDeadline(time.Time{})
	}
	return c, rw, err
}

// Unwrap is for http.ResponseController.
func (g *writer) Unwrap() http.ResponseWriter { return g.w }

// BusyMessage is the body of the 503 a connection past the cap gets.
const BusyMessage = "this server has too many open connections; retry later\n"

var busyResponse = "HTTP/1.1 503 Service Unavailable\r\n" +
	"Content-Type: text/plain; charset=utf-8\r\n" +
	"Retry-After: 1\r\n" +
	"Connection: close\r\n" +
	"Content-Length: " + strconv.Itoa(len(BusyMessage)) + "\r\n\r\n" + BusyMessage

// Listener counts the connections ln accepted that are still open.
type Listener struct {
	net.Listener
	max    int64
	open   atomic.Int64
	busy   atomic.Int64 // 503 answers in flight
	Served atomic.Int64 // connections refused with a 503, for tests and metrics
}

// Listen wraps ln with a cap of max connections (Defaults.MaxConns when 0).
func Listen(ln net.Listener, max int) *Listener {
	if max <= 0 {
		max = Defaults.MaxConns
	}
	return &Listener{Listener: ln, max: int64(max)}
}

// Open is the number of connections open now.
func (l *Listener) Open() int64 { return l.open.Load() }

// Accept returns the next connection within the cap. One past it is
// answered 503 and closed by a goroutine of its own (at most a quarter of
// the cap of them at once, at least 64, each for at most 250 ms; past that
// it is closed unanswered), and Accept waits for the next.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		activity.Add(1)
		if l.open.Add(1) <= l.max {
			return &conn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		l.Served.Add(1)
		if l.busy.Add(1) > max(l.max/4, 64) {
			l.busy.Add(-1)
			_ = c.Close()
			continue
		}
		go func() {
			defer l.busy.Add(-1)
			_ = c.SetDeadline(time.Now().Add(250 * time.Millisecond))
			_, _ = io.WriteString(c, busyResponse)
			if tc, ok := c.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
				// Let the client read the answer before the reset a
				// close with unread request bytes would send.
				_, _ = io.Copy(io.Discard, io.LimitReader(c, 64<<10))
			}
			_ = c.Close()
		}()
	}
}

type conn struct {
	net.Conn
	l    *Listener
	once sync.Once
}

func (c *conn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.open.Add(-1) })
	return err
}
