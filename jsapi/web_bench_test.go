package jsapi

import (
	"testing"

	"github.com/dop251/goja"
)

func BenchmarkInstallWeb(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if err := InstallWeb(goja.New(), WebOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClone_object(b *testing.B) {
	rt, _ := newWebRuntime(b)
	v := runJS(b, rt, `({ id: 12345, name: "some name", tags: ["a", "b", "c"], nested: { x: 1.5, y: [1, 2, 3], when: new Date(0) }, m: new Map([["k", 1]]) })`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		data, err := Serialize(rt, v)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Deserialize(rt, data); err != nil {
			b.Fatal(err)
		}
	}
}
