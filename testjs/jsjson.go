package testjs

// JSON as JavaScript sees it: JSON.parse and JSON.stringify semantics, which
// the reference tools (replay.mjs, compare.mjs) rely on and which
// encoding/json does not reproduce (object key order, number spelling,
// string escaping, lone surrogates).
//
// A parsed value is one of: nil (null), bool, float64, string, []any or
// *jsObject. Strings hold WTF-8: a lone surrogate from a \uD800-style escape
// is kept as its 3-byte generalized UTF-8 form so that it survives a round
// trip and compares unequal to U+FFFD, as in JavaScript.

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsObject is a JavaScript object with its property order: integer-like keys
// first in ascending order, then the other keys in insertion order.
type jsObject struct {
	order []string
	vals  map[string]any
}

func newObject() *jsObject { return &jsObject{vals: map[string]any{}} }

// set adds or replaces a property; a replaced property keeps its position.
func (o *jsObject) set(k string, v any) *jsObject {
	if _, ok := o.vals[k]; !ok {
		o.order = append(o.order, k)
	}
	o.vals[k] = v
	return o
}

func (o *jsObject) get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// keys returns the property names in JavaScript's enumeration order.
func (o *jsObject) keys() []string {
	var idx, rest []string
	for _, k := range o.order {
		if _, ok := arrayIndex(k); ok {
			idx = append(idx, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(idx) == 0 {
		return rest
	}
	sort.Slice(idx, func(i, j int) bool {
		a, _ := arrayIndex(idx[i])
		b, _ := arrayIndex(idx[j])
		return a < b
	})
	return append(idx, rest...)
}

// arrayIndex reports whether k is a canonical array index ("0".."4294967294").
func arrayIndex(k string) (uint64, bool) {
	if k == "" || len(k) > 10 || (len(k) > 1 && k[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < '0' || k[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(k, 10, 64)
	if err != nil || n > math.MaxUint32-1 {
		return 0, false
	}
	return n, true
}

// ---------------------------------------------------------------- parse

// jsParse parses data as JSON.parse does (after the caller's trimming).
func jsParse(data string) (any, error) {
	p := &jsParser{s: data}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(p.s) {
		return nil, p.errf("unexpected data after the value")
	}
	return v, nil
}

type jsParser struct {
	s string
	i int
}

func (p *jsParser) errf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *jsParser) ws() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

const maxJSONDepth = 10000

func (p *jsParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.errf("nested too deeply")
	}
	if p.i >= len(p.s) {
		return nil, p.errf("unexpected end of input")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		p.i++
		o := newObject()
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return o, nil
		}
		for {
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != '"' {
				return nil, p.errf("expected a property name")
			}
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errf("expected ':'")
			}
			p.i++
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			o.set(k, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return o, nil
			}
			return nil, p.errf("expected ',' or '}'")
		}
	case c == '[':
		p.i++
		a := []any{}
		p.ws()
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return a, nil
		}
		for {
			p.ws()
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
			p.ws()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return a, nil
			}
			return nil, p.errf("expected ',' or ']'")
		}
	case c == '"':
		return p.str()
	case c == 't':
		return p.lit("true", true)
	case c == 'f':
		return p.lit("false", false)
	case c == 'n':
		return p.lit("null", nil)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.num()
	default:
		return nil, p.errf("unexpected character %q", c)
	}
}

func (p *jsParser) lit(word string, v any) (any, error) {
	if !strings.HasPrefix(p.s[p.i:], word) {
		return nil, p.errf("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *jsParser) num() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.i < len(p.s) && p.s[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return nil, p.errf("invalid number")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errf("invalid number")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errf("invalid number")
		}
	}
	f, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errf("invalid number")
	}
	return f, nil // out of range: ±Inf or 0, as in JavaScript
}

func (p *jsParser) str() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c < 0x20:
			return "", p.errf("control character in string")
		case c == '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", p.errf("unterminated string")
			}
			e := p.s[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				u, ok := p.hex4()
				if !ok {
					return "", p.errf("invalid \\u escape")
				}
				if utf16.IsSurrogate(rune(u)) && u < 0xDC00 && strings.HasPrefix(p.s[p.i:], "\\u") {
					save := p.i
					p.i += 2
					if lo, ok := p.hex4(); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						b.WriteRune(utf16.DecodeRune(rune(u), rune(lo)))
						continue
					}
					p.i = save
				}
				writeWTF8(&b, rune(u))
			default:
				return "", p.errf("invalid escape")
			}
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *jsParser) hex4() (uint16, bool) {
	if p.i+4 > len(p.s) {
		return 0, false
	}
	n, err := strconv.ParseUint(p.s[p.i:p.i+4], 16, 16)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return uint16(n), true
}

// writeWTF8 writes r, which may be a lone surrogate, in generalized UTF-8.
func writeWTF8(b *strings.Builder, r rune) {
	if !utf16.IsSurrogate(r) {
		b.WriteRune(r)
		return
	}
	b.WriteByte(byte(0xE0 | r>>12))
	b.WriteByte(byte(0x80 | (r>>6)&0x3F))
	b.WriteByte(byte(0x80 | r&0x3F))
}

// nextUnit decodes the code point at s[i:], accepting WTF-8 lone surrogates.
// Invalid bytes decode as U+FFFD, one byte at a time.
func nextUnit(s string, i int) (r rune, size int) {
	r, size = utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 && i+2 < len(s) && s[i] == 0xED &&
		s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), 3
	}
	return r, size
}

// ---------------------------------------------------------------- stringify

// jsStringify is JSON.stringify(v) for parsed values (no indentation).
func jsStringify(v any) string {
	var b strings.Builder
	stringifyTo(&b, v)
	return b.String()
}

func stringifyTo(b *strings.Builder, v any) {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if v {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("null")
		} else {
			b.WriteString(jsNumber(v))
		}
	case int:
		b.WriteString(strconv.Itoa(v))
	case string:
		quoteTo(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			stringifyTo(b, e)
		}
		b.WriteByte(']')
	case *jsObject:
		b.WriteByte('{')
		for i, k := range v.keys() {
			if i > 0 {
				b.WriteByte(',')
			}
			quoteTo(b, k)
			b.WriteByte(':')
			stringifyTo(b, v.vals[k])
		}
		b.WriteByte('}')
	default:
		panic(fmt.Sprintf("testjs: cannot stringify %T", v))
	}
}

const hexDigits = "0123456789abcdef"

// quoteTo writes s as JSON.stringify quotes a string.
func quoteTo(b *strings.Builder, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				b.WriteString(`\"`)
			case '\\':
				b.WriteString(`\\`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			default:
				if c < 0x20 {
					b.WriteString(`\u00`)
					b.WriteByte(hexDigits[c>>4])
					b.WriteByte(hexDigits[c&0xF])
				} else {
					b.WriteByte(c)
				}
			}
			i++
			continue
		}
		r, size := nextUnit(s, i)
		if utf16.IsSurrogate(r) {
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hexDigits[(r>>shift)&0xF])
			}
		} else {
			b.WriteRune(r)
		}
		i += size
	}
	b.WriteByte('"')
}

// jsNumber formats f as JavaScript's Number.prototype.toString does.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX, shortest round trip
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k, n := len(digits), x+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	es := "+"
	if n-1 < 0 {
		es = "-"
	}
	ex := strconv.Itoa(abs(n - 1))
	if k == 1 {
		return sign + digits + "e" + es + ex
	}
	return sign + digits[:1] + "." + digits[1:] + "e" + es + ex
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// jsString is String(v) for parsed values (used in labels).
func jsString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case undefinedT:
		return "undefined"
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return jsNumber(v)
	case string:
		return v
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	default:
		return "[object Object]"
	}
}

// undefinedT stands for JavaScript's undefined (a missing property or item).
type undefinedT struct{}

// truthy is JavaScript's ToBoolean for parsed values.
func truthy(v any) bool {
	switch v := v.(type) {
	case nil, undefinedT:
		return false
	case bool:
		return v
	case float64:
		return v != 0 && !math.IsNaN(v)
	case string:
		return v != ""
	default:
		return true
	}
}

// jsTrim is String.prototype.trim.
func jsTrim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		switch r {
		case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
			return true
		}
		return r >= 0x2000 && r <= 0x200A
	})
}

// utf16Len is a JavaScript string's length.
func utf16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := nextUnit(s, i)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// utf16Prefix is s.slice(0, n) in UTF-16 units; half a surrogate pair
// becomes U+FFFD, as when JavaScript prints it as UTF-8.
func utf16Prefix(s string, n int) string {
	var b strings.Builder
	units := 0
	for i := 0; i < len(s) && units < n; {
		r, size := nextUnit(s, i)
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			b.WriteRune(utf8.RuneError)
			break
		}
		b.WriteString(s[i : i+size])
		units += w
		i += size
	}
	return b.String()
}
