package web

import (
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// The Go side of Headers, Request and Response: a Headers object is a thin
// JS view of a headerList, and bodies that come from Go stay Go bytes
// until JS reads them, so requests and responses cross the bridge without
// building JS arrays, iterating JS iterators or copying bodies.

// opaque makes a Go value a JS object with no properties (a handle only
// the natives look into). Handles live in private fields, out of user
// code's reach.
type opaque struct{}

func (opaque) Get(string) goja.Value       { return nil }
func (opaque) Set(string, goja.Value) bool { return false }
func (opaque) Has(string) bool             { return false }
func (opaque) Delete(string) bool          { return false }
func (opaque) Keys() []string              { return nil }

// header is one header line: a lowercase token name and a value.
type header struct {
	name string
	val  string     // the value as Go (UTF-8) text
	js   goja.Value // the exact JS string when it is not ASCII (nil otherwise)
}

// headerList is the store behind a Headers object: the lines in the
// order they were added (names may repeat). What JS sees (sorted names,
// values joined with ", ", set-cookie lines kept apart) is computed on read.
type headerList struct {
	opaque
	h         []header
	immutable bool
}

// goBody is a body that came from Go: read-only bytes shared with the
// HTTPRequest/HTTPResponse it came from.
type goBody struct {
	opaque
	b []byte
}

// Errors the header natives report (jserr turns each into a new TypeError).
var (
	errIllegalInvocation = jserr.TypeError("Illegal invocation")
	errHeaderName        = jserr.TypeError("Invalid header name.")
	errHeaderValue       = jserr.TypeError("Invalid header value.")
)

// listOf returns the header list behind a list handle.
func listOf(v goja.Value) (*headerList, error) {
	if o, ok := v.(*goja.Object); ok {
		if l, ok := o.Export().(*headerList); ok {
			return l, nil
		}
	}
	return nil, errIllegalInvocation
}

// tokenChars marks the bytes allowed in a header name (RFC 7230 token).
var tokenChars = func() (t [256]bool) {
	for _, c := range []byte("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
		t[c] = true
	}
	return
}()

// headerName validates a header name and returns it lowercased.
func headerName(v goja.Value) (string, error) {
	s := v.String()
	if s == "" {
		return "", errHeaderName
	}
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !tokenChars[c] {
			return "", errHeaderName
		}
		if c >= 'A' && c <= 'Z' {
			upper = true
		}
	}
	if upper {
		return asciiLower(s), nil
	}
	return s, nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

func isHTTPWS(c uint16) bool { return c == '\t' || c == '\n' || c == '\r' || c == ' ' }

// headerValue normalizes a header value (strips leading and trailing HTTP
// whitespace); NUL, CR and LF are errors.
func headerValue(v goja.Value) (header, error) {
	s := v.String()
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		start, end := 0, len(s)
		for start < end && isHTTPWS(uint16(s[start])) {
			start++
		}
		for end > start && isHTTPWS(uint16(s[end-1])) {
			end--
		}
		s = s[start:end]
		if strings.ContainsAny(s, "\x00\r\n") {
			return header{}, errHeaderValue
		}
		return header{val: s}, nil
	}
	// Not ASCII: trim and check the UTF-16 string itself, and keep it so
	// that JS reads back exactly what it stored.
	js, ok := v.(goja.String)
	if !ok {
		js = v.ToString().(goja.String)
	}
	start, end := 0, js.Length()
	for start < end && isHTTPWS(js.CharAt(start)) {
		start++
	}
	for end > start && isHTTPWS(js.CharAt(end-1)) {
		end--
	}
	if start != 0 || end != js.Length() {
		js = js.Substring(start, end)
	}
	for i := 0; i < js.Length(); i++ {
		if c := js.CharAt(i); c == 0 || c == '\r' || c == '\n' {
			return header{}, errHeaderValue
		}
	}
	return header{val: js.String(), js: js}, nil
}

func (h *header) jsValue(rt *goja.Runtime) goja.Value {
	if h.js != nil {
		return h.js
	}
	return rt.ToValue(h.val)
}

// joined returns the values of name joined with ", " (ok=false when absent).
func (l *headerList) joined(rt *goja.Runtime, name string) (goja.Value, bool) {
	first := -1
	n := 0
	for i := range l.h {
		if l.h[i].name == name {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	switch n {
	case 0:
		return nil, false
	case 1:
		return l.h[first].jsValue(rt), true
	}
	return l.join(rt, name, first), true
}

func (l *headerList) join(rt *goja.Runtime, name string, first int) goja.Value {
	unicode := false
	for i := first; i < len(l.h); i++ {
		if l.h[i].name == name && l.h[i].js != nil {
			unicode = true
		}
	}
	if !unicode {
		var b strings.Builder
		for i := first; i < len(l.h); i++ {
			if l.h[i].name == name {
				if i != first {
					b.WriteString(", ")
				}
				b.WriteString(l.h[i].val)
			}
		}
		return rt.ToValue(b.String())
	}
	var b goja.StringBuilder
	sep := rt.ToValue(", ").(goja.String)
	for i := first; i < len(l.h); i++ {
		if l.h[i].name == name {
			if i != first {
				b.WriteString(sep)
			}
			b.WriteString(l.h[i].jsValue(rt).(goja.String))
		}
	}
	return b.String()
}

func (l *headerList) has(name string) bool {
	for i := range l.h {
		if l.h[i].name == name {
			return true
		}
	}
	return false
}

func (l *headerList) remove(name string) {
	out := l.h[:0]
	for _, h := range l.h {
		if h.name != name {
			out = append(out, h)
		}
	}
	clear(l.h[len(out):])
	l.h = out
}

func (l *headerList) set(h header) {
	for i := range l.h {
		if l.h[i].name == h.name {
			l.h[i] = h
			rest := l.h[i+1:]
			out := rest[:0]
			for _, x := range rest {
				if x.name != h.name {
					out = append(out, x)
				}
			}
			clear(rest[len(out):])
			l.h = l.h[:i+1+len(out)]
			return
		}
	}
	l.h = append(l.h, h)
}

func (l *headerList) copy() *headerList {
	return &headerList{h: append([]header(nil), l.h...)}
}

// sortedIdx returns the indexes of l.h ordered by name, stable (values of
// one name stay in the order they were added).
func (l *headerList) sortedIdx(buf []int) []int {
	idx := buf[:0]
	for i := range l.h {
		idx = append(idx, i)
	}
	// insertion sort: lists are short, and it is stable
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && l.h[idx[j]].name < l.h[idx[j-1]].name; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}

// line returns the line that starts at idx[k] (idx is sortedIdx's): its
// name, the indexes of its values (one, or all of a name's values to join;
// a set-cookie line always has one) and where the next line starts.
func (l *headerList) line(idx []int, k int) (name string, group []int, next int) {
	name = l.h[idx[k]].name
	if name == "set-cookie" {
		return name, idx[k : k+1], k + 1
	}
	j := k + 1
	for j < len(idx) && l.h[idx[j]].name == name {
		j++
	}
	return name, idx[k:j], j
}

// export returns the lines Go sends: sorted, one line per name with the
// values joined, except set-cookie, whose values stay separate lines.
func (l *headerList) export() [][2]string {
	if len(l.h) == 0 {
		return [][2]string{}
	}
	if len(l.h) == 1 {
		return [][2]string{{l.h[0].name, l.h[0].val}}
	}
	var buf [16]int
	idx := l.sortedIdx(buf[:])
	out := make([][2]string, 0, len(idx))
	for k := 0; k < len(idx); {
		name, group, next := l.line(idx, k)
		k = next
		if len(group) == 1 {
			out = append(out, [2]string{name, l.h[group[0]].val})
			continue
		}
		var b strings.Builder
		for m, g := range group {
			if m > 0 {
				b.WriteString(", ")
			}
			b.WriteString(l.h[g].val)
		}
		out = append(out, [2]string{name, b.String()})
	}
	return out
}

// display returns what iteration shows: mode 0 [[name, value], ...],
// 1 names, 2 values, 3 a flat [name, value, name, value, ...].
func (l *headerList) display(rt *goja.Runtime, mode int64) goja.Value {
	var buf [16]int
	idx := l.sortedIdx(buf[:])
	out := make([]interface{}, 0, len(idx)*2)
	emit := func(name string, v goja.Value) {
		switch mode {
		case 0:
			out = append(out, rt.NewArray(name, v))
		case 1:
			out = append(out, name)
		case 2:
			out = append(out, v)
		default:
			out = append(out, name, v)
		}
	}
	for k := 0; k < len(idx); {
		name, group, next := l.line(idx, k)
		k = next
		if len(group) == 1 {
			emit(name, l.h[group[0]].jsValue(rt))
		} else {
			emit(name, l.join(rt, name, group[0]))
		}
	}
	return rt.NewArray(out...)
}

// headerNatives adds the natives headers.js's Headers uses.
func headerNatives(rt *goja.Runtime, n natives) {
	newList := func(l *headerList) goja.Value { return rt.NewDynamicObject(l) }
	// withList adapts a native whose first argument is a list handle.
	withList := func(name string, f func(l *headerList, c goja.FunctionCall) (goja.Value, error)) {
		n.setE(name, func(c goja.FunctionCall) (goja.Value, error) {
			l, err := listOf(c.Argument(0))
			if err != nil {
				return nil, err
			}
			return f(l, c)
		})
	}
	n.set("hNew", func(goja.FunctionCall) goja.Value { return newList(&headerList{}) })
	// hOf(name|null, value, immutable) → a list of at most one line (internal: no checks)
	n.set("hOf", func(c goja.FunctionCall) goja.Value {
		l := &headerList{immutable: c.Argument(2).ToBoolean()}
		if name := c.Argument(0); !goja.IsNull(name) && !goja.IsUndefined(name) {
			l.h = []header{{name: name.String(), val: c.Argument(1).String()}}
		}
		return newList(l)
	})
	withList("hCopy", func(l *headerList, c goja.FunctionCall) (goja.Value, error) { return newList(l.copy()), nil })
	withList("hGuard", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		if l.immutable {
			return rt.ToValue("immutable"), nil
		}
		return rt.ToValue("none"), nil
	})
	n.setE("hName", func(c goja.FunctionCall) (goja.Value, error) {
		_, err := headerName(c.Argument(0))
		return goja.Undefined(), err
	})
	withList("hGet", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		name, err := headerName(c.Argument(1))
		if err != nil {
			return nil, err
		}
		if v, ok := l.joined(rt, name); ok {
			return v, nil
		}
		return goja.Null(), nil
	})
	withList("hHas", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		name, err := headerName(c.Argument(1))
		if err != nil {
			return nil, err
		}
		return rt.ToValue(l.has(name)), nil
	})
	// line reads a (name, value) pair of arguments into a header line.
	line := func(c goja.FunctionCall) (header, error) {
		name, err := headerName(c.Argument(1))
		if err != nil {
			return header{}, err
		}
		h, err := headerValue(c.Argument(2))
		h.name = name
		return h, err
	}
	withList("hAppend", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		h, err := line(c)
		if err != nil {
			return nil, err
		}
		l.h = append(l.h, h)
		return goja.Undefined(), nil
	})
	withList("hSet", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		h, err := line(c)
		if err != nil {
			return nil, err
		}
		l.set(h)
		return goja.Undefined(), nil
	})
	// hSetDefault(list, name, value): internal (checked) name and value, set when absent
	withList("hSetDefault", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		name := c.Argument(1).String()
		if !l.has(name) {
			l.h = append(l.h, header{name: name, val: c.Argument(2).String()})
		}
		return goja.Undefined(), nil
	})
	withList("hDelete", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		name, err := headerName(c.Argument(1))
		if err != nil {
			return nil, err
		}
		l.remove(name)
		return goja.Undefined(), nil
	})
	withList("hGetSetCookie", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		var out []interface{}
		for i := range l.h {
			if l.h[i].name == "set-cookie" {
				out = append(out, l.h[i].jsValue(rt))
			}
		}
		return rt.NewArray(out...), nil
	})
	withList("hDisplay", func(l *headerList, c goja.FunctionCall) (goja.Value, error) {
		return l.display(rt, c.Argument(1).ToInteger()), nil
	})
}
