package host

import (
	"time"
)

// An interrupt (the CPU limit, watchdog; the memory limit, memwatch.go)
// stops the JavaScript of the job that is running. The goja fork leaves
// the runtime usable after one (fork patch 9), so only the object whose
// code was running is reset, as workerd resets the one isolate: the other
// objects of the shard keep their instances, storage and WebSockets.
//
// Which object's code runs is known for the jobs that carry a cell: its
// events (cell.run), its JS timers (jsTimers) and the completions of the
// fetches and RPC calls it made to other objects (wrapDone). An interrupt
// in any other job (a module-scope timer, the RPC layer's own jobs) falls
// back to replacing the shard's runtime.

// onInterrupt handles an interrupt of the job that just ended. On the loop.
func (s *shard) onInterrupt(reason string, cause error) {
	c := s.current
	if c == nil {
		s.log.Error("a worker handler was interrupted: " + reason)
		s.replaceRuntime(reason)
		return
	}
	c.logger().Error("interrupted: " + reason)
	if c.gen == s.currentGen {
		c.resetWith(reason, cause)
	}
	// Else the code belonged to an instance already reset: nothing is left
	// to reset.
}

// jsTimers is the Scheduler of the JS timers (setTimeout, setInterval): a
// timer belongs to the instance whose code set it, runs as its code, and
// never fires once that instance was reset (workerd discards a reset
// object's timers with its I/O context). While it is pending it counts in
// c.timers: workerd does not evict an instance with a timer pending
// (clock.go).
type jsTimers struct{ s *shard }

func (t jsTimers) AfterFunc(d time.Duration, f func()) (cancel func()) {
	s := t.s
	c := s.current
	if c == nil {
		return s.AfterFunc(d, f)
	}
	gen := s.currentGen
	c.timers++
	done := false // on the loop
	finish := func() {
		if !done {
			done = true
			if c.gen == gen { // a new instance starts with none
				c.timers--
			}
		}
	}
	stop := s.AfterFunc(d, func() {
		finish()
		if c.gen != gen {
			return
		}
		s.setCurrent(c, gen)
		f()
	})
	return func() {
		finish()
		stop()
	}
}

// wrapDone makes done, the completion of a call the current code of
// caller's loop makes, run as that code (shard.as). On the loop.
func wrapDone[T any](caller *shard, done func(T, error)) func(T, error) {
	c, gen := caller.current, caller.currentGen
	if c == nil {
		return done
	}
	return func(v T, err error) {
		caller.setCurrent(c, gen)
		done(v, err)
	}
}
