package jsapi

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
)

// Module scope (a bundle's top-level code) runs under limits wherever it
// is evaluated: in a shard's runtime (host), and in the scratch runtime
// CheckWorker checks a bundle with before anything starts (`cellhost dev`
// at start and on a reload, serve, deploy). Before, a top-level
// `while (true) {}` hung `cellhost dev` at start with no message and a
// top-level memory bomb grew without bound (issue 23.6).

// DefaultModuleCPULimit and DefaultModuleMemoryLimit bound module scope
// when the caller names no limit: workerd's default CPU limit for an event
// (30 s) and its isolate's 128 MiB.
const (
	DefaultModuleCPULimit    = 30 * time.Second
	DefaultModuleMemoryLimit = 128 << 20
)

// StartupCPUError and StartupMemoryError interrupt module scope; their
// texts are workerd's.
type StartupCPUError struct{ Limit time.Duration }

func (e StartupCPUError) String() string {
	return fmt.Sprintf("Script startup exceeded CPU time limit (%s): the worker's top-level code did not finish", e.Limit)
}

type StartupMemoryError struct{ Limit int64 }

func (e StartupMemoryError) String() string {
	return fmt.Sprintf("Script startup exceeded memory limits (%d MiB)", e.Limit>>20)
}

// moduleGCMu serializes the forced collections of module-scope guards.
var moduleGCMu sync.Mutex

// GuardModuleScope watches rt while it evaluates module scope: past cpu of
// wall time, or once the live heap grew by more than mem (checked every
// 10 ms; a collection is forced before blaming), it interrupts rt with a
// StartupCPUError or StartupMemoryError. A limit <= 0 is not checked.
// stop ends the watch and returns the interrupt's value, nil if none; the
// caller clears the interrupt.
func GuardModuleScope(rt *goja.Runtime, cpu time.Duration, mem int64) (stop func() any) {
	done := make(chan struct{})
	result := make(chan any, 1)
	start := time.Now()
	go func() {
		var why any
		defer func() { result <- why }()
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		objects := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(objects)
		metrics.Read(live)
		allocBase, liveBase := objects[0].Value.Uint64(), live[0].Value.Uint64()
		for {
			select {
			case <-done:
				return
			case now := <-t.C:
				if cpu > 0 && now.Sub(start) >= cpu {
					why = StartupCPUError{cpu}
					rt.Interrupt(why)
					return
				}
			}
			if mem <= 0 {
				continue
			}
			metrics.Read(objects)
			if objects[0].Value.Uint64() < allocBase+uint64(mem) {
				continue
			}
			moduleGCMu.Lock()
			runtime.GC()
			moduleGCMu.Unlock()
			metrics.Read(live)
			metrics.Read(objects)
			if live[0].Value.Uint64() < liveBase+uint64(mem) {
				allocBase = objects[0].Value.Uint64()
				continue
			}
			why = StartupMemoryError{mem}
			rt.Interrupt(why)
			return
		}
	}()
	return func() any {
		close(done)
		return <-result
	}
}
