package node

import (
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// TestBuffer_AllocationsAskTheHook: Buffer.alloc (and allocUnsafe),
// Buffer.from(arrayLike) and Buffer.concat ask the runtime's allocation
// hook for the size the script chose before goja_nodejs allocates it, and a
// refusal is V8's RangeError; sizes within the limit still allocate.
func TestBuffer_AllocationsAskTheHook(t *testing.T) {
	rt := goja.New()
	var asked []int64
	rt.SetAllocationHook(func(n int64, _ goja.AllocationKind) bool {
		asked = append(asked, n)
		return n <= 1<<20
	})
	if err := Install(rt, Options{Compat: Compat{Modules: true, V2: true}}); err != nil {
		t.Fatal(err)
	}
	v, err := rt.RunString(`
	const out = [];
	for (const f of [
		() => Buffer.alloc(2 ** 32),
		() => Buffer.allocUnsafe(2 ** 32),
		() => Buffer.from({ length: 2 ** 32 }),
		() => Buffer.concat([Buffer.alloc(4)], 2 ** 32),
		() => Buffer.alloc(1024).length,
		() => Buffer.concat([Buffer.alloc(4), Buffer.alloc(6)]).length,
		() => Buffer.from({ length: 3, 0: 1 }).length,
	]) {
		try { out.push(f()) } catch (e) { out.push(e.constructor.name + ": " + e.message) }
	}
	out.push(Buffer.alloc.name);
	out.join("|")`)
	if err != nil {
		t.Fatal(err)
	}
	const failed = "RangeError: Array buffer allocation failed"
	if want := failed + "|" + failed + "|" + failed + "|" + failed + "|1024|10|3|alloc"; v.String() != want {
		t.Fatalf("got  %s\nwant %s", v, want)
	}
	n := 0
	for _, a := range asked {
		if a == 1<<32 {
			n++
		}
	}
	if n != 4 {
		t.Fatalf("the hook was asked for 4 GiB %d times, want 4 (asked %v)", n, asked)
	}
}
