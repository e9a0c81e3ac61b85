package goja

import "fmt"

// cellhost patch: allocations whose size a script chooses are approved by
// the embedder before they are made. Upstream allocated whatever a script
// asked for: `new Uint8Array(4 * 1024 ** 3)` or `new ArrayBuffer(2 ** 32)`
// ended in Go's "fatal error: out of memory", which no recover() catches,
// taking every runtime of the process with it. V8 (workerd) throws a
// catchable `RangeError: Array buffer allocation failed` when the backing
// store cannot be allocated, and the isolate carries on.

// AllocationKind says what an allocation submitted to the allocation hook
// is for.
type AllocationKind int

const (
	// AllocArrayBuffer: the bytes of an ArrayBuffer (new ArrayBuffer, typed
	// array constructors, slice, resize, transfer) or, through
	// AllowAllocation, any off-heap memory the embedder allocates on a
	// script's behalf (a Buffer, a WebAssembly memory).
	AllocArrayBuffer AllocationKind = iota
	// AllocString: the characters of a string a built-in sizes in one step
	// (String.prototype.repeat, padStart, padEnd) or grows (Array.prototype.join).
	AllocString
	// AllocArray: the element slots of a dense array a built-in sizes in
	// one step from a length the script chose (Array.from of an
	// array-like, apply's argument list, toSorted of an array-like;
	// cellhost patch 27), 16 bytes a slot.
	AllocArray
)

// AllocationHook approves an allocation of bytes for kind; false refuses it
// and the script gets V8's RangeError instead.
type AllocationHook func(bytes int64, kind AllocationKind) bool

// SetAllocationHook installs f, asked before every allocation whose size
// the script chose; nil (the default) approves everything. It runs on the
// goroutine running the script and may call Interrupt.
func (r *Runtime) SetAllocationHook(f AllocationHook) { r.allocHook = f }

// AllowAllocation reports whether the allocation hook approves an
// allocation of bytes (true without a hook). Go code that allocates memory
// a script sized calls it first, so that one limit covers everything.
func (r *Runtime) AllowAllocation(bytes int64, kind AllocationKind) bool {
	if r.allocHook == nil || bytes <= 0 {
		return true
	}
	return r.allocHook(bytes, kind)
}

// allocBytes allocates the store of an ArrayBuffer of size bytes, once the
// hook approved it.
func (r *Runtime) allocBytes(size int) []byte {
	if size < 0 {
		panic(rangeError(fmt.Sprintf("Invalid buffer size: %d", size)))
	}
	if !r.AllowAllocation(int64(size), AllocArrayBuffer) {
		panic(r.newError(r.getRangeError(), "Array buffer allocation failed"))
	}
	return allocByteSlice(size)
}

// checkStringAlloc asks the hook for a string of units UTF-16 units
// (one byte each when ascii). A refusal throws V8's RangeError for a string
// it cannot make; the hook may also interrupt the script.
func (r *Runtime) checkStringAlloc(units int64, ascii bool) {
	bytes := units
	if !ascii {
		bytes *= 2
	}
	if !r.AllowAllocation(bytes, AllocString) {
		panic(r.newError(r.getRangeError(), "Invalid string length"))
	}
}
