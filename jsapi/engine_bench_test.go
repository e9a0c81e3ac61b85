package jsapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// BenchmarkPolyfills_NewRuntime measures what the core-js prelude adds to a
// shard's start: a new runtime evaluating a small bundle, with and without.
func BenchmarkPolyfills_NewRuntime(b *testing.B) {
	for _, tc := range []struct {
		name string
		bo   BundleOptions
	}{{"without", BundleOptions{NoPolyfills: true}}, {"with", BundleOptions{}}} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			entry := filepath.Join(dir, "index.js")
			if err := os.WriteFile(entry, []byte("export default { fetch() { return new Response('ok') } };\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			bundle, err := BuildBundleWith(entry, tc.bo)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rt := goja.New()
				if err := InstallWeb(rt, WebOptions{}); err != nil {
					b.Fatal(err)
				}
				if _, err := NewWorker(rt, WorkerOptions{Bundle: bundle}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
