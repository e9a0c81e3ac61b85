// Package web implements the Web platform globals a Workers program sees
// on a goja runtime (Request, Response, Headers, URL, TextEncoder, console,
// crypto, events, ...) and the bridge that carries requests and responses
// between Go and JS. It knows nothing of Durable Objects: the compiler
// enforces it, as web imports neither jsapi nor anything of the host.
package web

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/internal/v8json"
	"github.com/cellhost/cellhost/internal/whatwgurl"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// The prelude is one function expression, split by interface into the
// files of js/: begin.js opens it and declares the helpers every part
// uses, end.js returns the internals. Install joins the files in this
// order and compiles them as one script, cellhost:web.js (the parts share
// one scope; line numbers are those of the joined text).
var preludeFiles = []string{
	"begin.js", "domexception.js", "events.js", "abort.js", "encoding.js", "url.js", "headers.js",
	"body.js", "request.js", "response.js", "internals.js", "console.js", "crypto.js", "end.js",
}

//go:embed js/*.js
var preludeFS embed.FS

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
	webPreludeOnce sync.Once
	webPreludeProg *goja.Program
	webPreludeErr  error
)

// Options configures Install.
type Options struct {
	// Console receives one line per console.log/info/warn/error/debug
	// call. nil discards the output. Writes happen on the runtime's
	// goroutine; the writer must not call back into the runtime.
	Console io.Writer
}

// webState is what Install leaves on a runtime for the Go bridge. It is
// reachable from Go through a symbol-keyed global property; JS sees an
// object without properties.
type webState struct {
	hostBrand *goja.Symbol

	makeRequest goja.Callable // (method, url, headerList, goBody|null) → Request
	// (fn, this, method, url, headerList, goBody|null, n, a, b) → fn.call(this, request[, a, b])
	callWithRequest goja.Callable
	exportRequest   goja.Callable // (req): calls native.outRequest
	requestFrom     goja.Callable // (input, init): builds the Request stub.fetch sends, calls native.outRequest
	makeResponse    goja.Callable // (status, statusText|null, headerList, goBody|null, webSocket) → Response
	exportResponse  goja.Callable // (res): calls native.outResponse

	// what native.outRequest/outResponse received (read and cleared by the
	// exporting Go function)
	outReq *HTTPRequest
	outRes *HTTPResponse

	socketOf func(goja.Value) Socket // set by SetSocketOf

	hrefs           map[string]string     // request URL → href (NewRequest)
	records         map[string]goja.Value // URL → record array or null (native.urlParse without base)
	valGET, valPOST goja.Value
}

// webStateKey marks the global property holding a runtime's *webState.
var webStateKey = goja.NewSymbol("cellhost.web")

func webStateOf(rt *goja.Runtime) *webState {
	v := rt.GlobalObject().GetSymbol(webStateKey)
	if v == nil {
		return nil
	}
	st, _ := v.Export().(*webState)
	return st
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
	if webStateOf(rt) != nil {
		return errors.New("install web globals: already installed")
	}
	webPreludeOnce.Do(func() {
		var src string
		if src, webPreludeErr = preludeSource(); webPreludeErr == nil {
			webPreludeProg, webPreludeErr = goja.Compile("cellhost:web.js", src, true)
		}
	})
	if webPreludeErr != nil {
		return fmt.Errorf("compile web prelude: %w", webPreludeErr)
	}
	st := &webState{hostBrand: goja.NewSymbol("cellhost.host"),
		hrefs: map[string]string{}, records: map[string]goja.Value{}, valGET: rt.ToValue("GET"), valPOST: rt.ToValue("POST")}
	console := o.Console
	if console == nil {
		console = io.Discard
	}
	webInstallSymbols(rt)
	if err := webInstallJSONParse(rt); err != nil {
		return err
	}
	fnv, err := rt.RunProgram(webPreludeProg)
	if err != nil {
		return fmt.Errorf("run web prelude: %w", err)
	}
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		return errors.New("run web prelude: not a function")
	}
	natives := webNatives(rt, st, console)
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
	domException, _ := goja.AssertConstructor(internals.Get("DOMException"))
	if err := jserr.Install(rt, domException); err != nil {
		return err
	}
	if err := clone.Install(rt, st.hostBrand); err != nil {
		return err
	}
	return rt.GlobalObject().DefineDataPropertySymbol(webStateKey, rt.ToValue(st), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// webInstallSymbols aliases well-known symbols goja lacks to Symbol.for(...)
// so that esbuild's lowered `for await` and `using` helpers work.
func webInstallSymbols(rt *goja.Runtime) {
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

// webInstallJSONParse wraps JSON.parse so that syntax errors carry V8's
// messages (workerd's output includes them).
func webInstallJSONParse(rt *goja.Runtime) error {
	jsonObj := rt.Get("JSON").ToObject(rt)
	orig, ok := goja.AssertFunction(jsonObj.Get("parse"))
	if !ok {
		return errors.New("install JSON.parse: not a function")
	}
	wrapped := rt.ToValue(func(call goja.FunctionCall) goja.Value {
		v, err := orig(call.This, call.Arguments...)
		if err == nil {
			return v
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			if msg := v8json.Message(webUTF16(call.Argument(0).ToString())); msg != "" {
				panic(jserr.New(rt, "SyntaxError", msg))
			}
			panic(ex)
		}
		panic(err)
	}).ToObject(rt)
	_ = wrapped.DefineDataProperty("name", rt.ToValue("parse"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = wrapped.DefineDataProperty("length", rt.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return jsonObj.DefineDataProperty("parse", wrapped, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// webUTF16 returns the UTF-16 code units of a JS string value.
func webUTF16(v goja.Value) []uint16 {
	if s, ok := v.(goja.String); ok {
		n := s.Length()
		out := make([]uint16, n)
		for i := 0; i < n; i++ {
			out[i] = s.CharAt(i)
		}
		return out
	}
	return utf16.Encode([]rune(v.String()))
}

func webThrow(rt *goja.Runtime, name, msg string) {
	panic(jserr.New(rt, name, msg))
}

// webBytes returns the bytes viewed by a Uint8Array (shared, not copied).
func webBytes(rt *goja.Runtime, v goja.Value) []byte {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil
	}
	switch b := v.Export().(type) {
	case []byte:
		return b
	case goja.ArrayBuffer:
		return b.Bytes()
	}
	webThrow(rt, "TypeError", "expected a Uint8Array")
	return nil
}

func webNatives(rt *goja.Runtime, st *webState, console io.Writer) *goja.Object {
	n := rt.NewObject()
	set := func(name string, f func(goja.FunctionCall) goja.Value) {
		_ = n.Set(name, f)
	}
	_ = n.Set("hostBrand", st.hostBrand)
	webHeaderNatives(rt, n)
	webBridgeNatives(rt, st, n)
	// utf8Encode(str) → ArrayBuffer
	set("utf8Encode", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(rt.NewArrayBuffer([]byte(c.Argument(0).String())))
	})
	// encodeInto(str, u8) → [read, written]
	set("encodeInto", func(c goja.FunctionCall) goja.Value {
		s := c.Argument(0).String()
		dst := webBytes(rt, c.Argument(1))
		read, written := 0, 0
		for _, r := range s {
			n := utf8.RuneLen(r)
			if n < 0 {
				n = 3
				r = utf8.RuneError
			}
			if written+n > len(dst) {
				break
			}
			utf8.EncodeRune(dst[written:], r)
			written += n
			if r > 0xffff {
				read += 2
			} else {
				read++
			}
		}
		return rt.NewArray(read, written)
	})
	// decode(u8, encoding, fatal, ignoreBOM) → string
	// (bodies also pass a string, which stands for its UTF-8 encoding, or a Go body)
	set("decode", func(c goja.FunctionCall) goja.Value {
		enc := c.Argument(1).String()
		fatal := c.Argument(2).ToBoolean()
		ignoreBOM := c.Argument(3).ToBoolean()
		if s, ok := c.Argument(0).(goja.String); ok && enc == "utf-8" {
			return webDecodeString(rt, s, ignoreBOM)
		}
		b := webBodySource(rt, c.Argument(0))
		switch enc {
		case "utf-8":
			if !ignoreBOM && len(b) >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf {
				b = b[3:]
			}
			s, ok := whatwgurl.UTF8Decode(b, fatal)
			if !ok {
				webThrow(rt, "TypeError", "Failed to decode input.")
			}
			return rt.ToValue(s)
		case "utf-16le", "utf-16be":
			units := make([]uint16, 0, len(b)/2+1)
			for i := 0; i+1 < len(b); i += 2 {
				if enc == "utf-16le" {
					units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
				} else {
					units = append(units, uint16(b[i])<<8|uint16(b[i+1]))
				}
			}
			if len(b)%2 == 1 {
				if fatal {
					webThrow(rt, "TypeError", "Failed to decode input.")
				}
				units = append(units, 0xfffd)
			}
			if !ignoreBOM && len(units) > 0 && units[0] == 0xfeff {
				units = units[1:]
			}
			return goja.StringFromUTF16(units)
		default: // windows-1252: workerd decodes it as Latin-1
			units := make([]uint16, len(b))
			for i, x := range b {
				units[i] = uint16(x)
			}
			return goja.StringFromUTF16(units)
		}
	})
	set("btoa", func(c goja.FunctionCall) goja.Value {
		if len(c.Arguments) == 0 {
			webThrow(rt, "TypeError", "Failed to execute 'btoa' on 'WorkerGlobalScope': 1 argument required, but only 0 present.")
		}
		units := webUTF16(c.Argument(0).ToString())
		b := make([]byte, len(units))
		for i, u := range units {
			if u > 0xff {
				webThrow(rt, "InvalidCharacterError", "btoa() can only operate on characters in the Latin1 (ISO/IEC 8859-1) range.")
			}
			b[i] = byte(u)
		}
		return rt.ToValue(base64.StdEncoding.EncodeToString(b))
	})
	set("atob", func(c goja.FunctionCall) goja.Value {
		if len(c.Arguments) == 0 {
			webThrow(rt, "TypeError", "Failed to execute 'atob' on 'WorkerGlobalScope': 1 argument required, but only 0 present.")
		}
		b, ok := webForgivingBase64(c.Argument(0).String())
		if !ok {
			webThrow(rt, "InvalidCharacterError", "atob() called with invalid base64-encoded data. (Only whitespace, '+', '/', alphanumeric ASCII, and up to two terminal '=' signs when the input data length is divisible by 4 are allowed.)")
		}
		units := make([]uint16, len(b))
		for i, x := range b {
			units[i] = uint16(x)
		}
		return goja.StringFromUTF16(units)
	})
	set("randomUUID", func(goja.FunctionCall) goja.Value {
		var b [16]byte
		_, _ = rand.Read(b[:])
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		const hx = "0123456789abcdef"
		out := make([]byte, 0, 36)
		for i, x := range b {
			if i == 4 || i == 6 || i == 8 || i == 10 {
				out = append(out, '-')
			}
			out = append(out, hx[x>>4], hx[x&15])
		}
		return rt.ToValue(string(out))
	})
	// fillRandom(u8) fills the bytes in place.
	set("fillRandom", func(c goja.FunctionCall) goja.Value {
		_, _ = rand.Read(webBytes(rt, c.Argument(0)))
		return goja.Undefined()
	})
	// whatwgurl.Parse(input, baseHref|undefined) → record array or null
	set("urlParse", func(c goja.FunctionCall) goja.Value {
		if goja.IsUndefined(c.Argument(1)) {
			return st.urlRecord(rt, c.Argument(0).String())
		}
		var base *whatwgurl.URL
		if b := c.Argument(1); !goja.IsUndefined(b) {
			bu, err := whatwgurl.Parse(b.String(), nil)
			if err != nil {
				return goja.Null()
			}
			base = bu
		}
		u, err := whatwgurl.Parse(c.Argument(0).String(), base)
		if err != nil {
			return goja.Null()
		}
		return webURLRecord(rt, u)
	})
	// urlSet(href, component, value) → record array (unchanged on failure)
	set("urlSet", func(c goja.FunctionCall) goja.Value {
		u, err := whatwgurl.Parse(c.Argument(0).String(), nil)
		if err != nil {
			return goja.Null()
		}
		nu := whatwgurl.SetComponent(u, c.Argument(1).String(), c.Argument(2).String())
		if nu == nil {
			return goja.Null()
		}
		return webURLRecord(rt, nu)
	})
	set("domainToASCII", func(c goja.FunctionCall) goja.Value {
		h, err := whatwgurl.ParseHost(c.Argument(0).String(), false)
		if err != nil {
			return rt.ToValue("")
		}
		return rt.ToValue(h)
	})
	// formParse(str) → flat [k, v, ...]
	set("formParse", func(c goja.FunctionCall) goja.Value {
		pairs := whatwgurl.ParseForm(c.Argument(0).String())
		out := make([]interface{}, len(pairs))
		for i, p := range pairs {
			out[i] = p
		}
		return rt.NewArray(out...)
	})
	// formGet(str, name) → the first value of name, null, or undefined when
	// name is not ASCII (the caller then compares UTF-16 names itself)
	set("formGet", func(c goja.FunctionCall) goja.Value {
		name := c.Argument(1).String()
		for i := 0; i < len(name); i++ {
			if name[i] >= 0x80 {
				return goja.Undefined()
			}
		}
		pairs := whatwgurl.ParseForm(c.Argument(0).String())
		for i := 0; i+1 < len(pairs); i += 2 {
			if pairs[i] == name {
				return rt.ToValue(pairs[i+1])
			}
		}
		return goja.Null()
	})
	// formSerialize(flat [k, v, ...]) → string
	set("formSerialize", func(c goja.FunctionCall) goja.Value {
		arr := c.Argument(0).ToObject(rt)
		n := int(arr.Get("length").ToInteger())
		var b strings.Builder
		for i := 0; i+1 < n; i += 2 {
			if i > 0 {
				b.WriteByte('&')
			}
			whatwgurl.WriteFormEncoded(&b, arr.Get(strconv.Itoa(i)).String())
			b.WriteByte('=')
			whatwgurl.WriteFormEncoded(&b, arr.Get(strconv.Itoa(i+1)).String())
		}
		return rt.ToValue(b.String())
	})
	// jsonError(text) → V8's JSON.parse error message or ""
	set("jsonError", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(v8json.Message(webUTF16(c.Argument(0).ToString())))
	})
	set("consoleWrite", func(c goja.FunctionCall) goja.Value {
		_, _ = io.WriteString(console, c.Argument(0).String()+"\n")
		return goja.Undefined()
	})
	set("digest", func(c goja.FunctionCall) goja.Value {
		out, ok := webDigest(c.Argument(0).String(), webBytes(rt, c.Argument(1)))
		if !ok {
			webThrow(rt, "NotSupportedError", "Unrecognized or unimplemented digest algorithm requested.")
		}
		return rt.ToValue(rt.NewArrayBuffer(out))
	})
	set("structuredClone", func(c goja.FunctionCall) goja.Value {
		b, err := clone.Serialize(rt, c.Argument(0))
		if err != nil {
			webPanicErr(rt, err)
		}
		v, err := clone.Deserialize(rt, b)
		if err != nil {
			webPanicErr(rt, err)
		}
		return v
	})
	return n
}

// webPanicErr rethrows err inside a Go function called from JS.
func webPanicErr(rt *goja.Runtime, err error) {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex)
	}
	var ce *clone.Error
	if errors.As(err, &ce) {
		panic(jserr.New(rt, ce.Name, ce.Message))
	}
	panic(jserr.New(rt, "Error", err.Error()))
}

func webURLRecord(rt *goja.Runtime, u *whatwgurl.URL) goja.Value {
	query := goja.Null()
	if q, ok := u.Query(); ok {
		query = rt.ToValue(q)
	}
	return rt.NewArray(u.Href(), u.Protocol(), u.Username(), u.Password(), u.Host(), u.Hostname(), u.Port(),
		u.Pathname(), u.Search(), u.Hash(), u.Origin(), query)
}

// webForgivingBase64 implements https://infra.spec.whatwg.org/#forgiving-base64-decode.
func webForgivingBase64(s string) ([]byte, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n', '\f', '\r':
		default:
			b = append(b, c)
		}
	}
	if len(b)%4 == 0 && len(b) > 0 {
		if b[len(b)-1] == '=' {
			b = b[:len(b)-1]
			if b[len(b)-1] == '=' {
				b = b[:len(b)-1]
			}
		}
	}
	if len(b)%4 == 1 {
		return nil, false
	}
	for _, c := range b {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/') {
			return nil, false
		}
	}
	out, err := base64.RawStdEncoding.DecodeString(string(b))
	if err != nil {
		// Non-zero padding bits are allowed by the forgiving decoder.
		out, err = base64.RawStdEncoding.WithPadding(base64.NoPadding).Strict().DecodeString(string(b))
		if err != nil {
			return webBase64Lenient(b), true
		}
	}
	return out, true
}

func webBase64Lenient(b []byte) []byte {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	var acc uint32
	bits := 0
	out := make([]byte, 0, len(b)*3/4)
	for _, c := range b {
		acc = acc<<6 | uint32(strings.IndexByte(alpha, c))
		bits += 6
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>uint(bits)))
		}
	}
	return out
}

// webDigest implements crypto.subtle.digest's hash step.
func webDigest(name string, data []byte) ([]byte, bool) {
	var h hash.Hash
	switch name {
	case "SHA-1":
		h = sha1.New()
	case "SHA-256":
		h = sha256.New()
	case "SHA-384":
		h = sha512.New384()
	case "SHA-512":
		h = sha512.New()
	case "MD5":
		h = md5.New()
	default:
		return nil, false
	}
	h.Write(data)
	return h.Sum(nil), true
}
