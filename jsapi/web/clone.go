package web

import (
	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// cloneNatives are structuredClone, over jsapi/clone.
func cloneNatives(rt *goja.Runtime, n natives) {
	n.setE("structuredClone", func(c goja.FunctionCall) (goja.Value, error) {
		b, err := clone.Serialize(rt, c.Argument(0))
		if err != nil {
			return nil, err
		}
		// The copy is about as large as its serialization: the object's
		// memory limit approves it first (goja fork's allocation hook, as
		// for an ArrayBuffer). V8's text for a clone it cannot allocate.
		if !rt.AllowAllocation(int64(len(b)), goja.AllocArrayBuffer) {
			return nil, &jserr.Error{Name: "DataCloneError", Message: "Data cannot be cloned, out of memory."}
		}
		return clone.Deserialize(rt, b)
	})
}
