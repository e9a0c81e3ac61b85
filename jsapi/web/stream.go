package web

import (
	"errors"
	"io"
	"sync"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ---------------------------------------------------------------------------
// Streamed bodies between Go and JS.
//
// Going in, a body Go reads as it arrives (HTTPRequest.BodyStream, a fetch
// response) becomes a goStream handle: web.js makes a byte ReadableStream
// whose pull asks for one chunk (native.streamRead), read on a goroutine of
// its own and handed back to the loop through the runtime's Post. So the
// loop never waits on the network, nothing is read before JS asks for it
// (backpressure), and a read's waiting and copying are no part of any JS
// job (cpu_ms). `.text()` and friends on an untouched stream read it whole
// on the goroutine (native.streamReadAll) and cross into JS once.
//
// Going out, a body that is a JS ReadableStream becomes a goSink: web.js
// pumps the stream into it one chunk at a time, each write's promise
// settling when Go's reader (the HTTP writer, another runtime's pull) has
// taken the chunk. A client that never reads therefore holds one chunk,
// not the body.

// streamChunk is the most a pull reads at once.
const streamChunk = 64 << 10

// goStream is a body Go hands to JS as a stream. Handles are owned by the
// runtime's goroutine; a read runs on a goroutine of its own, one at a time.
type goStream struct {
	opaque
	r   io.ReadCloser
	yes goja.Value // true, for the "stream" property web.js tests
}

func (s *goStream) Get(k string) goja.Value {
	if k == "stream" {
		return s.yes
	}
	return nil
}

// goSink is what a JS stream body becomes for Go: an io.ReadCloser whose
// Read takes the chunk web.js's pump wrote (native.sinkWrite).
type goSink struct {
	opaque
	post func(func()) bool // the runtime's Post

	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte       // the chunk being read
	taken  func(error)  // settles the write of buf (on the loop)
	end    error        // io.EOF when the stream closed, or its error
	closed bool         // the reader closed
	cancel func(string) // cancels the JS stream (on the loop), set by the pump
	set    *sinkSet     // the runtime's live sinks, this one among them
	length int64        // the body's length when known (a FixedLengthStream), else -1
}

// BodyLength is implemented by a streamed body whose length is known in
// advance (a FixedLengthStream's): it is sent with a Content-Length.
type BodyLength interface{ BodyLength() int64 }

// BodyLength implements BodyLength (-1: unknown).
func (s *goSink) BodyLength() int64 { return s.length }

func newSink(post func(func()) bool) *goSink {
	s := &goSink{post: post}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Read implements io.Reader: it waits for the next chunk of the JS stream.
func (s *goSink) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.buf) == 0 && s.end == nil && !s.closed {
		if s.taken != nil { // an empty chunk
			s.settle(nil)
		}
		s.cond.Wait()
	}
	if s.closed {
		return 0, errSinkClosed
	}
	if len(s.buf) == 0 {
		return 0, s.end
	}
	n := copy(p, s.buf)
	s.buf = s.buf[n:]
	if len(s.buf) == 0 {
		s.settle(nil)
	}
	return n, nil
}

var errSinkClosed = errors.New("read of a closed stream body")

// settle resolves (nil) or rejects the pending write. s.mu is held.
func (s *goSink) settle(err error) {
	f := s.taken
	s.taken = nil
	s.buf = nil
	if f != nil && !s.post(func() { f(err) }) {
		return // the runtime is gone: nobody waits
	}
}

// Close implements io.Closer: the reader went away (a client that hung
// up); the JS stream is canceled and its pending write rejected.
func (s *goSink) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	if s.end == nil && s.cancel != nil {
		c := s.cancel
		s.post(func() { c("The client closed the connection.") })
	}
	s.settle(errSinkClosed)
	s.cond.Broadcast()
	set := s.set
	s.set = nil
	s.mu.Unlock()
	if set != nil {
		set.remove(s)
	}
	return nil
}

// write hands a chunk to the reader; taken runs on the loop once it was
// read (nil) or the reader closed (an error). Called on the loop.
func (s *goSink) write(b []byte, taken func(error)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.end != nil {
		taken(errSinkClosed)
		return
	}
	s.buf, s.taken = b, taken
	s.cond.Broadcast()
}

// finish ends the stream: io.EOF, or the stream's error. Called on the loop.
func (s *goSink) finish(err error) {
	s.mu.Lock()
	if s.end == nil {
		s.end = err
	}
	s.cond.Broadcast()
	set := s.set
	s.set = nil
	s.mu.Unlock()
	if set != nil && err != errAbandoned {
		set.remove(s)
	}
}

// StreamError is how a JS stream body that errored ends for Go's reader.
type StreamError struct {
	Message string
	Name    string // the JS error's name; "" is TypeError
}

// jsError is the JS error a read failing with e rejects with.
func (e *StreamError) jsError() *jserr.Error {
	if e.Name != "" {
		return jserr.New(e.Name, e.Message)
	}
	return jserr.TypeError(e.Message)
}

func (e *StreamError) Error() string { return e.Message }

// SetPost gives the bridge the runtime's Post (queue a function on the
// runtime's loop from any goroutine, reporting whether it was queued):
// streamed bodies need it. Without it (a scratch runtime) a streamed body
// is read on the runtime's goroutine. Call on the runtime's goroutine,
// after Install. The returned function, safe from any goroutine, ends
// every stream body this runtime still feeds with an error: call it when
// the runtime is dropped, so that no reader waits for it forever.
func SetPost(rt *goja.Runtime, post func(func()) bool) (abandon func(), err error) {
	st, err := requireState(rt)
	if err != nil {
		return nil, err
	}
	st.post = post
	return st.sinks.abandon, nil
}

// SetPostHere gives the bridge a function that, called on the loop,
// returns a Post whose functions run as the code running at that moment
// (the object whose request, timer or continuation it is): a fetch()'s
// response and a stream body's chunks then reach the object's code as its
// own (its console label, its CPU limit). Call after SetPost.
func SetPostHere(rt *goja.Runtime, postHere func() func(func()) bool) error {
	st, err := requireState(rt)
	if err != nil {
		return err
	}
	st.postHere = postHere
	return nil
}

// sinkSet is the sinks a runtime feeds (safe from any goroutine).
type sinkSet struct {
	mu   sync.Mutex
	m    map[*goSink]struct{}
	dead bool
}

func (ss *sinkSet) add(s *goSink) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.dead {
		s.finish(errAbandoned)
		return
	}
	if ss.m == nil {
		ss.m = map[*goSink]struct{}{}
	}
	ss.m[s] = struct{}{}
	s.set = ss
}

func (ss *sinkSet) remove(s *goSink) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	delete(ss.m, s)
}

func (ss *sinkSet) abandon() {
	ss.mu.Lock()
	m := ss.m
	ss.m, ss.dead = nil, true
	ss.mu.Unlock()
	for s := range m {
		s.finish(errAbandoned)
	}
}

var errAbandoned = &StreamError{Message: "The script that produced this stream body was reset."}

// postOn returns a Post for rt: the state's, or one that runs f at once
// (on the caller's goroutine, which for a scratch runtime is the loop).
func (st *state) postOn() (post func(func()) bool, async bool) {
	if st.postHere != nil && st.post != nil {
		return st.postHere(), true
	}
	if st.post != nil {
		return st.post, true
	}
	return func(f func()) bool { f(); return true }, false
}

func streamOf(v goja.Value) (*goStream, error) {
	if o, ok := v.(*goja.Object); ok {
		if s, ok := o.Export().(*goStream); ok {
			return s, nil
		}
	}
	return nil, errIllegalInvocation
}

func sinkOf(v goja.Value) (*goSink, error) {
	if o, ok := v.(*goja.Object); ok {
		if s, ok := o.Export().(*goSink); ok {
			return s, nil
		}
	}
	return nil, errIllegalInvocation
}

// readErrorText is the message a failed read of a streamed body rejects with.
// readError is the JS error of a failed read of a Go stream.
func readError(err error) *jserr.Error {
	var se *StreamError
	if errors.As(err, &se) {
		return se.jsError()
	}
	return jserr.TypeError(readErrorText(err))
}

func readErrorText(err error) string {
	var se *StreamError
	if errors.As(err, &se) {
		return se.Message
	}
	var le *BodyLimitError
	if errors.As(err, &le) {
		return le.Error()
	}
	return "Network connection lost."
}

// BodyLimitError ends a streamed body that grew past its limit: JS sees
// a TypeError with its text (httpmsg.BodyLimitError).
type BodyLimitError = httpmsg.BodyLimitError

// streamNatives adds the natives behind streamed bodies.
func streamNatives(rt *goja.Runtime, st *state, n natives) {
	// streamRead(h) → a promise of a Uint8Array, or null at the end
	n.setE("streamRead", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := streamOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		p, resolve, reject := rt.NewPromise()
		post, async := st.postOn()
		read := func() {
			buf := make([]byte, streamChunk)
			n, err := io.ReadAtLeast(s.r, buf, 1)
			post(func() {
				switch {
				case n > 0:
					_ = resolve(rt.NewArrayBuffer(buf[:n:n]))
				case err == io.EOF:
					_ = resolve(goja.Null())
				default:
					_ = reject(jserr.ToJS(rt, readError(err)))
				}
			})
		}
		if async {
			go read()
		} else {
			read()
		}
		return rt.ToValue(p), nil
	})
	// streamReadAll(h) → a promise of an ArrayBuffer with the rest
	n.setE("streamReadAll", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := streamOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		p, resolve, reject := rt.NewPromise()
		post, async := st.postOn()
		read := func() {
			b, err := io.ReadAll(s.r)
			_ = s.r.Close()
			post(func() {
				if err != nil {
					_ = reject(jserr.ToJS(rt, readError(err)))
					return
				}
				_ = resolve(rt.NewArrayBuffer(b))
			})
		}
		if async {
			go read()
		} else {
			read()
		}
		return rt.ToValue(p), nil
	})
	// streamCancel(h): the JS stream was canceled
	n.setE("streamCancel", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := streamOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		go s.r.Close() // may wait for a read under way
		return goja.Undefined(), nil
	})
	// newSink(cancel) → a sink handle; cancel(reason) cancels the JS stream
	n.set("newSink", func(c goja.FunctionCall) goja.Value {
		post, _ := st.postOn()
		s := newSink(post)
		if f, ok := goja.AssertFunction(c.Argument(0)); ok {
			s.cancel = func(reason string) { _, _ = f(goja.Undefined(), rt.ToValue(reason)) }
		}
		s.length = -1
		if l := c.Argument(1); !goja.IsUndefined(l) {
			s.length = l.ToInteger()
		}
		st.sinks.add(s)
		return rt.NewDynamicObject(s)
	})
	// sinkWrite(h, u8) → a promise that settles once Go read the chunk
	n.setE("sinkWrite", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := sinkOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		b, err := bytesOf(c.Argument(1))
		if err != nil {
			return nil, jserr.TypeError("This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.")
		}
		p, resolve, reject := rt.NewPromise()
		s.write(append([]byte(nil), b...), func(err error) {
			if err != nil {
				_ = reject(jserr.ToJS(rt, jserr.TypeError(err.Error())))
				return
			}
			_ = resolve(goja.Undefined())
		})
		return rt.ToValue(p), nil
	})
	// sinkEnd(h, message|null): the stream closed, or errored with message
	n.setE("sinkEnd", func(c goja.FunctionCall) (goja.Value, error) {
		s, err := sinkOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		if m := c.Argument(1); goja.IsNull(m) || goja.IsUndefined(m) {
			s.finish(io.EOF)
		} else {
			s.finish(&StreamError{Message: m.String()})
		}
		return goja.Undefined(), nil
	})
}
