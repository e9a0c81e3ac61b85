package goja

// cellhost patch 30: what patch 27 left open. Built-ins and instructions
// that collect an iterator's values (spread in a call or an array literal,
// a rest element, Array.from of an iterable) ran without looking at the
// interrupt flag when the iterator was native (an array's: no VM
// instruction runs between two values), and grew a Go slice by doubling
// with no bound: `Math.max(...new Array(2 ** 26))` held its runtime past any
// Interrupt and pushed 2^26 values on the VM stack; `[...a]` of a
// 2^32 - 1-long sparse array doubled its slice until Go's fatal out of
// memory. A dense array's own growth (arrayObject.expand: push, an index
// write) is not checked here: a script that fills its heap by pushing is
// the memory watchdog's to reset with the memory-limit error, as workerd
// resets an isolate whose V8 heap is full; a refused growth must not be a
// catchable RangeError (host TestInterrupt_ResetsOnlyTheOffendingObject).

// maxSpreadArgs bounds the arguments a spread call pushes on the VM stack.
// V8 puts them on the machine stack and throws `RangeError: Maximum call
// stack size exceeded` already at 2^17 (node 20, default stack); the bound
// is above what V8 accepts, so code that runs on V8 runs here.
const maxSpreadArgs = 1 << 20

// checkValuesGrowth is called before a slice of collected values of
// length n grows by one: at each power of two from 2^16 on (about when
// append doubles it) the doubled slice is checked as patch 27 checks a
// dense array sized in one step (V8's limit, the allocation hook), so no
// one append makes an allocation the embedder did not approve.
func (r *Runtime) checkValuesGrowth(n int) {
	if n >= 1<<16 && n&(n-1) == 0 {
		r.checkValuesAlloc(int64(n) * 2)
	}
}

// allowValuesGrowth is checkValuesGrowth for the VM stack a spread call
// fills: false when the hook refuses the doubled stack (the caller throws
// V8's text for a call with too many arguments).
func (r *Runtime) allowValuesGrowth(n int) bool {
	return n < 1<<16 || n&(n-1) != 0 || r.AllowAllocation(int64(n)*2*16, AllocArray)
}
