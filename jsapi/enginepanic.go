package jsapi

import (
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"
)

// NewWorker evaluates the bundle in rt (module scope: the user's top-level
// code, its promise jobs) and returns the worker. A Go panic raised inside
// goja while it runs that code (a bug in the engine or in a host function,
// reached by the program) is returned as an error naming the entry, as a
// thrown exception is: it must not kill the process (`cellhost dev` checks
// the worker with CheckWorker before it serves; the host loads each shard's
// runtime on a goroutine of its own, and again when it replaces one). rt
// is not usable after such an error.
func NewWorker(rt *goja.Runtime, o WorkerOptions) (w *Worker, err error) {
	defer func() {
		if r := recover(); r != nil {
			entry := ""
			if o.Bundle != nil {
				entry = o.Bundle.Entry + " "
			}
			if ex, ok := r.(*goja.Exception); ok {
				w, err = nil, fmt.Errorf("load worker %s%w", entry, ex)
				return
			}
			w, err = nil, fmt.Errorf("load worker %sfailed: internal error in the JavaScript engine: %v", entry, r)
		}
	}()
	return newWorker(rt, o)
}
