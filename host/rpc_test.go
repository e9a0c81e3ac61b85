package host_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

const rpcJS = `
import { DurableObject, RpcTarget, RpcStub } from "cloudflare:workers";

class Counter2 extends RpcTarget {
  constructor(i) { super(); this.i = i; this.disposed = false; }
  increment(n) { this.i += n; return this.i; }
  [Symbol.dispose]() { this.disposed = true; }
}

class NotRpc { foo() { return 1; } }

export class Counter extends DurableObject {
  makeCounter(i) { return new Counter2(i); }
  async useCounter(c, n) { return await c.increment(n); }
  async callBack(f, x) { return await f(x); }
  nested(i) { return { n: i, inner: { counter: new Counter2(i), fn: (a) => a * i } }; }
  bad() { return new NotRpc(); }
  throws() { const e = new RangeError("range!"); throw e; }
  async keepAndReturn(c) { this.kept = c.dup(); return "kept"; }
  async useKept(n) { return await this.kept.increment(n); }
  get prop() { return { a: [1, 2, 3] }; }
  async write(k, v) { await this.ctx.storage.put(k, v); return await this.ctx.storage.get(k); }
}
export class Plain {}

const check = (cond, what) => { if (!cond) throw new Error("failed: " + what); };

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const name = url.searchParams.get("o") ?? "a";
    const stub = env.COUNTER.getByName(name);
    const out = [];
    // Targets returned by reference, pipelined in one expression.
    out.push(await stub.makeCounter(10).increment(5));
    const c = await stub.makeCounter(1);
    out.push(await c.increment(1), await c.increment(1));
    // A local target passed as a parameter is called back, and disposed
    // once the call ends.
    const local = new Counter2(100);
    out.push(await stub.useCounter(local, 7), local.i);
    for (let i = 0; i < 50 && !local.disposed; i++) await new Promise((r) => setTimeout(r, 5));
    check(local.disposed, "parameter disposed after the call");
    // Functions by reference, both ways.
    out.push(await stub.callBack((x) => x * 3, 14));
    const obj = await stub.nested(4);
    out.push(obj.n, await obj.inner.counter.increment(1), await obj.inner.fn(5));
    out.push(await stub.nested(6).inner.fn(2));
    // Property paths and awaiting a property.
    out.push(JSON.stringify(await stub.prop), await stub.prop.a);
    // dup and disposal.
    const s = new RpcStub(new Counter2(0));
    const d = s.dup();
    s[Symbol.dispose]();
    let msg = "";
    try { await s.increment(1); } catch (e) { msg = e.message; }
    out.push(msg, await d.increment(2));
    // A kept dup outlives the call.
    const kept = new Counter2(50);
    out.push(await stub.keepAndReturn(kept), await stub.useKept(5), kept.i);
    // Errors keep their class and message.
    try { await stub.throws(); } catch (e) { out.push(e.name + ": " + e.message + " " + (e instanceof RangeError)); }
    try { await stub.bad(); } catch (e) { out.push(e.name + ": " + e.message); }
    try { await stub.nope(); } catch (e) { out.push(e.name + ": " + e.message); }
    // As workerd: every object result gets a non-enumerable, anonymous
    // Symbol.dispose (so that "using" takes it), its nested objects none.
    const p = await stub.prop, dd = Object.getOwnPropertyDescriptor(p, Symbol.dispose);
    out.push([dd.enumerable, dd.writable, dd.configurable, dd.value.name, dd.value.length, Object.getOwnPropertyDescriptor(p.a, Symbol.dispose) === undefined].join());
    out.push(await stub.write("k", name));
    return Response.json(out);
  },
};
`

// TestRPC_ObjectModel exercises JS RPC's object model through a real host:
// targets and functions by reference in both directions, pipelining,
// property paths, dup and disposal, and errors.
func TestRPC_ObjectModel(t *testing.T) {
	h := newHostB(t, rpcJS, t.TempDir(), func(c *host.Config) { c.Shards = 4 })
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()

	want := func(name string) string {
		return `[15,2,3,107,107,42,4,5,20,12,"{\"a\":[1,2,3]}",[1,2,3],"RPC stub used after being disposed.",2,"kept",55,55,` +
			`"RangeError: range! true",` +
			`"DataCloneError: Could not serialize object of type \"NotRpc\". This type does not support serialization.",` +
			`"TypeError: The RPC receiver does not implement the method \"nope\".",` +
			`"false,true,true,,0,true",` +
			`"` + name + `"]`
	}
	status, body := get(t, srv, "/?o=a")
	if status != 200 || body != want("a") {
		t.Fatalf("got %d %s\nwant %s", status, body, want("a"))
	}

	// Many objects on several shards at once: every value crosses runtimes
	// as bytes (run with -race).
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("o%d", i)
			resp, err := http.Get(srv.URL + "/?o=" + name)
			if err != nil {
				errs <- err
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || string(b) != want(name) {
				errs <- fmt.Errorf("%s: got %d %s (%v)", name, resp.StatusCode, b, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

const pipeJS = `
import { DurableObject, RpcTarget } from "cloudflare:workers";
class Counter2 extends RpcTarget {
  constructor(i) { super(); this.i = i; }
  increment(n) { this.i += n; return this.i; }
  get value() { return this.i; }
}
export class Counter extends DurableObject {
  makeCounter(i) { return new Counter2(i); }
}
export class Plain {}
export default {
  async fetch(request, env) {
    const stub = env.COUNTER.getByName("p");
    switch (new URL(request.url).pathname) {
      case "/one": return Response.json(await stub.makeCounter(10).increment(5));
      case "/chain": {
        const p = stub.makeCounter(1);
        const a = p.increment(1), b = p.increment(2);
        return Response.json([await a, await b]);
      }
      case "/errors": {
        const out = [];
        try { await stub.makeCounter(1).nope(); } catch (e) { out.push(e.name + ": " + e.message); }
        try { await stub.nope2().increment(1); } catch (e) { out.push(e.name + ": " + e.message); }
        return Response.json(out);
      }
      case "/later": {
        const p = stub.makeCounter(7);
        const r = await p.increment(1);
        const c = await p; // the first result, answered in the same message
        return Response.json([r, await c.increment(1), await c.value]);
      }
    }
  },
};
`

// Promise pipelining takes one round trip: what is called on a call's
// result in the same turn travels in the call's message, and the callee
// runs the chain (rpc.js outbox).
func TestRPC_PipelineOneRoundTrip(t *testing.T) {
	h := newHostB(t, pipeJS, t.TempDir())
	if err := h.Open(); err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(h.Handler())
	defer srv.Close()
	for _, tc := range []struct {
		path, want string
		calls      int64 // RPC messages sent
	}{
		{"/one", `15`, 1},
		{"/chain", `[2,4]`, 1},
		{"/errors", `["TypeError: The RPC receiver does not implement the method \"nope\".","TypeError: The RPC receiver does not implement the method \"nope2\"."]`, 2},
		// The first result, kept, is a stub to the target: two more calls.
		{"/later", `[8,9,9]`, 3},
	} {
		before := jsapi.RPCMessages()
		status, body := get(t, srv, tc.path)
		if status != 200 || body != tc.want {
			t.Errorf("%s: got %d %s, want %s", tc.path, status, body, tc.want)
		}
		if n := jsapi.RPCMessages() - before; n != tc.calls {
			t.Errorf("%s: %d RPC messages, want %d", tc.path, n, tc.calls)
		}
	}
}
