package web

import (
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// ReadableStream, Request and Response are serializable as workerd
// serializes them
// (api/http.c++, Request::serialize and Response::serialize): host-object
// tag 5, the URL, then the Request's initializer dict (method unless GET,
// headers, body, redirect unless "manual", cf, cache); tag 6, the body,
// then the Response's dict (status unless 200, statusText, headers, cf).
// workerd's body is a ReadableStream, which only RPC carries: outside RPC
// (structuredClone, storage) a message with a body is refused with its
// error. In an RPC message, which stays in this process (across nodes
// host refuses it), a body is its bytes when it has them, else a
// reference to a Go stream registered here (the sender's runtime pumps the
// JS stream into it as the receiver pulls): an object {bodyRefKey: id},
// read back only by DeserializeRPC.

const (
	readableStreamTag = 3
	requestTag        = 5
	responseTag       = 6
	bodyRefKey        = "\x00cellhost.body"
)

const (
	msgStreamNotRPC = "ReadableStream can only be serialized for RPC."
	msgStreamLocked = "The ReadableStream has been locked to a reader."
)

// rpcBodies are the body streams of RPC messages in flight, by reference.
var (
	rpcBodies   sync.Map // uint64 → io.ReadCloser
	rpcBodyNext atomic.Uint64
)

func init() { rpcBodyNext.Store(uint64(rand.N[uint32](1<<20)+1) << 32) }

// takeRPCBody takes the stream registered under id (nil if none), as the
// receiver reads it: a stream that ends in an error ends with workerd's.
func takeRPCBody(id uint64) io.ReadCloser {
	v, ok := rpcBodies.LoadAndDelete(id)
	if !ok {
		return nil
	}
	return rpcBodyReader{v.(io.ReadCloser)}
}

// errRPCStream is how a stream received over RPC ends when its sender's
// stream failed.
var errRPCStream = &StreamError{Name: "Error", Message: "ReadableStream received over RPC disconnected prematurely."}

type rpcBodyReader struct{ io.ReadCloser }

func (r rpcBodyReader) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = errRPCStream
	}
	return n, err
}

// registerRPCBody registers rc for an RPC message and returns its
// reference.
func registerRPCBody(w *clone.HostWriter, rc io.ReadCloser) uint64 {
	id := rpcBodyNext.Add(1)
	rpcBodies.Store(id, rc)
	w.Ref(id)
	return id
}

// ReleaseRPCBody closes the body stream an RPC message that will not be
// delivered refers to (clone.SerializeRPC's refs). Safe from any
// goroutine.
func ReleaseRPCBody(id uint64) {
	if rc := takeRPCBody(id); rc != nil {
		_ = rc.Close()
	}
}

func installHTTPClone(rt *goja.Runtime, internals *goja.Object) error {
	fn := func(name string) (goja.Callable, error) {
		f, ok := goja.AssertFunction(internals.Get(name))
		if !ok {
			return nil, errors.New("web prelude: missing " + name)
		}
		return f, nil
	}
	var fns [9]goja.Callable
	for i, name := range []string{"rpcRequestMeta", "rpcRequestInit", "rpcMakeRequest", "rpcResponseMeta", "rpcResponseInit", "rpcMakeResponse", "takeBody", "rpcStreamTake", "rpcStreamMake"} {
		f, err := fn(name)
		if err != nil {
			return err
		}
		fns[i] = f
	}
	reqMeta, reqInit, makeReq, resMeta, resInit, makeRes, takeBody := fns[0], fns[1], fns[2], fns[3], fns[4], fns[5], fns[6]
	streamTake, streamMake := fns[7], fns[8]
	call := func(f goja.Callable, args ...goja.Value) (*goja.Object, error) {
		v, err := f(goja.Undefined(), args...)
		if err != nil {
			return nil, err
		}
		return v.ToObject(rt), nil
	}
	// body returns the value a message's body is written as.
	body := func(w *clone.HostWriter, o *goja.Object, used bool) (goja.Value, error) {
		if !w.RPC() {
			return nil, jserr.New("DataCloneError", msgStreamNotRPC)
		}
		if used {
			return nil, jserr.TypeError(msgStreamLocked)
		}
		v, err := takeBody(goja.Undefined(), o)
		if err != nil {
			return nil, err
		}
		b, rc := exportBody(v)
		if rc == nil {
			if b == nil {
				b = []byte{}
			}
			return rt.ToValue(rt.NewArrayBuffer(b)), nil
		}
		id := registerRPCBody(w, rc)
		ref := rt.NewObject()
		_ = ref.Set(bodyRefKey, strconv.FormatUint(id, 10))
		return ref, nil
	}
	// readBody turns a written body back into a Go body for the bridge.
	readBody := func(r *clone.HostReader, v goja.Value) goja.Value {
		o, ok := v.(*goja.Object)
		if !ok || goja.IsNull(v) {
			return goja.Null()
		}
		if !r.RPC() {
			r.Fail("a body outside an RPC message")
		}
		if ab, ok := o.Export().(goja.ArrayBuffer); ok {
			return goBodyValue(rt, ab.Bytes(), nil)
		}
		idv := o.Get(bodyRefKey)
		if idv == nil {
			r.Fail("a body that is no ArrayBuffer or stream reference")
		}
		id, err := strconv.ParseUint(idv.String(), 10, 64)
		rc := takeRPCBody(id)
		if err != nil || rc == nil {
			r.Fail("a body stream reference %q that names no stream", idv.String())
		}
		return goBodyValue(rt, nil, rc)
	}
	// A ReadableStream crosses RPC as a reference to the Go stream it is
	// pumped into (its chunks bytes, or strings as UTF-8).
	if err := clone.RegisterHost(rt, "ReadableStream", clone.HostCodec{
		Tag: readableStreamTag,
		Write: func(w *clone.HostWriter, o *goja.Object) error {
			if !w.RPC() {
				return jserr.New("DataCloneError", msgStreamNotRPC)
			}
			sink, err := streamTake(goja.Undefined(), o)
			if err != nil {
				return err
			}
			_, rc := exportBody(sink)
			if rc == nil {
				return errors.New("web: a ReadableStream pumped into no sink")
			}
			w.String(strconv.FormatUint(registerRPCBody(w, rc), 10))
			return nil
		},
		Read: func(r *clone.HostReader) (goja.Value, error) {
			if !r.RPC() {
				r.Fail("a ReadableStream outside an RPC message")
			}
			ref := r.String()
			id, err := strconv.ParseUint(ref, 10, 64)
			rc := takeRPCBody(id)
			if err != nil || rc == nil {
				r.Fail("a stream reference %q that names no stream", ref)
			}
			return streamMake(goja.Undefined(), goBodyValue(rt, nil, rc))
		},
	}); err != nil {
		return err
	}
	if err := clone.RegisterHost(rt, "Request", clone.HostCodec{
		Tag: requestTag,
		Write: func(w *clone.HostWriter, o *goja.Object) error {
			meta, err := call(reqMeta, o)
			if err != nil {
				return err
			}
			if meta.Get("1").ToBoolean() {
				return jserr.New("DataCloneError", "AbortSignal serialization is not enabled.")
			}
			var b goja.Value = goja.Undefined()
			if meta.Get("2").ToBoolean() {
				if b, err = body(w, o, meta.Get("3").ToBoolean()); err != nil {
					return err
				}
			}
			d, err := call(reqInit, o, b)
			if err != nil {
				return err
			}
			w.String(meta.Get("0").String())
			w.Value(d)
			return nil
		},
		Read: func(r *clone.HostReader) (goja.Value, error) {
			url := r.String()
			d, ok := r.Value().(*goja.Object)
			if !ok {
				r.Fail("a Request's initializer is no object")
			}
			return makeReq(goja.Undefined(), rt.ToValue(url), d, readBody(r, d.Get("body")))
		},
	}); err != nil {
		return err
	}
	return clone.RegisterHost(rt, "Response", clone.HostCodec{
		Tag: responseTag,
		Write: func(w *clone.HostWriter, o *goja.Object) error {
			meta, err := call(resMeta, o)
			if err != nil {
				return err
			}
			var b goja.Value = goja.Null()
			if meta.Get("1").ToBoolean() {
				if b, err = body(w, o, meta.Get("2").ToBoolean()); err != nil {
					return err
				}
			}
			if meta.Get("0").ToBoolean() {
				return jserr.New("DataCloneError", `Could not serialize object of type "WebSocket". This type does not support serialization.`)
			}
			d, err := call(resInit, o)
			if err != nil {
				return err
			}
			w.Value(b)
			w.Value(d)
			return nil
		},
		Read: func(r *clone.HostReader) (goja.Value, error) {
			b := r.Value()
			d, ok := r.Value().(*goja.Object)
			if !ok {
				r.Fail("a Response's initializer is no object")
			}
			return makeRes(goja.Undefined(), d, readBody(r, b))
		},
	})
}
