package wasm

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// tableUser imports a funcref table env.t (at least 2 entries), puts its
// function f7 (returns 7) at index 0 with an active element segment, and
// exports f9 (returns 9) and call(i), which call_indirects entry i.
func tableUser() []byte {
	b := append([]byte(nil), header...)
	b = section(b, 1, []byte{2, 0x60, 0, 1, 0x7f, 0x60, 1, 0x7f, 1, 0x7f})
	b = section(b, 2, append(wname(wname([]byte{1}, "env"), "t"), 1, 0x70, 0, 2))
	b = section(b, 3, []byte{3, 0, 0, 1})
	exps := []byte{2}
	exps = append(wname(exps, "call"), 0, 2)
	exps = append(wname(exps, "f9"), 0, 1)
	b = section(b, 7, exps)
	b = section(b, 9, []byte{1, 0, 0x41, 0, 0x0b, 1, 0})
	b = section(b, 10, []byte{3, 4, 0, 0x41, 7, 0x0b, 4, 0, 0x41, 9, 0x0b, 7, 0, 0x20, 0, 0x11, 0, 0, 0x0b})
	return b
}

// reexport imports env.g (a function () -> i32) and exports it as g: how
// a JS function becomes a WebAssembly function (emscripten's addFunction).
func reexport() []byte {
	b := append([]byte(nil), header...)
	b = section(b, 1, []byte{1, 0x60, 0, 1, 0x7f})
	b = section(b, 2, append(wname(wname([]byte{1}, "env"), "g"), 0, 0))
	b = section(b, 7, append(wname([]byte{1}, "g"), 0, 0))
	return b
}

// TestTables_MadeInJS: a table made by new WebAssembly.Table is imported by
// a module (its element segment writes into it, call_indirect reads it);
// JS puts exported functions in it (the same object comes back from get),
// also a JS function made a WebAssembly function by a module that imports
// and exports it again; a plain JS function is refused as V8 refuses it.
func TestTables_MadeInJS(t *testing.T) {
	user, wrap := tableUser(), reexport()
	mods := map[string]*Compiled{}
	for _, b := range [][]byte{user, wrap} {
		c, err := Compile(b)
		if err != nil {
			t.Fatal(err)
		}
		mods[Hash(b)] = c
	}
	rt := goja.New()
	if _, err := Install(rt, Options{Modules: mods}); err != nil {
		t.Fatal(err)
	}
	v, err := rt.RunString(`
	const mod = (b) => ` + BundleGlobal + `(b);
	const bad = [];
	const check = (what, got, want) => { if (!Object.is(got, want)) bad.push(what + ": " + String(got) + ", want " + String(want)); };
	const t = new WebAssembly.Table({ element: "anyfunc", initial: 2, maximum: 10 });
	check("length", t.length, 2);
	check("empty entry", t.get(1), null);
	const x = new WebAssembly.Instance(mod("` + Hash(user) + `"), { env: { t } }).exports;
	check("call(0), written by the element segment", x.call(0), 7);
	check("get(0)()", t.get(0)(), 7);
	check("get(0) twice", t.get(0), t.get(0));
	t.set(1, x.f9);
	check("get(1) is the export", t.get(1), x.f9);
	check("call(1)", x.call(1), 9);
	const w = new WebAssembly.Instance(mod("` + Hash(wrap) + `"), { env: { g: () => 42 } }).exports;
	t.set(1, w.g);
	check("call(1) of a JS function", x.call(1), 42);
	check("get(1) is w.g", t.get(1), w.g);
	try { t.set(0, () => 1); bad.push("a plain JS function was stored"); }
	catch (e) { check("plain JS function", String(e), "TypeError: WebAssembly.Table.set(): Argument 1 is invalid for table: function-typed object expected"); }
	check("grow", t.grow(2, x.f9), 2);
	check("length after grow", t.length, 4);
	check("call(3) after grow with a value", x.call(3), 9);
	try { x.call(0) ; } catch (e) { bad.push("call(0) threw " + e); }
	try { new WebAssembly.Instance(mod("` + Hash(user) + `"), { env: { t: new WebAssembly.Table({ element: "anyfunc", initial: 1 }) } }); bad.push("a table too small was accepted"); }
	catch (e) { check("too small", e instanceof WebAssembly.LinkError, true); }
	try { new WebAssembly.Instance(mod("` + Hash(user) + `"), { env: { t: {} } }); bad.push("an object was accepted as a table"); }
	catch (e) { check("not a table", e instanceof WebAssembly.LinkError, true); }
	const et = new WebAssembly.Table({ element: "externref", initial: 3 }, "init");
	check("externref fill", et.get(2), "init");
	const eu = new WebAssembly.Table({ element: "externref", initial: 1 });
	check("externref default", eu.get(0), undefined);
	bad.join("\n");
	`)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.String(); s != "" {
		t.Error(s)
	}
}
