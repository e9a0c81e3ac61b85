package jsapi

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// newWebRuntime returns a runtime with InstallWeb done and the console
// captured.
func newWebRuntime(t testing.TB) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	rt := goja.New()
	rt.SetMaxCallStackSize(2000)
	var console bytes.Buffer
	if err := InstallWeb(rt, WebOptions{Console: &console}); err != nil {
		t.Fatalf("InstallWeb: %v", err)
	}
	return rt, &console
}

// runJS runs src; when the result is a promise it must be settled (goja
// runs the microtasks when RunString returns) and its value is returned.
func runJS(t testing.TB, rt *goja.Runtime, src string) goja.Value {
	t.Helper()
	v, err := rt.RunString(src)
	if err != nil {
		t.Fatalf("run %q: %v", firstLine(src), err)
	}
	if o, ok := v.(*goja.Object); ok && o.ExportType() == reflect.TypeOf((*goja.Promise)(nil)) {
		p := o.Export().(*goja.Promise)
		switch p.State() {
		case goja.PromiseStateFulfilled:
			return p.Result()
		case goja.PromiseStateRejected:
			t.Fatalf("run %q: rejected: %v", firstLine(src), jsErrorText(p.Result()))
		default:
			t.Fatalf("run %q: promise still pending", firstLine(src))
		}
	}
	return v
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "..."
	}
	return s
}

// jsonEqual compares two JSON texts as values (like compare.mjs does).
func jsonEqual(t testing.TB, what, got, want string) {
	t.Helper()
	var g, w interface{}
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: got is not JSON: %v\n%s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: want is not JSON: %v\n%s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got  %s\n want %s", what, got, want)
	}
}
