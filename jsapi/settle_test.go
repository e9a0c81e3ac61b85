package jsapi

import (
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"
)

// TestSettle_PendingPromise: Settle reports a pending promise's value or
// reason once it settles, in a promise job, in order with the script's own
// reactions to the same promise (the Go reactions of goja fork patch 45);
// a promise whose then a script replaced goes through that then, as
// `Promise.resolve(v).then(ok, fail)` does.
func TestSettle_PendingPromise(t *testing.T) {
	w := newTestWorker(t, `export default {};`)
	rt := w.rt
	var log []string
	if err := rt.Set("note", func(s string) { log = append(log, s) }); err != nil {
		t.Fatal(err)
	}
	settle := func(v goja.Value, tag string) {
		w.Settle(v, func(x goja.Value) { log = append(log, tag+":"+x.String()) },
			func(x goja.Value) { log = append(log, tag+"!"+x.String()) })
	}
	v, err := rt.RunString(`
		var res, rej;
		var a = new Promise(r => { res = r });
		a.then(x => note("script-before:" + x));
		var b = new Promise((_, r) => { rej = r });
		[a, b]`)
	if err != nil {
		t.Fatal(err)
	}
	pair := v.ToObject(rt)
	settle(pair.Get("0"), "a")
	settle(pair.Get("1"), "b")
	if len(log) != 0 {
		t.Fatalf("settled before the promises did: %v", log)
	}
	if _, err := rt.RunString(`a.then(x => note("script-after:" + x)); res(7); rej("no")`); err != nil {
		t.Fatal(err)
	}
	// the outermost call ran the jobs: the reactions in the order added
	want := "script-before:7,a:7,script-after:7,b!no"
	if got := strings.Join(log, ","); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}

	// a replaced then is called, as the JS path calls it
	log = nil
	v, err = rt.RunString(`
		var c = new Promise(() => {});
		c.then = function (ok, fail) { note("own then"); ok("from own then") };
		c`)
	if err != nil {
		t.Fatal(err)
	}
	settle(v, "c")
	if _, err := rt.RunString(`0`); err != nil { // runs the jobs
		t.Fatal(err)
	}
	want = "own then,c:from own then"
	if got := strings.Join(log, ","); got != want {
		t.Errorf("replaced then: got %s, want %s", got, want)
	}
}
