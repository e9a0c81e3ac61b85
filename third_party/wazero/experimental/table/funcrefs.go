package table

import (
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/internal/wasm"
)

// FunctionRef is the funcref value of the function at funcIndex (in the
// module's function index space, imports first) of module, as ref.func
// makes it: what a Go caller passes as a funcref argument (to a function
// that runs table.set, say) to put that function in a table. ok is false
// if module is not a module instance of this runtime or has no such
// function. Each call may make a new reference (the engine keeps it as
// long as the module). (cellhost patch 3)
func FunctionRef(module api.Module, funcIndex uint32) (ref uint64, ok bool) {
	m, ok := module.(*wasm.ModuleInstance)
	if !ok || m.Engine == nil || funcIndex >= m.Source.ImportFunctionCount+uint32(len(m.Source.FunctionSection)) {
		return 0, false
	}
	return uint64(m.Engine.FunctionInstanceReference(funcIndex)), true
}

// LookupFunctionAnyType is LookupFunction without an expected type: the
// function at tableOffset of the table, whatever its type, or nil if the
// entry is null or out of range. It tries every function type of the
// store in turn, so it is meant for rare lookups (a host reading a table
// it did not fill: the JS API's Table.prototype.get). (cellhost patch 3)
func LookupFunctionAnyType(module api.Module, tableIndex, tableOffset uint32) api.Function {
	m, ok := module.(*wasm.ModuleInstance)
	if !ok || int(tableIndex) >= len(m.Tables) {
		return nil
	}
	t := m.Tables[tableIndex]
	if t.Type != wasm.RefTypeFuncref || tableOffset >= uint32(len(t.References)) || t.References[tableOffset] == 0 {
		return nil
	}
	for id, n := 0, m.FunctionTypeCount(); id < n; id++ {
		if f := tryLookup(m, t, wasm.FunctionTypeID(id), tableOffset); f != nil {
			return f
		}
	}
	return nil
}

func tryLookup(m *wasm.ModuleInstance, t *wasm.TableInstance, id wasm.FunctionTypeID, offset uint32) (f api.Function) {
	defer func() {
		if recover() != nil {
			f = nil
		}
	}()
	return m.LookupFunction(t, id, offset)
}
