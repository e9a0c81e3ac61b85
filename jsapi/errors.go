package jsapi

import (
	"github.com/dop251/goja"
)

// errBuiltinNames are the ECMAScript error classes NewError builds with
// the runtime's own constructors; any other name becomes a DOMException.
var errBuiltinNames = map[string]bool{
	"Error":          true,
	"TypeError":      true,
	"RangeError":     true,
	"SyntaxError":    true,
	"ReferenceError": true,
	"EvalError":      true,
	"URIError":       true,
}

// NewError returns a new JS error object of the class called name with the
// given message. name is either a built-in ECMAScript error class
// ("TypeError", "RangeError", ...) or a DOMException name
// ("DataCloneError", "InvalidCharacterError", "AbortError", ...), in which
// case the result is a DOMException (an instance of Error) whose name is
// name. DOMException comes from InstallWeb; on a runtime without it the
// result is a plain Error whose name property is set to name.
//
// Call it on the runtime's goroutine only.
func NewError(rt *goja.Runtime, name, msg string) *goja.Object {
	st := webStateOf(rt)
	if errBuiltinNames[name] {
		if st != nil {
			if ctor := st.errorCtors[name]; ctor != nil {
				if o, err := ctor(nil, rt.ToValue(msg)); err == nil {
					return o
				}
			}
		}
		if ctor, ok := goja.AssertConstructor(rt.Get(name)); ok {
			if o, err := ctor(nil, rt.ToValue(msg)); err == nil {
				return o
			}
		}
		// The global was replaced by user code: fall through.
	}
	if st != nil && st.domException != nil {
		if o, err := st.domException(nil, rt.ToValue(msg), rt.ToValue(name)); err == nil {
			return o
		}
	}
	o, err := rt.New(rt.Get("Error"), rt.ToValue(msg))
	if err != nil {
		o = rt.NewObject()
		_ = o.Set("message", msg)
	}
	_ = o.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return o
}

// ThrowError throws (as a Go panic that goja turns into a JS exception) a
// new error built by NewError. Use it only inside Go functions called from
// JS, on the runtime's goroutine.
func ThrowError(rt *goja.Runtime, name, message string) {
	panic(NewError(rt, name, message))
}

// jsErrorText renders a thrown JS value as "Name: message" for Go errors.
func jsErrorText(v goja.Value) string {
	if o, ok := v.(*goja.Object); ok {
		name := o.Get("name")
		msg := o.Get("message")
		if name != nil && !goja.IsUndefined(name) && msg != nil && !goja.IsUndefined(msg) {
			if msg.String() == "" {
				return name.String()
			}
			return name.String() + ": " + msg.String()
		}
	}
	if v == nil {
		return "undefined"
	}
	return v.String()
}
