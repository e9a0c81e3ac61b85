// Package v8json reproduces the messages of the SyntaxError V8's JSON.parse
// throws. goja's messages differ from V8's, and workerd's outputs contain
// V8's, so when goja's parser fails the input is re-scanned by this
// checker, which follows V8's JsonParser step by step (positions are UTF-16
// code unit offsets). It is pure Go.
package v8json

import (
	"fmt"
	"unicode/utf16"
)

type token int

const (
	tokNumber token = iota
	tokString
	tokLBrace
	tokRBrace
	tokLBrack
	tokRBrack
	tokTrue
	tokFalse
	tokNull
	tokWS
	tokColon
	tokComma
	tokIllegal
	tokEOS
)

func tokenOf(c int) token {
	switch {
	case c < 0:
		return tokEOS
	case c == '"':
		return tokString
	case c >= '0' && c <= '9', c == '-':
		return tokNumber
	case c == '[':
		return tokLBrack
	case c == '{':
		return tokLBrace
	case c == ']':
		return tokRBrack
	case c == '}':
		return tokRBrace
	case c == 't':
		return tokTrue
	case c == 'f':
		return tokFalse
	case c == 'n':
		return tokNull
	case c == ' ', c == '\t', c == '\r', c == '\n':
		return tokWS
	case c == ':':
		return tokColon
	case c == ',':
		return tokComma
	}
	return tokIllegal
}

const (
	msgPropNameOrRBrace   = "Expected property name or '}' in JSON at position %d (line %d column %d)"
	msgCommaOrRBrack      = "Expected ',' or ']' after array element in JSON at position %d (line %d column %d)"
	msgCommaOrRBrace      = "Expected ',' or '}' after property value in JSON at position %d (line %d column %d)"
	msgDoubleQuotedProp   = "Expected double-quoted property name in JSON at position %d (line %d column %d)"
	msgExponentMissing    = "Exponent part is missing a number in JSON at position %d (line %d column %d)"
	msgColonAfterProp     = "Expected ':' after property name in JSON at position %d (line %d column %d)"
	msgUnterminatedFrac   = "Unterminated fractional number in JSON at position %d (line %d column %d)"
	msgNonWhitespace      = "Unexpected non-whitespace character after JSON at position %d (line %d column %d)"
	msgBadEscape          = "Bad escaped character in JSON at position %d (line %d column %d)"
	msgBadControl         = "Bad control character in string literal in JSON at position %d (line %d column %d)"
	msgBadUnicodeEscape   = "Bad Unicode escape in JSON at position %d (line %d column %d)"
	msgNoNumberAfterMinus = "No number after minus sign in JSON at position %d (line %d column %d)"
	msgUnterminatedString = "Unterminated string in JSON at position %d (line %d column %d)"
	msgUnexpectedNumber   = "Unexpected number in JSON at position %d (line %d column %d)"
	msgUnexpectedString   = "Unexpected string in JSON at position %d (line %d column %d)"
)

type checker struct {
	s   []uint16
	i   int
	msg string
}

type failure struct{}

func (p *checker) cur() int {
	if p.i < len(p.s) {
		return int(p.s[p.i])
	}
	return -1
}

// peek skips whitespace and returns the next token.
func (p *checker) peek() token {
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			p.i++
			continue
		}
		break
	}
	return tokenOf(p.cur())
}

func (p *checker) location() (int, int) {
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

func (p *checker) fail(tmpl string) {
	line, col := p.location()
	p.msg = fmt.Sprintf(tmpl, p.i, line, col)
	panic(failure{})
}

func (p *checker) failToken(t token) {
	switch t {
	case tokEOS:
		p.msg = "Unexpected end of JSON input"
		panic(failure{})
	case tokNumber:
		p.fail(msgUnexpectedNumber)
	case tokString:
		p.fail(msgUnexpectedString)
	}
	src := string(utf16.Decode(p.s))
	switch src {
	case "[object Object]", "undefined", "Infinity", "NaN":
		p.msg = fmt.Sprintf("%q is not valid JSON", src)
		panic(failure{})
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
	panic(failure{})
}

func (p *checker) failChar(c int) {
	if c < 0 {
		p.failToken(tokEOS)
	}
	if c > 0xff {
		p.failToken(tokIllegal)
	}
	p.failToken(tokenOf(c))
}

func (p *checker) expect(t token, tmpl string) {
	if p.peek() != t {
		p.fail(tmpl)
	}
	p.i++
}

func (p *checker) scanString() {
	// cursor is just after the opening quote
	for {
		if p.i >= len(p.s) {
			p.fail(msgUnterminatedString)
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
						p.fail(msgBadUnicodeEscape)
					}
				}
			default:
				p.fail(msgBadEscape)
			}
			p.i++
		case c < 0x20:
			p.fail(msgBadControl)
		default:
			p.i++
		}
	}
}

func isDigit(c int) bool { return c >= '0' && c <= '9' }

func (p *checker) scanNumber() {
	if p.cur() == '-' {
		p.i++
	}
	if p.cur() == '0' {
		p.i++
		if isDigit(p.cur()) {
			p.failToken(tokNumber)
		}
	} else {
		start := p.i
		for isDigit(p.cur()) {
			p.i++
		}
		if p.i == start {
			p.fail(msgNoNumberAfterMinus)
		}
	}
	if p.cur() == '.' {
		p.i++
		if !isDigit(p.cur()) {
			p.fail(msgUnterminatedFrac)
		}
		for isDigit(p.cur()) {
			p.i++
		}
	}
	if c := p.cur(); c == 'e' || c == 'E' {
		p.i++
		if c := p.cur(); c == '-' || c == '+' {
			p.i++
		}
		if !isDigit(p.cur()) {
			p.fail(msgExponentMissing)
		}
		for isDigit(p.cur()) {
			p.i++
		}
	}
}

func (p *checker) scanLiteral(lit string) {
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
	p.failToken(tokEOS)
}

// Message returns the message of the SyntaxError V8's JSON.parse throws
// for src, or "" when V8 accepts src.
func Message(src []uint16) (msg string) {
	p := &checker{s: src}
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(failure); !ok {
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
			case tokString:
				p.i++
				p.scanString()
			case tokNumber:
				p.scanNumber()
			case tokLBrace:
				p.i++
				if p.peek() == tokRBrace {
					p.i++
					break
				}
				p.expect(tokString, msgPropNameOrRBrace)
				p.scanString()
				p.expect(tokColon, msgColonAfterProp)
				stack = append(stack, true)
				continue
			case tokLBrack:
				p.i++
				if p.peek() == tokRBrack {
					p.i++
					break
				}
				stack = append(stack, false)
				continue
			case tokTrue:
				p.scanLiteral("true")
			case tokFalse:
				p.scanLiteral("false")
			case tokNull:
				p.scanLiteral("null")
			default:
				p.failChar(p.cur())
			}
			break
		}
		// consume produced values
		for {
			if len(stack) == 0 {
				if p.peek() != tokEOS {
					p.fail(msgNonWhitespace)
				}
				return ""
			}
			top := stack[len(stack)-1]
			if p.peek() == tokComma {
				p.i++
				if top {
					p.expect(tokString, msgDoubleQuotedProp)
					p.scanString()
					p.expect(tokColon, msgColonAfterProp)
				}
				break
			}
			if top {
				p.expect(tokRBrace, msgCommaOrRBrace)
			} else {
				p.expect(tokRBrack, msgCommaOrRBrack)
			}
			stack = stack[:len(stack)-1]
		}
	}
}
