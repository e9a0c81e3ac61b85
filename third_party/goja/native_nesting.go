package goja

// cellhost patch: natives that walk nested values (JSON.stringify,
// Array.prototype.join/toString) check for cycles in constant time and
// bound their nesting. Upstream scanned the whole stack of values being
// converted for each value, so a 150 000-deep array took 118 s in
// JSON.stringify (depth squared) inside one native call, which no
// interrupt stops (the VM checks interrupts between instructions), and
// recursed in Go without a bound. V8 (workerd) throws
// `RangeError: Maximum call stack size exceeded` a few thousand levels
// deep; here the bound is the runtime's call stack limit (at most
// maxNativeNesting), counting the JavaScript frames already on the stack.

// maxNativeNesting bounds a native's nesting when the runtime's call stack
// limit is larger (goja's default is unbounded).
const maxNativeNesting = 10000

// checkNativeNesting throws V8's RangeError when a native that is depth
// levels deep would pass the call stack limit.
func (r *Runtime) checkNativeNesting(depth int) {
	limit := min(maxNativeNesting, r.vm.maxCallStackSize)
	if depth+len(r.vm.callStack) > limit {
		panic(rangeError("Maximum call stack size exceeded"))
	}
}

// identityOnly reports whether o equals (StrictEquals) no *Object but
// itself, so that a set keyed by the pointer finds it. Wrapped Go values
// are equal when they wrap the same value, through distinct *Objects
// (each property access of a Go struct can make a new wrapper): the
// natives keep scanning for those.
func identityOnly(o *Object) bool {
	switch o.self.(type) {
	case *objectGoReflect, *objectGoArrayReflect, *objectGoSliceReflect, *objectGoMapReflect,
		*objectGoSlice, *objectGoMapSimple, *taggedTemplateArray:
		return false
	}
	return true
}

// nestingSet is the set of values a native is converting, outermost
// first, with a constant-time lookup for the values identityOnly allows.
type nestingSet struct {
	byPtr   map[*Object]int // value -> how many times it is on the stack
	wrapped []*Object       // the others, scanned with SameAs
}

// has reports whether o is in the set.
func (s *nestingSet) has(o *Object) bool {
	if identityOnly(o) {
		return s.byPtr[o] > 0
	}
	for _, w := range s.wrapped {
		if o.SameAs(w) {
			return true
		}
	}
	return false
}

func (s *nestingSet) add(o *Object) {
	if identityOnly(o) {
		if s.byPtr == nil {
			s.byPtr = map[*Object]int{}
		}
		s.byPtr[o]++
		return
	}
	s.wrapped = append(s.wrapped, o)
}

// remove removes o, the value added last.
func (s *nestingSet) remove(o *Object) {
	if identityOnly(o) {
		if s.byPtr[o]--; s.byPtr[o] <= 0 {
			delete(s.byPtr, o)
		}
		return
	}
	s.wrapped[len(s.wrapped)-1] = nil
	s.wrapped = s.wrapped[:len(s.wrapped)-1]
}
