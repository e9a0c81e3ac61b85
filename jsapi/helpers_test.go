package jsapi

import (
	"bytes"
	"io"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
)

// newWebRuntime returns a runtime with InstallWeb done and the console
// captured.
func newWebRuntime(t testing.TB) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	return jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return InstallWeb(rt, WebOptions{Console: console})
	})
}

// probeBundle bundles entry with bo and returns the string its exported
// probe() gives.
func probeBundle(t *testing.T, entry string, bo BundleOptions) string {
	t.Helper()
	b, err := BuildBundleWith(entry, bo)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	if err := InstallWeb(rt, WebOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	probe, _ := goja.AssertFunction(w.Exports.Get("probe"))
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}
