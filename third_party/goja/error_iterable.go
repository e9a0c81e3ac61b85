package goja

import "github.com/cellhost/cellhost/third_party/goja/ast"

// cellhost patch: V8's "... is not iterable" texts. for-of and array
// spread name their operand as written ("o.x is not iterable"; a call:
// "g is not a function or its return value is not iterable"), a spread in
// call arguments says "Spread syntax requires ...iterable[Symbol.iterator]
// to be a function", and everything else (destructuring, built-ins such as
// new Map(5)) describes the value: "number 5 is not iterable (cannot read
// property Symbol(Symbol.iterator))". Upstream said "object is not
// iterable" (or "Cannot convert undefined or null to object") for all.

type iterSite int

const (
	iterSiteNamed iterSite = iota
	iterSiteSpreadCall
)

// recordIterName notes the text of the iterated operand of the
// instruction about to be emitted (in Program.callNames, by pc).
func (c *compiler) recordIterName(source ast.Expression) {
	var text string
	if call, ok := source.(*ast.CallExpression); ok {
		text = calleeText(call.Callee) + " is not a function or its return value is not iterable"
	} else {
		text = calleeText(source) + " is not iterable"
	}
	c.p.callNames = append(c.p.callNames, callName{pc: len(c.p.code), text: text})
}

// iteratorOf is GetIterator(v, sync) for an instruction, with V8's text
// when v is not iterable.
func (vm *vm) iteratorOf(v Value, site iterSite) *iteratorRecord {
	var method func(FunctionCall) Value
	if v != _undefined && v != _null {
		method = toMethod(vm.r.getV(v, SymIterator))
	}
	if method != nil {
		return vm.r.getIterator(v, method)
	}
	switch site {
	case iterSiteSpreadCall:
		switch v {
		case _undefined:
			panic(vm.r.NewTypeError("undefined is not iterable (cannot read property undefined)"))
		case _null:
			panic(vm.r.NewTypeError("null is not iterable (cannot read property null)"))
		}
		panic(vm.r.NewTypeError("Spread syntax requires ...iterable[Symbol.iterator] to be a function"))
	default:
		if vm.prg != nil {
			if text := vm.prg.callNameAt(vm.pc); text != "" {
				panic(vm.r.NewTypeError("%s", text))
			}
		}
	}
	panic(vm.r.notIterableBuiltin(v))
}

// notIterableBuiltin is V8's TypeError for a value a built-in or a
// destructuring pattern cannot iterate.
func (r *Runtime) notIterableBuiltin(v Value) *Object {
	var desc string
	switch v := v.(type) {
	case valueUndefined:
		desc = "undefined"
	case valueNull:
		desc = "object null"
	case valueInt, valueFloat:
		desc = "number " + v.String()
	case valueBool:
		desc = "boolean " + v.String()
	case String:
		desc = "string \"" + v.String() + "\""
	case *Symbol:
		desc = "symbol"
	case *valueBigInt:
		desc = "bigint"
	case *Object:
		if _, ok := v.self.assertCallable(); ok {
			desc = "function"
		} else {
			desc = "object"
		}
	default:
		desc = "object"
	}
	return r.NewTypeError("%s is not iterable (cannot read property Symbol(Symbol.iterator))", desc)
}

// recordDeclIterName notes, for the iterate instruction about to be
// emitted, V8's text for a declaration whose target is an array pattern
// (`const [a] = o`): V8 names the initializer when it is an identifier,
// `this`, a literal, or a call or new of an identifier ("o is not
// iterable", "f is not a function or its return value is not iterable"),
// and describes the value otherwise (member expressions, nested patterns,
// parameters, assignments), as notIterableBuiltin does.
func (c *compiler) recordDeclIterName(target ast.Pattern, init ast.Expression) {
	if _, ok := target.(*ast.ArrayPattern); !ok {
		return
	}
	var text string
	switch e := init.(type) {
	case *ast.Identifier, *ast.ThisExpression, *ast.BooleanLiteral, *ast.NullLiteral, *ast.NumberLiteral:
		text = calleeText(init) + " is not iterable"
	case *ast.ObjectLiteral:
		if len(e.Value) == 0 {
			text = "{} is not iterable"
		} else {
			text = "{(intermediate value)} is not iterable"
		}
	case *ast.CallExpression:
		if _, ok := e.Callee.(*ast.Identifier); !ok {
			return
		}
		text = calleeText(e.Callee) + " is not a function or its return value is not iterable"
	case *ast.NewExpression:
		if _, ok := e.Callee.(*ast.Identifier); !ok {
			return
		}
		text = calleeText(e.Callee) + " is not a function or its return value is not iterable"
	default:
		return
	}
	c.p.callNames = append(c.p.callNames, callName{pc: len(c.p.code), text: text})
}
