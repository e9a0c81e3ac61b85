// Package jserr turns Go errors into the JS errors a Workers program sees:
// the ECMAScript error classes and DOMException, with workerd's names and
// messages. It is the leaf every JS-facing package (jsapi, jsapi/web,
// jsapi/clone) builds its errors with.
package jserr

import (
	"errors"

	"github.com/dop251/goja"
)

// builtinNames are the ECMAScript error classes New builds with the
// runtime's own constructors; any other name becomes a DOMException.
var builtinNames = map[string]bool{
	"Error":          true,
	"TypeError":      true,
	"RangeError":     true,
	"SyntaxError":    true,
	"ReferenceError": true,
	"EvalError":      true,
	"URIError":       true,
}

// IsBuiltin reports whether name is an ECMAScript error class.
func IsBuiltin(name string) bool { return builtinNames[name] }

// state is what Install leaves on a runtime: the error constructors as
// they were before user code could replace them.
type state struct {
	ctors        map[string]goja.Constructor
	domException goja.Constructor
}

var stateKey = goja.NewSymbol("cellhost.jserr")

func stateOf(rt *goja.Runtime) *state {
	v := rt.GlobalObject().GetSymbol(stateKey)
	if v == nil {
		return nil
	}
	st, _ := v.Export().(*state)
	return st
}

// Install captures rt's ECMAScript error constructors and domException
// (the DOMException class, nil when there is none) for New. Call it once,
// on the runtime's goroutine, before user code runs.
func Install(rt *goja.Runtime, domException goja.Constructor) error {
	if stateOf(rt) != nil {
		return errors.New("install errors: already installed")
	}
	st := &state{ctors: map[string]goja.Constructor{}, domException: domException}
	for name := range builtinNames {
		if c, ok := goja.AssertConstructor(rt.Get(name)); ok {
			st.ctors[name] = c
		}
	}
	return rt.GlobalObject().DefineDataPropertySymbol(stateKey, rt.ToValue(st), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// New returns a new JS error object of the class called name with the
// given message. name is either a built-in ECMAScript error class
// ("TypeError", "RangeError", ...) or a DOMException name
// ("DataCloneError", "InvalidCharacterError", "AbortError", ...), in which
// case the result is a DOMException (an instance of Error) whose name is
// name. DOMException comes from Install; on a runtime without it the
// result is a plain Error whose name property is set to name.
//
// Call it on the runtime's goroutine only.
func New(rt *goja.Runtime, name, msg string) *goja.Object {
	st := stateOf(rt)
	if builtinNames[name] {
		if st != nil {
			if ctor := st.ctors[name]; ctor != nil {
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

// Text renders a thrown JS value as "Name: message" for Go errors.
func Text(v goja.Value) string {
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
