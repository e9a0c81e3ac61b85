package workerdtests

import (
	"fmt"
	"strings"
	"unicode"
)

// This file reads the Cap'n Proto text of workerd's .wd-test configs
// (constants of type Workerd.Config and Workerd.Worker). Hand-written:
// the Go Cap'n Proto library (capnproto.org/go/capnp) reads binary
// messages and schemas compiled by the capnp tool, not this text form,
// and the configs use only its value syntax: structs "(a = v, ...)",
// lists "[...]", strings, numbers, identifiers, references ".name" to
// other constants, and `embed "file"`. TestParseConfig pins it.

// Value is a parsed value: Struct, List, string (also a block of
// backquoted lines), Embed, Ref or Ident
// (numbers and enum names are kept as Ident text).
type Value any

// Struct is "(name = value, ...)" in source order.
type Struct []Field

// Field is one "name = value" of a Struct.
type Field struct {
	Name  string
	Value Value
}

// List is "[v, ...]".
type List []Value

// Embed is `embed "file"`: the file's contents, relative to the config.
type Embed string

// Ref is ".name": another constant of the same file.
type Ref string

// Ident is a bare word (true, false, a number, an enum value).
type Ident string

// Get returns the value of the field name, or nil.
func (s Struct) Get(name string) Value {
	for _, f := range s {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

// File is a parsed .wd-test: its constants by name.
type File struct {
	Consts map[string]Value
	Order  []string
	Types  map[string]string // the constant's declared type, "Workerd.Config"
}

// ParseCapnp parses the text of a .wd-test file.
func ParseCapnp(src string) (*File, error) {
	p := &parser{src: src}
	f := &File{Consts: map[string]Value{}, Types: map[string]string{}}
	for {
		p.skip()
		if p.pos >= len(p.src) {
			return f, nil
		}
		word := p.word()
		switch word {
		case "using":
			// using X = import "...";
			if err := p.skipTo(';'); err != nil {
				return nil, err
			}
		case "const":
			name := p.word()
			p.skip()
			typ := ""
			if p.peek() == ':' {
				p.pos++
				p.skip()
				typ = p.word()
			}
			if err := p.expect('='); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, fmt.Errorf("const %s: %w", name, err)
			}
			if err := p.expect(';'); err != nil {
				return nil, err
			}
			f.Consts[name] = v
			f.Types[name] = typ
			f.Order = append(f.Order, name)
		case "":
			return nil, p.errorf("unexpected %q", p.peek())
		default:
			return nil, p.errorf("unexpected %q", word)
		}
	}
}

type parser struct {
	src string
	pos int
}

func (p *parser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.src[:min(p.pos, len(p.src))], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *parser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// skip passes white space and # comments.
func (p *parser) skip() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '#':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) skipTo(c byte) error {
	for p.pos < len(p.src) {
		if p.src[p.pos] == '"' {
			if _, err := p.str(); err != nil {
				return err
			}
			continue
		}
		p.pos++
		if p.src[p.pos-1] == c {
			return nil
		}
	}
	return p.errorf("missing %q", c)
}

func (p *parser) expect(c byte) error {
	p.skip()
	if p.peek() != c {
		return p.errorf("want %q, have %q", c, p.peek())
	}
	p.pos++
	return nil
}

func isWord(r byte) bool {
	return r == '_' || r == '.' || r == '-' || r == '+' || r < 0x80 && (unicode.IsLetter(rune(r)) || unicode.IsDigit(rune(r)))
}

func (p *parser) word() string {
	p.skip()
	start := p.pos
	for p.pos < len(p.src) && isWord(p.src[p.pos]) {
		p.pos++
	}
	return p.src[start:p.pos]
}

func (p *parser) str() (string, error) {
	if p.peek() != '"' {
		return "", p.errorf("want a string")
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\\':
			if p.pos >= len(p.src) {
				return "", p.errorf("unterminated string")
			}
			e := p.src[p.pos]
			p.pos++
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) value() (Value, error) {
	p.skip()
	switch c := p.peek(); c {
	case '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		// Adjacent strings concatenate.
		for {
			p.skip()
			if p.peek() != '"' {
				return s, nil
			}
			t, err := p.str()
			if err != nil {
				return nil, err
			}
			s += t
		}
	case '`':
		// Block text: each line from a backquote to its end, joined
		// with newlines (workerd's configs write inline modules so).
		var b strings.Builder
		for p.peek() == '`' {
			p.pos++
			end := strings.IndexByte(p.src[p.pos:], '\n')
			if end < 0 {
				end = len(p.src) - p.pos
			}
			b.WriteString(p.src[p.pos : p.pos+end])
			b.WriteByte('\n')
			p.pos += end
			p.skip()
		}
		return b.String(), nil
	case '(':
		p.pos++
		var s Struct
		for {
			p.skip()
			if p.peek() == ')' {
				p.pos++
				return s, nil
			}
			name := p.word()
			if name == "" {
				return nil, p.errorf("want a field name, have %q", p.peek())
			}
			if err := p.expect('='); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			s = append(s, Field{Name: name, Value: v})
			p.skip()
			if p.peek() == ',' {
				p.pos++
			}
		}
	case '[':
		p.pos++
		var l List
		for {
			p.skip()
			if p.peek() == ']' {
				p.pos++
				return l, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			p.skip()
			if p.peek() == ',' {
				p.pos++
			}
		}
	case '.':
		p.pos++
		return Ref(p.word()), nil
	default:
		w := p.word()
		if w == "" {
			return nil, p.errorf("want a value, have %q", c)
		}
		if w == "embed" {
			p.skip()
			s, err := p.str()
			if err != nil {
				return nil, err
			}
			return Embed(s), nil
		}
		return Ident(w), nil
	}
}
