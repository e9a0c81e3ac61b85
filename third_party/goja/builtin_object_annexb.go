package goja

// cellhost patch 36: Object.prototype's Annex B accessor methods (B.2.2.2
// to B.2.2.5: __defineGetter__, __defineSetter__, __lookupGetter__,
// __lookupSetter__), which V8 has and upstream goja lacked
// ("o.__lookupGetter__ is not a function"), with V8's texts.

// objectprotoDefineAccessor is __defineGetter__ (setter false) and
// __defineSetter__: an enumerable, configurable accessor half on
// ToObject(this), defined or thrown.
func (r *Runtime) objectprotoDefineAccessor(call FunctionCall, setter bool, name string) Value {
	o := call.This.ToObject(r)
	fn, ok := call.Argument(1).(*Object)
	if ok {
		_, ok = fn.self.assertCallable()
	}
	if !ok {
		panic(r.NewTypeError("Object.prototype.%s: Expecting function", name))
	}
	desc := PropertyDescriptor{Enumerable: FLAG_TRUE, Configurable: FLAG_TRUE}
	if setter {
		desc.Setter = fn
	} else {
		desc.Getter = fn
	}
	o.defineOwnProperty(toPropertyKey(call.Argument(0)), desc, true)
	return _undefined
}

// objectprotoLookupAccessor is __lookupGetter__ (setter false) and
// __lookupSetter__: the first own property of that key along the
// prototype chain decides; a data property gives undefined.
func (r *Runtime) objectprotoLookupAccessor(call FunctionCall, setter bool) Value {
	o := call.This.ToObject(r)
	key := toPropertyKey(call.Argument(0))
	for o != nil {
		if p := o.getOwnProp(key); p != nil {
			if vp, ok := p.(*valueProperty); ok && vp.accessor {
				f := vp.getterFunc
				if setter {
					f = vp.setterFunc
				}
				if f != nil {
					return f
				}
			}
			return _undefined
		}
		o = o.self.proto()
	}
	return _undefined
}

func putObjectAnnexB(t *objectTemplate) {
	t.putStr("__defineGetter__", func(r *Runtime) Value {
		return r.methodProp(func(call FunctionCall) Value { return r.objectprotoDefineAccessor(call, false, "__defineGetter__") }, "__defineGetter__", 2)
	})
	t.putStr("__defineSetter__", func(r *Runtime) Value {
		return r.methodProp(func(call FunctionCall) Value { return r.objectprotoDefineAccessor(call, true, "__defineSetter__") }, "__defineSetter__", 2)
	})
	t.putStr("__lookupGetter__", func(r *Runtime) Value {
		return r.methodProp(func(call FunctionCall) Value { return r.objectprotoLookupAccessor(call, false) }, "__lookupGetter__", 1)
	})
	t.putStr("__lookupSetter__", func(r *Runtime) Value {
		return r.methodProp(func(call FunctionCall) Value { return r.objectprotoLookupAccessor(call, true) }, "__lookupSetter__", 1)
	})
}
