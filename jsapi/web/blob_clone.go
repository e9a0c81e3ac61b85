package web

import (
	"errors"
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
)

// A Blob is serializable as workerd serializes it (api/blob.c++): host
// object tag 15, its type, then its bytes, each length-delimited. A File
// is not (as on workerd).
const blobTag = 15

func installBlobClone(rt *goja.Runtime, internals *goja.Object) error {
	content, ok1 := goja.AssertFunction(internals.Get("blobContent"))
	fromContent, ok2 := goja.AssertFunction(internals.Get("blobFromContent"))
	if !ok1 || !ok2 {
		return errors.New("web prelude: missing blobContent or blobFromContent")
	}
	return clone.RegisterHost(rt, "Blob", clone.HostCodec{
		Tag: blobTag,
		Write: func(w *clone.HostWriter, o *goja.Object) error {
			v, err := content(goja.Undefined(), o)
			if err != nil {
				return err
			}
			if goja.IsUndefined(v) {
				return fmt.Errorf("not a Blob")
			}
			parts := v.ToObject(rt)
			b, ok := clone.Bytes(rt, parts.Get("0").ToObject(rt))
			if !ok {
				return fmt.Errorf("a Blob without bytes")
			}
			w.String(parts.Get("1").String())
			w.Bytes(b)
			return nil
		},
		Read: func(r *clone.HostReader) (goja.Value, error) {
			typ := r.String()
			b := r.Bytes()
			return fromContent(goja.Undefined(), rt.ToValue(rt.NewArrayBuffer(b)), rt.ToValue(typ))
		},
	})
}
