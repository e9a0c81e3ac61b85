package parser

// cellhost patch: Unicode property escapes (\p{...}, \P{...}) in /u
// patterns. Upstream's RE2 translation unescaped "\p" to "p", so /\p{L}/u
// matched the text "p{L}" (silently wrong), while the same escape worked
// when a lookahead sent the pattern to regexp2. This file translates the
// ECMAScript property names into RE2 syntax, and hands whatever RE2 cannot
// express to regexp2 (as a lookahead would).

import (
	"fmt"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
)

// generalCategoryLongNames maps ECMAScript's General_Category long names
// (and their aliases) to the short names RE2 knows.
var generalCategoryLongNames = map[string]string{
	"Other": "C", "Control": "Cc", "cntrl": "Cc", "Format": "Cf", "Unassigned": "Cn",
	"Private_Use": "Co", "Surrogate": "Cs",
	"Letter": "L", "Cased_Letter": "LC", "Lowercase_Letter": "Ll", "Modifier_Letter": "Lm",
	"Other_Letter": "Lo", "Titlecase_Letter": "Lt", "Uppercase_Letter": "Lu",
	"Mark": "M", "Combining_Mark": "M", "Spacing_Mark": "Mc", "Enclosing_Mark": "Me", "Nonspacing_Mark": "Mn",
	"Number": "N", "Decimal_Number": "Nd", "digit": "Nd", "Letter_Number": "Nl", "Other_Number": "No",
	"Punctuation": "P", "punct": "P", "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd",
	"Close_Punctuation": "Pe", "Final_Punctuation": "Pf", "Initial_Punctuation": "Pi",
	"Other_Punctuation": "Po", "Open_Punctuation": "Ps",
	"Symbol": "S", "Currency_Symbol": "Sc", "Modifier_Symbol": "Sk", "Math_Symbol": "Sm", "Other_Symbol": "So",
	"Separator": "Z", "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Space_Separator": "Zs",
}

func generalCategory(name string) (string, bool) {
	if short, ok := generalCategoryLongNames[name]; ok {
		name = short
	}
	if _, ok := unicode.Categories[name]; ok || name == "Cn" || name == "LC" {
		return name, re2Knows(name)
	}
	return "", false
}

func re2Knows(name string) bool {
	_, err := syntax.Parse(`\p{`+name+`}`, syntax.Perl)
	return err == nil
}

// derivedProperty is an ECMAScript binary property that Go's unicode
// package has no table for, derived from tables it has as Unicode's
// DerivedCoreProperties.txt defines it: the runes of the union of tables,
// less those for which drop returns true.
type derivedProperty struct {
	tables []*unicode.RangeTable
	drop   func(r rune) bool
}

func notPattern(r rune) bool {
	return unicode.In(r, unicode.Pattern_Syntax, unicode.Pattern_White_Space)
}

var derivedProperties = map[string]derivedProperty{
	"Alphabetic": {tables: []*unicode.RangeTable{unicode.Lu, unicode.Ll, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Nl, unicode.Other_Alphabetic}},
	"Lowercase":  {tables: []*unicode.RangeTable{unicode.Ll, unicode.Other_Lowercase}},
	"Uppercase":  {tables: []*unicode.RangeTable{unicode.Lu, unicode.Other_Uppercase}},
	"Math":       {tables: []*unicode.RangeTable{unicode.Sm, unicode.Other_Math}},
	"ID_Start":   {tables: []*unicode.RangeTable{unicode.L, unicode.Nl, unicode.Other_ID_Start}, drop: notPattern},
	"ID_Continue": {tables: []*unicode.RangeTable{unicode.L, unicode.Nl, unicode.Other_ID_Start,
		unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue}, drop: notPattern},
}

var (
	propertyRangesMu sync.Mutex
	propertyRanges   = map[string]string{}
)

// rangesOf returns the RE2 class body (without brackets) of property name,
// computed once per process.
func rangesOf(name string, d derivedProperty) string {
	propertyRangesMu.Lock()
	defer propertyRangesMu.Unlock()
	if s, ok := propertyRanges[name]; ok {
		return s
	}
	set := make([]uint64, (unicode.MaxRune+1)/64)
	add := func(r rune) {
		if d.drop == nil || !d.drop(r) {
			set[r/64] |= 1 << (r % 64)
		}
	}
	for _, t := range d.tables {
		for _, rg := range t.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				add(r)
			}
		}
		for _, rg := range t.R32 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r += rune(rg.Stride) {
				add(r)
			}
		}
	}
	var b strings.Builder
	in := func(r rune) bool { return r <= unicode.MaxRune && set[r/64]&(1<<(r%64)) != 0 }
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if set[r/64] == 0 {
			r += 63 - r%64
			continue
		}
		if !in(r) {
			continue
		}
		end := r
		for in(end + 1) {
			end++
		}
		if end == r {
			fmt.Fprintf(&b, `\x{%X}`, r)
		} else {
			fmt.Fprintf(&b, `\x{%X}-\x{%X}`, r, end)
		}
		r = end
	}
	propertyRanges[name] = b.String()
	return b.String()
}

// unicodePropertyRE2 translates the body of \p{body} (or \P{body} when
// negated) into RE2 syntax, or reports false when RE2 cannot express it
// (the pattern then goes to regexp2).
func unicodePropertyRE2(body string, negated, inClass bool) (string, bool) {
	p := `\p`
	if negated {
		p = `\P`
	}
	name, value, hasValue := strings.Cut(body, "=")
	if hasValue {
		switch name {
		case "General_Category", "gc":
			if c, ok := generalCategory(value); ok {
				return p + "{" + c + "}", true
			}
		case "Script", "sc":
			if _, ok := unicode.Scripts[value]; ok && re2Knows(value) {
				return p + "{" + value + "}", true
			}
		}
		return "", false
	}
	if c, ok := generalCategory(name); ok {
		return p + "{" + c + "}", true
	}
	var ranges string
	switch name {
	case "Any":
		ranges = `\x{0}-\x{10FFFF}`
	case "ASCII":
		ranges = `\x{0}-\x{7F}`
	case "Assigned":
		return map[bool]string{false: `\P{Cn}`, true: `\p{Cn}`}[negated], true
	default:
		if d, ok := derivedProperties[name]; ok {
			ranges = rangesOf(name, d)
		} else if tbl, ok := unicode.Properties[name]; ok && !strings.HasPrefix(name, "Other_") && name != "Prepended_Concatenation_Mark" {
			ranges = rangesOf(name, derivedProperty{tables: []*unicode.RangeTable{tbl}})
		} else {
			return "", false
		}
	}
	switch {
	case !negated && inClass:
		return ranges, true
	case !negated:
		return "[" + ranges + "]", true
	case !inClass:
		return "[^" + ranges + "]", true
	}
	return "", false // a negated set inside a class: regexp2
}

// PropertyEscapesForRegexp2 rewrites, in the source of a /u pattern that
// goes to regexp2 (one RE2 cannot run: lookarounds, backreferences),
// the property escapes regexp2 does not know (`gc=`, `Script=`, `ASCII`,
// `Alphabetic`, ...) into explicit classes of code points. Escapes it cannot
// rewrite are left for regexp2 to accept or refuse.
func PropertyEscapesForRegexp2(src string) string {
	if !strings.Contains(src, `\p{`) && !strings.Contains(src, `\P{`) {
		return src
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			n := src[i+1]
			if (n == 'p' || n == 'P') && i+2 < len(src) && src[i+2] == '{' {
				if end := strings.IndexByte(src[i+3:], '}'); end >= 0 {
					body := src[i+3 : i+3+end]
					if cls, ok := regexp2Property(body, n == 'P', inClass); ok {
						b.WriteString(cls)
						i += 3 + end
						continue
					}
				}
			}
			b.WriteByte(c)
			b.WriteByte(n)
			i++
			continue
		case c == '[' && !inClass:
			inClass = true
		case c == ']' && inClass:
			inClass = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// regexp2Property is the regexp2 form of \p{body}: regexp2 knows bare
// general category names, so those stay; the rest become explicit classes.
func regexp2Property(body string, negated, inClass bool) (string, bool) {
	if _, ok := unicode.Categories[body]; ok {
		return "", false
	}
	if _, ok := generalCategoryLongNames[body]; ok {
		return "", false
	}
	if body == "Assigned" {
		if negated {
			return `\p{Cn}`, true
		}
		return `\P{Cn}`, true
	}
	var tbl *unicode.RangeTable
	name, value, hasValue := strings.Cut(body, "=")
	switch {
	case hasValue && (name == "General_Category" || name == "gc"):
		if short, ok := generalCategoryLongNames[value]; ok {
			value = short
		}
		tbl = unicode.Categories[value]
	case hasValue && (name == "Script" || name == "sc"):
		tbl = unicode.Scripts[value]
	case !hasValue:
		re2, ok := unicodePropertyRE2(body, false, true)
		if !ok || strings.HasPrefix(re2, `\p`) || strings.HasPrefix(re2, `\P`) {
			return "", false
		}
		return wrapRegexp2Class(strings.ReplaceAll(re2, `\x{`, `\u{`), negated, inClass)
	}
	if tbl == nil {
		return "", false
	}
	ranges := rangesOf("table:"+body, derivedProperty{tables: []*unicode.RangeTable{tbl}})
	return wrapRegexp2Class(strings.ReplaceAll(ranges, `\x{`, `\u{`), negated, inClass)
}

func wrapRegexp2Class(ranges string, negated, inClass bool) (string, bool) {
	switch {
	case !negated && inClass:
		return ranges, true
	case !negated:
		return "[" + ranges + "]", true
	case !inClass:
		return "[^" + ranges + "]", true
	}
	return "", false
}
