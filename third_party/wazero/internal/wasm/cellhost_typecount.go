package wasm

// FunctionTypeCount is the number of function type IDs the module's store
// has given out (they are dense: 0 to the count minus one). (cellhost patch 3)
func (m *ModuleInstance) FunctionTypeCount() int {
	m.s.mux.RLock()
	defer m.s.mux.RUnlock()
	return len(m.s.typeIDs)
}
