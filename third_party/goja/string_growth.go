package goja

// cellhost patch 31: built-ins that build a string piece by piece in a
// loop the script sized (String.prototype.replace/replaceAll with many
// matches) ask the allocation hook as the string grows, as patch 14 made
// Array.prototype.join do, and look at the interrupt flag as patch 27's
// loops do. Upstream, `s.replaceAll("x", "y".repeat(500))` of a 1 MiB
// string built a 512 MiB string inside one native call: no limit saw it
// before it was made, and no Interrupt stopped it.

// stringGrowth watches a StringBuilder a built-in fills in a loop.
type stringGrowth struct {
	r    *Runtime
	buf  *StringBuilder
	next int
}

func (r *Runtime) stringGrowth(buf *StringBuilder) stringGrowth {
	return stringGrowth{r: r, buf: buf, next: 1 << 20}
}

// check is called once an iteration: every nativeTickEvery iterations it
// throws a pending interrupt; each time the string doubles past 1 MiB the
// hook approves twice its size (about what the next growth allocates), or
// the script gets V8's `RangeError: Invalid string length`.
func (g *stringGrowth) check() {
	g.r.nativeTick()
	if n := g.buf.length(); n >= g.next {
		g.r.checkStringAlloc(2*int64(n), g.buf.ascii())
		g.next = 2 * n
	}
}
