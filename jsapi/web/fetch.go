package web

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// The global fetch (js/fetch.js) sends its request with Go's net/http on a
// goroutine of its own and hands the response back through the runtime's
// Post; the response body is a goStream over the connection, pulled as JS
// reads it. Redirects are followed (at most 20, as the Fetch standard
// says) or, with redirect: "manual", returned as they are.

// FetchClient is the client the global fetch uses. Its CheckRedirect is
// replaced per call (the request's redirect mode).
var FetchClient = &http.Client{Transport: trackedTransport()}

// subrequestConns holds the local address ("ip:port") of every connection
// the global fetch has open. A server of this process that must not answer
// a script (the node's internal listener, the dev inspector) looks up its
// request's RemoteAddr with IsSubrequest: the connection is known by the
// kernel's own addresses, so neither a Host header, a DNS name that
// resolves to the loopback, a redirect nor a pooled connection hides a
// script's request.
var subrequestConns sync.Map

// IsSubrequest reports whether remoteAddr (an http.Request's RemoteAddr on
// a server of this process) is the other end of a connection the global
// fetch opened: the request comes from a script.
func IsSubrequest(remoteAddr string) bool {
	_, ok := subrequestConns.Load(remoteAddr)
	return ok
}

func trackedTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		key := c.LocalAddr().String()
		subrequestConns.Store(key, struct{}{})
		return &trackedConn{Conn: c, key: key}, nil
	}
	return t
}

// trackedConn forgets its address in subrequestConns when closed.
type trackedConn struct {
	net.Conn
	key  string
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { subrequestConns.Delete(c.key) })
	return c.Conn.Close()
}

// maxRedirects is the Fetch standard's redirect limit.
const maxRedirects = 20

// fetchCall is one fetch under way; fetchAbort cancels it.
type fetchCall struct {
	opaque
	cancel context.CancelFunc
}

// fetchResult is what a fetch got, carried to the loop.
type fetchResult struct {
	resp       *http.Response
	url        string
	redirected bool
	err        error
}

func fetchNatives(rt *goja.Runtime, st *state, n natives) {
	// fetch(redirect) → [call, promise of [status, statusText|null, list, body|null, url, redirected]],
	// for the request web.js just exported (native.outRequest)
	n.setE("fetch", func(c goja.FunctionCall) (goja.Value, error) {
		req := st.outReq
		st.outReq = nil
		if req == nil {
			return nil, errors.New("jsapi/web: fetch without an exported request")
		}
		if !strings.HasPrefix(req.URL, "http://") && !strings.HasPrefix(req.URL, "https://") {
			if req.BodyStream != nil {
				_ = req.BodyStream.Close()
			}
			return nil, jserr.TypeError("Fetch API cannot load: " + req.URL)
		}
		manual := c.Argument(0).String() == "manual"
		ctx, cancel := context.WithCancel(context.Background())
		call := &fetchCall{cancel: cancel}
		p, resolve, reject := rt.NewPromise()
		post, async := st.postOn()
		run := func() {
			r := doFetch(ctx, req, manual)
			post(func() {
				if r.err != nil {
					cancel()
					_ = reject(jserr.ToJS(rt, r.err))
					return
				}
				_ = resolve(fetchResponseValue(rt, req.Method, r))
			})
		}
		if async {
			go run()
		} else {
			run()
		}
		return rt.ToValue([]any{rt.NewDynamicObject(call), p}), nil
	})
	// fetchAbort(call): the request's signal aborted
	n.set("fetchAbort", func(c goja.FunctionCall) goja.Value {
		if o, ok := c.Argument(0).(*goja.Object); ok {
			if call, ok := o.Export().(*fetchCall); ok {
				call.cancel()
			}
		}
		return goja.Undefined()
	})
}

// doFetch sends req. Off the loop.
func doFetch(ctx context.Context, req *HTTPRequest, manual bool) fetchResult {
	var body io.Reader
	switch {
	case req.BodyStream != nil:
		body = req.BodyStream
	case req.Body != nil:
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return fetchResult{err: jserr.TypeError("Fetch API cannot load: " + req.URL)}
	}
	if req.BodyStream != nil {
		hr.ContentLength = -1
		if l, ok := req.BodyStream.(BodyLength); ok && l.BodyLength() >= 0 {
			hr.ContentLength = l.BodyLength()
		}
	}
	for _, kv := range req.Header {
		if kv[0] == "host" {
			hr.Host = kv[1]
			continue
		}
		if kv[0] == "content-length" {
			continue // net/http sets it
		}
		hr.Header.Add(kv[0], kv[1])
	}
	redirects := 0
	client := *FetchClient
	client.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if manual {
			return http.ErrUseLastResponse
		}
		if len(via) > maxRedirects {
			return errTooManyRedirects
		}
		redirects = len(via)
		return nil
	}
	resp, err := client.Do(hr)
	if err != nil {
		if req.BodyStream != nil {
			_ = req.BodyStream.Close()
		}
		if errors.Is(err, errTooManyRedirects) {
			return fetchResult{err: jserr.TypeError("Too many redirects.")}
		}
		return fetchResult{err: jserr.TypeError("Network connection lost.")}
	}
	return fetchResult{resp: resp, url: resp.Request.URL.String(), redirected: redirects > 0}
}

var errTooManyRedirects = errors.New("too many redirects")

// fetchResponseValue is the array web.js turns into the Response. On the loop.
func fetchResponseValue(rt *goja.Runtime, method string, r fetchResult) goja.Value {
	resp := r.resp
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var h [][2]string
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			h = append(h, [2]string{k, v})
		}
	}
	var body goja.Value = goja.Null()
	switch {
	case method == http.MethodHead, resp.StatusCode == 204, resp.StatusCode == 205, resp.StatusCode == 304, resp.Body == http.NoBody:
		_ = resp.Body.Close()
	default:
		body = rt.NewDynamicObject(&goStream{r: resp.Body, yes: rt.ToValue(true)})
	}
	var text goja.Value = goja.Null()
	if _, rest, ok := strings.Cut(resp.Status, " "); ok && rest != defaultStatusText(resp.StatusCode) {
		text = rt.ToValue(rest)
	}
	return rt.ToValue([]any{resp.StatusCode, text, rt.NewDynamicObject(headersFromGo(h)), body, r.url, r.redirected})
}
