package host_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/wasm"
)

const wasmLimitsJS = `
import { DurableObject } from "cloudflare:workers";
import mod from "./limits.wasm";
const shared = new WebAssembly.Instance(mod).exports;
export class Counter extends DurableObject {
  constructor(ctx, env) { super(ctx, env); this.hits = 0; this.x = new WebAssembly.Instance(mod).exports; }
  async fetch(request) {
    this.hits++;
    switch (new URL(request.url).pathname.replace(/^\/do\/Counter\/[^/]*/, "")) {
      case "/spin": this.x.spin(); return new Response("spun");
      case "/spin-shared": shared.spin(); return new Response("spun");
      case "/eat": return new Response("ate " + this.x.eat());
      case "/grow": { const m = new WebAssembly.Memory({ initial: 1 }); for (;;) m.grow(16); }
    }
    return Response.json({ hits: this.hits, sum: this.x.add(this.hits, 40), shared: shared.add(1, 1) });
  }
}
export class Plain {}
export default { fetch() { return new Response("w"); } };
`

func newWasmHost(t *testing.T, limits func(*host.Config)) *host.Host {
	t.Helper()
	dir := t.TempDir()
	wasmBytes, err := os.ReadFile(filepath.Join("testdata", "limits.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "limits.wasm"), wasmBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(wasmLimitsJS), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := jsapi.BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	cfg := host.Config{
		Bundle:   b,
		Script:   "counter",
		Shards:   1,
		Bindings: []host.Binding{{Name: "COUNTER", Class: "Counter"}, {Name: "PLAIN", Class: "Plain"}},
		Limits:   host.Limits{RequestTimeout: 10 * time.Minute},
		Storage:  host.Storage{StateDir: t.TempDir()},
		Logging:  host.Logging{Log: os.Stderr},
	}
	limits(&cfg)
	h, err := host.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close(context.Background()) })
	return h
}

// TestWasm_LimitsResetOnlyTheOffendingObject: a wasm loop is stopped by
// cpu_ms and a wasm memory that grows past the memory limit by the memory
// limit, like JS: the object whose code ran is reset (a fresh instance with
// a fresh wasm instance), the process and the neighbour on the same shard
// (the same goja runtime) keep going with their instances. A loop in an
// instance the module scope shares is lost with its module (wazero closes
// a module it stops): the shard's runtime is replaced, and both objects
// work again on fresh instances.
func TestWasm_LimitsResetOnlyTheOffendingObject(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
		limits           func(*host.Config)
	}{
		{"cpu", "/spin", "Durable Object exceeded its CPU time limit and was reset.", func(c *host.Config) { c.CPULimit = 300 * time.Millisecond }},
		{"memory", "/eat", "exceeded its memory limit of 32 MiB", func(c *host.Config) { c.MemoryLimit = 32 << 20; c.CPULimit = 10 * time.Minute }},
		{"memory-js-grow", "/grow", "exceeded its memory limit of 32 MiB", func(c *host.Config) { c.MemoryLimit = 32 << 20; c.CPULimit = 10 * time.Minute }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newWasmHost(t, tc.limits)
			for i := 1; i <= 2; i++ {
				body, err := fetchBody(t, h, "neighbour", "/")
				if want := `{"hits":` + itoa(i) + `,"sum":` + itoa(40+i) + `,"shared":2}`; err != nil || body != want {
					t.Fatalf("neighbour: %q %v; want %s", body, err, want)
				}
			}
			if body, err := fetchBody(t, h, "offender", "/"); err != nil || !strings.Contains(body, `"hits":1,`) {
				t.Fatalf("offender: %q %v", body, err)
			}
			body, err := fetchBody(t, h, "offender", tc.path)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: %q %v; want an error with %q", tc.path, body, err, tc.want)
			}
			// A fresh instance: hits starts again, its wasm works.
			if body, err := fetchBody(t, h, "offender", "/"); err != nil || body != `{"hits":1,"sum":41,"shared":2}` {
				t.Fatalf("offender after %s: %q %v; want a fresh instance", tc.path, body, err)
			}
			// The neighbour kept its instance.
			if body, err := fetchBody(t, h, "neighbour", "/"); err != nil || body != `{"hits":3,"sum":43,"shared":2}` {
				t.Fatalf("neighbour after %s: %q %v; want its instance kept (hits 3)", tc.path, body, err)
			}
		})
	}
	t.Run("cpu-shared-instance", func(t *testing.T) {
		h := newWasmHost(t, func(c *host.Config) { c.CPULimit = 300 * time.Millisecond })
		if body, err := fetchBody(t, h, "neighbour", "/"); err != nil || body != `{"hits":1,"sum":41,"shared":2}` {
			t.Fatalf("neighbour: %q %v", body, err)
		}
		body, err := fetchBody(t, h, "offender", "/spin-shared")
		if err == nil || !strings.Contains(err.Error(), "exceeded its CPU time limit") {
			t.Fatalf("/spin-shared: %q %v", body, err)
		}
		// The runtime was replaced: module scope (and its instance) is
		// new; so are the objects' instances.
		for _, name := range []string{"offender", "neighbour"} {
			if body, err := fetchBody(t, h, name, "/"); err != nil || body != `{"hits":1,"sum":41,"shared":2}` {
				t.Fatalf("%s after /spin-shared: %q %v; want a fresh instance", name, body, err)
			}
		}
	})
}

// TestWasm_CompiledOncePerDeployment: the bundle's module is compiled when
// the bundle is built; shards and new objects instantiate it without
// compiling again.
func TestWasm_CompiledOncePerDeployment(t *testing.T) {
	h := newWasmHost(t, func(c *host.Config) { c.Shards = 2 })
	before := wasm.Compilations()
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		if body, err := fetchBody(t, h, name, "/"); err != nil || body != `{"hits":1,"sum":41,"shared":2}` {
			t.Fatalf("%s: %q %v", name, body, err)
		}
	}
	if n := wasm.Compilations() - before; n != 0 {
		t.Errorf("%d compilations for 6 new objects on 2 shards; want 0", n)
	}
}

// noRunTimeBytesJS tries every way a worker's code could turn bytes it
// holds into WebAssembly code, at module scope and in a request.
const noRunTimeBytesJS = `
import mod from "./limits.wasm";
// A module made at run time: the 8-byte header of an empty module.
const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const hex = async (b) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", b))].map((x) => x.toString(16).padStart(2, "0")).join("");
const b64 = (b) => btoa(String.fromCharCode(...new Uint8Array(b)));
const helper = globalThis.__cellhost_wasm_module;
const sync = (f) => { try { const v = f(); return v instanceof WebAssembly.Module ? "Module" : typeof v; } catch (e) { return e.name + ": " + e.message; } };
const later = async (f) => { try { const v = await f(); return v instanceof WebAssembly.Module ? "Module" : v && v.module instanceof WebAssembly.Module ? "Module+Instance" : typeof v; } catch (e) { return e.name + ": " + e.message; } };
const atStartup = sync(() => new WebAssembly.Module(bytes));
export default {
  async fetch(request) {
    const other = new URL(request.url).searchParams.get("other");
    const out = {
      startup: atStartup,
      module: sync(() => new WebAssembly.Module(bytes)),
      compile: await later(() => WebAssembly.compile(bytes)),
      instantiate: await later(() => WebAssembly.instantiate(bytes.buffer)),
      helperBase64: sync(() => helper(b64(bytes))),
      helperHash: sync(() => helper(await0)),
      helperOtherBundle: sync(() => helper(other)),
      helperOwn: sync(() => helper(ownHash)),
      validate: WebAssembly.validate(bytes),
      replaceHelper: sync(() => { globalThis.__cellhost_wasm_module = () => 1; return globalThis.__cellhost_wasm_module === helper ? "kept" : "replaced"; }),
      imported: mod instanceof WebAssembly.Module,
    };
    return Response.json(out);
  },
};
let await0, ownHash;
hex(bytes).then((h) => { await0 = h; });
hex(LIMITS.buffer).then((h) => { ownHash = h; });
`

// TestWasm_NoRunTimeBytes: user code cannot compile bytes it holds, by any
// path, where workerd refuses it: not through the WebAssembly API in a
// request, not through the bundle helper (which takes only the hash of a
// module its own bundle carries: not bytes, not the hash of bytes made at
// run time, not the hash of a module another deployment compiled in this
// process). At module scope, workerd allows it from compatibility date
// 2025-06-01 (allow_eval_during_startup) and so does cellhost; before that
// date it refuses there too.
func TestWasm_NoRunTimeBytes(t *testing.T) {
	limits, err := os.ReadFile(filepath.Join("testdata", "limits.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	// Another deployment's module, compiled in this process.
	otherBytes, err := os.ReadFile(filepath.Join("..", "testjs", "cases", "wasm-api", "calc.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wasm.Compile(otherBytes); err != nil {
		t.Fatal(err)
	}
	const disallowed = ": Wasm code generation disallowed by embedder"
	for _, tc := range []struct{ date, startup string }{
		{"2026-01-01", "Module"},
		{"2025-05-01", "CompileError: WebAssembly.Module()" + disallowed},
	} {
		t.Run(tc.date, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "limits.wasm"), limits, 0o644); err != nil {
				t.Fatal(err)
			}
			// The test gives the code the module's bytes as data to hash.
			src := "const LIMITS = new Uint8Array([" + strings.Trim(strings.Join(strings.Fields(fmt.Sprint(limits)), ","), "[]") + "]);\n" + noRunTimeBytesJS
			entry := filepath.Join(dir, "index.js")
			if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			b, err := jsapi.BuildBundleWith(entry, jsapi.BundleOptions{CompatibilityDate: tc.date})
			if err != nil {
				t.Fatal(err)
			}
			h, err := host.New(host.Config{Bundle: b, Script: "counter", Shards: 1, CompatibilityDate: tc.date, Storage: host.Storage{StateDir: t.TempDir()}, Logging: host.Logging{Log: os.Stderr}})
			if err != nil {
				t.Fatal(err)
			}
			if err := h.Open(); err != nil {
				t.Fatal(err)
			}
			defer h.Close(context.Background())
			rec := httptest.NewRecorder()
			h.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "http://w.test/?other="+wasm.Hash(otherBytes), nil))
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatalf("%d %s: %v", rec.Code, rec.Body.String(), err)
			}
			noModule := "TypeError: __cellhost_wasm_module: the bundle carries no WebAssembly module "
			want := map[string]any{
				"startup":           tc.startup,
				"module":            "CompileError: WebAssembly.Module()" + disallowed,
				"compile":           "CompileError: WebAssembly.compile()" + disallowed,
				"instantiate":       "CompileError: WebAssembly.instantiate()" + disallowed,
				"helperBase64":      noModule + `"AGFzbQEAAAA="`,
				"helperHash":        noModule + `"` + wasm.Hash([]byte{0, 0x61, 0x73, 0x6d, 1, 0, 0, 0}) + `"`,
				"helperOtherBundle": noModule + `"` + wasm.Hash(otherBytes) + `"`,
				"helperOwn":         "Module",
				"validate":          true,
				"replaceHelper":     "TypeError: Cannot assign to read only property '__cellhost_wasm_module'",
				"imported":          true,
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s: %v\n   want %v", k, got[k], w)
				}
			}
		})
	}
}

// glueCycleJS: an object whose wasm instance's JS imports reach the
// instance's own exports, as emscripten's and wasm-bindgen's glue do:
// wazero's store holds the instance through its host functions, so only
// closing it with the object frees it.
const glueCycleJS = `
import { DurableObject } from "cloudflare:workers";
import calc from "./calc.wasm";
export class Counter extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    const self = this;
    this.x = new WebAssembly.Instance(calc, { env: { cb: (v) => self.x.exports.add(v, 1), big: (v) => v } });
    this.mem = new WebAssembly.Memory({ initial: 1 });
  }
  fetch() { return new Response(String(this.x.exports.callcb(41))); }
}
export default { fetch() { return new Response("w"); } };
`

// TestWasm_InstancesClosedWithTheObject: the wazero modules an object's
// code made (an instance whose imports refer to its own exports, a
// memory) are closed once the object is evicted and the collector runs,
// counted by wasm.OpenModules. Before, wazero's store held the JS import,
// and through it the instance, for ever: the count stayed at 6.
func TestWasm_InstancesClosedWithTheObject(t *testing.T) {
	dir := t.TempDir()
	calc, err := os.ReadFile(filepath.Join("..", "testjs", "cases", "wasm-api", "calc.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "calc.wasm"), calc, 0o644); err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(glueCycleJS), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := jsapi.BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(host.Config{
		Bundle:   b,
		Script:   "counter",
		Shards:   1,
		Bindings: []host.Binding{{Name: "GLUE", Class: "Counter"}},
		Limits:   host.Limits{IdleTimeout: -1, InstanceIdleTimeout: -1},
		Storage:  host.Storage{StateDir: t.TempDir()},
		Logging:  host.Logging{Log: os.Stderr},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	for i := 0; i < 5; i++ { // other tests' garbage closes first
		runtime.GC()
		runtime.Gosched()
	}
	before := wasm.OpenModules()
	for _, name := range []string{"a", "b"} {
		if body, err := fetchBody(t, h, name, "/"); err != nil || body != "43" {
			t.Fatalf("%s: %q %v", name, body, err)
		}
	}
	open := wasm.OpenModules() - before
	if open < 4 { // per object: the instance, its host module, the memory
		t.Fatalf("%d modules open for two objects; want at least 4", open)
	}
	h.EvictIdleBefore(time.Now().Add(time.Hour))
	// Collection is what closes them (runtime.AddCleanup): rounds of GC,
	// a bounded number, no clock.
	n := wasm.OpenModules() - before
	for i := 0; i < 50 && n > 0; i++ {
		runtime.GC()
		runtime.Gosched()
		n = wasm.OpenModules() - before
	}
	if n > 0 {
		t.Errorf("%d wazero modules still open after both objects were evicted and 50 collections (%d before); want 0", n, open)
	}
}
