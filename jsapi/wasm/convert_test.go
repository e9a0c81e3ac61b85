package wasm

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/wazero/api"
)

// convertModule exports, for each value type T of i32, i64, f32, f64: idT
// (returns its argument) and viaT (calls the import env.T with its argument
// and returns what the import returned).
func convertModule() []byte {
	vts := []byte{api.ValueTypeI32, api.ValueTypeI64, api.ValueTypeF32, api.ValueTypeF64}
	names := []string{"i32", "i64", "f32", "f64"}
	types := leb(nil, uint64(len(vts)))
	imps := leb(nil, uint64(len(vts)))
	funcs := leb(nil, uint64(2*len(vts)))
	exps := leb(nil, uint64(2*len(vts)))
	code := leb(nil, uint64(2*len(vts)))
	for i, vt := range vts {
		types = append(types, 0x60, 1, vt, 1, vt)
		imps = append(wname(wname(imps, "env"), names[i]), 0, byte(i))
	}
	for i := range vts {
		funcs = append(funcs, byte(i), byte(i))
		// Function indices: the 4 imports first, then id, via for each type.
		exps = append(wname(exps, "id"+names[i]), 0, byte(4+2*i))
		exps = append(wname(exps, "via"+names[i]), 0, byte(4+2*i+1))
		code = append(code, 4, 0, 0x20, 0, 0x0b)                // local.get 0
		code = append(code, 6, 0, 0x20, 0, 0x10, byte(i), 0x0b) // local.get 0; call i
	}
	b := append([]byte(nil), header...)
	b = section(b, 1, types)
	b = section(b, 2, imps)
	b = section(b, 3, funcs)
	b = section(b, 7, exps)
	b = section(b, 10, code)
	return b
}

// TestConversions_MatchJS: the values crossing the boundary in both
// directions, on the direct paths (numbers, BigInts) and the general one
// (strings, booleans, objects with valueOf), are ToWebAssemblyValue as JS
// computes it: ToInt32, BigInt.asIntN(64, ToBigInt(v)), Math.fround.
func TestConversions_MatchJS(t *testing.T) {
	b := convertModule()
	c, err := Compile(b)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	if _, err := Install(rt, Options{Modules: map[string]*Compiled{Hash(b): c}}); err != nil {
		t.Fatal(err)
	}
	v, err := rt.RunString(`
	const id = (v) => v;
	const x = new WebAssembly.Instance(` + BundleGlobal + `("` + Hash(b) + `"), { env: { i32: id, i64: id, f32: id, f64: id } }).exports;
	const nums = [0, -0, 1, -1, 1.5, -1.5, 255, 256, -257, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, 2 ** 32 + 3.7,
		-(2 ** 32) - 3, 2 ** 53, 1e20, -1e20, 1e300, NaN, Infinity, -Infinity, 3.4028235677973366e38, 1e-46, "12", true, { valueOf: () => 7 }];
	const bigs = [0n, 1n, -1n, 2n ** 63n - 1n, 2n ** 63n, -(2n ** 63n), -(2n ** 63n) - 1n, 2n ** 64n, 2n ** 64n + 5n, -(2n ** 64n) - 5n,
		2n ** 200n + 12345n, -(2n ** 200n) + 3n, "99", true, { valueOf: () => 9n }];
	const bad = [];
	const same = (a, b) => Object.is(a, b);
	// ToInt32 spelled out: goja's own "v | 0" gives 0 for doubles of 2^63
	// and more (V8: 1e20 | 0 is 1661992960).
	const toInt32 = (v) => {
		const n = Number(typeof v === "object" ? v.valueOf() : v);
		if (!Number.isFinite(n)) return 0;
		let t = Math.trunc(n) % 2 ** 32;
		if (t >= 2 ** 31) t -= 2 ** 32;
		if (t < -(2 ** 31)) t += 2 ** 32;
		return t === 0 ? 0 : t;
	};
	for (const v of nums) {
		for (const f of ["id", "via"]) {
			if (!same(x[f + "i32"](v), toInt32(v))) bad.push(f + "i32(" + String(v) + ") = " + x[f + "i32"](v));
			if (!same(x[f + "f32"](v), Math.fround(v))) bad.push(f + "f32(" + String(v) + ") = " + x[f + "f32"](v));
			const d = typeof v === "object" ? v.valueOf() : Number(v);
			if (!same(x[f + "f64"](v), d)) bad.push(f + "f64(" + String(v) + ") = " + x[f + "f64"](v));
		}
	}
	for (const v of bigs) {
		for (const f of ["id", "via"]) {
			const want = BigInt.asIntN(64, typeof v === "object" ? v.valueOf() : BigInt(v));
			if (x[f + "i64"](v) !== want) bad.push(f + "i64(" + String(v) + ") = " + x[f + "i64"](v) + ", want " + want);
		}
	}
	for (const f of ["idi64", "viai64"]) {
		try { x[f](1); bad.push(f + "(1) did not throw"); } catch (e) { if (!(e instanceof TypeError)) bad.push(f + "(1) threw " + e); }
	}
	bad.join("\n");
	`)
	if err != nil {
		t.Fatal(err)
	}
	if s := v.String(); s != "" {
		t.Errorf("conversions that differ from JS's:\n%s", s)
	}
}
