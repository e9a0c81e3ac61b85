package goja

import "github.com/cellhost/cellhost/third_party/goja/unistring"

// cellhost patch 32: the Annex B HTML methods of String.prototype (B.2.2.2
// to B.2.2.14: anchor, big, blink, bold, fixed, fontcolor, fontsize,
// italics, link, small, strike, sub, sup), which V8 has and upstream goja
// lacked ("_".anchor is not a function).

// createHTML is the specification's CreateHTML(string, tag, attribute,
// value): the receiver must be object-coercible (V8's text names the
// method); a non-empty attribute is written with the value converted to a
// string and each '"' in it written as "&quot;".
func (r *Runtime) createHTML(call FunctionCall, name, tag, attribute string) Value {
	switch call.This.(type) {
	case valueUndefined, valueNull:
		panic(r.NewTypeError("String.prototype.%s called on null or undefined", name))
	}
	s := call.This.toString()
	var b StringBuilder
	b.writeASCII("<" + tag)
	if attribute != "" {
		v := call.Argument(0).toString()
		b.writeASCII(" " + attribute + "=\"")
		start := 0
		for i := 0; i < v.Length(); i++ {
			if v.CharAt(i) == '"' {
				b.WriteSubstring(v, start, i)
				b.writeASCII("&quot;")
				start = i + 1
			}
		}
		b.WriteSubstring(v, start, v.Length())
		b.writeASCII("\"")
	}
	b.writeASCII(">")
	b.WriteString(s)
	b.writeASCII("</" + tag + ">")
	return b.String()
}

// stringHTMLMethods are the methods, their tags and attributes.
var stringHTMLMethods = []struct{ name, tag, attribute string }{
	{"anchor", "a", "name"}, {"big", "big", ""}, {"blink", "blink", ""}, {"bold", "b", ""},
	{"fixed", "tt", ""}, {"fontcolor", "font", "color"}, {"fontsize", "font", "size"},
	{"italics", "i", ""}, {"link", "a", "href"}, {"small", "small", ""}, {"strike", "strike", ""},
	{"sub", "sub", ""}, {"sup", "sup", ""},
}

func putStringHTMLMethods(t *objectTemplate) {
	for _, m := range stringHTMLMethods {
		m := m
		length := 0
		if m.attribute != "" {
			length = 1
		}
		t.putStr(unistring.String(m.name), func(r *Runtime) Value {
			return r.methodProp(func(call FunctionCall) Value { return r.createHTML(call, m.name, m.tag, m.attribute) }, unistring.String(m.name), length)
		})
	}
}
