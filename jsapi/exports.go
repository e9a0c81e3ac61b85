package jsapi

import "github.com/cellhost/cellhost/third_party/goja"

// Exports returns the exports object of the worker bundle evaluated in rt,
// or undefined before it ran. Call it on rt's goroutine (e.g. from a
// binding that reaches the worker's own entrypoints).
func Exports(rt *goja.Runtime) goja.Value {
	v, _, _ := loadedExports(rt)
	if v == nil {
		return goja.Undefined()
	}
	return v
}
