// Package jserr is the one way from a Go error to a JS value. Go code
// reports what JS must see as an *Error (a class name such as "TypeError"
// or a DOMException name such as "DataCloneError", and workerd's message);
// a JS exception travels as *goja.Exception or Thrown. ToJS turns any of
// them into the value to throw or reject with, Throw throws it. Every
// JS-facing package (jsapi, jsapi/web, jsapi/clone) uses these, and only
// at the boundary: code below it returns errors.
package jserr

import (
	"errors"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/httpmsg"
	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
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

// Error is an error JS sees as an error object of class Name (a built-in
// ECMAScript error class, or a DOMException name) with Message; its fields
// are documented on httpmsg.ScriptError, a leaf so that fleet carries it
// between nodes without the engine.
type Error = httpmsg.ScriptError

// DecodeValue rebuilds a Value in rt (jsapi/clone installs it: jserr
// cannot import clone, which imports jserr).
var DecodeValue func(rt *goja.Runtime, b []byte) (goja.Value, error)

// New returns an *Error of class name (see Object for the names).
func New(name, msg string) *Error { return &Error{Name: name, Message: msg} }

// TypeError returns an *Error JS sees as a TypeError.
func TypeError(msg string) *Error { return &Error{Name: "TypeError", Message: msg} }

// RangeError returns an *Error JS sees as a RangeError.
func RangeError(msg string) *Error { return &Error{Name: "RangeError", Message: msg} }

// Allocate asks rt's allocation hook (the object's memory limit) for bytes
// of kind that Go code is about to allocate for a script: nil when
// approved, else the RangeError V8 throws for an allocation of that kind it
// cannot make, as goja's own refusals read ("Array buffer allocation
// failed", "Invalid string length", "Invalid array length").
func Allocate(rt *goja.Runtime, bytes int64, kind goja.AllocationKind) error {
	if rt.AllowAllocation(bytes, kind) {
		return nil
	}
	switch kind {
	case goja.AllocString:
		return RangeError("Invalid string length")
	case goja.AllocArray:
		return RangeError("Invalid array length")
	}
	return RangeError("Array buffer allocation failed")
}

// Thrown carries a thrown JS value (any value, not only an error object) as
// a Go error.
type Thrown struct{ Value goja.Value }

func (e Thrown) Error() string {
	if e.Value == nil {
		return "undefined"
	}
	return e.Value.String()
}

// ToJS returns the JS value to throw or reject with for err: a JS exception
// or Thrown value as it was; an *Error as a new error object of its class
// (with remote = true when it is Remote); any other error as an Error with
// err's text. Call it on rt's goroutine.
func ToJS(rt *goja.Runtime, err error) goja.Value {
	if err == nil {
		return goja.Undefined()
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return ex.Value()
	}
	var tv Thrown
	if errors.As(err, &tv) {
		return tv.Value
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Value != nil && DecodeValue != nil {
			if v, derr := DecodeValue(rt, e.Value); derr == nil {
				if o, ok := v.(*goja.Object); ok {
					if e.ObjectID != "" && !IsDOMException(rt, o) {
						_ = o.Set("durableObjectId", e.ObjectID)
					}
					if e.Remote {
						_ = o.Set("remote", true)
					}
					if e.Reset {
						_ = o.Set("durableObjectReset", true)
					}
				}
				return v
			}
		}
		o := Object(rt, e.Name, e.Message)
		if e.ObjectID != "" {
			_ = o.Set("durableObjectId", e.ObjectID)
		}
		if e.Remote {
			_ = o.Set("remote", true)
		}
		if e.Reset {
			_ = o.Set("durableObjectReset", true)
		}
		return o
	}
	return Object(rt, "Error", err.Error())
}

// Throw throws err into JS as ToJS makes it (a Go panic goja turns into a
// JS exception). Use it only in Go functions called from JS, on rt's
// goroutine.
//
// An interrupt (*goja.InterruptedError) goes on as it is: JS cannot catch
// it. (A stack overflow is a catchable RangeError in cellhost's goja fork.)
func Throw(rt *goja.Runtime, err error) {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex)
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		panic(ie)
	}
	panic(ToJS(rt, err))
}

// Func adapts a Go function that returns an error to one JS can call: the
// error is thrown (Throw).
func Func(rt *goja.Runtime, f func(goja.FunctionCall) (goja.Value, error)) func(goja.FunctionCall) goja.Value {
	return func(c goja.FunctionCall) goja.Value {
		v, err := f(c)
		if err != nil {
			Throw(rt, err)
		}
		return v
	}
}

// Catch runs f, turning what a JS helper throws inside it (goja raises
// exceptions as panics of a *goja.Exception or a JS value) into an error.
// Other panics go on.
func Catch[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *goja.Exception:
				err = x
			case goja.Value:
				err = Thrown{x}
			default:
				panic(r)
			}
		}
	}()
	return f()
}

// IsBuiltin reports whether name is an ECMAScript error class.
func IsBuiltin(name string) bool { return builtinNames[name] }

// state is what Install leaves on a runtime: the error constructors as
// they were before user code could replace them.
type state struct {
	ctors        map[string]goja.Constructor
	domException goja.Constructor
}

var stateKey = rtstate.NewKey[state]("cellhost.jserr")

func stateOf(rt *goja.Runtime) *state { return stateKey.Get(rt) }

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
	return stateKey.Set(rt, st)
}

// Object returns a new JS error object of the class called name with the
// given message. name is either a built-in ECMAScript error class
// ("TypeError", "RangeError", ...) or a DOMException name
// ("DataCloneError", "InvalidCharacterError", "AbortError", ...), in which
// case the result is a DOMException (an instance of Error) whose name is
// name. DOMException comes from Install; on a runtime without it the
// result is a plain Error whose name property is set to name.
//
// Call it on the runtime's goroutine only.
func Object(rt *goja.Runtime, name, msg string) *goja.Object {
	st := stateOf(rt)
	if builtinNames[name] {
		if st != nil {
			if ctor := st.ctors[name]; ctor != nil {
				if o, err := ctor(nil, rt.ToValue(msg)); err == nil {
					return o
				}
			}
		}
		if name == "TypeError" {
			return rt.NewTypeError("%s", msg) // goja's own, whatever user code did to the global
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

// IsDOMException reports whether o is a DOMException of rt (which keeps
// its name, DataCloneError and the like, across objects).
func IsDOMException(rt *goja.Runtime, o *goja.Object) bool {
	c, ok := rt.Get("DOMException").(*goja.Object)
	if !ok {
		return false
	}
	p, ok := c.Get("prototype").(*goja.Object)
	if !ok {
		return false
	}
	for q := o.Prototype(); q != nil; q = q.Prototype() {
		if q == p {
			return true
		}
	}
	return false
}
