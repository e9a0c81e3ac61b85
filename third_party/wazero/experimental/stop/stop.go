// Package stop stops a module from another goroutine (cellhost patch 1).
package stop

import (
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/internal/wasm"
)

// Module closes m with exitCode from any goroutine, while one of its
// functions may be running on another: that call returns a sys.ExitError
// at its next termination check (function entries and loop heads, compiled
// in with RuntimeConfig.WithCloseOnContextDone), as when the context of a
// call is done. Calls made with a context whose Done() is nil start no
// goroutine to watch it; an embedder that stops them itself (an interrupt
// of its own) uses this. It reports whether m is a module instance of this
// runtime. (cellhost patch 1)
func Module(m api.Module, exitCode uint32) bool {
	mi, ok := m.(*wasm.ModuleInstance)
	if ok {
		mi.Stop(exitCode)
	}
	return ok
}
