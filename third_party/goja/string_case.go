package goja

import "strings"

// cellhost patch 40: String.prototype.toUpperCase/toLowerCase (and the
// locale forms, which share them) of a string longer than 1 MiB ask the
// allocation hook for the result first and, for an ASCII string, convert
// it 1 MiB at a time, looking at the interrupt flag between pieces.
// Upstream converted the whole string in one native call no limit saw:
// `"ab".repeat(2 ** 24).toUpperCase()` took 1.9 s past any Interrupt
// (issue 23), and its result was allocated unasked. ASCII case mapping is
// per character, so pieces convert as the whole does; a non-ASCII string
// (where a mapping may depend on the next character, as Greek final sigma
// does) is converted whole, once the hook approved three times its length
// (the most a UTF-16 unit grows to in a case mapping).

// caseChunk is the piece size, in characters.
const caseChunk = 1 << 20

func (r *Runtime) changeCase(s String, upper bool) String {
	n := s.Length()
	if n <= caseChunk {
		if upper {
			return s.toUpper()
		}
		return s.toLower()
	}
	a, ascii := s.(asciiString)
	if !ascii {
		if imp, ok := s.(*importedString); ok {
			imp.ensureScanned()
			if imp.u == nil {
				a, ascii = asciiString(imp.s), true
			}
		}
	}
	if !ascii {
		r.checkStringAlloc(3*int64(n), false)
		r.interruptNow()
		if upper {
			return s.toUpper()
		}
		return s.toLower()
	}
	r.checkStringAlloc(int64(n), true)
	var b strings.Builder
	b.Grow(n)
	for i := 0; i < n; i += caseChunk {
		r.interruptNow()
		piece := string(a[i:min(i+caseChunk, n)])
		if upper {
			b.WriteString(strings.ToUpper(piece))
		} else {
			b.WriteString(strings.ToLower(piece))
		}
	}
	return asciiString(b.String())
}
