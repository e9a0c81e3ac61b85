package web

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

func TestStreams_JS(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jsCases(t, rt, [][2]string{
		{`typeof ReadableStream + typeof WritableStream + typeof TransformStream + typeof ReadableStreamBYOBReader + typeof ByteLengthQueuingStrategy + typeof CountQueuingStrategy`, "functionfunctionfunctionfunctionfunctionfunction"},
		{`attemptAsync(async () => { const it = ReadableStream.from(["a", "b"])[Symbol.asyncIterator](); const out = []; for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value); return out.join(); })`, "a,b"},
		{`attemptAsync(async () => { const s = new ReadableStream({ start(c) { c.enqueue("x"); c.enqueue("y"); c.close(); } }); const [a, b] = s.tee(); const r = b.getReader(); const one = await r.read(); const it = a.values(); const out = []; for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value); return out.join() + one.value; })`, "x,yx"},
		{`attemptAsync(async () => new Response(ReadableStream.from(["héllo", " wörld"]).pipeThrough(new TextEncoderStream())).text())`, "héllo wörld"},
		{`attemptAsync(async () => { const out = []; await new Response("a€b").body.pipeThrough(new TextDecoderStream()).pipeTo(new WritableStream({ write(c) { out.push(c); } })); return out.join("|"); })`, "a€b"},
		{`attemptAsync(async () => { const r = new Response(new Response("hello").body.pipeThrough(new CompressionStream("gzip")).pipeThrough(new DecompressionStream("gzip"))); return r.text(); })`, "hello"},
		{`attemptAsync(async () => { const big = "abc".repeat(100000); const d = new Response(big).body.pipeThrough(new CompressionStream("deflate")); const z = new Uint8Array(await new Response(d).arrayBuffer()); const back = await new Response(new Response(z).body.pipeThrough(new DecompressionStream("deflate"))).text(); return [z.length < 5000, back === big].join(); })`, "true,true"},
		{`attemptAsync(async () => new Response(new Response("raw").body.pipeThrough(new CompressionStream("deflate-raw")).pipeThrough(new DecompressionStream("deflate-raw"))).text())`, "raw"},
		{`attempt(() => new CompressionStream("br"))`, "TypeError: The compression format must be either 'deflate', 'deflate-raw' or 'gzip'."},
		{`attemptAsync(async () => new Response(new Response("not gzip").body.pipeThrough(new DecompressionStream("gzip"))).text())`, "TypeError: Decompression failed."},
		{`attemptAsync(async () => { const { readable, writable } = new FixedLengthStream(3); const w = writable.getWriter(); w.write(new Uint8Array([1, 2])); w.close(); return new Response(readable).text(); })`, "TypeError: FixedLengthStream did not see all expected bytes before close()."},
		{`attemptAsync(async () => { const { readable, writable } = new FixedLengthStream(1); const w = writable.getWriter(); w.write(new Uint8Array([1, 2])).catch(() => {}); return new Response(readable).text(); })`, "TypeError: Attempt to write too many bytes through a FixedLengthStream."},
		{`attemptAsync(async () => { const f = new FixedLengthStream(2); const t = new Response(f.readable).text(); const w = f.writable.getWriter(); await w.write("h"); await w.write("i"); await w.close(); return [await t, f instanceof TransformStream].join(); })`, "hi,true"},
		{`attemptAsync(async () => { const { readable, writable } = new IdentityTransformStream(); const w = writable.getWriter(); w.write(new TextEncoder().encode("id")); w.close(); return new Response(readable).text(); })`, "id"},
		{`attemptAsync(async () => { const { readable, writable } = new IdentityTransformStream(); const w = writable.getWriter(); w.write("str"); w.close(); return new Response(readable).text(); })`, "str"},
		{`attemptAsync(async () => { const { readable, writable } = new IdentityTransformStream(); writable.getWriter().write({}).catch(() => {}); return new Response(readable).text(); })`, "TypeError: This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side."},
		// bodies are byte streams: BYOB readers work
		{`attemptAsync(async () => { const r = new Response("abcdef").body.getReader({ mode: "byob" }); const { value } = await r.read(new Uint8Array(4)); return value.constructor.name + value.length; })`, "Uint8Array4"},
		{`attemptAsync(async () => { const r = new Response("x"); const rd = r.body.getReader(); return attemptAsync(() => r.text()); })`, "TypeError: This ReadableStream is currently locked to a reader."},
		{`attemptAsync(async () => { const r = new Response("x"); await r.body.getReader().read(); return r.bodyUsed + " " + await attemptAsync(() => r.text()); })`, "true TypeError: Body has already been used. It can only be used once. Use tee() first if you need to read it twice."},
		{`attemptAsync(async () => { const r = new Response("x"); r.body; return [await r.text(), r.bodyUsed].join(); })`, "x,true"},
		{`attemptAsync(async () => new Response(ReadableStream.from(["str"])).text())`, "TypeError: This ReadableStream did not return bytes."},
		{`attemptAsync(async () => { const a = new Response("clone me"); a.body; const b = a.clone(); return [await a.text(), await b.text()].join(); })`, "clone me,clone me"},
		{`attemptAsync(async () => { const a = new Response(ReadableStream.from([new Uint8Array([104, 105])])); const b = a.clone(); return [await a.text(), await b.text()].join(); })`, "hi,hi"},
		{`attemptAsync(async () => { const a = new Request("http://x/", { method: "POST", body: "moved" }); const b = new Response(a.body); return [await b.text(), a.bodyUsed].join(); })`, "moved,true"},
		{`attemptAsync(async () => { const ts = new TransformStream({ transform(c, ctl) { ctl.enqueue(c.toUpperCase()); } }); const w = ts.writable.getWriter(); w.write("a"); w.close(); const it = ts.readable[Symbol.asyncIterator](); const out = []; for (let r = await it.next(); !r.done; r = await it.next()) out.push(r.value); return out.join(); })`, "A"},
		{`attemptAsync(async () => { const q = new CountQueuingStrategy({ highWaterMark: 2 }); const b = new ByteLengthQueuingStrategy({ highWaterMark: 8 }); return [q.highWaterMark, q.size(), b.size(new Uint8Array(5))].join(); })`, "2,1,5"},
	})
}

// testLoop is a stand-in for a shard's loop: Post queues, run drains.
type testLoop struct{ ch chan func() }

func newTestLoop(t *testing.T, rt *goja.Runtime) *testLoop {
	l := &testLoop{ch: make(chan func(), 1024)}
	if _, err := SetPost(rt, func(f func()) bool { l.ch <- f; return true }); err != nil {
		t.Fatal(err)
	}
	return l
}

// settle runs the loop until the promise v settles and returns its value
// as text (a rejection as "Name: message").
func (l *testLoop) settle(t *testing.T, rt *goja.Runtime, v goja.Value) string {
	t.Helper()
	p := v.Export().(*goja.Promise)
	for p.State() == goja.PromiseStatePending {
		(<-l.ch)()
	}
	if p.State() == goja.PromiseStateRejected {
		o := p.Result().ToObject(rt)
		return o.Get("name").String() + ": " + o.Get("message").String()
	}
	return p.Result().String()
}

// countingReader counts the bytes read from it and the Reads.
type countingReader struct {
	r      io.Reader
	n      atomic.Int64
	closed atomic.Bool
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}
func (c *countingReader) Close() error { c.closed.Store(true); return nil }

func TestStreams_GoRequestBody(t *testing.T) {
	rt, _ := newWebRuntime(t)
	l := newTestLoop(t, rt)
	big := strings.Repeat("0123456789", 100_000) // 1 MB: several pulls
	src := &countingReader{r: strings.NewReader(big)}
	req, err := NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://x/", BodyStream: src})
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Set("req", req)
	// One read pulls one chunk: nothing more is read ahead.
	v, err := rt.RunString(`globalThis.rd = req.body.getReader(); rd.read().then(r => r.value.length)`)
	if err != nil {
		t.Fatal(err)
	}
	if got := l.settle(t, rt, v); got != "65536" {
		t.Fatalf("first chunk: %s", got)
	}
	if n := src.n.Load(); n != streamChunk {
		t.Fatalf("read ahead: %d bytes read for one chunk", n)
	}
	v, _ = rt.RunString(`(async () => { let n = 65536; for (;;) { const { value, done } = await rd.read(); if (done) return n; n += value.length; } })()`)
	if got := l.settle(t, rt, v); got != "1000000" {
		t.Fatalf("total: %s", got)
	}

	// text() of an untouched streamed body reads it whole off the loop.
	req, _ = NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://x/", BodyStream: io.NopCloser(strings.NewReader("whole"))})
	_ = rt.Set("req2", req)
	v, _ = rt.RunString(`req2.text().then(t => t + req2.bodyUsed)`)
	if got := l.settle(t, rt, v); got != "wholetrue" {
		t.Fatalf("text: %s", got)
	}

	// A read error rejects with workerd's text.
	req, _ = NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://x/", BodyStream: io.NopCloser(io.MultiReader(strings.NewReader("a"), errReader{}))})
	_ = rt.Set("req3", req)
	v, _ = rt.RunString(`req3.text()`)
	if got := l.settle(t, rt, v); got != "TypeError: Network connection lost." {
		t.Fatalf("error: %s", got)
	}

	// cancel closes the Go reader.
	src = &countingReader{r: strings.NewReader(big)}
	req, _ = NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://x/", BodyStream: src})
	_ = rt.Set("req4", req)
	v, _ = rt.RunString(`req4.body.cancel()`)
	l.settle(t, rt, v)
	for !src.closed.Load() {
		// streamCancel closes on a goroutine; it needs nothing of the loop
		select {
		case f := <-l.ch:
			f()
		default:
		}
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

func TestStreams_ExportStreamedResponse(t *testing.T) {
	rt, _ := newWebRuntime(t)
	l := newTestLoop(t, rt)
	// A stream of 100 chunks of 10 KB, each made only when pulled.
	v, err := rt.RunString(`globalThis.pulled = 0; new Response(new ReadableStream({ pull(c) { if (pulled === 100) { c.close(); return; } pulled++; c.enqueue(new Uint8Array(10240).fill(65)); } }, { highWaterMark: 0 }))`)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ExportResponse(rt, v)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body != nil || resp.BodyStream == nil {
		t.Fatal("a stream body should export as a stream")
	}
	// Go reads one chunk: the stream is pulled once or twice, not to its end.
	got := make(chan []byte, 1)
	first := make([]byte, 10240)
	go func() {
		_, _ = io.ReadFull(resp.BodyStream, first)
		got <- first
	}()
	var b []byte
	for b == nil {
		select {
		case f := <-l.ch:
			f()
		case b = <-got:
		}
	}
	if p := rt.Get("pulled").ToInteger(); p > 2 {
		t.Fatalf("pulled %d chunks for one read: no backpressure", p)
	}
	done := make(chan []byte, 1)
	go func() {
		rest, _ := io.ReadAll(resp.BodyStream)
		done <- rest
	}()
	var rest []byte
	for rest == nil {
		select {
		case f := <-l.ch:
			f()
		case rest = <-done:
		}
	}
	if len(rest)+len(b) != 1024000 || !bytes.Equal(rest[:10], []byte("AAAAAAAAAA")) {
		t.Fatalf("read %d bytes", len(rest)+len(b))
	}

	// A reader that goes away cancels the stream.
	v, _ = rt.RunString(`globalThis.canceled = null; new Response(new ReadableStream({ pull(c) { c.enqueue(new Uint8Array(8)); }, cancel(r) { canceled = String(r); } }))`)
	resp, err = ExportResponse(rt, v)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.BodyStream.Close()
	for goja.IsNull(rt.Get("canceled")) {
		(<-l.ch)()
	}
	if got := rt.Get("canceled").String(); got != "TypeError: The client closed the connection." {
		t.Fatalf("canceled with %s", got)
	}

	// A Go stream passed through (new Response(request.body)) is exported
	// as the same reader: no copy through JS.
	src := io.NopCloser(strings.NewReader("echo"))
	req, _ := NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://x/", BodyStream: src})
	_ = rt.Set("req", req)
	v, _ = rt.RunString(`new Response(req.body)`)
	resp, err = ExportResponse(rt, v)
	if err != nil {
		t.Fatal(err)
	}
	if resp.BodyStream != src {
		t.Fatal("the request's reader was not passed through")
	}
}

// TestStreams_Abandon: a runtime dropped while a reader waits for its
// stream body ends that body with an error (no reader waits forever).
func TestStreams_Abandon(t *testing.T) {
	rt, _ := newWebRuntime(t)
	abandon, err := SetPost(rt, func(f func()) bool { return false }) // the loop is gone
	if err != nil {
		t.Fatal(err)
	}
	v, _ := rt.RunString(`new Response(new ReadableStream({ pull() {} }))`)
	resp, err := ExportResponse(rt, v)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(resp.BodyStream)
		done <- err
	}()
	abandon()
	if err := <-done; err == nil || err.Error() != "The script that produced this stream body was reset." {
		t.Fatalf("read ended with %v", err)
	}
}

func TestStreams_GzipInterop(t *testing.T) {
	rt, _ := newWebRuntime(t)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	_, _ = zw.Write([]byte("from go"))
	_ = zw.Close()
	_ = rt.Set("gz", rt.NewArrayBuffer(zb.Bytes()))
	jsCases(t, rt, [][2]string{
		{`new Response(new Response(gz).body.pipeThrough(new DecompressionStream("gzip"))).text()`, "from go"},
	})
	v := jstest.Run(t, rt, `new Response(new Response("from js").body.pipeThrough(new CompressionStream("gzip"))).arrayBuffer()`)
	zr, err := gzip.NewReader(bytes.NewReader(v.Export().(goja.ArrayBuffer).Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(zr)
	if string(out) != "from js" {
		t.Fatalf("got %q", out)
	}
}
