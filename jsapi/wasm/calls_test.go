package wasm

import (
	"errors"
	"os"
	"runtime"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// installModule compiles b and installs it in a new runtime, returning the
// runtime and the state Install made for it.
func installModule(t *testing.T, b []byte) (*goja.Runtime, *state) {
	t.Helper()
	c, err := Compile(b)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	var st *state
	installHook = func(s *state) { st = s }
	defer func() { installHook = nil }()
	if _, err := Install(rt, Options{Modules: map[string]*Compiled{Hash(b): c}}); err != nil {
		t.Fatal(err)
	}
	return rt, st
}

func callsRuntime(t *testing.T) (*goja.Runtime, *state) {
	t.Helper()
	b, err := os.ReadFile("testdata/calls.wasm")
	if err != nil {
		t.Fatal(err)
	}
	rt, st := installModule(t, b)
	rt.Set("goroutines", func() int { return runtime.NumGoroutine() })
	if _, err := rt.RunString(`var during; var x = new WebAssembly.Instance(` + BundleGlobal + `("` + Hash(b) + `"), { env: { f: (i) => { during = goroutines(); return i; } } }).exports;`); err != nil {
		t.Fatal(err)
	}
	return rt, st
}

// TestCalls_NoGoroutinePerCall: a JS->wasm call starts no goroutine
// (wazero patch 1: upstream, WithCloseOnContextDone starts one per call to
// watch its context, alive until the call returns, so that a wasm->JS call
// inside sees one more goroutine than before the call).
func TestCalls_NoGoroutinePerCall(t *testing.T) {
	rt, _ := callsRuntime(t)
	// Other tests' goroutines may come and go: one clean round of ten is
	// enough; with a watcher per call no round is clean.
	for i := 0; i < 10; i++ {
		v, err := rt.RunString(`var before = goroutines(); x.callJs(1); var after = goroutines(); [before, during, after]`)
		if err != nil {
			t.Fatal(err)
		}
		var n []int
		if err := rt.ExportTo(v, &n); err != nil {
			t.Fatal(err)
		}
		if n[0] == n[1] && n[1] == n[2] {
			return
		}
		t.Logf("round %d: goroutines before, during, after the call: %v", i, n)
	}
	t.Fatal("a wasm call ran with an extra goroutine in every round")
}

// TestCalls_InterruptStopsRunningWasm: Interrupt stops a wasm loop that
// never calls out (the runtime's one watcher stops the running module),
// and the runtime, cleared, calls wasm again.
func TestCalls_InterruptStopsRunningWasm(t *testing.T) {
	rt, st := callsRuntime(t)
	go func() {
		// Wait (by the state's own record, not by time) for the call.
		for {
			st.calls.mu.Lock()
			n := len(st.calls.running)
			st.calls.mu.Unlock()
			if n > 0 {
				break
			}
			runtime.Gosched()
		}
		rt.Interrupt("stop")
	}()
	// mix(2^31-1) runs for seconds; the interrupt ends it.
	v, err := rt.RunString(`x.mix(0x7fffffff)`)
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) || ie.Value() != "stop" {
		t.Fatalf("mix: %v %v; want the interrupt", v, err)
	}
	rt.ClearInterrupt()
	// The stopped instance is closed (as wazero closes a module whose
	// context is done); a new one works, under the re-armed watcher.
	v, err = rt.RunString(`new WebAssembly.Instance(` + BundleGlobal + `("` + mustHash(t) + `"), { env: { f: (i) => i } }).exports.add(2, 3)`)
	if err != nil || v.ToInteger() != 5 {
		t.Fatalf("after the interrupt: %v %v", v, err)
	}
	go func() {
		for {
			st.calls.mu.Lock()
			n := len(st.calls.running)
			st.calls.mu.Unlock()
			if n > 0 {
				break
			}
			runtime.Gosched()
		}
		rt.Interrupt("again")
	}()
	_, err = rt.RunString(`new WebAssembly.Instance(` + BundleGlobal + `("` + mustHash(t) + `"), { env: { f: (i) => i } }).exports.mix(0x7fffffff)`)
	if !errors.As(err, &ie) || ie.Value() != "again" {
		t.Fatalf("second interrupt: %v", err)
	}
}

func mustHash(t *testing.T) string {
	b, err := os.ReadFile("testdata/calls.wasm")
	if err != nil {
		t.Fatal(err)
	}
	return Hash(b)
}
