package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
	var elsewhere *ownership.CellOwnedElsewhereError
	var lostRecord *ownership.LostRecordError
	var forward interface{ Unsent() bool }
	switch {
	case errors.As(err, &he):
		if he.Code == http.StatusRequestEntityTooLarge {
			_ = plain(c, he.Code, "request body is larger than "+strconv.Itoa(maxBodyBytes>>20)+" MiB")
			return
		}
		_ = plain(c, he.Code, http.StatusText(he.Code))
	case errors.As(err, &bad):
		_ = plain(c, http.StatusBadRequest, bad.Error())
	case errors.As(err, &elsewhere), errors.As(err, &lostRecord), errors.Is(err, ownership.ErrFenced):
		// Fenced: the node's lease lapsed (a bucket outage); it takes
		// cells again once it rejoins.
		h.log.Error(err.Error())
		_ = plain(c, http.StatusServiceUnavailable, err.Error())
	case errors.As(err, &forward):
		// A forward to the owner failed (remote.go): 503 when it never
		// reached it (try again), 502 when it may have run.
		h.log.Error(err.Error())
		status := http.StatusBadGateway
		if forward.Unsent() {
			status = http.StatusServiceUnavailable
		}
		_ = plain(c, status, err.Error())
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
	req, release, err := h.fromHTTP(c.Request())
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
		return err
	}
	return h.write(c, resp)
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

func (h *Host) serveWorker(c echo.Context) error {
	req, release, err := h.fromHTTP(c.Request())
	if err != nil {
		return err
	}
	defer release()
	resp, err := h.Fetch(c.Request().Context(), req)
	if errors.Is(err, jsapi.ErrNoDefaultFetch) {
		return plain(c, http.StatusNotFound, "this worker has no default fetch handler; reach Durable Objects at /do/<Class>/<id>")
	}
	if err != nil {
		return err
	}
	return h.write(c, resp)
}

// fromHTTP builds the request the worker sees: the URL from the Host header
// and the raw request URI, header names lowercased in order, the body read
// within the host's body budget. release gives the body's reservation back
// (after the response).
func (h *Host) fromHTTP(r *http.Request) (_ *jsapi.HTTPRequest, release func(), err error) {
	method := r.Method
	if m, ok := r.Context().Value(customMethodKey{}).(string); ok {
		method = m
	}
	req := &jsapi.HTTPRequest{
		Method: method,
		URL:    "http://" + r.Host + r.RequestURI,
		Header: make([][2]string, 0, len(r.Header)+1),
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
		b, held, err := h.readBody(r)
		release = func() {
			h.bodies.Release(held)
			h.bodyBytes.Add(-held)
		}
		if err != nil {
			release()
			return nil, nil, err
		}
		req.Body = b
	}
	return req, release, nil
}

// errBodyTooLarge is the body limit's answer (413, see httpError).
var errBodyTooLarge = echo.NewHTTPError(http.StatusRequestEntityTooLarge)

// readBody reads r's body, reserving its bytes in the body budget first
// (in 1 MiB steps when its length is unknown). It returns the bytes held.
// Its errors are errBodyTooLarge, errBadRequest, or the request context's.
func (h *Host) readBody(r *http.Request) ([]byte, int64, error) {
	ctx := r.Context()
	if r.ContentLength > maxBodyBytes {
		return nil, 0, errBodyTooLarge
	}
	const step = 1 << 20
	var held int64
	reserve := func(n int64) error {
		if err := h.bodies.Acquire(ctx, n); err != nil {
			return err // the client went away, or the request timed out
		}
		held += n
		h.bodyBytes.Add(n)
		return nil
	}
	var buf []byte
	if r.ContentLength > 0 {
		if err := reserve(r.ContentLength); err != nil {
			return nil, held, err
		}
		buf = make([]byte, 0, r.ContentLength+1)
	}
	body := http.MaxBytesReader(nil, r.Body, maxBodyBytes)
	for {
		if int64(len(buf)) == int64(cap(buf)) {
			if err := reserve(step); err != nil {
				return nil, held, err
			}
			buf = append(buf, make([]byte, step)...)[:len(buf)]
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, held, nil
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			var he *echo.HTTPError
			if errors.As(err, &tooLarge) || errors.As(err, &he) {
				return nil, held, errBodyTooLarge
			}
			return nil, held, errBadRequest{fmt.Errorf("read request body: %w", err)}
		}
	}
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
	hdr.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	if c.Request().Method != http.MethodHead && len(resp.Body) > 0 {
		_, _ = w.Write(resp.Body)
	}
	return nil
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
