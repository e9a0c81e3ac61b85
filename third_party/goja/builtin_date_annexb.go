package goja

import "time"

// cellhost patch 33: Date.prototype's Annex B methods (B.2.3.1 getYear,
// B.2.3.2 setYear, B.2.3.3 toGMTString), which V8 has and upstream goja
// lacked ("date.getYear is not a function"). toGMTString is the same
// function object as toUTCString, as the specification requires. A
// receiver that is not a Date throws V8's text (receiverString).

func (r *Runtime) dateproto_getYear(call FunctionCall) Value {
	if o, ok := call.This.(*Object); ok {
		if d, ok := o.self.(*dateObject); ok {
			if !d.isSet() {
				return _NaN
			}
			return intToValue(int64(d.time().Year()) - 1900)
		}
	}
	panic(r.NewTypeError("Method Date.prototype.getYear called on incompatible receiver %s", receiverString(call.This)))
}

// dateproto_setYear reads the time value before converting the argument
// (B.2.3.2 steps 3 and 4: a valueOf that changes the date does not change
// the date the year is set in); an invalid date counts as +0 local time; a
// year from 0 to 99 means 1900 to 1999.
func (r *Runtime) dateproto_setYear(call FunctionCall) Value {
	if o, ok := call.This.(*Object); ok {
		if d, ok := o.self.(*dateObject); ok {
			var t time.Time
			if d.isSet() {
				t = d.time()
			} else {
				t = time.Date(1970, time.January, 1, 0, 0, 0, 0, time.Local)
			}
			t, ok := _dateSetYear(t, limitCallArgs(call, 1), 0, false)
			if !ok {
				d.unset()
				return _NaN
			}
			return d.setTimeMs(timeToMsec(t))
		}
	}
	panic(r.NewTypeError("Method Date.prototype.setYear called on incompatible receiver %s", receiverString(call.This)))
}

func (r *Runtime) getDateproto_toUTCString() *Object {
	ret := r.global.dateproto_toUTCString
	if ret == nil {
		ret = r.newNativeFunc(r.dateproto_toUTCString, "toUTCString", 0)
		r.global.dateproto_toUTCString = ret
	}
	return ret
}

func putDateAnnexB(t *objectTemplate) {
	t.putStr("getYear", func(r *Runtime) Value { return r.methodProp(r.dateproto_getYear, "getYear", 0) })
	t.putStr("setYear", func(r *Runtime) Value { return r.methodProp(r.dateproto_setYear, "setYear", 1) })
	t.putStr("toGMTString", func(r *Runtime) Value { return valueProp(r.getDateproto_toUTCString(), true, false, true) })
}
