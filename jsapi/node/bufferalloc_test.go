package node

import (
	"strings"
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

// TestBuffer_toStringAsksTheHook: a large Buffer's toString asks the hook
// for the string it makes (two bytes a byte of the range) before
// goja_nodejs encodes it; refused, V8's RangeError. On the old code the
// 2 MiB buffer was encoded unseen.
func TestBuffer_toStringAsksTheHook(t *testing.T) {
	rt := goja.New()
	if err := Install(rt, Options{Compat: Compat{Modules: true, V2: true}}); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.RunString(`var big = Buffer.alloc(2 * 1024 * 1024, 97)`); err != nil {
		t.Fatal(err)
	}
	rt.SetAllocationHook(func(n int64, kind goja.AllocationKind) bool { return n <= 1<<20 })
	for src, want := range map[string]string{
		`big.toString().length`:                                             "RangeError: Invalid string length",
		`big.toString("hex").length`:                                        "RangeError: Invalid string length",
		`big.toString("base64", 0, 2 ** 20).length`:                         "RangeError: Invalid string length",
		`big.toString("utf8", 0, 1000)`:                                     "",
		`big.toString("latin1", 10, 300000).length`:                         "299990",
		`Buffer.from("hi").toString("hex")`:                                 "6869",
		`Buffer.prototype.toString.length + Buffer.prototype.toString.name`: "3toString",
	} {
		if src == `big.toString("utf8", 0, 1000)` {
			want = strings.Repeat("a", 1000)
		}
		v, err := rt.RunString(`try { String(` + src + `) } catch (e) { e.constructor.name + ": " + e.message }`)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.String(); got != want {
			t.Errorf("%s = %.60s, want %.60s", src, got, want)
		}
	}
}
