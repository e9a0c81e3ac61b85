package wasm

import (
	"context"
	"sync"

	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/experimental/stop"
	"github.com/cellhost/cellhost/third_party/wazero/sys"
)

// calls stops running wasm when the goja runtime is interrupted (cpu_ms,
// the memory watchdog), without a goroutine per call.
//
// wazero's WithCloseOnContextDone compiles termination checks into the
// code (function entries, loop heads) and, upstream, starts a goroutine
// for every call to watch the call's context: 8-10 us a call on this
// machine, which made a JS->wasm call 83 times slower than on workerd.
// cellhost carries wazero with a patch (third_party/wazero, patch 1): a
// call whose context can never be done starts no watcher, and stop.Module
// closes a module from another goroutine as that watcher would. Calls are
// made with context.Background() and recorded here; goja's interrupt hook
// (fork patch 22), run by Interrupt on the interrupting goroutine, stops
// the modules of the calls in progress, which return a sys.ExitError at
// their next check.
type calls struct {
	mu      sync.Mutex
	running []*instance // the calls in progress, innermost last
	// hooked: the interrupt hook ran since a call last saw the runtime
	// not interrupted. Only then does a call ask goja (InterruptDone, a
	// lock of its own) whether the interrupt is still pending: one lock,
	// ours, on the path of an uninterrupted call.
	hooked bool
}

// installHook, if set, is given each state Install makes (tests).
var installHook func(*state)

// interrupted is the runtime's interrupt hook.
func (c *calls) interrupted() {
	c.mu.Lock()
	c.hooked = true
	for _, inst := range c.running {
		inst.stop()
	}
	c.mu.Unlock()
}

func (inst *instance) stop() {
	inst.mods.mu.Lock()
	defer inst.mods.mu.Unlock()
	for _, m := range inst.mods.list {
		stop.Module(m, sys.ExitCodeContextCanceled)
	}
}

// call calls fn of inst with the stack, stoppable by an interrupt.
func (s *state) call(inst *instance, fn api.Function, stack []uint64) error {
	c := s.calls
	c.mu.Lock()
	if c.hooked {
		select {
		case <-s.rt.InterruptDone():
			// Interrupted before this call could be recorded: as wazero
			// does with a done context, the module is closed and the call
			// does not start. (Interrupt sets the flag before it runs the
			// hook, and the hook sets hooked under mu: an interrupt that
			// this check misses finds the call recorded.)
			c.mu.Unlock()
			inst.stop()
			return sys.NewExitError(sys.ExitCodeContextCanceled)
		default:
			c.hooked = false // ClearInterrupt ran since
		}
	}
	c.running = append(c.running, inst)
	c.mu.Unlock()
	err := fn.CallWithStack(context.Background(), stack)
	c.mu.Lock()
	c.running[len(c.running)-1] = nil
	c.running = c.running[:len(c.running)-1]
	c.mu.Unlock()
	return err
}
