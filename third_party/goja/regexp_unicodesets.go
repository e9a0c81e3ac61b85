package goja

import (
	"fmt"
	"strings"
)

// cellhost patch: the regular expression v flag (unicodeSets, ES2024), as
// far as goja's translation to RE2/regexp2 carries it. A v pattern is
// compiled as a u pattern: everything u allows means the same under v.
// What only v has, the class set notation (nested classes, difference --,
// intersection &&, string literals \q{...}), is refused with a SyntaxError
// rather than read as u would read it (silently wrong).

func checkUnicodeSetsPattern(p string) error {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			n, err := checkUnicodeSetsClass(p, i)
			if err != nil {
				return err
			}
			i = n
		}
	}
	return nil
}

// checkUnicodeSetsClass checks the class opening at p[i] and returns the
// index of its closing bracket. Besides the set notation goja cannot
// translate, it refuses what v forbids and u allows in a class (the
// "breaking changes from u to v"): the syntax characters ( ) { } / | and a
// lone - unescaped, and the reserved double punctuators (&& !! ## ...).
func checkUnicodeSetsClass(p string, i int) (int, error) {
	j := i + 1
	if j < len(p) && p[j] == '^' {
		j++
	}
	first := j
	for ; j < len(p); j++ {
		c := p[j]
		switch c {
		case ']':
			return j, nil
		case '\\':
			if j+1 < len(p) && p[j+1] == 'q' {
				return 0, unicodeSetsUnsupported(p, `\q{...}`)
			}
			j++
			if j+1 < len(p) && p[j+1] == '{' && strings.IndexByte("pPu", p[j]) >= 0 {
				if k := strings.IndexByte(p[j:], '}'); k >= 0 {
					j += k // \p{...}, \u{...}
				}
			}
			continue
		case '[':
			return 0, unicodeSetsUnsupported(p, "nested classes")
		case '(', ')', '{', '}', '/', '|':
			return 0, unicodeSetsSyntax(p, "unescaped "+string(c)+" in a class")
		}
		if j+1 < len(p) && p[j+1] == c && strings.IndexByte("&!#$%*+,.:;<=>?@^`~-", c) >= 0 {
			if c == '-' || c == '&' {
				return 0, unicodeSetsUnsupported(p, "class set operations ("+string([]byte{c, c})+")")
			}
			return 0, unicodeSetsSyntax(p, "reserved double punctuator "+string([]byte{c, c}))
		}
		if c == '-' && (j == first || j+1 >= len(p) || p[j+1] == ']') {
			return 0, unicodeSetsSyntax(p, "unescaped - in a class")
		}
	}
	return j, nil
}

func unicodeSetsSyntax(p, what string) error {
	return fmt.Errorf("Invalid regular expression: /%s/v: %s", p, what)
}

func unicodeSetsUnsupported(p, what string) error {
	return fmt.Errorf("Invalid regular expression: /%s/v: %s are not supported", p, what)
}

func (r *Runtime) regexpproto_getUnicodeSets(call FunctionCall) Value {
	if this, ok := r.toObject(call.This).self.(*regexpObject); ok {
		return r.toBoolean(this.pattern.unicodeSets)
	} else if call.This == r.global.RegExpPrototype {
		return _undefined
	}
	panic(r.NewTypeError("Method RegExp.prototype.unicodeSets getter called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: call.This})))
}
