package goja

import (
	"fmt"
	"strconv"
	"strings"
)

// cellhost patch 34: duplicate named capturing groups (ES2025, V8 ships
// them): the same name may be used by groups in different alternatives of
// a disjunction (/(?<y>\d{4})-\d\d|\d\d-(?<y>\d{4})/); two groups of one
// name that can both take part in a match are a SyntaxError, as V8 says it
// ("Duplicate capture group name"). Upstream compiled such patterns for
// RE2 (which allows any duplicate name) but let the undefined group
// overwrite the matched one in `groups`, and panicked (a Go panic out of
// the engine) when the same pattern reached regexp2, which refuses
// duplicate names: in matchAll, a sticky or lastIndex search, or any
// pattern with a backreference. For regexp2 the later groups of a name
// are renamed (regexpDupNames) and a backreference \k<name> is written as
// the backreferences to every group of the name: at most one of them took
// part, and a backreference to a group that did not matches the empty
// string.

// regexpGroupScan is one named group of a pattern and the alternatives it
// sits in: for every enclosing group (the pattern itself first), that
// group's number and the index of the alternative.
type regexpGroupScan struct {
	name string
	path [][2]int
}

// scanRegexpNamedGroups lists the named groups of a JS pattern in order.
// unicodeSets (the v flag) allows classes nested in classes.
func scanRegexpNamedGroups(src string, unicodeSets bool) []regexpGroupScan {
	var out []regexpGroupScan
	stack := [][2]int{{0, 0}}
	nextID := 1
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '[':
			depth := 1
			for i++; i < len(src) && depth > 0; i++ {
				switch src[i] {
				case '\\':
					i++
				case '[':
					if unicodeSets {
						depth++
					}
				case ']':
					depth--
				}
			}
			i--
		case '|':
			stack[len(stack)-1][1]++
		case '(':
			if strings.HasPrefix(src[i:], "(?<") && i+3 < len(src) && src[i+3] != '=' && src[i+3] != '!' {
				if end := strings.IndexByte(src[i+3:], '>'); end >= 0 {
					path := make([][2]int, len(stack))
					copy(path, stack)
					out = append(out, regexpGroupScan{name: src[i+3 : i+3+end], path: path})
				}
			}
			stack = append(stack, [2]int{nextID, 0})
			nextID++
		case ')':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
		}
	}
	return out
}

// canBothParticipate reports whether two groups can both take part in one
// match: unless, in the innermost group enclosing both, they are in
// different alternatives.
func canBothParticipate(a, b [][2]int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i][0] != b[i][0] {
			return true
		}
		if a[i][1] != b[i][1] {
			return false
		}
	}
	return true
}

// checkRegexpDupNames is V8's early error for a name given to two groups
// that can both take part in a match.
func checkRegexpDupNames(src, flags string) error {
	if !strings.Contains(src, "(?<") {
		return nil
	}
	groups := scanRegexpNamedGroups(src, strings.ContainsRune(flags, 'v'))
	for i := range groups {
		for j := 0; j < i; j++ {
			if groups[i].name == groups[j].name && canBothParticipate(groups[i].path, groups[j].path) {
				return fmt.Errorf("Invalid regular expression: /%s/%s: Duplicate capture group name", src, flags)
			}
		}
	}
	return nil
}

// regexpDupNames rewrites a pattern whose names repeat for regexp2: the
// second and later groups of a name get the name "name__dupN" and each
// \k<name> becomes (?:\k<name>\k<name__dup2>...). It returns the pattern
// and the map from new names back to the pattern's; a pattern without
// repeated names is returned as it is, with a nil map.
func regexpDupNames(src string, unicodeSets bool) (string, map[string]string) {
	if !strings.Contains(src, "(?<") {
		return src, nil
	}
	groups := scanRegexpNamedGroups(src, unicodeSets)
	count := map[string]int{}
	for _, g := range groups {
		count[g.name]++
	}
	dup := false
	for _, n := range count {
		if n > 1 {
			dup = true
		}
	}
	if !dup {
		return src, nil
	}
	back := map[string]string{}
	seen := map[string]int{}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && strings.HasPrefix(src[i:], `\k<`):
			if end := strings.IndexByte(src[i+3:], '>'); end >= 0 {
				name := src[i+3 : i+3+end]
				if count[name] > 1 {
					b.WriteString("(?:")
					for k := 1; k <= count[name]; k++ {
						b.WriteString(`\k<` + dupGroupName(name, k) + ">")
					}
					b.WriteString(")")
					i += 3 + end
					continue
				}
			}
			b.WriteString(src[i : i+2])
			i++
		case c == '\\':
			b.WriteByte(c)
			if i+1 < len(src) {
				b.WriteByte(src[i+1])
				i++
			}
		case c == '[':
			// copy a class as it is (no group or backreference inside)
			start := i
			depth := 1
			for i++; i < len(src) && depth > 0; i++ {
				switch src[i] {
				case '\\':
					i++
				case '[':
					if unicodeSets {
						depth++
					}
				case ']':
					depth--
				}
			}
			if i > len(src) {
				i = len(src)
			}
			b.WriteString(src[start:i])
			i--
		case c == '(' && strings.HasPrefix(src[i:], "(?<") && i+3 < len(src) && src[i+3] != '=' && src[i+3] != '!':
			end := strings.IndexByte(src[i+3:], '>')
			if end < 0 {
				b.WriteByte(c)
				continue
			}
			name := src[i+3 : i+3+end]
			seen[name]++
			n := dupGroupName(name, seen[name])
			if count[name] > 1 {
				back[n] = name
			}
			b.WriteString("(?<" + n + ">")
			i += 3 + end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), back
}

func dupGroupName(name string, k int) string {
	if k == 1 {
		return name
	}
	return name + "__dup" + strconv.Itoa(k)
}

// groupNameOf is the pattern's name of a regexp2 group.
func (r *regexp2Wrapper) groupNameOf(name string) string {
	if n, ok := r.dupNames[name]; ok {
		return n
	}
	return name
}
