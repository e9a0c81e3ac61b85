// Package rtstate keeps a package's Go state on a goja runtime: a global
// property keyed by a symbol only that package holds, read-only and not
// enumerable (JS sees an object without properties).
package rtstate

import "github.com/cellhost/cellhost/third_party/goja"

// Key names one kind of state.
type Key[T any] struct{ sym *goja.Symbol }

// NewKey returns a key; name is the symbol's description.
func NewKey[T any](name string) Key[T] { return Key[T]{goja.NewSymbol(name)} }

// Get returns the state set on rt, or nil. Call it on rt's goroutine.
func (k Key[T]) Get(rt *goja.Runtime) *T {
	v := rt.GlobalObject().GetSymbol(k.sym)
	if v == nil {
		return nil
	}
	st, _ := v.Export().(*T)
	return st
}

// Set stores st on rt, once: a second Set fails. Call it on rt's goroutine.
func (k Key[T]) Set(rt *goja.Runtime, st *T) error {
	return rt.GlobalObject().DefineDataPropertySymbol(k.sym, rt.ToValue(st), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}
