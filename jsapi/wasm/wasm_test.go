package wasm

import (
	"bytes"
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/cellhost/cellhost/third_party/wazero"
	"github.com/cellhost/cellhost/third_party/wazero/api"
)

// TestSections reads calc.wasm's sections as wabt wrote them from
// calc.wat (testjs/cases/wasm-api): every kind, in declaration order.
func TestSections(t *testing.T) {
	b, err := os.ReadFile("../../testjs/cases/wasm-api/calc.wasm")
	if err != nil {
		t.Fatal(err)
	}
	imports, exports, err := Sections(b)
	if err != nil {
		t.Fatal(err)
	}
	wantImports := []Import{{Module: "env", Name: "cb", Kind: "function"}, {Module: "env", Name: "big", Kind: "function", Index: 1}}
	if !reflect.DeepEqual(imports, wantImports) {
		t.Errorf("imports %+v, want %+v", imports, wantImports)
	}
	var names []string
	for _, e := range exports[:6] {
		names = append(names, e.Kind+":"+e.Name)
	}
	if got, want := names, []string{"memory:memory", "global:counter", "global:big", "table:table", "function:add", "function:add64"}; !reflect.DeepEqual(got, want) {
		t.Errorf("exports %v, want %v", got, want)
	}
	if exports[4].Index != 2 { // after the two imported functions
		t.Errorf("add's index %d, want 2", exports[4].Index)
	}
	types, err := Types(b)
	if err != nil || len(types) == 0 {
		t.Fatalf("types %v %v", types, err)
	}
	if !bytes.Equal(types[0].Params, []byte{api.ValueTypeI32}) || !bytes.Equal(types[0].Results, []byte{api.ValueTypeI32}) {
		t.Errorf("type 0 %+v, want (i32) -> i32", types[0])
	}
}

// TestEncodedModules: the modules the API makes (memory, global, glue)
// compile in wazero and export what they say.
func TestEncodedModules(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want []Export
	}{
		{"memory", memoryModule(2, 5, true), []Export{{Name: "m", Kind: "memory"}}},
		{"memory-unbounded", memoryModule(0, 0, false), []Export{{Name: "m", Kind: "memory"}}},
		{"global-i32", globalModule(api.ValueTypeI32, false, uint64(uint32(0xffffffff))), []Export{{Name: "g", Kind: "global"}}},
		{"global-i64", globalModule(api.ValueTypeI64, true, 1<<62), []Export{{Name: "g", Kind: "global"}}},
		{"global-f64", globalModule(api.ValueTypeF64, true, api.EncodeF64(1.5)), []Export{{Name: "g", Kind: "global"}}},
		{"global-externref", globalModule(api.ValueTypeExternref, true, 0), []Export{{Name: "g", Kind: "global"}}},
		{"table-externref", tableModule("tbl", api.ValueTypeExternref), []Export{{Name: "size", Kind: "function"}, {Name: "grow", Kind: "function", Index: 1}, {Name: "get", Kind: "function", Index: 2}, {Name: "set", Kind: "function", Index: 3}, {Name: "fill", Kind: "function", Index: 4}}},
		{"table-funcref", tableModule("__indirect_function_table", valueTypeFuncref), []Export{{Name: "size", Kind: "function"}, {Name: "grow", Kind: "function", Index: 1}, {Name: "get", Kind: "function", Index: 2}, {Name: "set", Kind: "function", Index: 3}, {Name: "fill", Kind: "function", Index: 4}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compile(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.exports, tc.want) {
				t.Errorf("exports %+v, want %+v", c.exports, tc.want)
			}
		})
	}
	c, err := Compile(globalModule(api.ValueTypeI64, true, uint64(1<<63)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := theEngine().InstantiateModule(context.Background(), c.cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(context.Background())
	if got := m.ExportedGlobal("g").Get(); got != 1<<63 {
		t.Errorf("i64 global %x, want %x (signed LEB128 of the minimum)", got, uint64(1<<63))
	}
	glue := glueModule([]glueItem{
		{Name: "f", From: "h", Field: "f", Kind: 0, Params: []api.ValueType{api.ValueTypeI32, api.ValueTypeF64}, Results: []api.ValueType{api.ValueTypeI64}},
		{Name: "memory", From: "m", Field: "m", Kind: 2, Min: 1, Max: 3, HasMax: true},
		{Name: "g", From: "g", Field: "g", Kind: 3, ValType: api.ValueTypeI32, Mutable: true},
	})
	gc, err := Compile(glue)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range gc.exports {
		got = append(got, e.Kind+":"+e.Name)
	}
	for _, i := range gc.imports {
		got = append(got, "import "+i.Kind+":"+i.Module+"."+i.Name)
	}
	if want := []string{"function:f", "memory:memory", "global:g", "import function:h.f", "import memory:m.m", "import global:g.g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("glue %v, want %v", got, want)
	}
}

// TestCompile_Cached: the same bytes compile once; bytes that do not
// compile give a CompileError.
func TestCompile_Cached(t *testing.T) {
	b := memoryModule(7, 9, true)
	first, err := Compile(b)
	if err != nil {
		t.Fatal(err)
	}
	n := Compilations()
	again, err := Compile(append([]byte(nil), b...))
	if err != nil || again != first || Compilations() != n {
		t.Errorf("second Compile: %p %v, compilations %d -> %d; want the first (%p), none", again, err, n, Compilations(), first)
	}
	if _, err := Compile([]byte("\x00asm\x01\x00\x00\x00\x01")); err == nil {
		t.Error("truncated module compiled")
	} else if _, ok := err.(*CompileError); !ok {
		t.Errorf("got %T, want *CompileError", err)
	}
}

// TestBudget: growth past the limit is refused and reported; freed memory
// returns to the budget once.
func TestBudget(t *testing.T) {
	exceeded := 0
	b := &budget{limit: 4 << 16, exceeded: func() { exceeded++ }}
	m := &limitedMemory{max: 100 << 16, budget: b}
	if buf := m.Reallocate(2 << 16); len(buf) != 2<<16 {
		t.Fatalf("first 2 pages: %d bytes", len(buf))
	}
	if buf := m.Reallocate(4 << 16); len(buf) != 4<<16 || b.used != 4<<16 {
		t.Fatalf("4 pages: %d bytes, used %d", len(buf), b.used)
	}
	if buf := m.Reallocate(5 << 16); buf != nil || exceeded != 1 || b.used != 4<<16 {
		t.Fatalf("past the limit: %d bytes, exceeded %d, used %d; want refused", len(buf), exceeded, b.used)
	}
	m.Free()
	m.Free()
	if b.used != 0 {
		t.Errorf("used %d after Free twice; want 0", b.used)
	}
}

func FuzzSections(f *testing.F) {
	for _, p := range []string{"../../testjs/cases/wasm-api/calc.wasm", "../../testjs/cases/wasm-api/imp.wasm", "testdata/calls.wasm"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add(memoryModule(1, 2, true))
	f.Add(glueModule([]glueItem{{Name: "f", From: "h", Field: "f", Kind: 0, Params: []api.ValueType{api.ValueTypeI32}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		imports, exports, err := Sections(b)
		if err != nil {
			return
		}
		for _, im := range imports {
			if im.Kind == "" {
				t.Fatalf("import without kind: %+v", im)
			}
		}
		for _, ex := range exports {
			if ex.Kind == "" {
				t.Fatalf("export without kind: %+v", ex)
			}
		}
		_, _ = Types(b)
	})
}
