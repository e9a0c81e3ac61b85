package wasm

import (
	"context"
	"os"
	"syscall"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/wazero"
	"github.com/cellhost/cellhost/third_party/wazero/api"
)

// The costs bench/wasm.sh compares with workerd, here alone and with their
// parts: a JS call of a wasm export, a wasm call of a JS import, a pure wasm
// loop; and wazero by itself with and without WithCloseOnContextDone (the
// check that lets cpu_ms stop wasm code), the baseline of each.
//
//	go test -run '^$' -bench . ./jsapi/wasm

func benchRuntime(b *testing.B) *goja.Runtime {
	b.Helper()
	bytes, err := os.ReadFile("testdata/calls.wasm")
	if err != nil {
		b.Fatal(err)
	}
	c, err := Compile(bytes)
	if err != nil {
		b.Fatal(err)
	}
	rt := goja.New()
	if _, err := Install(rt, Options{Modules: map[string]*Compiled{Hash(bytes): c}}); err != nil {
		b.Fatal(err)
	}
	f, _ := goja.AssertFunction(rt.Get(BundleGlobal))
	m, err := f(goja.Undefined(), rt.ToValue(Hash(bytes)))
	if err != nil {
		b.Fatal(err)
	}
	rt.Set("mod", m)
	if _, err := rt.RunString(`var x = (() => { let hits = 0; return new WebAssembly.Instance(mod, { env: { f: (i) => { hits++; return i & 7; } } }).exports })();
		function jsAdd(a, b) { return (a + b) | 0 }`); err != nil {
		b.Fatal(err)
	}
	return rt
}

func runJS(b *testing.B, rt *goja.Runtime, src string) {
	b.Helper()
	p := goja.MustCompile("bench", "(function (n) { var s = 0; "+src+"; return s })", false)
	fv, err := rt.RunProgram(p)
	if err != nil {
		b.Fatal(err)
	}
	f, _ := goja.AssertFunction(fv)
	b.ResetTimer()
	defer cpuPerOp(b)()
	if _, err := f(goja.Undefined(), rt.ToValue(b.N)); err != nil {
		b.Fatal(err)
	}
}

// cpuPerOp reports the process's CPU time (user + system, GC workers
// included) per operation as cpu-ns/op when the returned func runs: on a
// machine shared by many, wall time per op mostly measures waiting for a
// core, CPU time what the work costs.
func cpuPerOp(b *testing.B) func() {
	t0 := cpuNow()
	return func() {
		b.ReportMetric(float64(cpuNow()-t0)/float64(b.N), "cpu-ns/op")
	}
}

func cpuNow() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// The floors under the boundary costs: goja calling a Go function from JS
// (what a JS->wasm call is before wasm) and Go calling a JS function (what
// a wasm->JS call is after wazero's host-call trampoline).
func BenchmarkGoja_JSToGo(b *testing.B) {
	rt := goja.New()
	rt.Set("goAdd", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(int32(c.Argument(0).ToInteger() + c.Argument(1).ToInteger()))
	})
	runJS(b, rt, "for (var i = 0; i < n; i++) s = goAdd(s, i)")
}

func BenchmarkGoja_GoToJS(b *testing.B) {
	rt := goja.New()
	fv, err := rt.RunString("(function (i) { return i & 7 })")
	if err != nil {
		b.Fatal(err)
	}
	f, _ := goja.AssertFunction(fv)
	arg := []goja.Value{nil}
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		arg[0] = rt.ToValue(i)
		if _, err := f(goja.Undefined(), arg...); err != nil {
			b.Fatal(err)
		}
	}
}

// The loop alone, no call: subtract it from the others.
func BenchmarkWasm_LoopOnly(b *testing.B) {
	runJS(b, benchRuntime(b), "for (var i = 0; i < n; i++) s = (s + i) | 0")
}

func BenchmarkWasm_JSLoopBaseline(b *testing.B) {
	runJS(b, benchRuntime(b), "for (var i = 0; i < n; i++) s = jsAdd(s, i)")
}

func BenchmarkWasm_JSToWasm(b *testing.B) {
	runJS(b, benchRuntime(b), "for (var i = 0; i < n; i++) s = x.add(s, i)")
}

func BenchmarkWasm_WasmToJS(b *testing.B) {
	runJS(b, benchRuntime(b), "s = x.callJs(n)")
}

func BenchmarkWasm_Mix(b *testing.B) {
	runJS(b, benchRuntime(b), "s = x.mix(n)")
}

// wazero alone, with and without the termination checks.
func benchWazero(b *testing.B, ensureTermination bool, run func(b *testing.B, m api.Module)) {
	bytes, err := os.ReadFile("testdata/calls.wasm")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	r := wazero.NewRuntimeWithConfig(ctx, wazero.NewRuntimeConfigCompiler().WithCloseOnContextDone(ensureTermination))
	defer r.Close(ctx)
	if _, err := r.NewHostModuleBuilder("env").NewFunctionBuilder().WithGoModuleFunction(api.GoModuleFunc(func(ctx context.Context, m api.Module, s []uint64) { s[0] &= 7 }),
		[]api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}).Export("f").Instantiate(ctx); err != nil {
		b.Fatal(err)
	}
	m, err := r.Instantiate(ctx, bytes)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	defer cpuPerOp(b)()
	run(b, m)
}

func wazeroCalls(b *testing.B, m api.Module) {
	add := m.ExportedFunction("add")
	stack := make([]uint64, 2)
	for i := 0; i < b.N; i++ {
		stack[0], stack[1] = uint64(i), 1
		if err := add.CallWithStack(context.Background(), stack); err != nil {
			b.Fatal(err)
		}
	}
}

func wazeroMix(b *testing.B, m api.Module) {
	if _, err := m.ExportedFunction("mix").Call(context.Background(), uint64(b.N)); err != nil {
		b.Fatal(err)
	}
}

func wazeroHost(b *testing.B, m api.Module) {
	if _, err := m.ExportedFunction("callJs").Call(context.Background(), uint64(b.N)); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkWazero_Call(b *testing.B)           { benchWazero(b, false, wazeroCalls) }
func BenchmarkWazero_CallTerminable(b *testing.B) { benchWazero(b, true, wazeroCalls) }
func BenchmarkWazero_Mix(b *testing.B)            { benchWazero(b, false, wazeroMix) }
func BenchmarkWazero_MixTerminable(b *testing.B)  { benchWazero(b, true, wazeroMix) }
func BenchmarkWazero_HostCall(b *testing.B)       { benchWazero(b, true, wazeroHost) }
