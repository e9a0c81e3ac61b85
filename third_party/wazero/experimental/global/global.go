// Package global sets a global of a module instance from Go, also an
// immutable one (cellhost patch 4).
package global

import (
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/internal/wasm"
)

// Set sets the global at index (in the module's global index space) of
// module to v (its 64-bit representation; a reference's raw value), also
// if it is immutable: for an embedder that makes a module only to hold one
// global and must give it an initial value a constant expression cannot
// express (an externref handle of its own). It must be called before any
// code reads the global. It reports whether module is a module instance of
// this runtime with such a global. (cellhost patch 4)
func Set(module api.Module, index uint32, v uint64) bool {
	m, ok := module.(*wasm.ModuleInstance)
	if !ok || int(index) >= len(m.Globals) || m.Globals[index] == nil {
		return false
	}
	m.Globals[index].SetValue(v, 0)
	return true
}
