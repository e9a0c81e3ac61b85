package goja

import (
	"fmt"

	"github.com/cellhost/cellhost/third_party/goja/unistring"
)

// cellhost patch: V8's texts for the TypeErrors of a property read or write
// on undefined or null, which applications and test frameworks compare:
// "Cannot read properties of undefined (reading 'z')" and "Cannot set
// properties of null (setting 'z')". Upstream said "Cannot read property
// 'z' of undefined" (for null too) and, for a write, "Cannot convert
// undefined or null to object".

// nullishName is "null" or "undefined", as V8 names the base.
func nullishName(v Value) string {
	if v == _null {
		return "null"
	}
	return "undefined"
}

// propertyKeyText renders a property key as V8 does in these messages: a
// symbol as Symbol(description), anything else as its property key string.
func (r *Runtime) propertyKeyText(key any) string {
	switch k := key.(type) {
	case string:
		return k
	case unistring.String:
		return k.String()
	case getProp:
		return unistring.String(k).String()
	case getPropRecv:
		return unistring.String(k).String()
	case getPropRecvCallee:
		return unistring.String(k).String()
	case *Symbol:
		return k.descriptiveString().String()
	case Value:
		if k == nil {
			return "undefined"
		}
		if _, isObj := k.(*Object); isObj {
			k = toPropertyKey(k)
			if s, ok := k.(*Symbol); ok {
				return s.descriptiveString().String()
			}
		}
		return k.String()
	}
	return fmt.Sprint(key)
}

// cannotRead is the TypeError of reading key from base, undefined or null.
func (r *Runtime) cannotRead(base Value, key any) *Object {
	return r.NewTypeError("Cannot read properties of %s (reading '%s')", nullishName(base), r.propertyKeyText(key))
}

// checkSetBase throws V8's TypeError when a property key is set on
// undefined or null.
func (r *Runtime) checkSetBase(base Value, key any) {
	if base == _undefined || base == _null || base == nil {
		panic(r.NewTypeError("Cannot set properties of %s (setting '%s')", nullishName(base), r.propertyKeyText(key)))
	}
}
