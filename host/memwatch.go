package host

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/cellhost/cellhost/jsapi"
)

// A goja runtime has no heap limit, and one shard's runtime holds many
// objects, so the per-object limit (workerd: 128 MB per isolate) is a
// watchdog: every memWatchEvery each shard's watchdog looks at the job it
// runs. When the heap's objects grew by more than the limit since the job
// started, it collects garbage (at most one collection per limit's worth of
// allocation) and compares the live heap with the live heap of before the
// job; past the limit it interrupts the job, as the CPU limit does, and the
// object gets "exceeded its memory limit". The growth is the process's, not
// the job's alone (Go cannot attribute allocations to a goroutine): a job
// that runs while other work adds as much live data can be blamed; a job
// that allocates one huge block at once is seen only after that block (the
// engine's string length cap stops the doubling string). Request bodies
// are bounded host-wide (http.go's bodyBudget) and copied into JS when a
// request is delivered; the limit is raised by bodySlack times the bytes
// of the bodies in memory, so that a 100 MB upload is not taken for a
// runaway object.

// DefaultMemoryLimit is Config.MemoryLimit when zero.
const DefaultMemoryLimit = 128 << 20

// bodySlack is how much of the heap a request body's byte takes once in JS
// (its Go bytes and JS copies: about 2.3 measured for a 100 MB body), rounded up.
const bodySlack = 3

// memWatchEvery is how often a shard's memory watchdog looks.
const memWatchEvery = 10 * time.Millisecond

// errMemoryLimit is the value the watchdog interrupts a runtime with.
type errMemoryLimit struct{ limit int64 }

func (e errMemoryLimit) String() string {
	return fmt.Sprintf("it exceeded its memory limit of %d MiB", e.limit>>20)
}

// gcMu serializes the watchdogs' forced collections.
var gcMu sync.Mutex

// memWatchdog interrupts a job whose live heap growth passes the limit.
// It ends with the loop.
func (s *shard) memWatchdog() {
	limit := s.h.cfg.MemoryLimit
	if limit <= 0 {
		return
	}
	t := time.NewTicker(memWatchEvery)
	defer t.Stop()
	objects := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var job time.Time              // the job being watched (its start)
	var allocBase, liveBase uint64 // heap objects and live heap when first seen
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
		}
		s.cpuMu.Lock()
		running, start, interrupted := s.jobRunning, s.jobStart, s.interrupted
		s.cpuMu.Unlock()
		if !running || interrupted {
			job = time.Time{}
			continue
		}
		metrics.Read(objects)
		now := objects[0].Value.Uint64()
		if start != job {
			metrics.Read(live)
			job, allocBase, liveBase = start, now, live[0].Value.Uint64()
			continue
		}
		allowed := uint64(limit) + bodySlack*uint64(max(s.h.bodyBytes.Load(), 0))
		if now < allocBase+allowed {
			continue
		}
		// Past the limit counting garbage: collect, then look at what lives.
		gcMu.Lock()
		runtime.GC()
		gcMu.Unlock()
		metrics.Read(live)
		metrics.Read(objects)
		if l := live[0].Value.Uint64(); l < liveBase+allowed {
			allocBase = objects[0].Value.Uint64() // the next collection after another limit's worth
			continue
		}
		s.cpuMu.Lock()
		if s.jobRunning && s.jobStart == job && !s.interrupted {
			s.interrupted = true
			s.memExceeded.Store(true)
			s.h.counted.memoryResets.Add(1)
			s.rt.Interrupt(errMemoryLimit{limit})
		}
		s.cpuMu.Unlock()
	}
}

// interruptReason is why the watchdogs interrupted the current job; it
// clears the memory flag. On the loop.
// The CPU limit's cause is the error the object's held events fail with
// (its text is what a caller reads); nil leaves BrokenObjectError.
func (s *shard) interruptReason() (reason string, cause error) {
	if s.memExceeded.Swap(false) {
		return errMemoryLimit{s.h.cfg.MemoryLimit}.String(), nil
	}
	e := errCPULimit{s.h.cfg.CPULimit, s.current != nil}
	return e.logText(), &jsapi.ScriptError{Name: "Error", Message: e.String()}
}
