package host

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
)

// maxBodyBytes bounds a request body read into memory.
const maxBodyBytes = 100 << 20

// Handler is the HTTP front: /do/<Class>/<id>[/...] reaches an object
// directly; every other path goes to the worker's default fetch.
func (h *Host) Handler() http.Handler {
	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	objectRoute := func(c echo.Context) error { return h.serveObject(c) }
	e.Any("/do/:class/:id", objectRoute)
	e.Any("/do/:class/:id/*", objectRoute)
	e.Any("/*", func(c echo.Context) error { return h.serveWorker(c) })
	return e
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
	req, err := fromHTTP(c.Request())
	if err != nil {
		return plain(c, http.StatusBadRequest, err.Error())
	}
	resp, err := h.FetchObject(c.Request().Context(), class, id, name, req)
	return h.write(c, resp, err)
}

func (h *Host) serveWorker(c echo.Context) error {
	req, err := fromHTTP(c.Request())
	if err != nil {
		return plain(c, http.StatusBadRequest, err.Error())
	}
	resp, err := h.Fetch(c.Request().Context(), req)
	if errors.Is(err, jsapi.ErrNoDefaultFetch) {
		return plain(c, http.StatusNotFound, "this worker has no default fetch handler; reach Durable Objects at /do/<Class>/<id>")
	}
	return h.write(c, resp, err)
}

// fromHTTP builds the request the worker sees: the URL from the Host header
// and the raw request URI, header names lowercased in order, the body read.
func fromHTTP(r *http.Request) (*jsapi.HTTPRequest, error) {
	req := &jsapi.HTTPRequest{
		Method: r.Method,
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
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
		if err != nil {
			return nil, errors.New("read request body: " + err.Error())
		}
		if len(b) > maxBodyBytes {
			return nil, errors.New("request body is larger than 100 MiB")
		}
		req.Body = b
	}
	return req, nil
}

// write sends resp, or a 500 for an error (the error itself goes to the log,
// as workerd does: the client sees only "Internal Server Error").
func (h *Host) write(c echo.Context, resp *jsapi.HTTPResponse, err error) error {
	if err == nil && resp.Status == http.StatusSwitchingProtocols && resp.Socket != nil {
		return h.upgradeWebSocket(c, resp)
	}
	w := c.Response()
	var elsewhere *ownership.CellOwnedElsewhereError
	var lostRecord *ownership.LostRecordError
	if errors.As(err, &elsewhere) || errors.As(err, &lostRecord) {
		h.log.Error(err.Error())
		return plain(c, http.StatusServiceUnavailable, err.Error())
	}
	if err != nil && errors.Is(err, context.Canceled) && c.Request().Context().Err() != nil {
		// The client went away before the answer: nobody to answer, and
		// nothing the application threw. The event itself runs on.
		return nil
	}
	if err != nil {
		h.logUncaught(err)
		if h.cfg.ErrorPage != nil {
			h.cfg.ErrorPage(w, c.Request(), err)
			return nil
		}
		w.Header()["Content-Type"] = nil // no sniffed content type
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "Internal Server Error")
		return nil
	}
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
