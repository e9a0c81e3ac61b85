package host

import (
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
)

// The memory watchdog (memwatch.go) sees an allocation only after it was
// made, and Go cannot survive one it cannot satisfy: `new
// Uint8Array(4 * 1024 ** 3)` ended in "fatal error: out of memory" and took
// every object of the process with it. So every allocation a script sizes
// (the goja fork's allocation hook: ArrayBuffer stores, strings made in one
// step; and Go code that allocates for a script: Buffer, structuredClone,
// WebAssembly memories, through goja.Runtime.AllowAllocation) is checked
// before it is made against the same limit: 7/8 of the object's memory
// limit (raised as the watchdog's by the request bodies in memory; the
// rest is headroom before the watchdog's reset) minus how much the live
// heap grew since the job started. Refused, the script gets V8's
// `RangeError: Array buffer allocation failed`, as workerd's isolate
// does, and carries on.
//
// The job's growth is measured from the live heap of the last collection
// before its first checked allocation (Go has no fresher figure without a
// collection of its own, too costly for every job): garbage that was live
// then is counted in the base, so a job may get up to that much more.
//
// Go code that allocates on a script's behalf calls
// rt.AllowAllocation(bytes, goja.AllocArrayBuffer) first and throws its own
// RangeError when it returns false.

// allocCheckMin: smaller allocations are left to the watchdog (no one of
// them can exhaust memory, and they are most allocations).
const allocCheckMin = 1 << 20

// allocBase is the heap when the allocation check first looked at the job
// that runs, and at its last forced collection. Owned by the loop.
type allocBase struct {
	valid    bool
	job      time.Time // the job's start (zero: outside a job, e.g. module scope)
	liveBase uint64    // live heap before the job's first checked allocation
	// lastLive and lastAllocs: the live heap and the bytes allocated so far
	// (a monotonic count) after the last collection (or when first seen);
	// what was allocated since then is counted as live until the next
	// collection.
	lastLive, lastAllocs uint64
}

// allowAlloc is the shard runtime's allocation hook. On the loop.
func (s *shard) allowAlloc(bytes int64, _ goja.AllocationKind) bool {
	limit := s.h.cfg.MemoryLimit
	if limit <= 0 || bytes < allocCheckMin {
		return true
	}
	// 7/8 of the watchdog's bound: an object that fills its memory with
	// buffers gets the RangeError before the watchdog (which measures the
	// process, not the object) resets it.
	allowed := (limit + bodySlack*max(s.h.bodyBytes.Load(), 0)) / 8 * 7
	if bytes > allowed {
		return false
	}
	allocs := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	b := &s.alloc
	if job := s.jobStartOnLoop(); !b.valid || b.job != job {
		metrics.Read(live)
		metrics.Read(allocs)
		l := live[0].Value.Uint64()
		*b = allocBase{valid: true, job: job, liveBase: l, lastLive: l, lastAllocs: allocs[0].Value.Uint64()}
	} else {
		metrics.Read(allocs)
	}
	grown := func(extra uint64) int64 { return int64(b.lastLive) - int64(b.liveBase) + int64(extra) }
	if a := allocs[0].Value.Uint64(); grown(a-b.lastAllocs)+bytes <= allowed {
		return true
	}
	// Past the limit counting garbage: collect and look at what lives.
	gcMu.Lock()
	runtime.GC()
	gcMu.Unlock()
	metrics.Read(live)
	metrics.Read(allocs)
	b.lastLive, b.lastAllocs = live[0].Value.Uint64(), allocs[0].Value.Uint64()
	return grown(0)+bytes <= allowed
}

// jobStartOnLoop is the running job's start, zero outside a job. On the
// loop (the only writer of jobStart and jobRunning).
func (s *shard) jobStartOnLoop() time.Time {
	if !s.jobRunning {
		return time.Time{}
	}
	return s.jobStart
}

// Module scope (the bundle's top-level code, evaluated when a shard loads
// its runtime: at start, on a reload, after a deploy) runs under the same
// limits as an event (issue 23.6): the allocation hook is on from the
// start (load), and jsapi.GuardModuleScope adds the CPU limit and a memory
// watchdog (the shard's watchdogs look at jobs only).
