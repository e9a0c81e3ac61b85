package goja

import (
	"strings"

	"github.com/cellhost/cellhost/third_party/goja/ast"
	"github.com/cellhost/cellhost/third_party/goja/unistring"
)

// cellhost patch: V8 names the callee of a call that is not a function as
// the source wrote it: "this.sql.exec(...).columnNames.toArray is not a
// function", "o[k] is not a function", "o.X is not a constructor".
// Upstream said "Object has no member 'toArray'" or "Value is not an
// object: 1". The compiler records, for each call and new instruction, the
// callee's text rendered from the AST as V8's CallPrinter does for the
// common forms (Program.callNames, kept in pc order); the VM looks it up
// when the callee turns out not to be callable.

type callName struct {
	pc   int
	text string
}

// calleeText renders a callee expression as V8 prints it in "... is not a
// function": identifiers and member chains as written (o['x'] as o.x),
// calls as f(...), anything else as (intermediate value).
func calleeText(e ast.Expression) string {
	var b strings.Builder
	writeCallee(&b, e, 0)
	return b.String()
}

func writeCallee(b *strings.Builder, e ast.Expression, depth int) {
	if depth > 32 || b.Len() > 256 {
		b.WriteString("(...)")
		return
	}
	switch e := e.(type) {
	case *ast.Identifier:
		b.WriteString(e.Name.String())
	case *ast.ThisExpression:
		b.WriteString("this")
	case *ast.SuperExpression:
		b.WriteString("super")
	case *ast.DotExpression:
		writeCallee(b, e.Left, depth+1)
		b.WriteByte('.')
		b.WriteString(e.Identifier.Name.String())
	case *ast.PrivateDotExpression:
		writeCallee(b, e.Left, depth+1)
		b.WriteString(".#")
		b.WriteString(e.Identifier.Name.String())
	case *ast.BracketExpression:
		writeCallee(b, e.Left, depth+1)
		switch m := e.Member.(type) {
		case *ast.StringLiteral:
			b.WriteByte('.')
			b.WriteString(m.Value.String())
		default:
			b.WriteByte('[')
			writeCallee(b, e.Member, depth+1)
			b.WriteByte(']')
		}
	case *ast.CallExpression:
		writeCallee(b, e.Callee, depth+1)
		b.WriteString("(...)")
	case *ast.OptionalChain:
		writeCallee(b, e.Expression, depth+1)
	case *ast.Optional:
		writeCallee(b, e.Expression, depth+1)
	case *ast.SequenceExpression:
		// V8's CallPrinter writes a comma expression in parentheses with
		// " , " between its operands: esbuild calls every imported
		// function as (0, import_x.f)(...).
		b.WriteByte('(')
		for i, x := range e.Sequence {
			if i > 0 {
				b.WriteString(" , ")
			}
			writeCallee(b, x, depth+1)
		}
		b.WriteByte(')')
	case *ast.StringLiteral:
		b.WriteByte('"')
		b.WriteString(e.Value.String())
		b.WriteByte('"')
	case *ast.NumberLiteral:
		b.WriteString(e.Literal)
	case *ast.BooleanLiteral:
		if e.Value {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case *ast.NullLiteral:
		b.WriteString("null")
	default:
		b.WriteString("(intermediate value)")
	}
}

// recordCallName notes the callee text of the call or new instruction about
// to be emitted.
func (c *compiler) recordCallName(callee ast.Expression) {
	if callee == nil {
		return
	}
	c.p.callNames = append(c.p.callNames, callName{pc: len(c.p.code), text: calleeText(callee)})
}

// callNameAt is the callee text recorded for the instruction at pc.
func (p *Program) callNameAt(pc int) string {
	lo, hi := 0, len(p.callNames)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.callNames[m].pc < pc {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(p.callNames) && p.callNames[lo].pc == pc {
		return p.callNames[lo].text
	}
	return ""
}

// calleeDescription is what V8 names a value that has no recorded text.
func calleeDescription(v Value) string {
	switch v := v.(type) {
	case String:
		return `"` + v.String() + `"`
	case *Object:
		return "object"
	case memberUnresolved:
		return unistring.String(v.ref).String()
	}
	if v == nil {
		return "undefined"
	}
	return v.String()
}

// notCallable throws V8's TypeError for calling v at the current pc.
func (vm *vm) notCallable(v Value, what string) {
	text := ""
	if vm.prg != nil {
		text = vm.prg.callNameAt(vm.pc)
	}
	if text == "" {
		text = calleeDescription(v)
	}
	panic(vm.r.NewTypeError("%s is not a %s", text, what))
}
