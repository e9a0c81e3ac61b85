// Package httpmsg holds what crosses between a caller and a Durable Object
// in Go: the request, the response and the error a script threw. It is a
// leaf (no goja, no engine): jsapi/web and jsapi/jserr alias these types,
// so fleet carries them between nodes without compiling the engine.
package httpmsg

import "io"

// Request is a request as Go sees it: the incoming HTTP request handed
// to a worker, or the request a stub.fetch carries to another runtime.
type Request struct {
	Method string
	URL    string
	Header [][2]string // in order; names lowercased
	Body   []byte      // nil = no body
	// BodyStream, when set (and Body nil), is a body read as it arrives:
	// JS pulls it chunk by chunk (jsapi/web's stream.go). Whoever ends up
	// with the request reads or closes it.
	BodyStream io.ReadCloser
	// CF is the request's cf object as JSON ("" = none): what wrangler dev
	// puts on an incoming request (cellhost dev's --cf), carried to an
	// object when the worker passes the request on with stub.fetch.
	CF string
	// HrefURL: URL is a Request's url as exported by jsapi/web (an href
	// already, or a string that does not parse), so that the runtime it
	// reaches next need not canonicalise it again. Set by jsapi/web only.
	HrefURL bool
}

// Response is a response as Go sees it.
type Response struct {
	Status     int
	StatusText string
	Header     [][2]string // names lowercased, set-cookie values separate
	Body       []byte      // nil = no body
	// BodyStream, when set (and Body nil), is a streamed body: a JS
	// ReadableStream being pumped, or a streamed body passed through. The
	// receiver reads it to the end or closes it (which cancels the JS
	// stream).
	BodyStream io.ReadCloser
	// WebSocket is the JS value (a goja.Value) of the webSocket init field
	// when it is no Socket, or nil: it never leaves its runtime.
	WebSocket any
	// Socket is the WebSocket behind WebSocket (nil when it is not one):
	// unlike the JS value it may cross to another runtime, where
	// jsapi/web's NewResponse gives it a JS object of that runtime
	// (it implements web.Socket; jsapi's *WebSocket).
	Socket Socket
}

// Socket is a WebSocket a Response carries across runtimes; opaque here
// (jsapi/web.Socket is the interface that gives it a JS value).
type Socket any

// BufferBody reads a streamed body (BodyStream) into Body, at most limit
// bytes (a *BodyLimitError past it): for the paths that carry bodies as
// bytes (a forward to another node).
func (r *Request) BufferBody(limit int64) error {
	b, err := bufferStream(r.BodyStream, limit)
	if err == nil && r.BodyStream != nil {
		r.Body, r.BodyStream = b, nil
	}
	return err
}

// BufferBody is Request.BufferBody for a response.
func (r *Response) BufferBody(limit int64) error {
	b, err := bufferStream(r.BodyStream, limit)
	if err == nil && r.BodyStream != nil {
		r.Body, r.BodyStream = b, nil
	}
	return err
}

func bufferStream(s io.ReadCloser, limit int64) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	defer s.Close()
	b, err := io.ReadAll(io.LimitReader(s, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &BodyLimitError{Limit: limit}
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

// BodyLimitError ends a streamed body that grew past its limit: JS sees
// a TypeError with its text.
type BodyLimitError struct{ Limit int64 }

func (e *BodyLimitError) Error() string {
	return "Request body exceeded the size limit."
}

// ScriptError is an error JS sees as an error object of class Name (a
// built-in ECMAScript error class, or a DOMException name) with Message
// (jsapi/jserr.Error, which builds and reads the JS values). Errors that
// come from JS keep its stack; Remote marks one that crossed from another
// Durable Object (JS sees error.remote = true).
type ScriptError struct {
	Name    string
	Message string
	Stack   string // the stack of the JS throw, "" when the error is Go's
	Remote  bool
	// Reset: the call that failed reset its Durable Object (JS sees
	// error.durableObjectReset = true; the caller's stub stays broken).
	Reset bool
	// Broken: the call's object was reset, but workerd's error says so in
	// its message only (no durableObjectReset), e.g. a commit that failed
	// a deferred foreign key. The caller's stub stays broken, as with
	// Reset.
	Broken bool
	Err    error // the Go cause, if any
	// Value is the thrown value in V8's serialization format, when the
	// thrower's worker has workerd's enhanced_error_serialization: the
	// catcher gets that value back (name, own properties, cause, or the
	// plain object that was thrown), not a new error of Name.
	Value []byte
	// ObjectID is the id of the Durable Object the error came from (JS
	// sees error.durableObjectId), "" for none.
	ObjectID string
}

func (e *ScriptError) Error() string {
	if e.Message == "" {
		return e.Name
	}
	return e.Name + ": " + e.Message
}

// Unwrap returns the Go cause.
func (e *ScriptError) Unwrap() error { return e.Err }

// MaybeAppliedError is the answer to a request whose outcome the node
// cannot know: it ran, or may have, but its writes could not be made
// durable (a commit whose upload or fsync failed), or the owner it was
// forwarded to stopped answering after the request was sent. Requests are
// not idempotent, so it is never retried: the client is told, with 503
// and this text (seed 004's wording for a lost shard owner), and decides.
// host (its commits) and fleet (its forwards) both answer it.
type MaybeAppliedError struct {
	Reason string
}

// MsgMaybeApplied is the sentence every such answer carries.
const MsgMaybeApplied = "the request may or may not have been applied"

func (e *MaybeAppliedError) Error() string { return MsgMaybeApplied + ": " + e.Reason }

// Unavailable marks the error as a 503 (host's httpError).
func (e *MaybeAppliedError) Unavailable() bool { return true }
