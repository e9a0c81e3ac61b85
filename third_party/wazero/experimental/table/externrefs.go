package table

import (
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/internal/wasm"
)

// ExternRefs calls visit with every non-null externref value that module
// holds in its tables and globals (its own and the ones it imported), and
// reports whether module is a module instance of this runtime. Outside a
// running call, a module can hold externref values nowhere else (they
// cannot be stored in linear memory), so an embedder that gives wasm
// handles to host values can free every handle no open module holds: the
// roots of a mark-and-sweep over its handle table. It must not run while
// one of the module's functions runs (its stack holds references too).
// (cellhost patch 2)
func ExternRefs(module api.Module, visit func(ref uint64)) bool {
	m, ok := module.(*wasm.ModuleInstance)
	if !ok {
		return false
	}
	for _, t := range m.Tables {
		if t == nil || t.Type != wasm.RefTypeExternref {
			continue
		}
		for _, r := range t.References {
			if r != 0 {
				visit(uint64(r))
			}
		}
	}
	for _, g := range m.Globals {
		if g == nil || g.Type.ValType != wasm.ValueTypeExternref {
			continue
		}
		if v, _ := g.Value(); v != 0 {
			visit(v)
		}
	}
	return true
}
