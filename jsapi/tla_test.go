package jsapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// TestTopLevelAwait: a main module (and a module it imports) may await at
// its top level, as in workerd; the exports are those of the settled
// module, live bindings included.
func TestTopLevelAwait(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.js"), []byte(`
export let loaded = "no";
export const config = await Promise.resolve({ greeting: "hi" });
loaded = "yes";
export default "config default";
`), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `import def, { config, loaded } from "./config.js";
const n = await new Promise((resolve) => queueMicrotask(() => resolve(41))) + 1;
export function probe() { return [config.greeting, loaded, n, def, typeof Counter].join() }
export class Counter {}
export { n as "odd name" };
export default { fetch() { return new Response("w") } };
`
	if got := runModuleIn(t, dir, src, BundleOptions{}); got != "hi,yes,42,config default,function" {
		t.Errorf("got %q", got)
	}
}

// TestTopLevelAwait_Fails: a rejected top-level await fails the load with
// its error; one that never settles (module scope cannot wait for I/O)
// fails it with a clear message.
func TestTopLevelAwait_Fails(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`await Promise.reject(new TypeError("bad config")); export default {};`, "TypeError: bad config"},
		{`await new Promise(() => {}); export default {};`, "top-level await never settled"},
	} {
		dir := t.TempDir()
		entry := filepath.Join(dir, "index.js")
		if err := os.WriteFile(entry, []byte(c.src), 0o644); err != nil {
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
		_, err = NewWorker(rt, WorkerOptions{Bundle: b})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.src, err, c.want)
		}
	}
}

// runModuleIn is runModule with the entry module in dir (next to others).
func runModuleIn(t *testing.T, dir, src string, bo BundleOptions) string {
	t.Helper()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
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
	probe, ok := goja.AssertFunction(w.Exports.Get("probe"))
	if !ok {
		t.Fatal("probe is not exported")
	}
	v, err := probe(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	return v.String()
}
