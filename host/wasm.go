package host

// wasmMemoryExceeded: the running object's WebAssembly memory would pass the
// memory limit (jsapi/wasm refuses the growth). The object is interrupted
// and reset as when the memory watchdog sees its heap pass the limit
// (memwatch.go): workerd resets an isolate whose wasm memory takes it past
// its limit. A wasm call stops at its next function entry or loop head
// (the interrupt closes goja's InterruptDone). On the loop.
func (s *shard) wasmMemoryExceeded() {
	s.cpuMu.Lock()
	defer s.cpuMu.Unlock()
	if s.jobRunning && !s.interrupted {
		s.interrupted = true
		s.memExceeded.Store(true)
		s.rt.Interrupt(errMemoryLimit{s.h.cfg.MemoryLimit})
	}
}
