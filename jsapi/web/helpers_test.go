package web

import (
	"bytes"
	"io"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// newWebRuntime returns a runtime with Install done and the console
// captured.
func newWebRuntime(t testing.TB) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	return jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return Install(rt, Options{Console: console})
	})
}
