package web

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"github.com/andybalholm/cascadia"
	"github.com/cellhost/cellhost/third_party/goja"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// HTMLRewriter's Go half: it tokenizes a document with x/net/html, keeps
// the stack of open elements as lol-html (workerd's rewriter) does (an
// end tag closes up to its open element; no other implied closing), and
// matches selectors with cascadia against the elements seen so far. The
// JS half (htmlrewriter.js) runs the handlers over the tokens and writes
// the output, byte for byte the input where nothing changed.

// selectorError returns lol-html's message for a selector it refuses, or "".
func selectorError(sel string) string {
	s := strings.TrimSpace(sel)
	if s == "" {
		return "The selector is empty."
	}
	if strings.HasSuffix(s, ">") || strings.HasSuffix(s, "+") || strings.HasSuffix(s, "~") || strings.HasPrefix(s, ">") {
		return "Dangling combinator in selector."
	}
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		rest := strings.TrimPrefix(s[i+1:], ":")
		name := rest
		if j := strings.IndexAny(rest, "( .#[>:+~"); j >= 0 {
			name = rest[:j]
		}
		switch strings.ToLower(name) {
		case "nth-child", "first-child", "nth-of-type", "first-of-type", "not":
			if strings.HasPrefix(s[i+1:], ":") {
				return "Unsupported pseudo-class or pseudo-element in selector."
			}
		default:
			return "Unsupported pseudo-class or pseudo-element in selector."
		}
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '+', '~':
			if depth == 0 {
				return "Unsupported combinator `" + string(s[i]) + "` in selector."
			}
		}
	}
	if _, err := cascadia.Compile(s); err != nil {
		if depth > 0 || strings.HasSuffix(s, "[") || strings.HasSuffix(s, "(") {
			return "Unexpected end of selector."
		}
		return "Invalid selector."
	}
	return ""
}

var selectorCache sync.Map // string → cascadia.Selector

func compiledSelector(sel string) (cascadia.Selector, error) {
	if s, ok := selectorCache.Load(sel); ok {
		return s.(cascadia.Selector), nil
	}
	if msg := selectorError(sel); msg != "" {
		return nil, jserr.TypeError("Parser error: " + msg)
	}
	s, err := cascadia.Compile(caseInsensitiveAttrs(strings.TrimSpace(sel)))
	if err != nil {
		return nil, jserr.TypeError("Parser error: Invalid selector.")
	}
	selectorCache.Store(sel, s)
	return s, nil
}

// HTML's attributes whose values selectors match without case (HTML,
// "case-sensitivity of selectors"), as lol-html does.
var caseInsensitiveAttr = map[string]bool{}

func init() {
	for _, a := range strings.Fields(`accept accept-charset align alink axis bgcolor charset checked clear codetype color compact
		declare defer dir direction disabled enctype face frame hreflang http-equiv lang language link media method multiple
		nohref noresize noshade nowrap readonly rel rev rules scope scrolling selected shape target text type valign valuetype vlink`) {
		caseInsensitiveAttr[a] = true
	}
}

var attrSelector = regexp.MustCompile(`\[\s*([A-Za-z_:][-A-Za-z0-9_:]*)\s*([~|^$*]?=)\s*("[^"]*"|'[^']*'|[^\]\s]+)\s*\]`)

// caseInsensitiveAttrs adds the i flag to attribute selectors on those
// attributes.
func caseInsensitiveAttrs(sel string) string {
	return attrSelector.ReplaceAllStringFunc(sel, func(m string) string {
		sub := attrSelector.FindStringSubmatch(m)
		if !caseInsensitiveAttr[strings.ToLower(sub[1])] {
			return m
		}
		return "[" + sub[1] + sub[2] + sub[3] + " i]"
	})
}

var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true,
	"input": true, "link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true}

// rawAttrs splits a raw start tag into its attributes' source text, in
// order (name, raw text of the whole attribute).
func rawAttrs(raw []byte) [][2]string {
	var out [][2]string
	i := 1
	for i < len(raw) && !isHTMLSpace(raw[i]) && raw[i] != '>' && raw[i] != '/' {
		i++
	}
	for i < len(raw) {
		for i < len(raw) && (isHTMLSpace(raw[i]) || raw[i] == '/') {
			i++
		}
		if i >= len(raw) || raw[i] == '>' {
			break
		}
		start := i
		for i < len(raw) && !isHTMLSpace(raw[i]) && raw[i] != '=' && raw[i] != '>' && (raw[i] != '/' || i == start) {
			i++
		}
		name := strings.ToLower(string(raw[start:i]))
		j := i
		for j < len(raw) && isHTMLSpace(raw[j]) {
			j++
		}
		if j < len(raw) && raw[j] == '=' {
			j++
			for j < len(raw) && isHTMLSpace(raw[j]) {
				j++
			}
			if j < len(raw) && (raw[j] == '"' || raw[j] == '\'') {
				q := raw[j]
				k := bytes.IndexByte(raw[j+1:], q)
				if k < 0 {
					j = len(raw)
				} else {
					j += k + 2
				}
			} else {
				for j < len(raw) && !isHTMLSpace(raw[j]) && raw[j] != '>' {
					j++
				}
			}
			i = j
		}
		out = append(out, [2]string{name, string(raw[start:i])})
	}
	return out
}

// splitRawAttr returns an attribute's name and value as written.
func splitRawAttr(r string) (string, string) {
	name, v, ok := strings.Cut(r, "=")
	if !ok {
		return r, ""
	}
	v = strings.TrimSpace(v)
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	} else if len(v) >= 1 && (v[0] == '"' || v[0] == '\'') {
		v = v[1:]
	}
	return strings.TrimSpace(name), v
}

var rawTextElements = map[string]bool{"script": true, "style": true, "textarea": true, "title": true, "xmp": true, "iframe": true, "noembed": true, "noframes": true}

// textChunks splits a text token where lol-html's lexer does: a "<" that
// does not open a tag is a chunk of its own, and inside raw text ("</x"
// that is not the element's end tag) so is the "</x" and what follows.
func textChunks(raw string, rawText bool) []interface{} {
	var out []interface{}
	for {
		i := strings.IndexByte(raw, '<')
		if i < 0 {
			break
		}
		if i > 0 {
			out = append(out, raw[:i])
		}
		raw = raw[i:]
		if rawText && len(raw) > 2 && raw[1] == '/' && isASCIILetter(raw[2]) {
			j := 2
			for j < len(raw) && isASCIILetter(raw[j]) {
				j++
			}
			out = append(out, raw[:j])
			raw = raw[j:]
			continue
		}
		out = append(out, "<")
		raw = raw[1:]
	}
	if raw != "" {
		out = append(out, raw)
	}
	return out
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// htmlToken is one token of a rewrite plan.
type htmlToken []interface{}

// planHTML tokenizes doc and returns its tokens, each an array:
//
//	["s", raw, tag, [[name, value, rawText], ...], selfClosing, [selector index...], id]
//	["e", raw, tag, [closed element id...]]   (innermost first; none when nothing matched)
//	["t", raw, [selector index of open elements...], [chunk...]]
//	["c", raw, text, [selector index of open elements...]]
//	["d", raw, name, publicId|null, systemId|null]
//	["x", [element ids still open at the end]]
func planHTML(doc []byte, sels []cascadia.Selector) []htmlToken {
	z := html.NewTokenizer(bytes.NewReader(doc))
	root := &html.Node{Type: html.DocumentNode}
	type open struct {
		node    *html.Node
		id      int
		matches []int
	}
	var stack []open
	nextID := 0
	ancestorMatches := func() []interface{} {
		seen := map[int]bool{}
		var out []interface{}
		for _, o := range stack {
			for _, m := range o.matches {
				if !seen[m] {
					seen[m] = true
					out = append(out, m)
				}
			}
		}
		return sortInts(out)
	}
	var out []htmlToken
	for {
		tt := z.Next()
		raw := string(z.Raw())
		if tt == html.ErrorToken {
			// an unfinished tag or comment at the end stays as it was
			if raw != "" {
				out = append(out, htmlToken{"t", raw, ancestorMatches(), []interface{}{raw}})
			}
			break
		}
		switch tt {
		case html.TextToken:
			chunks := textChunks(raw, len(stack) > 0 && rawTextElements[stack[len(stack)-1].node.Data])
			out = append(out, htmlToken{"t", raw, ancestorMatches(), chunks})
		case html.CommentToken:
			out = append(out, htmlToken{"c", raw, string(z.Text()), ancestorMatches()})
		case html.DoctypeToken:
			name, pub, sys := doctypeParts(string(z.Text()))
			out = append(out, htmlToken{"d", raw, name, pub, sys})
		case html.StartTagToken, html.SelfClosingTagToken:
			tn, hasAttr := z.TagName()
			tag := string(tn)
			n := &html.Node{Type: html.ElementNode, Data: tag, DataAtom: atom.Lookup(tn)}
			var attrs []interface{}
			raws := rawAttrs([]byte(raw))
			ai := 0
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				n.Attr = append(n.Attr, html.Attribute{Key: string(k), Val: string(v)})
				r := string(k) + `="` + html.EscapeString(string(v)) + `"`
				rawName, rawValue := string(k), html.EscapeString(string(v))
				if ai < len(raws) && raws[ai][0] == string(k) {
					r = raws[ai][1]
					rawName, rawValue = splitRawAttr(r)
				}
				ai++
				// getAttribute gives the value as written (entities kept), as lol-html
				attrs = append(attrs, []interface{}{string(k), rawValue, r, rawName})
			}
			parent := root
			if len(stack) > 0 {
				parent = stack[len(stack)-1].node
			}
			parent.AppendChild(n)
			var matches []int
			for i, s := range sels {
				if s.Match(n) {
					matches = append(matches, i)
				}
			}
			m := make([]interface{}, len(matches))
			for i, x := range matches {
				m[i] = x
			}
			id := nextID
			nextID++
			self := tt == html.SelfClosingTagToken || voidElements[tag]
			out = append(out, htmlToken{"s", raw, tag, attrs, self, m, id})
			if !self {
				stack = append(stack, open{node: n, id: id, matches: matches})
			}
		case html.EndTagToken:
			tn, _ := z.TagName()
			tag := string(tn)
			var closed []interface{}
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].node.Data == tag {
					for j := len(stack) - 1; j >= i; j-- {
						closed = append(closed, stack[j].id)
					}
					stack = stack[:i]
					break
				}
			}
			out = append(out, htmlToken{"e", raw, tag, closed})
		}
	}
	var rest []interface{}
	for j := len(stack) - 1; j >= 0; j-- {
		rest = append(rest, stack[j].id)
	}
	return append(out, htmlToken{"x", rest})
}

func sortInts(v []interface{}) []interface{} {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].(int) < v[j-1].(int); j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
	return v
}

// doctypeParts splits a doctype's text (after "<!DOCTYPE ") into its name
// and public and system identifiers (nil when absent).
func doctypeParts(s string) (string, interface{}, interface{}) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return "", nil, nil
	}
	name := strings.ToLower(fields[0])
	var pub, sys interface{}
	rest := strings.TrimSpace(s[len(fields[0]):])
	quoted := func(r string) (string, string, bool) {
		r = strings.TrimSpace(r)
		if r == "" || (r[0] != '"' && r[0] != '\'') {
			return "", r, false
		}
		k := strings.IndexByte(r[1:], r[0])
		if k < 0 {
			return r[1:], "", true
		}
		return r[1 : k+1], r[k+2:], true
	}
	switch {
	case len(rest) >= 6 && strings.EqualFold(rest[:6], "PUBLIC"):
		if v, r, ok := quoted(rest[6:]); ok {
			pub = v
			if v2, _, ok := quoted(r); ok {
				sys = v2
			}
		}
	case len(rest) >= 6 && strings.EqualFold(rest[:6], "SYSTEM"):
		if v, _, ok := quoted(rest[6:]); ok {
			sys = v
		}
	}
	return name, pub, sys
}

func htmlRewriterNatives(rt *goja.Runtime, n natives) {
	// htmlSelector(sel): throws workerd's TypeError for a selector lol-html refuses
	n.setE("htmlSelector", func(c goja.FunctionCall) (goja.Value, error) {
		_, err := compiledSelector(c.Argument(0).String())
		return goja.Undefined(), err
	})
	// htmlPlan(u8, [selector...]) → tokens (see planHTML)
	n.setE("htmlPlan", func(c goja.FunctionCall) (goja.Value, error) {
		doc, err := bytesOf(c.Argument(0))
		if err != nil {
			return nil, err
		}
		var selStrs []string
		if err := rt.ExportTo(c.Argument(1), &selStrs); err != nil {
			return nil, err
		}
		sels := make([]cascadia.Selector, len(selStrs))
		for i, s := range selStrs {
			if sels[i], err = compiledSelector(s); err != nil {
				return nil, err
			}
		}
		toks := planHTML(doc, sels)
		out := make([]interface{}, len(toks))
		for i, t := range toks {
			out[i] = jsArrays(rt, []interface{}(t))
		}
		return rt.NewArray(out...), nil
	})
}

// jsArrays turns nested []interface{} into JS arrays.
func jsArrays(rt *goja.Runtime, v interface{}) interface{} {
	a, ok := v.([]interface{})
	if !ok {
		return v
	}
	out := make([]interface{}, len(a))
	for i, x := range a {
		out[i] = jsArrays(rt, x)
	}
	return rt.NewArray(out...)
}
