package web

import (
	"bytes"
	"testing"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/third_party/goja"
)

// A body read (request.arrayBuffer/bytes/text/json, the same on a
// Response from Go, which is how fetch answers and KV/R2 values reach
// JS) copies or decodes the Go body into memory the script then holds:
// the runtime's allocation hook (host: the object's memory limit)
// approves it before it is made, as for `new ArrayBuffer(n)`. Before, only
// the host-wide body budget bounded it. The hook here refuses past 1 MiB.
func TestWeb_bodyReadsAskTheAllocationHook(t *testing.T) {
	rt, _ := newWebRuntime(t)
	refused := 0
	rt.SetAllocationHook(func(n int64, _ goja.AllocationKind) bool {
		if n > 1<<20 {
			refused++
			return false
		}
		return true
	})
	jstest.Run(t, rt, tryJS)
	big := bytes.Repeat([]byte("a"), 2<<20)
	for _, name := range []string{"r1", "r2", "r3", "r4"} {
		req, err := NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://h.test/", Body: big})
		if err != nil {
			t.Fatal(err)
		}
		_ = rt.Set(name, req)
		res, err := NewResponse(rt, &HTTPResponse{Status: 200, Body: big})
		if err != nil {
			t.Fatal(err)
		}
		_ = rt.Set("res"+name[1:], res)
	}
	small, err := NewRequest(rt, &HTTPRequest{Method: "POST", URL: "http://h.test/", Body: []byte(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	_ = rt.Set("small", small)
	jsCases(t, rt, [][2]string{
		{`attemptAsync(async () => (await r1.arrayBuffer()).byteLength)`, "RangeError: Array buffer allocation failed"},
		{`attemptAsync(async () => (await r2.bytes()).length)`, "RangeError: Array buffer allocation failed"},
		{`attemptAsync(async () => (await r3.text()).length)`, "RangeError: Invalid string length"},
		{`attemptAsync(async () => (await r4.json()).length)`, "RangeError: Invalid string length"},
		{`attemptAsync(async () => (await res1.arrayBuffer()).byteLength)`, "RangeError: Array buffer allocation failed"},
		{`attemptAsync(async () => (await res3.text()).length)`, "RangeError: Invalid string length"},
		{`attemptAsync(async () => (await small.json()).a)`, "1"},
	})
	if refused < 6 {
		t.Errorf("the hook refused %d allocations, want at least 6", refused)
	}
}

// TestWeb_searchParamsAskTheAllocationHook: parsing a query of millions of
// pairs (new URLSearchParams, url.searchParams) asks the hook for their
// strings and slots first; refused, V8's RangeError. On the old code the
// 4 million pairs were made unseen.
func TestWeb_searchParamsAskTheAllocationHook(t *testing.T) {
	rt, _ := newWebRuntime(t)
	jstest.Run(t, rt, tryJS)
	jstest.Run(t, rt, `var q = "a=1&".repeat(4e6)`)
	rt.SetAllocationHook(func(n int64, _ goja.AllocationKind) bool { return n <= 64<<20 })
	jsCases(t, rt, [][2]string{
		{`attempt(() => new URLSearchParams(q).size)`, "RangeError: Invalid array length"},
		{`attempt(() => new URL("http://x/?" + q).searchParams.size)`, "RangeError: Invalid array length"},
		{`attempt(() => new URLSearchParams(q.slice(0, 4e4)).size)`, "10000"},
	})
}
