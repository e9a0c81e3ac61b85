package web

import (
	"github.com/cellhost/cellhost/third_party/goja"
)

// consoleNatives pass console output, with its level, to console.
func consoleNatives(rt *goja.Runtime, console func(level, line string), n natives) {
	n.set("consoleWrite", func(c goja.FunctionCall) goja.Value {
		level := "log"
		if a := c.Argument(1); !goja.IsUndefined(a) {
			level = a.String()
		}
		console(level, c.Argument(0).String())
		return goja.Undefined()
	})
}
