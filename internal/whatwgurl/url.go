// Package whatwgurl is the URL Standard's parser (https://url.spec.whatwg.org/),
// as workerd (ada) implements it: the basic URL parser with state
// overrides, the setters of the URL API, host parsing (IDNA, IPv4, IPv6),
// percent-encoding and the application/x-www-form-urlencoded parser and
// serializer. It is pure Go and knows nothing of JavaScript runtimes.
package whatwgurl

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// URL is a parsed URL record.
type URL struct {
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

func (u *URL) clone() *URL {
	c := *u
	c.path = append([]string(nil), u.path...)
	return &c
}

var specialPorts = map[string]int{"ftp": 21, "file": -1, "http": 80, "https": 443, "ws": 80, "wss": 443}

func (u *URL) special() bool { _, ok := specialPorts[u.scheme]; return ok }

func isSpecialScheme(s string) bool { _, ok := specialPorts[s]; return ok }

func (u *URL) includesCredentials() bool { return u.username != "" || u.password != "" }

func (u *URL) pathString() string {
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

func (u *URL) hostString() string {
	if u.host == nil {
		return ""
	}
	if u.port >= 0 {
		return *u.host + ":" + strconv.Itoa(u.port)
	}
	return *u.host
}

func (u *URL) href(excludeFragment bool) string {
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

func (u *URL) origin() string {
	switch u.scheme {
	case "blob":
		if u.opaque || len(u.path) > 0 {
			if inner, err := Parse(u.pathString(), nil); err == nil && (inner.scheme == "http" || inner.scheme == "https") {
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
func inC0(c rune) bool { return c < 0x20 || c > 0x7e }
func inFragmentSet(c rune) bool {
	return inC0(c) || c == ' ' || c == '"' || c == '<' || c == '>' || c == '`'
}
func inQuerySet(c rune) bool {
	return inC0(c) || c == ' ' || c == '"' || c == '#' || c == '<' || c == '>'
}
func inSpecialQuerySet(c rune) bool { return inQuerySet(c) || c == '\'' }
func inPathSet(c rune) bool {
	return inQuerySet(c) || c == '?' || c == '^' || c == '`' || c == '{' || c == '}'
}
func inUserinfoSet(c rune) bool {
	return inPathSet(c) || c == '/' || c == ':' || c == ';' || c == '=' || c == '@' || (c >= '[' && c <= '^') || c == '|'
}

const upperHex = "0123456789ABCDEF"

func percentEncodeRune(b *strings.Builder, c rune, set func(rune) bool) {
	if !set(c) {
		b.WriteRune(c)
		return
	}
	var buf [4]byte
	n := utf8.EncodeRune(buf[:], c)
	for i := 0; i < n; i++ {
		b.WriteByte('%')
		b.WriteByte(upperHex[buf[i]>>4])
		b.WriteByte(upperHex[buf[i]&15])
	}
}

func percentEncodeString(s string, set func(rune) bool) string {
	var b strings.Builder
	for _, c := range s {
		percentEncodeRune(&b, c, set)
	}
	return b.String()
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

// percentDecode percent-decodes a byte sequence.
func percentDecode(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			out = append(out, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		out = append(out, c)
	}
	return out
}

var ErrInvalid = errors.New("invalid URL")

func isASCIIAlpha(c rune) bool       { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isASCIIDigit(c rune) bool       { return c >= '0' && c <= '9' }
func isASCIIAlnum(c rune) bool       { return isASCIIAlpha(c) || isASCIIDigit(c) }
func isWindowsLetter(a, b rune) bool { return isASCIIAlpha(a) && (b == ':' || b == '|') }

func startsWithWindowsDriveLetter(cs []rune, p int) bool {
	if len(cs)-p < 2 || !isASCIIAlpha(cs[p]) || (cs[p+1] != ':' && cs[p+1] != '|') {
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

func isNormalizedWindowsDriveLetter(s string) bool {
	return len(s) == 2 && isASCIIAlpha(rune(s[0])) && s[1] == ':'
}

func isSingleDot(s string) bool {
	return s == "." || strings.EqualFold(s, "%2e")
}

func isDoubleDot(s string) bool {
	switch strings.ToLower(s) {
	case "..", ".%2e", "%2e.", "%2e%2e":
		return true
	}
	return false
}

func (u *URL) shortenPath() {
	if u.scheme == "file" && len(u.path) == 1 && isNormalizedWindowsDriveLetter(u.path[0]) {
		return
	}
	if len(u.path) > 0 {
		u.path = u.path[:len(u.path)-1]
	}
}

type parserState int

const (
	usSchemeStart parserState = iota
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

// Parse runs the basic URL parser on input against an optional base.
func Parse(input string, base *URL) (*URL, error) {
	return basicParse(input, base, nil, usNone)
}

// trim removes leading/trailing C0 control or space.
func trim(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
}

func removeTabNewline(s string) string {
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

func basicParse(input string, base *URL, url *URL, override parserState) (*URL, error) {
	if url == nil {
		url = &URL{port: -1}
		input = trim(input)
	}
	input = removeTabNewline(input)
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
			if c != eof && isASCIIAlpha(c) {
				buf.WriteRune(unicode.ToLower(c))
				state = usScheme
			} else if override == usNone {
				state = usNoScheme
				p--
			} else {
				return nil, ErrInvalid
			}
		case usScheme:
			if c != eof && (isASCIIAlnum(c) || c == '+' || c == '-' || c == '.') {
				buf.WriteRune(unicode.ToLower(c))
			} else if c == ':' {
				nb := buf.String()
				if override != usNone {
					if isSpecialScheme(url.scheme) != isSpecialScheme(nb) {
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
					if dp, ok := specialPorts[url.scheme]; ok && dp == url.port {
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
				return nil, ErrInvalid
			}
		case usNoScheme:
			if base == nil || (base.opaque && c != '#') {
				return nil, ErrInvalid
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
					percentEncodeRune(&eb, bc, inUserinfoSet)
					if passwordTokenSeen {
						url.password += eb.String()
					} else {
						url.username += eb.String()
					}
				}
				buf.Reset()
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				if atSign && buf.Len() == 0 {
					return nil, ErrInvalid
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
					return nil, ErrInvalid
				}
				if override == usHostname {
					return nil, ErrInvalid
				}
				h, err := ParseHost(buf.String(), !url.special())
				if err != nil {
					return nil, err
				}
				url.host = &h
				buf.Reset()
				state = usPort
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') {
				p--
				if url.special() && buf.Len() == 0 {
					return nil, ErrInvalid
				} else if override != usNone && buf.Len() == 0 && (url.includesCredentials() || url.port >= 0) {
					return nil, ErrInvalid
				}
				h, err := ParseHost(buf.String(), !url.special())
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
			if c != eof && isASCIIDigit(c) {
				buf.WriteRune(c)
			} else if c == eof || c == '/' || c == '?' || c == '#' || (url.special() && c == '\\') || override != usNone {
				if buf.Len() != 0 {
					n, err := strconv.Atoi(buf.String())
					if err != nil || n > 65535 {
						return nil, ErrInvalid
					}
					if dp, ok := specialPorts[url.scheme]; ok && dp == n {
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
					return nil, ErrInvalid
				}
				state = usPathStart
				p--
			} else {
				return nil, ErrInvalid
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
					if !startsWithWindowsDriveLetter(cs, p) {
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
					if !startsWithWindowsDriveLetter(cs, p) && len(base.path) > 0 && isNormalizedWindowsDriveLetter(base.path[0]) {
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
				if override == usNone && len(br) == 2 && isWindowsLetter(br[0], br[1]) {
					state = usPath
				} else if bs == "" {
					e := ""
					url.host = &e
					if override != usNone {
						return url, nil
					}
					state = usPathStart
				} else {
					h, err := ParseHost(bs, !url.special())
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
				if isDoubleDot(bs) {
					url.shortenPath()
					if c != '/' && !(url.special() && c == '\\') {
						url.path = append(url.path, "")
					}
				} else if isSingleDot(bs) && c != '/' && !(url.special() && c == '\\') {
					url.path = append(url.path, "")
				} else if !isSingleDot(bs) {
					if url.scheme == "file" && len(url.path) == 0 && len(bs) == 2 && isWindowsLetter(rune(bs[0]), rune(bs[1])) {
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
				percentEncodeRune(&buf, c, inPathSet)
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
				percentEncodeRune(&eb, c, inC0)
				url.opath += eb.String()
			}
		case usQuery:
			if (override == usNone && c == '#') || c == eof {
				set := inQuerySet
				if url.special() {
					set = inSpecialQuerySet
				}
				q := ""
				if url.query != nil {
					q = *url.query
				}
				q += percentEncodeString(buf.String(), set)
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
				percentEncodeRune(&eb, c, inFragmentSet)
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

// override runs the basic URL parser on value with url c and a state
// override, for a setter. As in the standard, the parser works on the URL
// in place, so what it changed before a failure stays changed (the host
// setter's "example.com:65536" sets the host and leaves the port).
func override(c *URL, value string, state parserState) *URL {
	_, _ = basicParse(value, nil, c, state)
	return c
}

// SetComponent applies a URL setter (https://url.spec.whatwg.org/#urlutils-members)
// to a copy of u. It returns nil when the href setter fails (a TypeError).
func SetComponent(u *URL, name, value string) *URL {
	c := u.clone()
	switch name {
	case "href":
		nu, err := Parse(value, nil)
		if err != nil {
			return nil
		}
		return nu
	case "protocol":
		return override(c, value+":", usSchemeStart)
	case "username":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		c.username = percentEncodeString(value, inUserinfoSet)
		return c
	case "password":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		c.password = percentEncodeString(value, inUserinfoSet)
		return c
	case "host", "hostname":
		if c.opaque {
			return u
		}
		st := usHost
		if name == "hostname" {
			st = usHostname
		}
		return override(c, value, st)
	case "port":
		if c.host == nil || *c.host == "" || c.scheme == "file" {
			return u
		}
		if value == "" {
			c.port = -1
			return c
		}
		return override(c, value, usPort)
	case "pathname":
		if c.opaque {
			return u
		}
		c.path = nil
		return override(c, value, usPathStart)
	case "search":
		if value == "" {
			c.query = nil
			return c
		}
		value = strings.TrimPrefix(value, "?")
		e := ""
		c.query = &e
		return override(c, value, usQuery)
	case "hash":
		if value == "" {
			c.fragment = nil
			return c
		}
		value = strings.TrimPrefix(value, "#")
		e := ""
		c.fragment = &e
		return override(c, value, usFragment)
	}
	return u
}
