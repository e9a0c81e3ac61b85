package jsapi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// TestBuildBundle_strict: a worker's modules run as strict code, as ES
// modules do in workerd: assigning an undeclared name throws, a plain
// function call has no `this`, and writing a read-only property throws.
func TestBuildBundle_strict(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	src := `
export function probe() {
  const out = {};
  out.thisInPlainCall = (function () { return this === undefined; })();
  try { undeclaredName = 1; out.undeclared = "assigned"; } catch (e) { out.undeclared = e.name; }
  const frozen = Object.freeze({ a: 1 });
  try { frozen.a = 2; out.frozen = "written"; } catch (e) { out.frozen = e.name; }
  return JSON.stringify(out);
}
export default { fetch() { return new Response(probe()); } };
`
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := BuildBundle(entry)
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
	probe, ok := goja.AssertFunction(w.Exports.Get("probe"))
	if !ok {
		t.Fatal("probe is not exported")
	}
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), `{"thisInPlainCall":true,"undeclared":"ReferenceError","frozen":"TypeError"}`; got != want {
		t.Errorf("probe() = %s, want %s", got, want)
	}
}
