package web

import (
	"errors"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// cloneNatives are structuredClone, over jsapi/clone.
func cloneNatives(rt *goja.Runtime, n *goja.Object) {
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = n.Set(name, f) }
	set("structuredClone", func(c goja.FunctionCall) goja.Value {
		b, err := clone.Serialize(rt, c.Argument(0))
		if err != nil {
			throwErr(rt, err)
		}
		v, err := clone.Deserialize(rt, b)
		if err != nil {
			throwErr(rt, err)
		}
		return v
	})
}

// throwErr rethrows err inside a Go function called from JS.
func throwErr(rt *goja.Runtime, err error) {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex)
	}
	var ce *clone.Error
	if errors.As(err, &ce) {
		panic(jserr.New(rt, ce.Name, ce.Message))
	}
	panic(jserr.New(rt, "Error", err.Error()))
}
