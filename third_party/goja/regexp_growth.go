package goja

// cellhost patch 39: the built-ins that collect every match of a global
// RegExp in one native call (String.prototype.match with /g, split with a
// RegExp, replace/replaceAll with a global RegExp, and the generic paths
// of @@match, @@replace and @@split that call exec in a loop) stop at an
// Interrupt and ask the allocation hook as the list of matches grows.
// Upstream collected them all first: `"x".repeat(2 ** 26).match(/x/g)`
// ran inside one call of Go's regexp.FindAllStringSubmatchIndex that no
// Interrupt stopped, and regexp2's loop reserved one result slot per
// character of the input up front (a 2^24-character string: 2^24 x 48
// bytes, 800 MB, before the first match), so a large enough input was
// Go's fatal out of memory.

// regexpBatch: up to this many matches, Go's regexp (RE2) collects them in
// one call, as before; past it the collection starts over with regexp2's
// loop, match by match, where the checks run.
const regexpBatch = 1 << 12

// regexpMatchBytes is about what one collected match holds (its result,
// index and group slices, and the value made of it).
const regexpMatchBytes = 128

// findAllMatches is p.findAllSubmatchIndex for a built-in collecting
// matches on behalf of a script.
func (r *Runtime) findAllMatches(p *regexpPattern, s String, start, limit int, sticky bool) []regexpResult {
	if p.regexpWrapper != nil && start == 0 {
		if limit >= 0 && limit <= regexpBatch {
			return p.findAllSubmatchIndex(s, start, limit, sticky)
		}
		if res := p.findAllSubmatchIndex(s, 0, regexpBatch, sticky); len(res) < regexpBatch {
			return res
		}
	}
	// regexp2 matches runes (4 bytes a character, and a position map for
	// full Unicode): ask for them first.
	if n := int64(s.Length()); n > 1<<20 && !r.AllowAllocation(n*12, AllocArray) {
		panic(r.newError(r.getRangeError(), "Invalid array length"))
	}
	p.createRegexp2()
	g := matchGrowth{r: r, next: 1 << 16}
	return p.regexp2Wrapper.findAllSubmatchIndexEach(s, start, limit, sticky, p.unicode, g.check)
}

// matchGrowth checks a list of matches as it grows.
type matchGrowth struct {
	r    *Runtime
	next int
}

// check is called with the number of matches after each one: every
// nativeTickEvery matches it throws a pending interrupt; each time the
// list doubles past 2^16 matches the hook approves twice its size, or the
// script gets V8's `RangeError: Invalid array length`.
func (g *matchGrowth) check(n int) {
	g.r.nativeTick()
	if n >= g.next {
		if n > v8MaxArrayLength || !g.r.AllowAllocation(2*int64(n)*regexpMatchBytes, AllocArray) {
			panic(g.r.newError(g.r.getRangeError(), "Invalid array length"))
		}
		g.next = 2 * n
	}
}
