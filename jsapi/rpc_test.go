package jsapi

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// newTestWorker returns a worker (no loop, no bindings) over src.
func newTestWorker(t testing.TB, src string) *Worker {
	t.Helper()
	entry := filepath.Join(t.TempDir(), "index.js")
	if err := os.WriteFile(entry, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	rt := goja.New()
	if err := InstallWeb(rt, WebOptions{Console: io.Discard}); err != nil {
		t.Fatal(err)
	}
	InstallTimers(rt, idleScheduler{})
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestEnvelope_RoundTrip checks that a message keeps its path, its
// capability descriptors and its value.
func TestEnvelope_RoundTrip(t *testing.T) {
	w := newTestWorker(t, `export default {};`)
	rt := w.rt
	v, err := rt.RunString(`[["a", "b"], {x: [1, "two", {"\u0000cellhost.cap": 0}]}, [{t: 1, id: 7}, {t: 2, b: "NS", h: "ab", n: "name"}, {t: 2, b: "NS", h: "cd"}]]`)
	if err != nil {
		t.Fatal(err)
	}
	o := v.ToObject(rt)
	msg, err := w.envelope(o.Get("0"), o.Get("1"), o.Get("2"))
	if err != nil {
		t.Fatal(err)
	}
	path, caps, val, err := w.openEnvelope(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(path) != 2 || path[0] != "a" || path[1] != "b" {
		t.Errorf("path = %q", path)
	}
	_ = rt.Set("caps", caps)
	_ = rt.Set("val", val)
	got, err := rt.RunString(`JSON.stringify([caps, val])`)
	if err != nil {
		t.Fatal(err)
	}
	want := `[[{"t":1,"id":7},{"t":2,"b":"NS","h":"ab","n":"name"},{"t":2,"b":"NS","h":"cd"}],{"x":[1,"two",{"\u0000cellhost.cap":0}]}]`
	if got.String() != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// FuzzOpenEnvelope: no input makes the decoder panic.
func FuzzOpenEnvelope(f *testing.F) {
	w := newTestWorker(f, `export default {};`)
	rt := w.rt
	v, _ := rt.RunString(`[["m"], [1, {a: 2}], [{t: 1, id: 3}, {t: 2, b: "B", h: "00", n: "x"}]]`)
	o := v.ToObject(rt)
	seed, err := w.envelope(o.Get("0"), o.Get("1"), o.Get("2"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte{envelopeMagic})
	f.Add([]byte{envelopeMagic, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _, _, _ = w.openEnvelope(b)
	})
}

// FuzzEnvelopeTargetIDs: no input makes the header scan panic, and on
// every message openEnvelope reads, it finds the target ids openEnvelope
// finds.
func FuzzEnvelopeTargetIDs(f *testing.F) {
	w := newTestWorker(f, `export default {};`)
	rt := w.rt
	v, _ := rt.RunString(`[["m"], [1, {a: 2}], [{t: 1, id: 3}, {t: 2, b: "B", h: "00", n: "x"}, {t: 2, b: "B", h: "01"}, {t: 1, id: 4503599627370495}]]`)
	o := v.ToObject(rt)
	seed, err := w.envelope(o.Get("0"), o.Get("1"), o.Get("2"))
	if err != nil {
		f.Fatal(err)
	}
	if ids, err := EnvelopeTargetIDs(seed); err != nil || len(ids) != 2 || ids[0] != 3 || ids[1] != 1<<52-1 {
		f.Fatalf("EnvelopeTargetIDs(seed) = %v, %v", ids, err)
	}
	f.Add(seed)
	f.Add([]byte{envelopeMagic})
	f.Add([]byte{envelopeMagic, 0, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := EnvelopeTargetIDs(b)
		_, caps, _, oerr := w.openEnvelope(b)
		if oerr != nil {
			return
		}
		if err != nil {
			t.Fatalf("openEnvelope reads it, EnvelopeTargetIDs says %v", err)
		}
		var want []uint64
		for _, c := range w.arrayItems(caps) {
			d := c.ToObject(rt)
			if d.Get("t").ToInteger() == 1 {
				want = append(want, uint64(d.Get("id").ToInteger()))
			}
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("ids %v, openEnvelope's %v", ids, want)
		}
	})
}
