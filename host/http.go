package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

// maxBodyBytes bounds a request body: Cloudflare's request body limit
// (100 MB on most plans); past it the answer is 413.
const maxBodyBytes = 100 << 20

// RequestInfo is what Config.RequestLog learns of one HTTP request.
type RequestInfo struct {
	Method  string
	URI     string // the request URI as received
	Status  int    // the status sent (101 for an upgraded WebSocket)
	Latency time.Duration
	Err     error // what the request failed with, if it did
}

// bodyBudget bounds the request bodies held in memory at once, host-wide:
// a body is read only once its bytes fit (its Content-Length up front, a
// chunked body as it grows), and the reservation lasts until its response
// is written. Eight concurrent 100 MB uploads then wait for each other
// instead of exhausting memory.
const bodyBudget = 256 << 20

// Handler is the HTTP front: /do/<Class>/<id>[/...] reaches an object
// directly; every other path goes to the worker's default fetch. Echo's
// middleware does the edge's work: the request log (Config.RequestLog),
// recovery from a panic (500, logged), the body limit (413 past
// maxBodyBytes) and the request timeout (Config.RequestTimeout, as the
// request's context deadline); errors are answered in one place
// (httpError).
func (h *Host) Handler() http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = h.httpError
	if h.cfg.RequestLog != nil {
		e.Use(middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
			LogMethod: true, LogURI: true, LogStatus: true, LogLatency: true, LogError: true,
			HandleError: true, // the status is the one httpError sends
			LogValuesFunc: func(_ echo.Context, v middleware.RequestLoggerValues) error {
				h.cfg.RequestLog(RequestInfo{Method: v.Method, URI: v.URI, Status: v.Status, Latency: v.Latency, Err: v.Error})
				return nil
			},
		}))
	}
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{
		DisablePrintStack: true,
		LogErrorFunc: func(_ echo.Context, err error, stack []byte) error {
			h.log.Error(fmt.Sprintf("internal error in the HTTP front: %v\n%s", err, stack))
			return err
		},
	}))
	e.Use(middleware.BodyLimit(strconv.Itoa(maxBodyBytes>>20) + "MiB")) // binary: gommon reads "M" as 10^6
	e.Use(middleware.ContextTimeoutWithConfig(middleware.ContextTimeoutConfig{
		Timeout: h.cfg.RequestTimeout,
		ErrorHandler: func(err error, _ echo.Context) error {
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%w (%s)", ErrTimeout, h.cfg.RequestTimeout)
			}
			return err
		},
	}))
	e.Pre(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { h.counted.requests.Add(1); return next(c) }
	})
	objectRoute := func(c echo.Context) error { return h.serveObject(c) }
	e.Any("/do/:class/:id", objectRoute)
	e.Any("/do/:class/:id/*", objectRoute)
	e.Any("/*", func(c echo.Context) error { return h.serveWorker(c) })
	return customMethods(e)
}

// errBadRequest marks an error that is the client's: 400 with its text.
type errBadRequest struct{ err error }

func (e errBadRequest) Error() string { return e.err.Error() }
func (e errBadRequest) Unwrap() error { return e.err }

// httpError answers a request whose handler failed: the one place that
// maps errors to responses. An error of the application (or a timeout)
// is logged and answered 500 "Internal Server Error", as workerd does;
// Echo's own (no route, the body limit) keep their status.
func (h *Host) httpError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	var he *echo.HTTPError
	var bad errBadRequest
	var badForward interface{ BadRequest() bool }
	var elsewhere *ownership.CellOwnedElsewhereError
	var lostRecord *ownership.LostRecordError
	var forward interface{ Unsent() bool }
	var unavailable interface{ Unavailable() bool }
	switch {
	case errors.As(err, &he):
		if he.Code == http.StatusRequestEntityTooLarge {
			_ = plain(c, he.Code, "request body is larger than "+strconv.Itoa(maxBodyBytes>>20)+" MiB")
			return
		}
		_ = plain(c, he.Code, http.StatusText(he.Code))
	case errors.As(err, &bad):
		_ = plain(c, http.StatusBadRequest, bad.Error())
	case errors.As(err, &badForward) && badForward.BadRequest():
		// A request the Placement could not forward as it came (its
		// body past the peer protocol's limit).
		_ = plain(c, http.StatusBadRequest, err.Error())
	case errors.As(err, &elsewhere), errors.As(err, &lostRecord), errors.Is(err, ownership.ErrFenced):
		// Fenced: the node's lease lapsed (a bucket outage); it takes
		// cells again once it rejoins.
		h.log.Error(err.Error())
		_ = plain(c, http.StatusServiceUnavailable, err.Error())
	case errors.As(err, &unavailable) && unavailable.Unavailable(), errors.As(err, &forward):
		// A forward to the owner failed (remote.go: it never reached
		// it, or it may have run: the text says which), a commit could
		// not be made durable (MaybeAppliedError), or the owner
		// answered one of these: 503 with the reason.
		h.log.Error(err.Error())
		_ = plain(c, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, ErrClosed):
		// The host closed (a dev reload, a shutdown) with the request
		// still running: 503, to be sent again.
		_ = plain(c, http.StatusServiceUnavailable, err.Error())
	case errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil:
		// The client went away before the answer: nobody to answer, and
		// nothing the application threw. The event itself runs on.
	default:
		h.logUncaught(err)
		w := c.Response()
		if h.cfg.ErrorPage != nil {
			h.cfg.ErrorPage(w, c.Request(), err)
			return
		}
		w.Header()["Content-Type"] = nil // no sniffed content type
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "Internal Server Error")
	}
}

func (h *Host) serveObject(c echo.Context) error {
	class, err := url.PathUnescape(c.Param("class"))
	if err != nil {
		return plain(c, http.StatusBadRequest, "bad class name in path: "+err.Error())
	}
	idOrName, err := url.PathUnescape(c.Param("id"))
	if err != nil {
		return plain(c, http.StatusBadRequest, "bad object id in path: "+err.Error())
	}
	id, name, err := h.ResolveID(class, idOrName)
	switch {
	case errors.Is(err, ErrUnknownClass):
		return plain(c, http.StatusNotFound, "no Durable Object class named "+strconv.Quote(class)+" is bound in this worker")
	case err != nil:
		return plain(c, http.StatusBadRequest, err.Error())
	}
	req, release, err := h.fromHTTP(c.Response(), c.Request())
	if err != nil {
		return err
	}
	defer release()
	if isUpgrade(c.Request()) {
		if done, err := h.serveObjectUpgrade(c, class, id, name, req); done {
			return err
		}
	}
	resp, err := h.FetchObject(c.Request().Context(), class, id, name, req)
	if err != nil {
		return bodyError(req, err)
	}
	return h.write(c, resp)
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func (h *Host) serveWorker(c echo.Context) error {
	req, release, err := h.fromHTTP(c.Response(), c.Request())
	if err != nil {
		return err
	}
	defer release()
	resp, err := h.Fetch(c.Request().Context(), req)
	if errors.Is(err, jsapi.ErrNoDefaultFetch) {
		return plain(c, http.StatusNotFound, "this worker has no default fetch handler; reach Durable Objects at /do/<Class>/<id>")
	}
	if err != nil {
		return bodyError(req, err)
	}
	return h.write(c, resp)
}

// fromHTTP builds the request the worker sees: the URL from the Host header
// and the raw request URI, header names lowercased in order, the body read
// within the host's body budget. release gives the body's reservation back
// (after the response).
func (h *Host) fromHTTP(w http.ResponseWriter, r *http.Request) (_ *jsapi.HTTPRequest, release func(), err error) {
	method := r.Method
	if m, ok := r.Context().Value(customMethodKey{}).(string); ok {
		method = m
	}
	req := &jsapi.HTTPRequest{
		Method: method,
		URL:    "http://" + r.Host + r.RequestURI,
		Header: make([][2]string, 0, len(r.Header)+1),
		CF:     h.cfg.RequestCF,
	}
	req.Header = append(req.Header, [2]string{"host", r.Host})
	for k, vs := range r.Header {
		lk := strings.ToLower(k)
		for _, v := range vs {
			req.Header = append(req.Header, [2]string{lk, v})
		}
	}
	release = func() {}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if r.ContentLength > maxBodyBytes {
			return nil, nil, errBodyTooLarge
		}
		if r.ContentLength >= 0 && r.ContentLength <= bufferedBodyMax {
			b, held, err := h.readBody(w, r)
			release = func() {
				h.bodies.Release(held)
				h.bodyBytes.Add(-held)
			}
			if err != nil {
				release()
				return nil, nil, err
			}
			req.Body = b
		} else {
			// Streamed: JS pulls it as it arrives (jsapi/web stream.go).
			// What JS left unread is drained after the response, so that
			// the client, still sending, gets the answer.
			body := &requestBody{r: http.MaxBytesReader(nil, r.Body, maxBodyBytes)}
			req.BodyStream = body
			release = func() {
				_, _ = io.Copy(io.Discard, body)
			}
		}
	}
	return req, release, nil
}

// bufferedBodyMax is the largest request body read before the worker runs
// (its length known up front): smaller ones keep the fast paths of text()
// and json(); larger or chunked ones are streamed.
const bufferedBodyMax = 64 << 10

// requestBody is a streamed request body: it reports the body limit as
// workerd's error and is read by one goroutine at a time (JS's pull, or the
// drain after the response).
type requestBody struct {
	mu       sync.Mutex
	r        io.ReadCloser
	tooLarge atomic.Bool // a read hit the limit
	// failed is the answer a read error calls for (classifyBodyError)
	// when the body itself was at fault (malformed, stalled), not the
	// client going away.
	failed atomic.Pointer[error]
}

// bodyError is err, or errBodyTooLarge when req's streamed body went past
// the limit: the program failed because of it, and the edge's answer to
// an oversized body is 413 (Cloudflare's, before the worker runs).
func bodyError(req *jsapi.HTTPRequest, err error) error {
	if rb, ok := req.BodyStream.(*requestBody); ok && err != nil {
		if rb.tooLarge.Load() {
			return errBodyTooLarge
		}
		if f := rb.failed.Load(); f != nil {
			return *f
		}
	}
	return err
}

func (b *requestBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.r.Read(p)
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		b.tooLarge.Store(true)
		err = &jsapi.BodyLimitError{Limit: maxBodyBytes}
	} else if err != nil && err != io.EOF && !errors.Is(err, context.Canceled) && !errors.Is(err, net.ErrClosed) {
		// A malformed chunked body (400) or one that stopped arriving
		// (408), as the edge answers them, not the program's 500.
		f := classifyBodyError(err)
		b.failed.CompareAndSwap(nil, &f)
	}
	return n, err
}

// Close is JS canceling the body: the rest is drained after the response.
func (b *requestBody) Close() error { return nil }

// errBodyTooLarge is the body limit's answer (413, see httpError).
var errBodyTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge)

// bufferedBodyTimeout: a body read before the worker runs (at most
// bufferedBodyMax) arrives within it, or the answer is 408.
var bufferedBodyTimeout atomic.Int64 // a time.Duration; tests shorten it

func init() { bufferedBodyTimeout.Store(int64(30 * time.Second)) }

// errBodyTimeout is the answer to a body that stopped arriving (408).
var errBodyTimeout = echo.NewHTTPError(http.StatusRequestTimeout)

// readBody reads r's body of known length (at most bufferedBodyMax) within
// bufferedBodyTimeout, reserving its bytes in the body budget as they
// arrive: a client that announces a body and sends none holds nothing of
// the budget, and only for that long (issue 23.2: 4 200 such connections
// starved every small POST for minutes). It returns the bytes held. Its
// errors are errBodyTooLarge, errBodyTimeout, errBadRequest, or the
// request context's.
func (h *Host) readBody(w http.ResponseWriter, r *http.Request) ([]byte, int64, error) {
	n := r.ContentLength
	rc := http.NewResponseController(w)
	// A timer rather than a deadline set once: a progress deadline of the
	// server's (internal/httpguard) is set again before every read.
	timer := time.AfterFunc(time.Duration(bufferedBodyTimeout.Load()), func() { _ = rc.SetReadDeadline(time.Now()) })
	defer timer.Stop()
	// Nothing is allocated for the body until its first byte arrives (a
	// one-byte read), and then it grows as the bytes do (4 KiB, doubling
	// up to n), read in place: a connection that announced a body and
	// sends none holds no buffer of its own, nor a 4 KiB array on its
	// stack (issue 23.2: 4 200 such connections).
	var first [1]byte
	var buf []byte
	var held int64
	for int64(len(buf)) < n {
		var k int
		var err error
		if buf == nil {
			if k, err = r.Body.Read(first[:]); k > 0 {
				buf = make([]byte, 0, min(n, 4<<10))
			}
		} else {
			if len(buf) == cap(buf) {
				buf = append(make([]byte, 0, min(n, 2*int64(cap(buf)))), buf...)
			}
			k, err = r.Body.Read(buf[len(buf):min(int64(cap(buf)), n)])
		}
		if k > 0 {
			if err := h.bodies.Acquire(r.Context(), int64(k)); err != nil {
				return nil, held, err // the client went away, or the request timed out
			}
			held += int64(k)
			h.bodyBytes.Add(int64(k))
			if len(buf) == 0 {
				buf = append(buf, first[0])
			} else {
				buf = buf[:len(buf)+k]
			}
		}
		if err == io.EOF && int64(len(buf)) == n {
			break
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, held, classifyBodyError(err)
		}
	}
	if buf == nil {
		buf = []byte{} // an empty body, not none
	}
	return buf, held, nil
}

// classifyBodyError maps an error reading a request body to its answer:
// 413 past the limit, 408 when the body stopped arriving, 400 for a body
// that is not what its headers announced (a malformed chunked encoding, a
// short body).
func classifyBodyError(err error) error {
	var he *echo.HTTPError
	var tooLarge *http.MaxBytesError
	var timeout interface{ Timeout() bool }
	switch {
	case errors.As(err, &he), errors.As(err, &tooLarge):
		return errBodyTooLarge
	case errors.As(err, &timeout) && timeout.Timeout():
		return errBodyTimeout
	}
	return errBadRequest{fmt.Errorf("read request body: %w", err)}
}

// write sends resp (a WebSocket's 101 completes the upgrade).
func (h *Host) write(c echo.Context, resp *jsapi.HTTPResponse) error {
	if resp.Status == http.StatusSwitchingProtocols && resp.Socket != nil {
		return h.upgradeWebSocket(c, resp)
	}
	w := c.Response()
	hdr := w.Header()
	hasType := false
	for _, kv := range resp.Header {
		if kv[0] == "content-type" {
			hasType = true
		}
		hdr.Add(kv[0], kv[1])
	}
	if !hasType {
		hdr["Content-Type"] = nil
	}
	if resp.BodyStream != nil {
		return h.writeStream(c, resp)
	}
	hdr.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	if c.Request().Method != http.MethodHead && len(resp.Body) > 0 {
		_, _ = w.Write(resp.Body)
	}
	return nil
}

// writeStream sends a streamed body chunk by chunk as JS produces it
// (chunked, unless the program set a Content-Length), flushing each: the
// host holds one chunk at a time, and a client that does not read stops
// the stream's pulls (backpressure), it does not fill memory. The stream
// is closed at the end, which cancels it when the client went away.
func (h *Host) writeStream(c echo.Context, resp *jsapi.HTTPResponse) error {
	body := resp.BodyStream
	defer body.Close()
	w := c.Response()
	// The body may be the request's, still arriving (new Response(request.body)).
	_ = http.NewResponseController(w.Writer).EnableFullDuplex()
	if l, ok := body.(jsapi.BodyLength); ok && l.BodyLength() >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(l.BodyLength(), 10))
	}
	w.WriteHeader(resp.Status)
	if c.Request().Method == http.MethodHead {
		return nil
	}
	w.Flush() // the head goes out before the first chunk is made
	buf := make([]byte, 64<<10)
	for {
		n, err := body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return nil // the client went away: Close cancels the stream
			}
			w.Flush()
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			// The headers are sent: all that is left is to cut the
			// response short, as workerd does.
			h.log.Error("a streamed response body failed: " + err.Error())
			panic(http.ErrAbortHandler)
		}
	}
}

func plain(c echo.Context, status int, msg string) error {
	return c.String(status, msg+"\n")
}

// customMethodKey holds, in a request's context, a method Echo's router
// does not know (Any covers only the standard ones).
type customMethodKey struct{}

// customMethods lets any token method reach the worker, as on workerd:
// Echo's router knows only the standard methods (405 for others), so a
// method outside them is routed as POST and handed to JS as sent.
func customMethods(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
			http.MethodDelete, http.MethodOptions, http.MethodTrace, http.MethodConnect, echo.PROPFIND, echo.REPORT:
			next.ServeHTTP(w, r)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), customMethodKey{}, r.Method))
		r.Method = http.MethodPost
		next.ServeHTTP(w, r)
	})
}
