package web

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ---------------------------------------------------------------------------
// The Go bridge: requests and responses crossing between Go and JS.
//
// Going in, header lists and bodies are handed to JS as handles
// (web_headers.go) that web.js turns into Headers and body contents only
// when the program reads them. Going out, web.js passes a request's or
// response's internal slots to native.outRequest/outResponse, which build
// the Go value directly.

// HTTPRequest is a request as Go sees it: the incoming HTTP request handed
// to a worker, or the request a stub.fetch carries to another runtime.
type HTTPRequest struct {
	Method string
	URL    string
	Header [][2]string // in order; names lowercased
	Body   []byte      // nil = no body
}

// HTTPResponse is a response as Go sees it.
type HTTPResponse struct {
	Status     int
	StatusText string
	Header     [][2]string // names lowercased, set-cookie values separate
	Body       []byte      // nil = no body
	WebSocket  goja.Value  // the webSocket init field, or nil
	// Socket is the WebSocket behind WebSocket (nil when it is not one):
	// unlike the JS value it may cross to another runtime, where
	// NewResponse gives it a JS object of that runtime.
	Socket Socket
}

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
	st, err := webStateRequired(rt)
	if err != nil {
		return err
	}
	st.socketOf = of
	return nil
}

func webStateRequired(rt *goja.Runtime) (*webState, error) {
	st := webStateOf(rt)
	if st == nil {
		return nil, errors.New("jsapi/web: Install has not run on this runtime")
	}
	return st, nil
}

// webCall runs f with panics from goja (a thrown value) turned into errors.
func webCall(f func() (goja.Value, error)) (v goja.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *goja.Exception:
				err = x
			case *goja.Object:
				err = errors.New(jserr.Text(x))
			default:
				err = fmt.Errorf("jsapi: %v", r)
			}
		}
	}()
	return f()
}

// webCacheMax bounds the per-runtime URL caches (they are emptied when
// full); URLs longer than webCacheMaxLen are not kept.
const (
	webCacheMax    = 256
	webCacheMaxLen = 512
)

// canonicalURL returns the href of a request URL (s itself when it does not
// parse), remembering recent answers.
func (st *webState) canonicalURL(s string) string {
	if h, ok := st.hrefs[s]; ok {
		return h
	}
	h := s
	if u, err := whatwgurl.Parse(s, nil); err == nil {
		h = u.Href()
	}
	if len(s) > webCacheMaxLen {
		return h
	}
	if len(st.hrefs) >= webCacheMax {
		clear(st.hrefs)
	}
	st.hrefs[s] = h
	return h
}

// urlRecord is native.whatwgurl.Parse(input) without a base: the record array,
// or null. Records are never modified by web.js, so recent ones are shared.
func (st *webState) urlRecord(rt *goja.Runtime, input string) goja.Value {
	if rec, ok := st.records[input]; ok {
		return rec
	}
	var rec goja.Value = goja.Null()
	if u, err := whatwgurl.Parse(input, nil); err == nil {
		rec = webURLRecord(rt, u)
	}
	if len(input) > webCacheMaxLen {
		return rec
	}
	if len(st.records) >= webCacheMax {
		clear(st.records)
	}
	st.records[input] = rec
	return rec
}

func (st *webState) methodValue(rt *goja.Runtime, m string) goja.Value {
	switch m {
	case "GET":
		return st.valGET
	case "POST":
		return st.valPOST
	}
	return rt.ToValue(m)
}

// webHeadersFromGo is the (immutable) header list of a request or
// response from Go.
func webHeadersFromGo(h [][2]string) *webHeaderList {
	l := &webHeaderList{h: make([]webHeader, len(h)), immutable: true}
	for i, kv := range h {
		l.h[i] = webHeader{name: strings.ToLower(kv[0]), val: kv[1]}
	}
	return l
}

// webGoBodyValue is a copy of b as a body handle, or null.
func webGoBodyValue(rt *goja.Runtime, b []byte) goja.Value {
	if b == nil {
		return goja.Null()
	}
	c := make([]byte, len(b))
	copy(c, b)
	return rt.NewDynamicObject(&webGoBody{b: c})
}

// webExportBody turns a body as web.js hands it out (null, a Uint8Array,
// a string or a Go body) into Go bytes (nil = no body).
func webExportBody(v goja.Value) []byte {
	if v == nil || goja.IsNull(v) || goja.IsUndefined(v) {
		return nil
	}
	if s, ok := v.(goja.String); ok {
		gs := s.String()
		b := make([]byte, len(gs))
		copy(b, gs)
		return b
	}
	switch x := v.Export().(type) {
	case []byte:
		return append(make([]byte, 0, len(x)), x...)
	case *webGoBody:
		return x.b // immutable: shared
	}
	return nil
}

// webBodySource returns the bytes of a body's contents (a Uint8Array, a
// string or a Go body) for reading only.
func webBodySource(rt *goja.Runtime, v goja.Value) []byte {
	if s, ok := v.(goja.String); ok {
		return []byte(s.String())
	}
	if o, ok := v.(*goja.Object); ok {
		if gb, ok := o.Export().(*webGoBody); ok {
			return gb.b
		}
	}
	return webBytes(rt, v)
}

// webExportHeaders turns a request's or response's header slots (a list
// handle, or null and the only content type) into Go header lines.
func webExportHeaders(hl, ctype goja.Value) [][2]string {
	if o, ok := hl.(*goja.Object); ok {
		if l, ok := o.Export().(*webHeaderList); ok {
			return l.export()
		}
	}
	if ctype == nil || goja.IsNull(ctype) || goja.IsUndefined(ctype) {
		return [][2]string{}
	}
	return [][2]string{{"content-type", ctype.String()}}
}

// webBridgeNatives adds the natives the bridge and bodies use.
func webBridgeNatives(rt *goja.Runtime, st *webState, n *goja.Object) {
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = n.Set(name, f) }
	// outRequest(method, url, list|null, ctype|null, body)
	set("outRequest", func(c goja.FunctionCall) goja.Value {
		st.outReq = &HTTPRequest{
			Method: c.Argument(0).String(),
			URL:    c.Argument(1).String(),
			Header: webExportHeaders(c.Argument(2), c.Argument(3)),
			Body:   webExportBody(c.Argument(4)),
		}
		return goja.Undefined()
	})
	// outResponse(status, statusText|null, list|null, ctype|null, body, webSocket)
	set("outResponse", func(c goja.FunctionCall) goja.Value {
		status := int(c.Argument(0).ToInteger())
		text := webDefaultStatusText(status)
		if t := c.Argument(1); !goja.IsNull(t) && !goja.IsUndefined(t) {
			text = t.String()
		}
		out := &HTTPResponse{
			Status:     status,
			StatusText: text,
			Header:     webExportHeaders(c.Argument(2), c.Argument(3)),
			Body:       webExportBody(c.Argument(4)),
		}
		if ws := c.Argument(5); !goja.IsNull(ws) && !goja.IsUndefined(ws) {
			out.WebSocket = ws
			if st.socketOf != nil {
				out.Socket = st.socketOf(ws)
			}
		}
		st.outRes = out
		return goja.Undefined()
	})
	// bodyBuffer(src) → a new ArrayBuffer with the bytes of a string or Go body
	set("bodyBuffer", func(c goja.FunctionCall) goja.Value {
		src := webBodySource(rt, c.Argument(0))
		b := make([]byte, len(src))
		copy(b, src)
		return rt.ToValue(rt.NewArrayBuffer(b))
	})
	set("bodyEmpty", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(len(webBodySource(rt, c.Argument(0))) == 0)
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
	return webCall(func() (goja.Value, error) { return st.makeRequest(goja.Undefined(), args[:]...) })
}

// requestArgs are web.js's goMakeRequest arguments for r.
func requestArgs(rt *goja.Runtime, r *HTTPRequest) (*webState, [4]goja.Value, error) {
	st, err := webStateRequired(rt)
	if err != nil {
		return nil, [4]goja.Value{}, err
	}
	url := st.canonicalURL(r.URL)
	method := r.Method
	if method == "" {
		method = "GET"
	}
	return st, [4]goja.Value{st.methodValue(rt, method), rt.ToValue(url),
		rt.NewDynamicObject(webHeadersFromGo(r.Header)), webGoBodyValue(rt, r.Body)}, nil
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
	return st.callWithRequest(goja.Undefined(), fn, this, args[0], args[1], args[2], args[3], rt.ToValue(len(rest)), a, b)
}

// collectRequest runs web.js's exporter f and returns what it sent out.
func (st *webState) collectRequest(f func() (goja.Value, error)) (*HTTPRequest, error) {
	st.outReq = nil
	if _, err := webCall(f); err != nil {
		st.outReq = nil
		return nil, err
	}
	out := st.outReq
	st.outReq = nil
	if out == nil {
		return nil, errors.New("jsapi: the request exporter returned nothing")
	}
	return out, nil
}

// ExportRequest reads a JS Request into Go, taking its body (the request's
// bodyUsed becomes true, as when workerd forwards it). It returns a
// "TypeError: ..." error when v is not a Request or its body was used. Call
// it on the runtime's goroutine only.
func ExportRequest(rt *goja.Runtime, v goja.Value) (*HTTPRequest, error) {
	st, err := webStateRequired(rt)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = goja.Undefined()
	}
	return st.collectRequest(func() (goja.Value, error) { return st.exportRequest(goja.Undefined(), v) })
}

// RequestFromArgs does what stub.fetch(input, init) needs: it builds the
// Request that `new Request(input, init)` would (input itself when it is a
// Request and init is undefined) and exports it like ExportRequest. JS
// errors (a bad URL, a used body) come back as *goja.Exception. Call it on
// the runtime's goroutine only.
func RequestFromArgs(rt *goja.Runtime, input, init goja.Value) (*HTTPRequest, error) {
	st, err := webStateRequired(rt)
	if err != nil {
		return nil, err
	}
	if init == nil {
		init = goja.Undefined()
	}
	if input == nil {
		input = goja.Undefined()
	}
	return st.collectRequest(func() (goja.Value, error) { return st.requestFrom(goja.Undefined(), input, init) })
}

// NewResponse builds a JS Response object (immutable headers, as a fetch
// result has in workerd) from r. The status is not range-checked, so 101
// with a WebSocket works. Call it on the runtime's goroutine only.
func NewResponse(rt *goja.Runtime, r *HTTPResponse) (goja.Value, error) {
	st, err := webStateRequired(rt)
	if err != nil {
		return nil, err
	}
	ws := r.WebSocket
	if r.Socket != nil {
		ws = r.Socket.ValueIn(rt)
	}
	if ws == nil {
		ws = goja.Null()
	}
	var text goja.Value = goja.Null()
	if r.StatusText != "" && r.StatusText != webDefaultStatusText(r.Status) {
		text = rt.ToValue(r.StatusText)
	}
	return webCall(func() (goja.Value, error) {
		return st.makeResponse(goja.Undefined(), rt.ToValue(r.Status), text,
			rt.NewDynamicObject(webHeadersFromGo(r.Header)), webGoBodyValue(rt, r.Body), ws)
	})
}

// ExportResponse reads a JS Response into Go, taking its body. It returns a
// "TypeError: ..." error (a *goja.Exception) when v is not a Response or its
// body was already used. Call it on the runtime's goroutine only.
func ExportResponse(rt *goja.Runtime, v goja.Value) (*HTTPResponse, error) {
	st, err := webStateRequired(rt)
	if err != nil {
		return nil, err
	}
	if v == nil {
		v = goja.Undefined()
	}
	st.outRes = nil
	if _, err := webCall(func() (goja.Value, error) { return st.exportResponse(goja.Undefined(), v) }); err != nil {
		st.outRes = nil
		return nil, err
	}
	out := st.outRes
	st.outRes = nil
	if out == nil {
		return nil, errors.New("jsapi: the response exporter returned nothing")
	}
	return out, nil
}

// webStatusTexts is web.js's statusTexts table.
var webStatusTexts = map[int]string{
	0: "", 100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints", 200: "OK", 201: "Created",
	202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content", 206: "Partial Content",
	207: "Multi-Status", 208: "Already Reported", 226: "IM Used", 300: "Multiple Choices", 301: "Moved Permanently",
	302: "Found", 303: "See Other", 304: "Not Modified", 305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
	400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
	405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
	409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
	414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
	418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency",
	426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
	451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
	503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
	507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
}

// webDefaultStatusText is web.js's defaultStatusText.
func webDefaultStatusText(s int) string {
	if t, ok := webStatusTexts[s]; ok {
		return t
	}
	switch {
	case s >= 200 && s < 300:
		return "Successful"
	case s >= 300 && s < 400:
		return "Redirection"
	case s >= 400 && s < 500:
		return "Client Error"
	case s >= 500 && s < 600:
		return "Server Error"
	}
	return ""
}

// webDecodeString is decode(the UTF-8 encoding of s): s with lone
// surrogates replaced by U+FFFD and, unless ignoreBOM, a leading BOM
// dropped.
func webDecodeString(rt *goja.Runtime, s goja.String, ignoreBOM bool) goja.Value {
	gs := s.String()
	ascii := true
	for i := 0; i < len(gs); i++ {
		if gs[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	if !ignoreBOM {
		gs = strings.TrimPrefix(gs, "\ufeff")
	}
	return rt.ToValue(gs)
}
