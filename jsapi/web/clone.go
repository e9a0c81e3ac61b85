package web

import (
	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
)

// cloneNatives are structuredClone, over jsapi/clone.
func cloneNatives(rt *goja.Runtime, n natives) {
	n.setE("structuredClone", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := clone.Serialize(rt, c.Argument(0))
		if err != nil {
			return nil, err
		}
		return clone.Deserialize(rt, b)
	})
}
