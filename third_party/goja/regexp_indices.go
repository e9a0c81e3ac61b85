package goja

// cellhost patch 38: the RegExp d flag (hasIndices, ES2022; V8 ships it):
// accepted, `hasIndices` on RegExp.prototype, 'd' first in `flags` and
// `toString`, and an `indices` array on every match of such a regexp (a
// [start, end] pair for each capture, undefined for one that did not take
// part, with `indices.groups` by name). Upstream refused the flag
// ("Invalid flags supplied to RegExp constructor 'd'").

func (r *Runtime) regexpproto_getHasIndices(call FunctionCall) Value {
	if this, ok := r.toObject(call.This).self.(*regexpObject); ok {
		return r.toBoolean(this.pattern.hasIndices)
	} else if call.This == r.global.RegExpPrototype {
		return _undefined
	}
	panic(r.NewTypeError("Method RegExp.prototype.hasIndices getter called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: call.This})))
}

// putMatchIndices defines match.indices (MakeMatchIndicesIndexPairArray):
// the pairs, in the same index space as the match's strings, and their
// groups object when the regexp has named groups.
func (r *Runtime) putMatchIndices(match *Object, valueArray []Value, result regexpResult) {
	pairs := make([]Value, len(valueArray))
	for i := range valueArray {
		if valueArray[i] == _undefined {
			pairs[i] = _undefined
			continue
		}
		pairs[i] = r.newArrayValues([]Value{intToValue(int64(result.indexes[2*i])), intToValue(int64(result.indexes[2*i+1]))})
	}
	indices := r.newArrayValues(pairs)
	var groupsVal Value = _undefined
	if g := r.createRegexpGroupsObj(pairs, result.groups); g != nil {
		groupsVal = g
	}
	indices.self.defineOwnPropertyStr("groups", PropertyDescriptor{
		Value: groupsVal, Writable: FLAG_TRUE, Configurable: FLAG_TRUE, Enumerable: FLAG_TRUE,
	}, false)
	match.self.defineOwnPropertyStr("indices", PropertyDescriptor{
		Value: indices, Writable: FLAG_TRUE, Configurable: FLAG_TRUE, Enumerable: FLAG_TRUE,
	}, false)
}
