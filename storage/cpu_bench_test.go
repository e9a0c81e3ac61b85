//go:build linux

package storage_test

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// threadCPU reports the benchmark goroutine's thread CPU time per op
// (cpu-ns/op), from now to the call of the function it returns: wall time
// is noise on a shared machine. SQLite runs on the calling thread.
func threadCPU(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPUNow()
	return func() {
		b.ReportMetric(float64(threadCPUNow()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

func threadCPUNow() int64 {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
