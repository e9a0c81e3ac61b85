package goja

import "fmt"

// cellhost patch: the regular expression v flag (unicodeSets, ES2024), as
// far as goja's translation to RE2/regexp2 carries it. A v pattern is
// compiled as a u pattern: everything u allows means the same under v.
// What only v has, the class set notation (nested classes, difference --,
// intersection &&, string literals \q{...}), is refused with a SyntaxError
// rather than read as u would read it (silently wrong).

func checkUnicodeSetsPattern(p string) error {
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\':
			if i+1 < len(p) && p[i+1] == 'q' && inClass {
				return unicodeSetsUnsupported(p, `\q{...}`)
			}
			i++
		case c == '[':
			if inClass {
				return unicodeSetsUnsupported(p, "nested classes")
			}
			inClass = true
		case c == ']':
			inClass = false
		case inClass && (c == '-' || c == '&') && i+1 < len(p) && p[i+1] == c:
			return unicodeSetsUnsupported(p, "class set operations ("+string([]byte{c, c})+")")
		}
	}
	return nil
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
