// Package web implements the Web platform globals a Workers program sees
// on a goja runtime (Request, Response, Headers, URL, TextEncoder, console,
// crypto, events, ...) and the bridge that carries requests and responses
// between Go and JS. It knows nothing of Durable Objects: the compiler
// enforces it, as web imports neither jsapi nor anything of the host.
package web

import (
	"embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
)

// The prelude is one function expression, split by interface into the
// files of js/: begin.js opens it and declares the helpers every part
// uses, end.js returns the internals. Install joins the files in this
// order and compiles them as one script, cellhost:web.js (the parts share
// one scope; line numbers are those of the joined text).
var preludeFiles = []string{
	"begin.js", "domexception.js", "events.js", "abort.js", "encoding.js", "url.js", "headers.js",
	"streams.js", "body.js", "request.js", "response.js", "fetch.js", "blob.js", "formdata.js", "urlpattern_polyfill.js", "urlpattern.js", "cache.js", "intl.js", "htmlrewriter.js", "internals.js", "console.js", "crypto.js", "end.js",
}

//go:embed js/*.js
var preludeFS embed.FS

// streamsSource is web-streams-polyfill (vendor/build.sh), a function
// expression returning the ponyfill's exports; the prelude receives them
// as native.streams.
//
//go:embed vendor/web-streams-polyfill.js
var streamsSource string

// preludeSource joins the files of js/ in the order of preludeFiles.
func preludeSource() (string, error) {
	var b strings.Builder
	for _, name := range preludeFiles {
		src, err := preludeFS.ReadFile("js/" + name)
		if err != nil {
			return "", err
		}
		b.Write(src)
	}
	return b.String(), nil
}

var (
	preludeOnce sync.Once
	preludeProg *goja.Program
	streamsProg *goja.Program
	preludeErr  error
)

// Options configures Install.
type Options struct {
	// Console receives one line per console.log/info/warn/error/debug
	// call. nil discards the output. Writes happen on the runtime's
	// goroutine; the writer must not call back into the runtime.
	Console io.Writer
	// ConsoleFunc, if set, receives each console line with its level
	// ("log", "info", "debug", "warn", "error") instead of Console. Same
	// goroutine rule.
	ConsoleFunc func(level, line string)
	// Cache is the store behind caches.default and caches.open; nil
	// shares one in-memory store per process.
	Cache *CacheStorage
}

// state is what Install leaves on a runtime for the Go bridge. It is
// reachable from Go through a symbol-keyed global property; JS sees an
// object without properties.
type state struct {
	hostBrand *goja.Symbol

	makeRequest goja.Callable // (method, url, headerList, goBody|null) → Request
	// (fn, this, method, url, headerList, goBody|null, n, a, b) → fn.call(this, request[, a, b])
	callWithRequest goja.Callable
	exportRequest   goja.Callable // (req): calls native.outRequest
	requestFrom     goja.Callable // (input, init): builds the Request stub.fetch sends, calls native.outRequest
	makeResponse    goja.Callable // (status, statusText|null, headerList, goBody|null, webSocket) → Response
	exportResponse  goja.Callable // (res): calls native.outResponse
	cryptoKeyHandle goja.Callable // (key) → the *cryptoKey behind a CryptoKey, or undefined
	importCryptoKey goja.Callable // (format, data, algorithm, extractable, usages) → CryptoKey (importKey, synchronously)
	helpers         *goja.Object  // begin.js's defineGlobal, isObject and isArrayBuffer (Helpers)

	// what native.outRequest/outResponse received (read and cleared by the
	// exporting Go function)
	outReq *HTTPRequest
	outRes *HTTPResponse

	socketOf func(goja.Value) Socket  // set by SetSocketOf
	post     func(func()) bool        // set by SetPost (stream.go)
	postHere func() func(func()) bool // set by SetPostHere (stream.go)
	sinks    sinkSet                  // the stream bodies this runtime feeds

	hrefs           urlCache[string]     // request URL → href (NewRequest)
	records         urlCache[goja.Value] // URL → record array or null (native.urlParse without base)
	valGET, valPOST goja.Value
}

// stateKey marks the global property holding a runtime's *state.
var stateKey = rtstate.NewKey[state]("cellhost.web")

func stateOf(rt *goja.Runtime) *state { return stateKey.Get(rt) }

// Helpers returns the web prelude's helpers that other preludes of the
// runtime share (defineGlobal, isObject, isArrayBuffer), or nil before
// Install.
func Helpers(rt *goja.Runtime) *goja.Object {
	if st := stateOf(rt); st != nil {
		return st.helpers
	}
	return nil
}

// Install installs the web platform globals a Workers program expects on
// a fresh runtime: Headers, Request, Response, URL, URLSearchParams,
// TextEncoder, TextDecoder, atob, btoa, console, structuredClone,
// queueMicrotask, crypto (randomUUID, getRandomValues), Event, EventTarget,
// AbortController, AbortSignal and DOMException. It also makes JSON.parse
// report V8's error messages and aliases Symbol.asyncIterator,
// Symbol.dispose and Symbol.asyncDispose to Symbol.for(...) when absent.
// Timers are not installed here (the event loop owns them).
//
// Call it once per runtime, on the runtime's goroutine, before user code.
func Install(rt *goja.Runtime, o Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("install web globals: %v", r)
		}
	}()
	if stateOf(rt) != nil {
		return errors.New("install web globals: already installed")
	}
	preludeOnce.Do(func() {
		var src string
		if src, preludeErr = preludeSource(); preludeErr == nil {
			preludeProg, preludeErr = goja.Compile("cellhost:web.js", src, true)
		}
		if preludeErr == nil {
			streamsProg, preludeErr = goja.Compile("cellhost:web-streams.js", streamsSource, false)
		}
	})
	if preludeErr != nil {
		return fmt.Errorf("compile web prelude: %w", preludeErr)
	}
	st := &state{hostBrand: goja.NewSymbol("cellhost.host"),
		hrefs: map[string]string{}, records: map[string]goja.Value{}, valGET: rt.ToValue("GET"), valPOST: rt.ToValue("POST")}
	console := o.ConsoleFunc
	if console == nil {
		w := o.Console
		if w == nil {
			w = io.Discard
		}
		console = func(_, line string) { _, _ = io.WriteString(w, line+"\n") }
	}
	installSymbols(rt)
	if err := installJSONParse(rt); err != nil {
		return err
	}
	fnv, err := rt.RunProgram(preludeProg)
	if err != nil {
		return fmt.Errorf("run web prelude: %w", err)
	}
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		return errors.New("run web prelude: not a function")
	}
	cache := o.Cache
	if cache == nil {
		cache = defaultCacheStorage
	}
	natives := newNatives(rt, st, console, cache)
	sv, err := rt.RunProgram(streamsProg)
	if err != nil {
		return fmt.Errorf("run web streams: %w", err)
	}
	sfn, _ := goja.AssertFunction(sv)
	streams, err := sfn(goja.Undefined())
	if err != nil {
		return fmt.Errorf("run web streams: %w", err)
	}
	_ = natives.Set("streams", streams)
	res, err := fn(goja.Undefined(), natives)
	if err != nil {
		return fmt.Errorf("run web prelude: %w", err)
	}
	internals := res.ToObject(rt)
	get := func(name string) goja.Callable {
		f, ok := goja.AssertFunction(internals.Get(name))
		if !ok {
			panic("web prelude: missing internal " + name)
		}
		return f
	}
	st.makeRequest = get("makeRequest")
	st.callWithRequest = get("callWithRequest")
	st.exportRequest = get("exportRequest")
	st.requestFrom = get("requestFrom")
	st.makeResponse = get("makeResponse")
	st.exportResponse = get("exportResponse")
	st.cryptoKeyHandle = get("cryptoKeyHandle")
	st.importCryptoKey = get("importCryptoKey")
	st.helpers = internals.Get("helpers").ToObject(rt)
	domException, _ := goja.AssertConstructor(internals.Get("DOMException"))
	if err := jserr.Install(rt, domException); err != nil {
		return err
	}
	if err := clone.InstallWith(rt, st.hostBrand, internals.Get("hostTypes").ToObject(rt)); err != nil {
		return err
	}
	if err := installHeadersClone(rt, internals); err != nil {
		return err
	}
	if err := installBlobClone(rt, internals); err != nil {
		return err
	}
	if err := installHTTPClone(rt, internals); err != nil {
		return err
	}
	return stateKey.Set(rt, st)
}

// installSymbols aliases well-known symbols goja lacks to Symbol.for(...)
// so that esbuild's lowered `for await` and `using` helpers work.
func installSymbols(rt *goja.Runtime) {
	sym := rt.Get("Symbol").ToObject(rt)
	symFor, _ := goja.AssertFunction(sym.Get("for"))
	for _, name := range []string{"asyncIterator", "dispose", "asyncDispose"} {
		if v := sym.Get(name); v != nil && !goja.IsUndefined(v) {
			continue
		}
		s, err := symFor(sym, rt.ToValue("Symbol."+name))
		if err != nil {
			continue
		}
		_ = sym.DefineDataProperty(name, s, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
}

// bytesOf returns the bytes viewed by a Uint8Array (shared, not copied).
func bytesOf(v goja.Value) ([]byte, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	switch b := v.Export().(type) {
	case []byte:
		return b, nil
	case goja.ArrayBuffer:
		return b.Bytes(), nil
	}
	return nil, jserr.TypeError("expected a Uint8Array")
}

func newNatives(rt *goja.Runtime, st *state, console func(level, line string), cache *CacheStorage) *goja.Object {
	n := natives{rt: rt, obj: rt.NewObject()}
	_ = n.obj.Set("hostBrand", st.hostBrand)
	headerNatives(rt, n)
	bridgeNatives(rt, st, n)
	streamNatives(rt, st, n)
	fetchNatives(rt, st, n)
	compressNatives(rt, n)
	encodingNatives(rt, n)
	legacyEncodingNatives(rt, n)
	cryptoNatives(rt, n)
	subtleNatives(rt, n)
	urlNatives(rt, st, n)
	jsonNatives(rt, n)
	consoleNatives(rt, console, n)
	cloneNatives(rt, n)
	statusNatives(rt, n)
	formDataNatives(rt, n)
	cacheNatives(rt, cache, n)
	intlNatives(rt, n)
	htmlRewriterNatives(rt, n)
	return n.obj
}

// natives is the object the prelude receives as `native`: Go functions
// the JS side calls.
type natives struct {
	rt  *goja.Runtime
	obj *goja.Object
}

// set adds a native that cannot fail.
func (n natives) set(name string, f func(goja.FunctionCall) goja.Value) { _ = n.obj.Set(name, f) }

// setE adds a native that reports failure as an error, which JS sees
// thrown (jserr.Func).
func (n natives) setE(name string, f func(goja.FunctionCall) (goja.Value, error)) {
	_ = n.obj.Set(name, jserr.Func(n.rt, f))
}
