package web

import (
	"errors"
	"unicode/utf16"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/v8json"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// jsonNatives give JS V8's JSON.parse messages (internal/v8json).
func jsonNatives(rt *goja.Runtime, n natives) {
	// jsonError(text) → V8's JSON.parse error message or ""
	n.set("jsonError", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(v8json.Message(utf16Units(c.Argument(0).ToString())))
	})
}

// installJSONParse wraps JSON.parse so that syntax errors carry V8's
// messages (workerd's output includes them).
func installJSONParse(rt *goja.Runtime) error {
	jsonObj := rt.Get("JSON").ToObject(rt)
	orig, ok := goja.AssertFunction(jsonObj.Get("parse"))
	if !ok {
		return errors.New("install JSON.parse: not a function")
	}
	wrapped := rt.ToValue(jserr.Func(rt, func(call goja.FunctionCall) (goja.Value, error) {
		v, err := orig(call.This, call.Arguments...)
		var ex *goja.Exception
		if errors.As(err, &ex) {
			if msg := v8json.Message(utf16Units(call.Argument(0).ToString())); msg != "" {
				return nil, jserr.New("SyntaxError", msg)
			}
		}
		return v, err
	})).ToObject(rt)
	_ = wrapped.DefineDataProperty("name", rt.ToValue("parse"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = wrapped.DefineDataProperty("length", rt.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return jsonObj.DefineDataProperty("parse", wrapped, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// utf16Units returns the UTF-16 code units of a JS string value.
func utf16Units(v goja.Value) []uint16 {
	if s, ok := v.(goja.String); ok {
		n := s.Length()
		out := make([]uint16, n)
		for i := 0; i < n; i++ {
			out[i] = s.CharAt(i)
		}
		return out
	}
	return utf16.Encode([]rune(v.String()))
}
