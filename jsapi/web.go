// Package jsapi implements the JavaScript API a Durable Object program sees
// on a goja runtime: web platform globals, the Request/Response bridge to
// Go, structured clone, module loading and the DurableObject classes.
package jsapi

import (
	"crypto/md5"
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
	"golang.org/x/net/idna"
)

//go:embed web.js
var webPreludeSource string

var (
	webPreludeOnce sync.Once
	webPreludeProg *goja.Program
	webPreludeErr  error
)

// WebOptions configures InstallWeb.
type WebOptions struct {
	// Console receives one line per console.log/info/warn/error/debug
	// call. nil discards the output. Writes happen on the runtime's
	// goroutine; the writer must not call back into the runtime.
	Console io.Writer
}

// webState is what InstallWeb leaves on a runtime for the Go bridge. It is
// reachable from Go through a symbol-keyed global property; JS sees an
// object without properties.
type webState struct {
	domException goja.Constructor
	errorCtors   map[string]goja.Constructor
	hostBrand    *goja.Symbol

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

	hrefs           map[string]string     // request URL → href (NewRequest)
	records         map[string]goja.Value // URL → record array or null (native.urlParse without base)
	valGET, valPOST goja.Value

	clone *cloneIntrinsics
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

// InstallWeb installs the web platform globals a Workers program expects on
// a fresh runtime: Headers, Request, Response, URL, URLSearchParams,
// TextEncoder, TextDecoder, atob, btoa, console, structuredClone,
// queueMicrotask, crypto (randomUUID, getRandomValues), Event, EventTarget,
// AbortController, AbortSignal and DOMException. It also makes JSON.parse
// report V8's error messages and aliases Symbol.asyncIterator,
// Symbol.dispose and Symbol.asyncDispose to Symbol.for(...) when absent.
// Timers are not installed here (the event loop owns them).
//
// Call it once per runtime, on the runtime's goroutine, before user code.
func InstallWeb(rt *goja.Runtime, o WebOptions) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("install web globals: %v", r)
		}
	}()
	if webStateOf(rt) != nil {
		return errors.New("install web globals: already installed")
	}
	webPreludeOnce.Do(func() {
		webPreludeProg, webPreludeErr = goja.Compile("cellhost:web.js", webPreludeSource, true)
	})
	if webPreludeErr != nil {
		return fmt.Errorf("compile web prelude: %w", webPreludeErr)
	}
	st := &webState{hostBrand: goja.NewSymbol("cellhost.host"), errorCtors: map[string]goja.Constructor{},
		hrefs: map[string]string{}, records: map[string]goja.Value{}, valGET: rt.ToValue("GET"), valPOST: rt.ToValue("POST")}
	for name := range errBuiltinNames {
		if c, ok := goja.AssertConstructor(rt.Get(name)); ok {
			st.errorCtors[name] = c
		}
	}
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
	if c, ok := goja.AssertConstructor(internals.Get("DOMException")); ok {
		st.domException = c
	}
	ci, err := newCloneIntrinsics(rt, st.hostBrand)
	if err != nil {
		return err
	}
	st.clone = ci
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
			if msg := v8JSONError(webUTF16(call.Argument(0).ToString())); msg != "" {
				panic(NewError(rt, "SyntaxError", msg))
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
	panic(NewError(rt, name, msg))
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
			s, ok := webUTF8Decode(b, fatal)
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
	// urlParse(input, baseHref|undefined) → record array or null
	set("urlParse", func(c goja.FunctionCall) goja.Value {
		if goja.IsUndefined(c.Argument(1)) {
			return st.urlRecord(rt, c.Argument(0).String())
		}
		var base *webURL
		if b := c.Argument(1); !goja.IsUndefined(b) {
			bu, err := urlParse(b.String(), nil)
			if err != nil {
				return goja.Null()
			}
			base = bu
		}
		u, err := urlParse(c.Argument(0).String(), base)
		if err != nil {
			return goja.Null()
		}
		return webURLRecord(rt, u)
	})
	// urlSet(href, component, value) → record array (unchanged on failure)
	set("urlSet", func(c goja.FunctionCall) goja.Value {
		u, err := urlParse(c.Argument(0).String(), nil)
		if err != nil {
			return goja.Null()
		}
		nu := urlSetComponent(u, c.Argument(1).String(), c.Argument(2).String())
		if nu == nil {
			return goja.Null()
		}
		return webURLRecord(rt, nu)
	})
	set("domainToASCII", func(c goja.FunctionCall) goja.Value {
		h, err := urlParseHost(c.Argument(0).String(), false)
		if err != nil {
			return rt.ToValue("")
		}
		return rt.ToValue(h)
	})
	// formParse(str) → flat [k, v, ...]
	set("formParse", func(c goja.FunctionCall) goja.Value {
		pairs := webFormParse(c.Argument(0).String())
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
		pairs := webFormParse(c.Argument(0).String())
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
			webFormEncode(&b, arr.Get(strconv.Itoa(i)).String())
			b.WriteByte('=')
			webFormEncode(&b, arr.Get(strconv.Itoa(i+1)).String())
		}
		return rt.ToValue(b.String())
	})
	// jsonError(text) → V8's JSON.parse error message or ""
	set("jsonError", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(v8JSONError(webUTF16(c.Argument(0).ToString())))
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
		b, err := Serialize(rt, c.Argument(0))
		if err != nil {
			webPanicErr(rt, err)
		}
		v, err := Deserialize(rt, b)
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
	var ce *CloneError
	if errors.As(err, &ce) {
		panic(NewError(rt, ce.Name, ce.Message))
	}
	panic(NewError(rt, "Error", err.Error()))
}

func webURLRecord(rt *goja.Runtime, u *webURL) goja.Value {
	port := ""
	if u.port >= 0 {
		port = strconv.Itoa(u.port)
	}
	host, hostname := "", ""
	if u.host != nil {
		host = u.hostString()
		hostname = *u.host
	}
	search := ""
	if u.query != nil && *u.query != "" {
		search = "?" + *u.query
	}
	hash := ""
	if u.fragment != nil && *u.fragment != "" {
		hash = "#" + *u.fragment
	}
	query := goja.Null()
	if u.query != nil {
		query = rt.ToValue(*u.query)
	}
	return rt.NewArray(u.href(false), u.scheme+":", u.username, u.password, host, hostname, port,
		u.pathString(), search, hash, u.origin(), query)
}

// urlSetComponent applies a URL setter (https://url.spec.whatwg.org/#urlutils-members)
// to a copy of u. It returns nil when the href setter fails (a TypeError).
func urlSetComponent(u *webURL, name, value string) *webURL {
	c := u.clone()
	switch name {
	case "href":
		nu, err := urlParse(value, nil)
		if err != nil {
			return nil
		}
		return nu
	case "protocol":
		if r, err := urlBasicParse(value+":", nil, c, usSchemeStart); err == nil && r != nil {
			return r
		}
		return u
	case "username":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		c.username = urlPercentEncodeString(value, urlInUserinfoSet)
		return c
	case "password":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		c.password = urlPercentEncodeString(value, urlInUserinfoSet)
		return c
	case "host", "hostname":
		if c.opaque {
			return u
		}
		st := usHost
		if name == "hostname" {
			st = usHostname
		}
		if r, err := urlBasicParse(value, nil, c, st); err == nil && r != nil {
			return r
		}
		return u
	case "port":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		if value == "" {
			c.port = -1
			return c
		}
		if r, err := urlBasicParse(value, nil, c, usPort); err == nil && r != nil {
			return r
		}
		return u
	case "pathname":
		if c.opaque {
			return u
		}
		c.path = nil
		if r, err := urlBasicParse(value, nil, c, usPathStart); err == nil && r != nil {
			return r
		}
		return u
	case "search":
		if value == "" {
			c.query = nil
			return c
		}
		value = strings.TrimPrefix(value, "?")
		e := ""
		c.query = &e
		if r, err := urlBasicParse(value, nil, c, usQuery); err == nil && r != nil {
			return r
		}
		return u
	case "hash":
		if value == "" {
			c.fragment = nil
			return c
		}
		value = strings.TrimPrefix(value, "#")
		e := ""
		c.fragment = &e
		if r, err := urlBasicParse(value, nil, c, usFragment); err == nil && r != nil {
			return r
		}
		return u
	}
	return u
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

// webUTF8Decode decodes UTF-8 as the WHATWG Encoding standard does: each
// maximal invalid subpart becomes U+FFFD (or ok=false when fatal).
func webUTF8Decode(b []byte, fatal bool) (string, bool) {
	if utf8.Valid(b) {
		return string(b), true
	}
	if fatal {
		return "", false
	}
	var out strings.Builder
	out.Grow(len(b) + 8)
	needed, seen := 0, 0
	var cp rune
	lower, upper := byte(0x80), byte(0xbf)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if needed == 0 {
			switch {
			case c <= 0x7f:
				out.WriteByte(c)
			case c >= 0xc2 && c <= 0xdf:
				needed, cp = 1, rune(c&0x1f)
			case c >= 0xe0 && c <= 0xef:
				if c == 0xe0 {
					lower = 0xa0
				}
				if c == 0xed {
					upper = 0x9f
				}
				needed, cp = 2, rune(c&0xf)
			case c >= 0xf0 && c <= 0xf4:
				if c == 0xf0 {
					lower = 0x90
				}
				if c == 0xf4 {
					upper = 0x8f
				}
				needed, cp = 3, rune(c&7)
			default:
				out.WriteRune(utf8.RuneError)
			}
			continue
		}
		if c < lower || c > upper {
			needed, seen, cp, lower, upper = 0, 0, 0, 0x80, 0xbf
			out.WriteRune(utf8.RuneError)
			i--
			continue
		}
		lower, upper = 0x80, 0xbf
		cp = cp<<6 | rune(c&0x3f)
		seen++
		if seen == needed {
			out.WriteRune(cp)
			needed, seen, cp = 0, 0, 0
		}
	}
	if needed != 0 {
		out.WriteRune(utf8.RuneError)
	}
	return out.String(), true
}

func webUTF8DecodeNoBOM(b []byte) string {
	s, _ := webUTF8Decode(b, false)
	return s
}

func webFormParse(s string) []string {
	var out []string
	for _, seq := range strings.Split(s, "&") {
		if seq == "" {
			continue
		}
		name, value := seq, ""
		if i := strings.IndexByte(seq, '='); i >= 0 {
			name, value = seq[:i], seq[i+1:]
		}
		name = strings.ReplaceAll(name, "+", " ")
		value = strings.ReplaceAll(value, "+", " ")
		out = append(out, webUTF8DecodeNoBOM(urlPercentDecode(name)), webUTF8DecodeNoBOM(urlPercentDecode(value)))
	}
	return out
}

func webFormEncode(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(urlHex[c>>4])
			b.WriteByte(urlHex[c&15])
		}
	}
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

// ---------------------------------------------------------------------------
// WHATWG URL parser (https://url.spec.whatwg.org/), as used by workerd (ada).

// webURL is a parsed URL record.
type webURL struct {
	scheme   string
	username string
	password string
	host     *string // nil = null host
	port     int     // -1 = null
	opaque   bool    // path is opaque (cannot-be-a-base-URL)
	path     []string
	opath    string
	query    *string
	fragment *string
}

func (u *webURL) clone() *webURL {
	c := *u
	c.path = append([]string(nil), u.path...)
	return &c
}

var webSpecialPorts = map[string]int{"ftp": 21, "file": -1, "http": 80, "https": 443, "ws": 80, "wss": 443}

func (u *webURL) special() bool { _, ok := webSpecialPorts[u.scheme]; return ok }

func urlIsSpecialScheme(s string) bool { _, ok := webSpecialPorts[s]; return ok }

func (u *webURL) includesCredentials() bool { return u.username != "" || u.password != "" }

func (u *webURL) pathString() string {
	if u.opaque {
		return u.opath
	}
	var b strings.Builder
	for _, seg := range u.path {
		b.WriteByte('/')
		b.WriteString(seg)
	}
	return b.String()
}

func (u *webURL) hostString() string {
	if u.host == nil {
		return ""
	}
	if u.port >= 0 {
		return *u.host + ":" + strconv.Itoa(u.port)
	}
	return *u.host
}

func (u *webURL) href(excludeFragment bool) string {
	var b strings.Builder
	b.WriteString(u.scheme)
	b.WriteByte(':')
	if u.host != nil {
		b.WriteString("//")
		if u.includesCredentials() {
			b.WriteString(u.username)
			if u.password != "" {
				b.WriteByte(':')
				b.WriteString(u.password)
			}
			b.WriteByte('@')
		}
		b.WriteString(u.hostString())
	} else if !u.opaque && len(u.path) > 1 && u.path[0] == "" {
		b.WriteString("/.")
	}
	b.WriteString(u.pathString())
	if u.query != nil {
		b.WriteByte('?')
		b.WriteString(*u.query)
	}
	if !excludeFragment && u.fragment != nil {
		b.WriteByte('#')
		b.WriteString(*u.fragment)
	}
	return b.String()
}

func (u *webURL) origin() string {
	switch u.scheme {
	case "blob":
		if u.opaque || len(u.path) > 0 {
			if inner, err := urlParse(u.pathString(), nil); err == nil && (inner.scheme == "http" || inner.scheme == "https") {
				return inner.origin()
			}
		}
		return "null"
	case "ftp", "http", "https", "ws", "wss":
		return u.scheme + "://" + u.hostString()
	}
	return "null"
}

// percent-encode sets
func urlInC0(c rune) bool { return c < 0x20 || c > 0x7e }
func urlInFragmentSet(c rune) bool {
	return urlInC0(c) || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`'
}
func urlInQuerySet(c rune) bool {
	return urlInC0(c) || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>'
}
func urlInSpecialQuerySet(c rune) bool { return urlInQuerySet(c) || c == '\'' }
func urlInPathSet(c rune) bool {
	return urlInQuerySet(c) || c == '?' || c == '`' || c == '{' || c == '}'
}
func urlInUserinfoSet(c rune) bool {
	return urlInPathSet(c) || c == '/' || c == ':' || c == ';' || c == '=' || c == '@' || (c >= '[' && c <= '^') || c == '|'
}
func urlInComponentSet(c rune) bool {
	return urlInUserinfoSet(c) || (c >= '$' && c <= '&') || c == '+' || c == ','
}
func urlInFormSet(c rune) bool {
	return urlInComponentSet(c) || c == '!' || (c >= '\'' && c <= ')') || c == '~'
}

const urlHex = "0123456789ABCDEF"

func urlPercentEncodeRune(b *strings.Builder, c rune, set func(rune) bool) {
	if !set(c) {
		b.WriteRune(c)
		return
	}
	var buf [4]byte
	n := utf8.EncodeRune(buf[:], c)
	for i := 0; i < n; i++ {
		b.WriteByte('%')
		b.WriteByte(urlHex[buf[i]>>4])
		b.WriteByte(urlHex[buf[i]&15])
	}
}

func urlPercentEncodeString(s string, set func(rune) bool) string {
	var b strings.Builder
	for _, c := range s {
		urlPercentEncodeRune(&b, c, set)
	}
	return b.String()
}

func urlIsHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func urlUnhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// urlPercentDecode percent-decodes a byte sequence.
func urlPercentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && urlIsHex(s[i+1]) && urlIsHex(s[i+2]) {
			out = append(out, urlUnhex(s[i+1])<<4|urlUnhex(s[i+2]))
			i += 2
			continue
		}
		out = append(out, c)
	}
	return out
}

var errURLInvalid = errors.New("invalid URL")

func urlIsASCIIAlpha(c rune) bool       { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func urlIsASCIIDigit(c rune) bool       { return c >= '0' && c <= '9' }
func urlIsASCIIAlnum(c rune) bool       { return urlIsASCIIAlpha(c) || urlIsASCIIDigit(c) }
func urlIsWindowsLetter(a, b rune) bool { return urlIsASCIIAlpha(a) && (b == ':' || b == '|') }

func urlStartsWithWindowsDriveLetter(cs []rune, p int) bool {
	if len(cs)-p < 2 || !urlIsASCIIAlpha(cs[p]) || (cs[p+1] != ':' && cs[p+1] != '|') {
		return false
	}
	if len(cs)-p == 2 {
		return true
	}
	switch cs[p+2] {
	case '/', '\\', '?', '#':
		return true
	}
	return false
}

func urlIsNormalizedWindowsDriveLetter(s string) bool {
	return len(s) == 2 && urlIsASCIIAlpha(rune(s[0])) && s[1] == ':'
}

func urlIsSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func urlIsDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func (u *webURL) shortenPath() {
	if u.scheme == "file" && len(u.path) == 1 && urlIsNormalizedWindowsDriveLetter(u.path[0]) {
		return
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
}

type urlState int

const (
	usSchemeStart urlState = iota
	usScheme
	usNoScheme
	usSpecialRelativeOrAuthority
	usPathOrAuthority
	usRelative
	usRelativeSlash
	usSpecialAuthoritySlashes
	usSpecialAuthorityIgnoreSlashes
	usAuthority
	usHost
	usHostname
	usPort
	usFile
	usFileSlash
	usFileHost
	usPathStart
	usPath
	usOpaquePath
	usQuery
	usFragment
	usNone
)

// urlParse runs the basic URL parser on input against an optional base.
func urlParse(input string, base *webURL) (*webURL, error) {
	return urlBasicParse(input, base, nil, usNone)
}

// urlTrim removes leading/trailing C0 control or space.
func urlTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
}

func urlRemoveTabNewline(s string) string {
	if !strings.ContainsAny(s, "\t\n\r") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

func urlBasicParse(input string, base *webURL, url *webURL, override urlState) (*webURL, error) {
	if url == nil {
		url = &webURL{port: -1}
		input = urlTrim(input)
	}
	input = urlRemoveTabNewline(input)
	state := usSchemeStart
	if override != usNone {
		state = override
	}
	cs := []rune(input)
	var buf strings.Builder
	atSign, insideBrackets, passwordTokenSeen := false, false, false
	const eof = rune(-1)
	for p := 0; p <= len(cs); p++ {
		c := eof
		if p < len(cs) {
			c = cs[p]
		}
		remaining := func(i int) rune {
			if p+i < len(cs) {
				return cs[p+i]
			}
			return eof
		}
		switch state {
		case usSchemeStart:
			if c != eof && urlIsASCIIAlpha(c) {
				buf.WriteRune(unicode.ToLower(c))
				state = usScheme
			} else if override == usNone {
				state = usNoScheme
				p--
			} else {
				return nil, errURLInvalid
			}
		case usScheme:
			if c != eof && (urlIsASCIIAlnum(c) || c == '+' || c == '-' || c == '.') {
				buf.WriteRune(unicode.ToLower(c))
			} else if c == ':' {
				nb := buf.String()
				if override != usNone {
					if urlIsSpecialScheme(url.scheme) != urlIsSpecialScheme(nb) {
						return url, nil
					}
					if (url.includesCredentials() || url.port >= 0) && nb == "file" {
						return url, nil
					}
					if url.scheme == "file" && url.host != nil && *url.host == "" {
						return url, nil
					}
				}
				url.scheme = nb
				if override != usNone {
					if dp, ok := webSpecialPorts[url.scheme]; ok && dp == url.port {
						url.port = -1
					}
					return url, nil
				}
				buf.Reset()
				if url.scheme == "file" {
					state = usFile
				} else if url.special() && base != nil && base.scheme == url.scheme {
					state = usSpecialRelativeOrAuthority
				} else if url.special() {
					state = usSpecialAuthoritySlashes
				} else if remaining(1) == '/' {
					state = usPathOrAuthority
					p++
				} else {
					url.opaque = true
					url.opath = ""
					state = usOpaquePath
				}
			} else if override == usNone {
				buf.Reset()
				state = usNoScheme
				p = -1
			} else {
				return nil, errURLInvalid
			}
		case usNoScheme:
			if base == nil || (base.opaque && c != '#') {
				return nil, errURLInvalid
			} else if base.opaque && c == '#' {
				url.scheme = base.scheme
				url.opaque = true
				url.opath = base.opath
				url.query = base.query
				e := ""
				url.fragment = &e
				state = usFragment
			} else if base.scheme != "file" {
				state = usRelative
				p--
			} else {
				state = usFile
				p--
			}
		case usSpecialRelativeOrAuthority:
			if c == '/' && remaining(1) == '/' {
				state = usSpecialAuthorityIgnoreSlashes
				p++
			} else {
				state = usRelative
				p--
			}
		case usPathOrAuthority:
			if c == '/' {
				state = usAuthority
			} else {
				state = usPath
				p--
			}
		case usRelative:
			url.scheme = base.scheme
			if c == '/' {
				state = usRelativeSlash
			} else if url.special() && c == '\\' {
				state = usRelativeSlash
			} else {
				url.username, url.password, url.host, url.port = base.username, base.password, base.host, base.port
				url.path = append([]string(nil), base.path...)
				url.query = base.query
				if c == '?' {
					e := ""
					url.query = &e
					state = usQuery
				} else if c == '#' {
					e := ""
					url.fragment = &e
					state = usFragment
				} else if c != eof {
					url.query = nil
					url.shortenPath()
					state = usPath
					p--
				}
			}
		case usRelativeSlash:
			if url.special() && (c == '/' || c == '\\') {
				state = usSpecialAuthorityIgnoreSlashes
			} else if c == '/' {
				state = usAuthority
			} else {
				url.username, url.password, url.host, url.port = base.username, base.password, base.host, base.port
				state = usPath
				p--
			}
		case usSpecialAuthoritySlashes:
			if c == '/' && remaining(1) == '/' {
				state = usSpecialAuthorityIgnoreSlashes
				p++
			} else {
				state = usSpecialAuthorityIgnoreSlashes
				p--
			}
		case usSpecialAuthorityIgnoreSlashes:
			if c != '/' && c != '\\' {
				state = usAuthority
				p--
			}
		case usAuthority:
			if c == '@' {
				if atSign {
					s := "%40" + buf.String()
					buf.Reset()
					buf.WriteString(s)
				}
				atSign = true
				for _, bc := range buf.String() {
					if bc == ':' && !passwordTokenSeen {
						passwordTokenSeen = true
						continue
					}
					var eb strings.Builder
					urlPercentEncodeRune(&eb, bc, urlInUserinfoSet)
					if passwordTokenSeen {
						url.password += eb.String()
					} else {
						url.username += eb.String()
					}
				}
				buf.Reset()
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				if atSign && buf.Len() == 0 {
					return nil, errURLInvalid
				}
				p -= len([]rune(buf.String())) + 1
				buf.Reset()
				state = usHost
			} else {
				buf.WriteRune(c)
			}
		case usHost, usHostname:
			if override != usNone && url.scheme == "file" {
				p--
				state = usFileHost
			} else if c == ':' && !insideBrackets {
				if buf.Len() == 0 {
					return nil, errURLInvalid
				}
				if override == usHostname {
					return nil, errURLInvalid
				}
				h, err := urlParseHost(buf.String(), !url.special())
				if err != nil {
					return nil, err
				}
				url.host = &h
				buf.Reset()
				state = usPort
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				p--
				if url.special() && buf.Len() == 0 {
					return nil, errURLInvalid
				} else if override != usNone && buf.Len() == 0 && (url.includesCredentials() || url.port >= 0) {
					return nil, errURLInvalid
				}
				h, err := urlParseHost(buf.String(), !url.special())
				if err != nil {
					return nil, err
				}
				url.host = &h
				buf.Reset()
				state = usPathStart
				if override != usNone {
					return url, nil
				}
			} else {
				if c == '[' {
					insideBrackets = true
				}
				if c == ']' {
					insideBrackets = false
				}
				buf.WriteRune(c)
			}
		case usPort:
			if c != eof && urlIsASCIIDigit(c) {
				buf.WriteRune(c)
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') || override != usNone {
				if buf.Len() != 0 {
					n, err := strconv.Atoi(buf.String())
					if err != nil || n > 65535 {
						return nil, errURLInvalid
					}
					if dp, ok := webSpecialPorts[url.scheme]; ok && dp == n {
						url.port = -1
					} else {
						url.port = n
					}
					buf.Reset()
					if override != usNone {
						return url, nil
					}
				}
				if override != usNone {
					return nil, errURLInvalid
				}
				state = usPathStart
				p--
			} else {
				return nil, errURLInvalid
			}
		case usFile:
			url.scheme = "file"
			e := ""
			url.host = &e
			if c == '/' || c == '\\' {
				state = usFileSlash
			} else if base != nil && base.scheme == "file" {
				url.host = base.host
				url.path = append([]string(nil), base.path...)
				url.query = base.query
				if c == '?' {
					q := ""
					url.query = &q
					state = usQuery
				} else if c == '#' {
					f := ""
					url.fragment = &f
					state = usFragment
				} else if c != eof {
					url.query = nil
					if !urlStartsWithWindowsDriveLetter(cs, p) {
						url.shortenPath()
					} else {
						url.path = nil
					}
					state = usPath
					p--
				}
			} else {
				state = usPath
				p--
			}
		case usFileSlash:
			if c == '/' || c == '\\' {
				state = usFileHost
			} else {
				if base != nil && base.scheme == "file" {
					url.host = base.host
					if !urlStartsWithWindowsDriveLetter(cs, p) && len(base.path) > 0 && urlIsNormalizedWindowsDriveLetter(base.path[0]) {
						url.path = append(url.path, base.path[0])
					}
				}
				state = usPath
				p--
			}
		case usFileHost:
			if c == eof || c == '/' || c == '\\' || c == '?' || c == '#' {
				p--
				bs := buf.String()
				br := []rune(bs)
				if override == usNone && len(br) == 2 && urlIsWindowsLetter(br[0], br[1]) {
					state = usPath
				} else if bs == "" {
					e := ""
					url.host = &e
					if override != usNone {
						return url, nil
					}
					state = usPathStart
				} else {
					h, err := urlParseHost(bs, !url.special())
					if err != nil {
						return nil, err
					}
					if h == "localhost" {
						h = ""
					}
					url.host = &h
					if override != usNone {
						return url, nil
					}
					buf.Reset()
					state = usPathStart
				}
			} else {
				buf.WriteRune(c)
			}
		case usPathStart:
			if url.special() {
				state = usPath
				if c != '/' && c != '\\' {
					p--
				}
			} else if override == usNone && c == '?' {
				q := ""
				url.query = &q
				state = usQuery
			} else if override == usNone && c == '#' {
				f := ""
				url.fragment = &f
				state = usFragment
			} else if c != eof {
				state = usPath
				if c != '/' {
					p--
				}
			} else if override != usNone && url.host == nil {
				url.path = append(url.path, "")
			}
		case usPath:
			if c == eof || c == '/' || (url.special() && c == '\\') || (override == usNone && (c == '?' || c == '#')) {
				bs := buf.String()
				if urlIsDoubleDot(bs) {
					url.shortenPath()
					if c != '/' && !(url.special() && c == '\\') {
						url.path = append(url.path, "")
					}
				} else if urlIsSingleDot(bs) && c != '/' && !(url.special() && c == '\\') {
					url.path = append(url.path, "")
				} else if !urlIsSingleDot(bs) {
					if url.scheme == "file" && len(url.path) == 0 && len(bs) == 2 && urlIsWindowsLetter(rune(bs[0]), rune(bs[1])) {
						bs = bs[:1] + ":"
					}
					url.path = append(url.path, bs)
				}
				buf.Reset()
				if c == '?' {
					q := ""
					url.query = &q
					state = usQuery
				}
				if c == '#' {
					f := ""
					url.fragment = &f
					state = usFragment
				}
			} else {
				urlPercentEncodeRune(&buf, c, urlInPathSet)
			}
		case usOpaquePath:
			if c == '?' {
				q := ""
				url.query = &q
				state = usQuery
			} else if c == '#' {
				f := ""
				url.fragment = &f
				state = usFragment
			} else if c == ' ' {
				nx := remaining(1)
				if nx == '?' || nx == '#' {
					url.opath += "%20"
				} else {
					url.opath += " "
				}
			} else if c != eof {
				var eb strings.Builder
				urlPercentEncodeRune(&eb, c, urlInC0)
				url.opath += eb.String()
			}
		case usQuery:
			if (override == usNone && c == '#') || c == eof {
				set := urlInQuerySet
				if url.special() {
					set = urlInSpecialQuerySet
				}
				q := ""
				if url.query != nil {
					q = *url.query
				}
				q += urlPercentEncodeString(buf.String(), set)
				url.query = &q
				buf.Reset()
				if c == '#' {
					f := ""
					url.fragment = &f
					state = usFragment
				}
			} else if c != eof {
				buf.WriteRune(c)
			}
		case usFragment:
			if c != eof {
				var eb strings.Builder
				urlPercentEncodeRune(&eb, c, urlInFragmentSet)
				f := ""
				if url.fragment != nil {
					f = *url.fragment
				}
				f += eb.String()
				url.fragment = &f
			}
		}
	}
	return url, nil
}

var urlIDNA = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.CheckHyphens(false),
	idna.CheckJoiners(true), idna.BidiRule(), idna.VerifyDNSLength(false), idna.StrictDomainName(false))

func urlForbiddenHost(c rune) bool {
	switch c {
	case 0, '\t', '\n', '\r', ' ', '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|':
		return true
	}
	return false
}

func urlForbiddenDomain(c rune) bool {
	return urlForbiddenHost(c) || (c >= 0 && c <= 0x1f) || c == '%' || c == 0x7f
}

func urlParseHost(input string, opaque bool) (string, error) {
	if strings.HasPrefix(input, "[") {
		if !strings.HasSuffix(input, "]") {
			return "", errURLInvalid
		}
		a, err := urlParseIPv6(input[1 : len(input)-1])
		if err != nil {
			return "", err
		}
		return "[" + urlSerializeIPv6(a) + "]", nil
	}
	if opaque {
		for _, c := range input {
			if urlForbiddenHost(c) {
				return "", errURLInvalid
			}
		}
		return urlPercentEncodeString(input, urlInC0), nil
	}
	domain := webUTF8DecodeNoBOM(urlPercentDecode(input))
	ascii, err := urlDomainToASCII(domain)
	if err != nil {
		return "", err
	}
	for _, c := range ascii {
		if urlForbiddenDomain(c) {
			return "", errURLInvalid
		}
	}
	if urlEndsInNumber(ascii) {
		v4, err := urlParseIPv4(ascii)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d.%d.%d.%d", v4>>24, (v4>>16)&255, (v4>>8)&255, v4&255), nil
	}
	return ascii, nil
}

func urlDomainToASCII(domain string) (string, error) {
	simple := true
	for i := 0; i < len(domain); i++ {
		c := domain[i]
		if c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		lower := strings.ToLower(domain)
		if !strings.HasPrefix(lower, "xn--") && !strings.Contains(lower, ".xn--") {
			if lower == "" {
				return "", errURLInvalid
			}
			return lower, nil
		}
	}
	out, err := urlIDNA.ToASCII(domain)
	if err != nil || out == "" {
		return "", errURLInvalid
	}
	return out, nil
}

func urlEndsInNumber(s string) bool {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" {
		all := true
		for _, c := range last {
			if !urlIsASCIIDigit(c) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	_, err := urlParseIPv4Number(last)
	return err == nil
}

func urlParseIPv4Number(s string) (uint64, error) {
	if s == "" {
		return 0, errURLInvalid
	}
	radix := 10
	if len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s = s[2:]
		radix = 16
	} else if len(s) >= 2 && s[0] == '0' {
		s = s[1:]
		radix = 8
	}
	if s == "" {
		return 0, nil
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case radix == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case radix == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, errURLInvalid
		}
		if d >= uint64(radix) {
			return 0, errURLInvalid
		}
		n = n*uint64(radix) + d
		if n > 1<<40 {
			n = 1 << 40 // saturate: anything this large is out of range
		}
	}
	return n, nil
}

func urlParseIPv4(s string) (uint32, error) {
	parts := strings.Split(s, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return 0, errURLInvalid
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := urlParseIPv4Number(p)
		if err != nil {
			return 0, err
		}
		nums[i] = n
	}
	for i, n := range nums {
		if n > 255 && i != len(nums)-1 {
			return 0, errURLInvalid
		}
	}
	last := nums[len(nums)-1]
	limit := uint64(1) << (8 * uint(5-len(nums)))
	if last >= limit {
		return 0, errURLInvalid
	}
	ipv4 := last
	for i := 0; i < len(nums)-1; i++ {
		ipv4 += nums[i] << (8 * uint(3-i))
	}
	return uint32(ipv4), nil
}

func urlParseIPv6(s string) ([8]uint16, error) {
	var a [8]uint16
	cs := []rune(s)
	pieceIndex, compress := 0, -1
	p := 0
	at := func(i int) rune {
		if i < len(cs) {
			return cs[i]
		}
		return -1
	}
	if at(p) == ':' {
		if at(p+1) != ':' {
			return a, errURLInvalid
		}
		p += 2
		pieceIndex++
		compress = pieceIndex
	}
	for at(p) != -1 {
		if pieceIndex == 8 {
			return a, errURLInvalid
		}
		if at(p) == ':' {
			if compress != -1 {
				return a, errURLInvalid
			}
			p++
			pieceIndex++
			compress = pieceIndex
			continue
		}
		value, length := 0, 0
		for length < 4 && at(p) != -1 && at(p) < 0x80 && urlIsHex(byte(at(p))) {
			value = value*16 + int(urlUnhex(byte(at(p))))
			p++
			length++
		}
		if at(p) == '.' {
			if length == 0 {
				return a, errURLInvalid
			}
			p -= length
			if pieceIndex > 6 {
				return a, errURLInvalid
			}
			numbersSeen := 0
			for at(p) != -1 {
				ipv4Piece := -1
				if numbersSeen > 0 {
					if at(p) == '.' && numbersSeen < 4 {
						p++
					} else {
						return a, errURLInvalid
					}
				}
				if at(p) == -1 || !urlIsASCIIDigit(at(p)) {
					return a, errURLInvalid
				}
				for at(p) != -1 && urlIsASCIIDigit(at(p)) {
					n := int(at(p) - '0')
					if ipv4Piece == -1 {
						ipv4Piece = n
					} else if ipv4Piece == 0 {
						return a, errURLInvalid
					} else {
						ipv4Piece = ipv4Piece*10 + n
					}
					if ipv4Piece > 255 {
						return a, errURLInvalid
					}
					p++
				}
				a[pieceIndex] = a[pieceIndex]*0x100 + uint16(ipv4Piece)
				numbersSeen++
				if numbersSeen == 2 || numbersSeen == 4 {
					pieceIndex++
				}
			}
			if numbersSeen != 4 {
				return a, errURLInvalid
			}
			break
		} else if at(p) == ':' {
			p++
			if at(p) == -1 {
				return a, errURLInvalid
			}
		} else if at(p) != -1 {
			return a, errURLInvalid
		}
		a[pieceIndex] = uint16(value)
		pieceIndex++
	}
	if compress != -1 {
		swaps := pieceIndex - compress
		pieceIndex = 7
		for pieceIndex != 0 && swaps > 0 {
			a[pieceIndex], a[compress+swaps-1] = a[compress+swaps-1], a[pieceIndex]
			pieceIndex--
			swaps--
		}
	} else if pieceIndex != 8 {
		return a, errURLInvalid
	}
	return a, nil
}

func urlSerializeIPv6(a [8]uint16) string {
	// find the first longest run of 2+ zero pieces
	best, bestLen := -1, 1
	for i := 0; i < 8; {
		if a[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && a[j] == 0 {
			j++
		}
		if j-i > bestLen {
			best, bestLen = i, j-i
		}
		i = j
	}
	var b strings.Builder
	ignore0 := false
	for i := 0; i < 8; i++ {
		if ignore0 && a[i] == 0 {
			continue
		}
		ignore0 = false
		if best == i {
			if i == 0 {
				b.WriteString("::")
			} else {
				b.WriteString(":")
			}
			ignore0 = true
			continue
		}
		b.WriteString(strconv.FormatUint(uint64(a[i]), 16))
		if i != 7 {
			b.WriteByte(':')
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------
// V8's JSON.parse error messages. goja's messages differ from V8's, and
// workerd's outputs contain V8's, so when goja's parser fails the input is
// re-scanned by this checker, which follows V8's JsonParser step by step
// (positions are UTF-16 code unit offsets).

type v8Tok int

const (
	v8TokNumber v8Tok = iota
	v8TokString
	v8TokLBrace
	v8TokRBrace
	v8TokLBrack
	v8TokRBrack
	v8TokTrue
	v8TokFalse
	v8TokNull
	v8TokWS
	v8TokColon
	v8TokComma
	v8TokIllegal
	v8TokEOS
)

func v8TokOf(c int) v8Tok {
	switch {
	case c < 0:
		return v8TokEOS
	case c == '"':
		return v8TokString
	case c >= '0' && c <= '9', c == '-':
		return v8TokNumber
	case c == '[':
		return v8TokLBrack
	case c == '{':
		return v8TokLBrace
	case c == ']':
		return v8TokRBrack
	case c == '}':
		return v8TokRBrace
	case c == 't':
		return v8TokTrue
	case c == 'f':
		return v8TokFalse
	case c == 'n':
		return v8TokNull
	case c == ' ', c == '\t', c == '\r', c == '\n':
		return v8TokWS
	case c == ':':
		return v8TokColon
	case c == ',':
		return v8TokComma
	}
	return v8TokIllegal
}

const (
	v8MsgPropNameOrRBrace   = "Expected property name or '}' in JSON at position %d (line %d column %d)"
	v8MsgCommaOrRBrack      = "Expected ',' or ']' after array element in JSON at position %d (line %d column %d)"
	v8MsgCommaOrRBrace      = "Expected ',' or '}' after property value in JSON at position %d (line %d column %d)"
	v8MsgDoubleQuotedProp   = "Expected double-quoted property name in JSON at position %d (line %d column %d)"
	v8MsgExponentMissing    = "Exponent part is missing a number in JSON at position %d (line %d column %d)"
	v8MsgColonAfterProp     = "Expected ':' after property name in JSON at position %d (line %d column %d)"
	v8MsgUnterminatedFrac   = "Unterminated fractional number in JSON at position %d (line %d column %d)"
	v8MsgNonWhitespace      = "Unexpected non-whitespace character after JSON at position %d (line %d column %d)"
	v8MsgBadEscape          = "Bad escaped character in JSON at position %d (line %d column %d)"
	v8MsgBadControl         = "Bad control character in string literal in JSON at position %d (line %d column %d)"
	v8MsgBadUnicodeEscape   = "Bad Unicode escape in JSON at position %d (line %d column %d)"
	v8MsgNoNumberAfterMinus = "No number after minus sign in JSON at position %d (line %d column %d)"
	v8MsgUnterminatedString = "Unterminated string in JSON at position %d (line %d column %d)"
	v8MsgUnexpectedNumber   = "Unexpected number in JSON at position %d (line %d column %d)"
	v8MsgUnexpectedString   = "Unexpected string in JSON at position %d (line %d column %d)"
)

type v8JSONChecker struct {
	s   []uint16
	i   int
	msg string
}

type v8JSONFail struct{}

func (p *v8JSONChecker) cur() int {
	if p.i < len(p.s) {
		return int(p.s[p.i])
	}
	return -1
}

// peek skips whitespace and returns the next token.
func (p *v8JSONChecker) peek() v8Tok {
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			p.i++
			continue
		}
		break
	}
	return v8TokOf(p.cur())
}

func (p *v8JSONChecker) location() (int, int) {
	line, lastBreak := 1, 0
	for k := 0; k < p.i && k < len(p.s); k++ {
		if p.s[k] == '\r' && k < p.i-1 && p.s[k+1] == '\n' {
			k++
		}
		if p.s[k] == '\r' || p.s[k] == '\n' {
			line++
			lastBreak = k + 1
		}
	}
	return line, 1 + p.i - lastBreak
}

func (p *v8JSONChecker) fail(tmpl string) {
	line, col := p.location()
	p.msg = fmt.Sprintf(tmpl, p.i, line, col)
	panic(v8JSONFail{})
}

func (p *v8JSONChecker) failToken(t v8Tok) {
	switch t {
	case v8TokEOS:
		p.msg = "Unexpected end of JSON input"
		panic(v8JSONFail{})
	case v8TokNumber:
		p.fail(v8MsgUnexpectedNumber)
	case v8TokString:
		p.fail(v8MsgUnexpectedString)
	}
	src := string(utf16.Decode(p.s))
	switch src {
	case "[object Object]", "undefined", "Infinity", "NaN":
		p.msg = fmt.Sprintf("%q is not valid JSON", src)
		panic(v8JSONFail{})
	}
	tok := string(utf16.Decode(p.s[p.i : p.i+1]))
	const ctx = 10
	n := len(p.s)
	if n < 2*ctx+1 {
		p.msg = fmt.Sprintf("Unexpected token '%s', \"%s\" is not valid JSON", tok, src)
	} else if p.i < ctx {
		p.msg = fmt.Sprintf("Unexpected token '%s', \"%s\"... is not valid JSON", tok, string(utf16.Decode(p.s[:p.i+ctx])))
	} else if p.i < n-ctx {
		p.msg = fmt.Sprintf("Unexpected token '%s', ...\"%s\"... is not valid JSON", tok, string(utf16.Decode(p.s[p.i-ctx:p.i+ctx])))
	} else {
		p.msg = fmt.Sprintf("Unexpected token '%s', ...\"%s\" is not valid JSON", tok, string(utf16.Decode(p.s[p.i-ctx:])))
	}
	panic(v8JSONFail{})
}

func (p *v8JSONChecker) failChar(c int) {
	if c < 0 {
		p.failToken(v8TokEOS)
	}
	if c > 0xff {
		p.failToken(v8TokIllegal)
	}
	p.failToken(v8TokOf(c))
}

func (p *v8JSONChecker) expect(t v8Tok, tmpl string) {
	if p.peek() != t {
		p.fail(tmpl)
	}
	p.i++
}

func (p *v8JSONChecker) scanString() {
	// cursor is just after the opening quote
	for {
		if p.i >= len(p.s) {
			p.fail(v8MsgUnterminatedString)
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return
		case c == '\\':
			p.i++
			e := p.cur()
			if e < 0 || e > 0xff {
				p.failChar(e)
			}
			switch e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				for k := 0; k < 4; k++ {
					p.i++
					h := p.cur()
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						p.fail(v8MsgBadUnicodeEscape)
					}
				}
			default:
				p.fail(v8MsgBadEscape)
			}
			p.i++
		case c < 0x20:
			p.fail(v8MsgBadControl)
		default:
			p.i++
		}
	}
}

func v8IsDigit(c int) bool { return c >= '0' && c <= '9' }

func (p *v8JSONChecker) scanNumber() {
	if p.cur() == '-' {
		p.i++
	}
	if p.cur() == '0' {
		p.i++
		if v8IsDigit(p.cur()) {
			p.failToken(v8TokNumber)
		}
	} else {
		start := p.i
		for v8IsDigit(p.cur()) {
			p.i++
		}
		if p.i == start {
			p.fail(v8MsgNoNumberAfterMinus)
		}
	}
	if p.cur() == '.' {
		p.i++
		if !v8IsDigit(p.cur()) {
			p.fail(v8MsgUnterminatedFrac)
		}
		for v8IsDigit(p.cur()) {
			p.i++
		}
	}
	if c := p.cur(); c == 'e' || c == 'E' {
		p.i++
		if c := p.cur(); c == '-' || c == '+' {
			p.i++
		}
		if !v8IsDigit(p.cur()) {
			p.fail(v8MsgExponentMissing)
		}
		for v8IsDigit(p.cur()) {
			p.i++
		}
	}
}

func (p *v8JSONChecker) scanLiteral(lit string) {
	remaining := len(p.s) - p.i
	if remaining >= len(lit) {
		ok := true
		for k := 1; k < len(lit); k++ {
			if p.s[p.i+k] != uint16(lit[k]) {
				ok = false
				break
			}
		}
		if ok {
			p.i += len(lit)
			return
		}
	}
	p.i++
	n := len(lit) - 1
	if remaining-1 < n {
		n = remaining - 1
	}
	for k := 0; k < n; k++ {
		if p.s[p.i] != uint16(lit[1+k]) {
			p.failChar(int(p.s[p.i]))
		}
		p.i++
	}
	p.failToken(v8TokEOS)
}

// v8JSONError returns the message of the SyntaxError V8's JSON.parse throws
// for src, or "" when V8 accepts src.
func v8JSONError(src []uint16) (msg string) {
	p := &v8JSONChecker{s: src}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(v8JSONFail); !ok {
				panic(r)
			}
			msg = p.msg
		}
	}()
	// stack of open containers: true = object, false = array
	var stack []bool
	for {
		// produce a value
		for {
			t := p.peek()
			switch t {
			case v8TokString:
				p.i++
				p.scanString()
			case v8TokNumber:
				p.scanNumber()
			case v8TokLBrace:
				p.i++
				if p.peek() == v8TokRBrace {
					p.i++
					break
				}
				p.expect(v8TokString, v8MsgPropNameOrRBrace)
				p.scanString()
				p.expect(v8TokColon, v8MsgColonAfterProp)
				stack = append(stack, true)
				continue
			case v8TokLBrack:
				p.i++
				if p.peek() == v8TokRBrack {
					p.i++
					break
				}
				stack = append(stack, false)
				continue
			case v8TokTrue:
				p.scanLiteral("true")
			case v8TokFalse:
				p.scanLiteral("false")
			case v8TokNull:
				p.scanLiteral("null")
			default:
				p.failChar(p.cur())
			}
			break
		}
		// consume produced values
		for {
			if len(stack) == 0 {
				if p.peek() != v8TokEOS {
					p.fail(v8MsgNonWhitespace)
				}
				return ""
			}
			top := stack[len(stack)-1]
			if p.peek() == v8TokComma {
				p.i++
				if top {
					p.expect(v8TokString, v8MsgDoubleQuotedProp)
					p.scanString()
					p.expect(v8TokColon, v8MsgColonAfterProp)
				}
				break
			}
			if top {
				p.expect(v8TokRBrace, v8MsgCommaOrRBrace)
			} else {
				p.expect(v8TokRBrack, v8MsgCommaOrRBrack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}
