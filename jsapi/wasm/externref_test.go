package wasm

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// externModule exports id (param externref) (result externref), a table t
// of 4 externrefs and a mutable externref global g.
func externModule() []byte {
	b := append([]byte(nil), header...)
	b = section(b, 1, []byte{1, 0x60, 1, 0x6f, 1, 0x6f})
	b = section(b, 3, []byte{1, 0})
	b = section(b, 4, []byte{1, 0x6f, 0, 4})
	b = section(b, 6, []byte{1, 0x6f, 1, 0xd0, 0x6f, 0x0b})
	exps := []byte{3}
	exps = append(wname(exps, "id"), 0, 0)
	exps = append(wname(exps, "t"), 1, 0)
	exps = append(wname(exps, "g"), 3, 0)
	b = section(b, 7, exps)
	b = section(b, 10, []byte{1, 4, 0, 0x20, 0, 0x0b})
	return b
}

// TestExternrefs_Freed: values that crossed into wasm as externrefs and are
// no longer held by wasm are freed (the handle table stays within a bound
// however many cross), while those a table or a global holds survive every
// sweep, and the same object crossing again takes no new slot.
func TestExternrefs_Freed(t *testing.T) {
	b := externModule()
	rt, st := installModule(t, b)
	sweeps0 := sweeps
	v, err := rt.RunString(`
	const x = new WebAssembly.Instance(` + BundleGlobal + `("` + Hash(b) + `")).exports;
	const kept = { kept: 1 }, inGlobal = { g: 1 };
	x.t.set(2, kept);
	x.g.value = inGlobal;
	const bad = [];
	for (let i = 0; i < 20000; i++) {
		const o = { i };
		if (x.id(o) !== o) { bad.push("id " + i); break; }
		if (x.id("s" + i) !== "s" + i) { bad.push("id of a string " + i); break; }
		if (i % 1000 === 0) x.t.set(1, { i });
	}
	if (x.t.get(2) !== kept) bad.push("the table's value was lost");
	if (x.g.value !== inGlobal) bad.push("the global's value was lost");
	if (x.t.get(1).i !== 19000) bad.push("the table's last value: " + JSON.stringify(x.t.get(1)));
	bad.join("; ");
	`)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.String(); s != "" {
		t.Fatal(s)
	}
	if sweeps == sweeps0 {
		t.Fatal("no sweep ran")
	}
	// 40 000 values crossed; wasm holds 3 of them.
	if n := st.externs.inUse(); n > 2*minSweep {
		t.Errorf("%d externref handles in use after 40000 values crossed (wasm holds 3)", n)
	}
	if len(st.externs.vals) > 4*minSweep {
		t.Errorf("the handle table has %d slots", len(st.externs.vals))
	}
	// The same object many times: one slot.
	before := st.externs.inUse()
	if _, err := rt.RunString(`const same = {}; for (let i = 0; i < 5000; i++) x.id(same);`); err != nil {
		t.Fatal(err)
	}
	if d := st.externs.inUse() - before; d > 1 {
		t.Errorf("one object crossing 5000 times took %d slots", d)
	}
}

// TestExternrefs_GlobalInitialValue: new WebAssembly.Global({value:
// "externref"}, v) holds v (wazero patch 4 sets the handle, which no
// constant expression can make), mutable or not, and undefined when no
// value is given (the JS API's DefaultValue).
func TestExternrefs_GlobalInitialValue(t *testing.T) {
	rt := goja.New()
	if _, err := Install(rt, Options{}); err != nil {
		t.Fatal(err)
	}
	v, err := rt.RunString(`
	const o = { o: 1 };
	const bad = [];
	const g1 = new WebAssembly.Global({ value: "externref" }, o);
	const g2 = new WebAssembly.Global({ value: "externref", mutable: true }, "s");
	const g3 = new WebAssembly.Global({ value: "externref" });
	const g4 = new WebAssembly.Global({ value: "externref" }, null);
	if (g1.value !== o) bad.push("immutable: " + g1.value);
	if (g2.value !== "s") bad.push("mutable: " + g2.value);
	if (g3.value !== undefined) bad.push("default: " + g3.value);
	if (g4.value !== null) bad.push("null: " + g4.value);
	g2.value = o;
	if (g2.value !== o) bad.push("after set: " + g2.value);
	bad.join("; ");
	`)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.String(); s != "" {
		t.Fatal(s)
	}
}
