package jsapi

import (
	"bytes"
	"io"
	"testing"

	"github.com/dop251/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// newWebRuntime returns a runtime with InstallWeb done and the console
// captured.
func newWebRuntime(t testing.TB) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	return jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return InstallWeb(rt, WebOptions{Console: console})
	})
}
