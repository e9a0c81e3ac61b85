package goja

import "sync/atomic"

// cellhost patch 27: built-ins that loop over a length the script chose
// (Array.prototype methods on a sparse array or an array-like with a huge
// length, sort, JSON.stringify of an array) look at the interrupt flag
// every nativeTickEvery iterations, as the VM does between instructions.
// Upstream checked it only in the VM loop: `new Array(2 ** 32 - 1).join("")`,
// `.indexOf(1)`, `.includes(1)`, `[].fill.call({length: 2 ** 40}, 0)` ran for
// minutes inside one native call that no Interrupt stopped (a CPU limit,
// a memory watchdog). V8 finishes the sparse cases at once (it iterates a
// dictionary's keys); stopping them at the interrupt is what matters here.

// nativeTickEvery is how many loop iterations pass between two checks
// (a power of two).
const nativeTickEvery = 1 << 12

// nativeTick counts one iteration of a built-in's loop and, every
// nativeTickEvery of them, throws the pending interrupt as the VM does.
func (r *Runtime) nativeTick() {
	r.nativeTicks++
	if r.nativeTicks&(nativeTickEvery-1) != 0 {
		return
	}
	r.interruptNow()
}

// interruptNow throws the pending interrupt, if any, as the VM does
// (cellhost patch 40: for loops whose every iteration is long).
func (r *Runtime) interruptNow() {
	if atomic.LoadUint32(&r.vm.interrupted) == 0 {
		return
	}
	vm := r.vm
	vm.interruptLock.Lock()
	v := &InterruptedError{iface: vm.interruptVal}
	v.stack = vm.captureStack(nil, 0)
	vm.interruptLock.Unlock()
	panic(v)
}

// sparseCap is the initial capacity of a slice that collects the elements
// an array-like of length n holds (cellhost patch 27): upstream made it n
// (`new Array(2 ** 32 - 1).sort()` asked Go for 64 GiB, a fatal out of
// memory); append grows it with what is found.
func sparseCap(n int64) int64 { return min(n, 1<<12) }

// v8MaxArrayLength is V8's FixedArray::kMaxLength on 64-bit hosts: past it
// a dense array cannot be made ("Invalid array length").
const v8MaxArrayLength = 134217725

// checkValuesAlloc asks the allocation hook for the slots of a dense
// array of n elements a built-in is about to make (cellhost patch 27):
// past V8's limit, or refused, it throws V8's `RangeError: Invalid array
// length` instead of Go's fatal out of memory (Array.from({length: 2**40}),
// fn.apply(null, {length: 2**28}), toSorted of an array-like).
func (r *Runtime) checkValuesAlloc(n int64) {
	if n > v8MaxArrayLength || !r.AllowAllocation(n*16, AllocArray) {
		panic(r.newError(r.getRangeError(), "Invalid array length"))
	}
}
