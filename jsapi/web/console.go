package web

import (
	"io"

	"github.com/dop251/goja"
)

// consoleNatives write console output to the Options.Console writer.
func consoleNatives(rt *goja.Runtime, console io.Writer, n *goja.Object) {
	set := func(name string, f func(goja.FunctionCall) goja.Value) { _ = n.Set(name, f) }
	set("consoleWrite", func(c goja.FunctionCall) goja.Value {
		_, _ = io.WriteString(console, c.Argument(0).String()+"\n")
		return goja.Undefined()
	})
}
