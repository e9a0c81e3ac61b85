package host_test

import (
	"context"
	"os"
	"path/filepath"
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
	cfg := host.Config{Bundle: b, Script: "wasm", StateDir: t.TempDir(), Shards: 1, Log: os.Stderr,
		Bindings:       []host.Binding{{Name: "COUNTER", Class: "Counter"}, {Name: "PLAIN", Class: "Plain"}},
		RequestTimeout: 10 * time.Minute}
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
