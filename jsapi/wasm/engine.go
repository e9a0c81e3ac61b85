// Package wasm is the WebAssembly JavaScript API (the WebAssembly
// namespace, as workerd has it) on wazero, github.com/tetratelabs/wazero:
// a maintained, dependency-free WebAssembly runtime in Go. cellhost runs
// it in its compiler mode (wazero's default where the platform has one:
// amd64 and arm64), which translates a module to machine code once, when it
// is compiled; the interpreter, wazero's fallback elsewhere, is 10-50 times
// slower on CPU-bound code (bench: BenchmarkWasm*). Hand-writing a runtime
// or binding a C one (wasmtime, V8) would bring cgo and a second memory
// manager into a process whose objects must never take it down.
package wasm

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/third_party/wazero"
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/experimental"
)

// features are the proposals V8 (workerd) ships that wazero implements:
// the 2.0 core set (bulk memory, reference types, multi-value, SIMD,
// sign extension, non-trapping conversions, mutable globals), tail calls
// and extended constant expressions.
var features = api.CoreFeaturesV2 | experimental.CoreFeaturesTailCall | experimental.CoreFeaturesExtendedConst

var (
	engineOnce sync.Once
	engine     wazero.Runtime

	cacheMu sync.Mutex
	cache   = map[[32]byte]*Compiled{}
)

// theEngine is the process's one wazero runtime: goroutine-safe, it is
// shared by every shard, so a module is compiled once per process, not once
// per shard or per object. WithCloseOnContextDone makes compiled code check,
// at function entries and loop heads, whether the call's context is done:
// that is how cpu_ms (goja's Interrupt, through InterruptDone) stops a
// wasm loop.
func theEngine() wazero.Runtime {
	engineOnce.Do(func() {
		cfg := wazero.NewRuntimeConfig().
			WithCoreFeatures(features).
			WithCloseOnContextDone(true).
			WithCustomSections(true)
		engine = wazero.NewRuntimeWithConfig(context.Background(), cfg)
	})
	return engine
}

// Compiled is a compiled module with what the JS API reads from it.
type Compiled struct {
	cm      wazero.CompiledModule
	imports []Import
	exports []Export
	// funcImports are the definitions of the imported functions, by their
	// index among function imports (their signatures).
	funcImports []api.FunctionDefinition
	// exportedFuncs by export name.
	exportedFuncs map[string]api.FunctionDefinition
	custom        []api.CustomSection
	types         []FuncType
	tables        []byte // element types, by table index
}

// CompileError is a module that does not compile (its bytes are invalid or
// use a feature wazero lacks).
type CompileError struct{ Msg string }

func (e *CompileError) Error() string { return e.Msg }

// Compile compiles bytes, or returns the module compiled before from the
// same bytes: the cache is keyed by the bytes' SHA-256 and lives as long as
// the process, so a deployment's modules compile once, whatever number of
// shards and objects instantiate them (and again only for new bytes).
func Compile(b []byte) (*Compiled, error) {
	key := sha256.Sum256(b)
	cacheMu.Lock()
	c, ok := cache[key]
	cacheMu.Unlock()
	if ok {
		return c, nil
	}
	c, err := compile(b)
	if err != nil {
		return nil, err
	}
	cacheMu.Lock()
	if prev, ok := cache[key]; ok {
		c = prev // compiled twice concurrently: keep one
	} else {
		cache[key] = c
	}
	cacheMu.Unlock()
	return c, nil
}

// compiles counts compilations (tests: a new object does not compile again).
var compiles struct {
	sync.Mutex
	n int
}

// Compilations is how many modules this process compiled.
func Compilations() int {
	compiles.Lock()
	defer compiles.Unlock()
	return compiles.n
}

func compile(b []byte) (*Compiled, error) {
	compiles.Lock()
	compiles.n++
	compiles.Unlock()
	cm, err := theEngine().CompileModule(context.Background(), b)
	if err != nil {
		return nil, &CompileError{Msg: err.Error()}
	}
	imports, exports, err := Sections(b)
	if err != nil {
		_ = cm.Close(context.Background())
		return nil, &CompileError{Msg: err.Error()}
	}
	types, err := Types(b)
	if err != nil {
		_ = cm.Close(context.Background())
		return nil, &CompileError{Msg: err.Error()}
	}
	tables, err := TableTypes(b)
	if err != nil {
		_ = cm.Close(context.Background())
		return nil, &CompileError{Msg: err.Error()}
	}
	c := &Compiled{cm: cm, imports: imports, exports: exports, exportedFuncs: cm.ExportedFunctions(), custom: cm.CustomSections(), types: types, tables: tables}
	c.funcImports = cm.ImportedFunctions()
	return c, nil
}

// Validate reports whether b is a module wazero compiles.
func Validate(b []byte) bool {
	_, err := Compile(b)
	return err == nil
}

// Encoding of the small modules the API makes itself: a memory, a global
// (new WebAssembly.Memory / Global) and the glue that re-exports what an
// import object gives under one module name (wazero resolves an import
// module name to one module instance).

func leb(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func sleb(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func wname(b []byte, s string) []byte { return append(leb(b, uint64(len(s))), s...) }

func section(b []byte, id byte, body []byte) []byte {
	return append(leb(append(b, id), uint64(len(body))), body...)
}

func limitsBytes(b []byte, min, max uint32, hasMax bool) []byte {
	if hasMax {
		return leb(leb(append(b, 1), uint64(min)), uint64(max))
	}
	return leb(append(b, 0), uint64(min))
}

var header = []byte{0, 'a', 's', 'm', 1, 0, 0, 0}

// memoryModule exports one memory, "m".
func memoryModule(min, max uint32, hasMax bool) []byte {
	b := append([]byte(nil), header...)
	b = section(b, 5, limitsBytes([]byte{1}, min, max, hasMax))
	b = section(b, 7, append(wname([]byte{1}, "m"), 2, 0))
	return b
}

// globalModule exports one global, "g", initialised with bits.
func globalModule(vt api.ValueType, mutable bool, bits uint64) []byte {
	body := []byte{1, vt, 0}
	if mutable {
		body[2] = 1
	}
	switch vt {
	case api.ValueTypeI32:
		body = sleb(append(body, 0x41), int64(int32(uint32(bits))))
	case api.ValueTypeI64:
		body = sleb(append(body, 0x42), int64(bits))
	case api.ValueTypeF32:
		v := uint32(bits)
		body = append(body, 0x43, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	case api.ValueTypeF64:
		body = append(body, 0x44)
		for i := 0; i < 8; i++ {
			body = append(body, byte(bits>>(8*i)))
		}
	default: // a null reference
		body = append(body, 0xd0, vt)
	}
	body = append(body, 0x0b)
	b := append([]byte(nil), header...)
	b = section(b, 6, body)
	b = section(b, 7, append(wname([]byte{1}, "g"), 3, 0))
	return b
}

// glueItem is one re-exported import: from module From, item Field of
// kind k (0 function, 1 table, 2 memory, 3 global) exported as Name.
type glueItem struct {
	Name, From, Field string
	Kind              byte
	Params, Results   []api.ValueType // function
	Min, Max          uint32          // memory, table
	HasMax            bool
	ValType           byte // global; a table's element type
	Mutable           bool
}

func glueModule(items []glueItem) []byte {
	var types, imps, exps []byte
	nt, ni := 0, 0
	counts := [4]uint32{}
	for _, it := range items {
		imp := wname(wname(nil, it.From), it.Field)
		imp = append(imp, it.Kind)
		switch it.Kind {
		case 0:
			types = append(types, 0x60)
			types = append(leb(types, uint64(len(it.Params))), it.Params...)
			types = append(leb(types, uint64(len(it.Results))), it.Results...)
			imp = leb(imp, uint64(nt))
			nt++
		case 1:
			imp = limitsBytes(append(imp, it.ValType), it.Min, it.Max, it.HasMax)
		case 2:
			imp = limitsBytes(imp, it.Min, it.Max, it.HasMax)
		case 3:
			m := byte(0)
			if it.Mutable {
				m = 1
			}
			imp = append(imp, it.ValType, m)
		}
		imps = append(imps, imp...)
		ni++
		exps = leb(append(wname(exps, it.Name), it.Kind), uint64(counts[it.Kind]))
		counts[it.Kind]++
	}
	b := append([]byte(nil), header...)
	if nt > 0 {
		b = section(b, 1, append(leb(nil, uint64(nt)), types...))
	}
	b = section(b, 2, append(leb(nil, uint64(ni)), imps...))
	b = section(b, 7, append(leb(nil, uint64(len(items))), exps...))
	return b
}

// tableModule does what WebAssembly.Table does on a table another module
// exports as field (element type elem): it imports the table as "t".field
// and exports size, grow, get and set, which run table.size/grow/get/set.
// wazero has no API for tables; wasm that imports one has them all.
func tableModule(field string, elem byte) []byte {
	types := []byte{5,
		0x60, 0, 1, api.ValueTypeI32, // size
		0x60, 2, api.ValueTypeI32, elem, 1, api.ValueTypeI32, // grow
		0x60, 1, api.ValueTypeI32, 1, elem, // get
		0x60, 2, api.ValueTypeI32, elem, 0, // set
		0x60, 3, api.ValueTypeI32, elem, api.ValueTypeI32, 0, // fill
	}
	imp := append(wname(wname([]byte{1}, "t"), field), 1, elem, 0, 0)
	funcs := []byte{5, 0, 1, 2, 3, 4}
	exps := []byte{5}
	for i, n := range []string{"size", "grow", "get", "set", "fill"} {
		exps = append(wname(exps, n), 0, byte(i))
	}
	bodies := [][]byte{
		{0, 0xfc, 16, 0, 0x0b},                            // table.size 0
		{0, 0x20, 1, 0x20, 0, 0xfc, 15, 0, 0x0b},          // table.grow 0 (init, n)
		{0, 0x20, 0, 0x25, 0, 0x0b},                       // table.get 0
		{0, 0x20, 0, 0x20, 1, 0x26, 0, 0x0b},              // table.set 0
		{0, 0x20, 0, 0x20, 1, 0x20, 2, 0xfc, 17, 0, 0x0b}, // table.fill 0 (i, ref, n)
	}
	code := []byte{5}
	for _, body := range bodies {
		code = append(leb(code, uint64(len(body))), body...)
	}
	b := append([]byte(nil), header...)
	b = section(b, 1, types)
	b = section(b, 2, imp)
	b = section(b, 3, funcs)
	b = section(b, 7, exps)
	b = section(b, 10, code)
	return b
}

// tableDefModule defines a table of element type elem with the limits
// and exports it as "t": a WebAssembly.Table made in JS, which modules
// import like any exported table.
func tableDefModule(elem byte, min, max uint32, hasMax bool) []byte {
	b := append([]byte(nil), header...)
	b = section(b, 4, limitsBytes([]byte{1, elem}, min, max, hasMax))
	b = section(b, 7, append(wname([]byte{1}, "t"), 1, 0))
	return b
}

// limitedMemory is the linear memory of one wasm memory instance: a Go
// slice (so the host's memory watchdog sees it as heap), which may not grow
// past the budget of the object it belongs to (budget).
type limitedMemory struct {
	buf    []byte
	max    uint64
	budget *budget
}

// budget is the wasm memory an object holds, against its memory limit.
type budget struct {
	mu    sync.Mutex
	limit uint64 // 0: none
	used  uint64
	// exceeded is called (on the runtime's goroutine, outside mu) when a
	// growth is refused: the host resets the object, as workerd resets an
	// isolate past its memory limit.
	exceeded func()
}

func (b *budget) take(n uint64) bool {
	b.mu.Lock()
	ok := b.limit == 0 || b.used+n <= b.limit
	if ok {
		b.used += n
	}
	b.mu.Unlock()
	if !ok && b.exceeded != nil {
		b.exceeded()
	}
	return ok
}

func (b *budget) give(n uint64) {
	b.mu.Lock()
	b.used -= min(n, b.used)
	b.mu.Unlock()
}

func (m *limitedMemory) Reallocate(size uint64) []byte {
	if size > m.max {
		return nil
	}
	old := uint64(len(m.buf))
	if size <= old {
		return m.buf[:size]
	}
	if !m.budget.take(size - old) {
		return nil
	}
	if size <= uint64(cap(m.buf)) {
		m.buf = m.buf[:size]
		return m.buf
	}
	// Grow by at least half again, as append does, within the maximum.
	c := max(size, min(uint64(cap(m.buf))*3/2, m.max))
	nb := make([]byte, size, c)
	copy(nb, m.buf)
	m.buf = nb
	return nb
}

// Free returns the memory to the budget. wazero calls it when the module
// that owns the memory closes, and also when a module that imported it
// closes: only the first call counts.
func (m *limitedMemory) Free() {
	if m.buf != nil {
		m.budget.give(uint64(len(m.buf)))
		m.buf = nil
	}
}

type allocator struct{ b *budget }

func (a allocator) Allocate(capacity, max uint64) experimental.LinearMemory {
	return &limitedMemory{max: max, budget: a.b}
}

func trapMessage(err error) (msg string, rangeErr bool) {
	s := strings.TrimPrefix(err.Error(), "wasm error: ")
	for _, t := range traps {
		if strings.HasPrefix(s, t.wazero) {
			return t.v8, t.rangeErr
		}
	}
	return fmt.Sprintf("%v", err), false
}

// traps maps wazero's trap errors to V8's RuntimeError messages.
var traps = []struct {
	wazero, v8 string
	rangeErr   bool
}{
	{"unreachable", "unreachable", false},
	{"integer divide by zero", "divide by zero", false},
	{"integer overflow", "divide result unrepresentable", false},
	{"out of bounds memory access", "memory access out of bounds", false},
	{"invalid table access", "table index is out of bounds", false},
	{"indirect call type mismatch", "null function or function signature mismatch", false},
	{"invalid conversion to integer", "float unrepresentable in integer range", false},
	{"stack overflow", "Maximum call stack size exceeded", true},
	{"unaligned atomic", "operation does not support unaligned accesses", false},
	{"null reference", "dereferencing a null pointer", false},
}

// valueTypeFuncref is funcref's value type byte (wazero's api names only
// externref).
const valueTypeFuncref byte = 0x70
