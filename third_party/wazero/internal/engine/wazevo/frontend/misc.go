package frontend

import (
	"github.com/cellhost/cellhost/third_party/wazero/internal/engine/wazevo/ssa"
	"github.com/cellhost/cellhost/third_party/wazero/internal/wasm"
)

func FunctionIndexToFuncRef(idx wasm.Index) ssa.FuncRef {
	return ssa.FuncRef(idx)
}
