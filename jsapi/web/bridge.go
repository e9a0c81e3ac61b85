package web

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ---------------------------------------------------------------------------
// The Go bridge: requests and responses crossing between Go and JS.
//
// Going in, header lists and bodies are handed to JS as handles
// (headers.go) that the prelude turns into Headers and body contents only
// when the program reads them. Going out, the prelude passes a request's or
// response's internal slots to native.outRequest/outResponse, which build
// the Go value directly.

// HTTPRequest is a request as Go sees it (httpmsg.Request: a leaf, so
// that fleet carries it without the engine).
type HTTPRequest = httpmsg.Request

// HTTPResponse is a response as Go sees it (httpmsg.Response). Its
// WebSocket is a goja.Value of the runtime that made it; its Socket a
// Socket.
type HTTPResponse = httpmsg.Response

// Socket is a WebSocket a Response can carry across runtimes. jsapi's
// WebSocket implements it; web knows nothing more of it.
type Socket interface {
	// ValueIn returns a JS value for the socket in rt. Called on rt's
	// goroutine.
	ValueIn(rt *goja.Runtime) goja.Value
}

// SetSocketOf tells the bridge how to find the Socket behind a Response's
// webSocket value on rt (of returns nil when the value is not one). Call
// it on the runtime's goroutine, after Install.
func SetSocketOf(rt *goja.Runtime, of func(goja.Value) Socket) error {
	st, err := requireState(rt)
	if err != nil {
		return err
	}
	st.socketOf = of
	return nil
}

func requireState(rt *goja.Runtime) (*state, error) {
	st := stateOf(rt)
	if st == nil {
		return nil, errors.New("jsapi/web: Install has not run on this runtime")
	}
	return st, nil
}

// cacheMax bounds the per-runtime URL caches (they are emptied when
// full); URLs longer than cacheMaxLen are not kept.
const (
	cacheMax    = 256
	cacheMaxLen = 512
)

// urlCache remembers recent answers about URL strings.
type urlCache[V any] map[string]V

// get returns compute(rt, k), remembered.
func (c urlCache[V]) get(rt *goja.Runtime, k string, compute func(*goja.Runtime, string) V) V {
	if v, ok := c[k]; ok {
		return v
	}
	v := compute(rt, k)
	if len(k) > cacheMaxLen {
		return v
	}
	if len(c) >= cacheMax {
		clear(c)
	}
	c[k] = v
	return v
}

// canonicalURL returns the href of a request URL (s itself when it does not
// parse), remembering recent answers.
func (st *state) canonicalURL(s string) string { return st.hrefs.get(nil, s, href) }

func href(_ *goja.Runtime, s string) string {
	if u, err := whatwgurl.Parse(s, nil); err == nil {
		return u.Href()
	}
	return s
}

func (st *state) methodValue(rt *goja.Runtime, m string) goja.Value {
	switch m {
	case "GET":
		return st.valGET
	case "POST":
		return st.valPOST
	}
	return rt.ToValue(m)
}

// headersFromGo is the (immutable) header list of a request or
// response from Go.
func headersFromGo(h [][2]string) *headerList {
	l := &headerList{h: make([]header, len(h)), immutable: true}
	for i, kv := range h {
		l.h[i] = header{name: strings.ToLower(kv[0]), val: kv[1]}
	}
	return l
}

// goBodyValue is a copy of b as a body handle, a stream handle for a
// streamed body, or null.
func goBodyValue(rt *goja.Runtime, b []byte, stream io.ReadCloser) goja.Value {
	if b == nil {
		if stream != nil {
			return rt.NewDynamicObject(&goStream{r: stream, yes: rt.ToValue(true)})
		}
		return goja.Null()
	}
	c := make([]byte, len(b))
	copy(c, b)
	return rt.NewDynamicObject(&goBody{b: c})
}

// exportBody turns a body as web.js hands it out (null, a Uint8Array,
// a string, a Go body, a Go stream or a sink) into Go bytes (nil = no
// body) or a stream.
func exportBody(v goja.Value) ([]byte, io.ReadCloser) {
	if v == nil || goja.IsNull(v) || goja.IsUndefined(v) {
		return nil, nil
	}
	if o, ok := v.(*goja.Object); ok {
		switch x := o.Export().(type) {
		case *goStream:
			return nil, x.r
		case *goSink:
			return nil, x
		}
	}
	return exportBytes(v), nil
}

func exportBytes(v goja.Value) []byte {
	if s, ok := v.(goja.String); ok {
		gs := s.String()
		b := make([]byte, len(gs))
		copy(b, gs)
		return b
	}
	switch x := v.Export().(type) {
	case []byte:
		return append(make([]byte, 0, len(x)), x...)
	case *goBody:
		return x.b // immutable: shared
	}
	return nil
}

// bodySource returns the bytes of a body's contents (a Uint8Array, a
// string or a Go body) for reading only.
func bodySource(v goja.Value) ([]byte, error) {
	if s, ok := v.(goja.String); ok {
		return []byte(s.String()), nil
	}
	if o, ok := v.(*goja.Object); ok {
		if gb, ok := o.Export().(*goBody); ok {
			return gb.b, nil
		}
	}
	return bytesOf(v)
}

// exportHeaders turns a request's or response's header slots (a list
// handle, or null and the only content type) into Go header lines.
func exportHeaders(hl, ctype goja.Value) [][2]string {
	if o, ok := hl.(*goja.Object); ok {
		if l, ok := o.Export().(*headerList); ok {
			return l.export()
		}
	}
	if ctype == nil || goja.IsNull(ctype) || goja.IsUndefined(ctype) {
		return [][2]string{}
	}
	return [][2]string{{"content-type", ctype.String()}}
}

// bridgeNatives adds the natives the bridge and bodies use.
func bridgeNatives(rt *goja.Runtime, st *state, n natives) {
	// outRequest(method, url, list|null, ctype|null, body, cfJSON|null)
	n.set("outRequest", func(c goja.FunctionCall) goja.Value {
		st.outReq = &HTTPRequest{
			Method:  c.Argument(0).String(),
			URL:     c.Argument(1).String(),
			Header:  exportHeaders(c.Argument(2), c.Argument(3)),
			HrefURL: true,
		}
		if cf := c.Argument(5); !goja.IsNull(cf) && !goja.IsUndefined(cf) {
			st.outReq.CF = cf.String()
		}
		st.outReq.Body, st.outReq.BodyStream = exportBody(c.Argument(4))
		return goja.Undefined()
	})
	// outResponse(status, statusText|null, list|null, ctype|null, body, webSocket)
	n.set("outResponse", func(c goja.FunctionCall) goja.Value {
		status := int(c.Argument(0).ToInteger())
		text := defaultStatusText(status)
		if t := c.Argument(1); !goja.IsNull(t) && !goja.IsUndefined(t) {
			text = t.String()
		}
		out := &HTTPResponse{
			Status:     status,
			StatusText: text,
			Header:     exportHeaders(c.Argument(2), c.Argument(3)),
		}
		out.Body, out.BodyStream = exportBody(c.Argument(4))
		if ws := c.Argument(5); !goja.IsNull(ws) && !goja.IsUndefined(ws) {
			if st.socketOf != nil {
				if s := st.socketOf(ws); s != nil {
					out.Socket = s
				}
			}
			if out.Socket == nil {
				// Only a Socket may leave the runtime: the JS value
				// stays here.
				out.WebSocket = ws
			}
		}
		st.outRes = out
		return goja.Undefined()
	})
	// bodyBuffer(src) → a new ArrayBuffer with the bytes of a string or Go body
	n.setE("bodyBuffer", func(c goja.FunctionCall) (goja.Value, error) {
		src, err := bodySource(c.Argument(0))
		if err != nil {
			return nil, err
		}
		// The copy is sized by the body (a request's, a Response's, a KV
		// or R2 value's): the object's memory limit approves it first
		// (goja fork's allocation hook), not only the host-wide body
		// budget that admitted the body (issue 23).
		if err := jserr.Allocate(rt, int64(len(src)), goja.AllocArrayBuffer); err != nil {
			return nil, err
		}
		b := make([]byte, len(src))
		copy(b, src)
		return rt.ToValue(rt.NewArrayBuffer(b)), nil
	})
	n.setE("bodyEmpty", func(c goja.FunctionCall) (goja.Value, error) {
		src, err := bodySource(c.Argument(0))
		return rt.ToValue(len(src) == 0), err
	})
}

// NewRequest builds a JS Request object (with immutable headers, as an
// incoming request has in workerd) from r. Call it on the runtime's
// goroutine only, after Install.
func NewRequest(rt *goja.Runtime, r *HTTPRequest) (goja.Value, error) {
	st, args, err := requestArgs(rt, r)
	if err != nil {
		return nil, err
	}
	return jserr.Catch(func() (goja.Value, error) { return st.makeRequest(goja.Undefined(), args[:]...) })
}

// requestArgs are web.js's goMakeRequest arguments for r.
func requestArgs(rt *goja.Runtime, r *HTTPRequest) (*state, [5]goja.Value, error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, [5]goja.Value{}, err
	}
	url := r.URL
	if !r.HrefURL {
		url = st.canonicalURL(url) // href(href(s)) = href(s): once is enough
	}
	method := r.Method
	if method == "" {
		method = "GET"
	}
	var cf goja.Value = goja.Null()
	if r.CF != "" {
		cf = rt.ToValue(r.CF)
	}
	return st, [5]goja.Value{st.methodValue(rt, method), rt.ToValue(url),
		rt.NewDynamicObject(headersFromGo(r.Header)), goBodyValue(rt, r.Body, r.BodyStream), cf}, nil
}

// CallWithRequest calls fn.call(this, request, rest...) in one call into
// JS, where request is what NewRequest(rt, r) builds; rest has 0 or 2
// values. Errors are the call's (a thrown value is a *goja.Exception).
func CallWithRequest(rt *goja.Runtime, fn, this goja.Value, r *HTTPRequest, rest ...goja.Value) (goja.Value, error) {
	st, args, err := requestArgs(rt, r)
	if err != nil {
		return nil, err
	}
	var a, b goja.Value = goja.Undefined(), goja.Undefined()
	if len(rest) == 2 {
		a, b = rest[0], rest[1]
	} else if len(rest) != 0 {
		return nil, fmt.Errorf("jsapi: callWithRequest takes 0 or 2 more arguments, not %d", len(rest))
	}
	return st.callWithRequest(goja.Undefined(), fn, this, args[0], args[1], args[2], args[3], args[4], rt.ToValue(len(rest)), a, b)
}

// collect runs an exporter of web.js's (which hands its result to a
// native that stores it in *slot) and returns what it sent out.
func collect[T any](slot **T, what string, f func() (goja.Value, error)) (*T, error) {
	*slot = nil
	_, err := jserr.Catch(f)
	out := *slot
	*slot = nil
	if err != nil {
		return nil, err
	}
	if out == nil {
		return nil, errors.New("jsapi/web: the " + what + " exporter returned nothing")
	}
	return out, nil
}

// ExportRequest reads a JS Request into Go, taking its body (the request's
// bodyUsed becomes true, as when workerd forwards it). It returns a
// "TypeError: ..." error when v is not a Request or its body was used. Call
// it on the runtime's goroutine only.
func ExportRequest(rt *goja.Runtime, v goja.Value) (*HTTPRequest, error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = goja.Undefined()
	}
	return collect(&st.outReq, "request", func() (goja.Value, error) { return st.exportRequest(goja.Undefined(), v) })
}

// RequestFromArgs does what stub.fetch(input, init) needs: it builds the
// Request that `new Request(input, init)` would (input itself when it is a
// Request and init is undefined) and exports it like ExportRequest. JS
// errors (a bad URL, a used body) come back as *goja.Exception. Call it on
// the runtime's goroutine only.
func RequestFromArgs(rt *goja.Runtime, input, init goja.Value) (*HTTPRequest, error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, err
	}
	if init == nil {
		init = goja.Undefined()
	}
	if input == nil {
		input = goja.Undefined()
	}
	return collect(&st.outReq, "request", func() (goja.Value, error) { return st.requestFrom(goja.Undefined(), input, init) })
}

// NewResponse builds a JS Response object (immutable headers, as a fetch
// result has in workerd) from r. The status is not range-checked, so 101
// with a WebSocket works. Call it on the runtime's goroutine only.
func NewResponse(rt *goja.Runtime, r *HTTPResponse) (goja.Value, error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, err
	}
	ws, _ := r.WebSocket.(goja.Value)
	if s, ok := r.Socket.(Socket); ok && s != nil {
		ws = s.ValueIn(rt)
	}
	if ws == nil {
		ws = goja.Null()
	}
	var text goja.Value = goja.Null()
	if r.StatusText != "" && r.StatusText != defaultStatusText(r.Status) {
		text = rt.ToValue(r.StatusText)
	}
	return jserr.Catch(func() (goja.Value, error) {
		return st.makeResponse(goja.Undefined(), rt.ToValue(r.Status), text,
			rt.NewDynamicObject(headersFromGo(r.Header)), goBodyValue(rt, r.Body, r.BodyStream), ws)
	})
}

// ExportResponse reads a JS Response into Go, taking its body. It returns a
// "TypeError: ..." error (a *goja.Exception) when v is not a Response or its
// body was already used. Call it on the runtime's goroutine only.
func ExportResponse(rt *goja.Runtime, v goja.Value) (*HTTPResponse, error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = goja.Undefined()
	}
	return collect(&st.outRes, "response", func() (goja.Value, error) { return st.exportResponse(goja.Undefined(), v) })
}
