// Package jstest holds the helpers the jsapi packages' tests share: a
// runtime with a captured console, running a snippet to its settled value,
// and comparing JSON texts.
package jstest

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// NewRuntime returns a runtime on which install (web.Install, usually
// through a one-line wrapper) has run with the returned console buffer.
func NewRuntime(t testing.TB, install func(rt *goja.Runtime, console io.Writer) error) (*goja.Runtime, *bytes.Buffer) {
	t.Helper()
	rt := goja.New()
	rt.SetMaxCallStackSize(2000)
	var console bytes.Buffer
	if err := install(rt, &console); err != nil {
		t.Fatalf("install: %v", err)
	}
	return rt, &console
}

// Run runs src; when the result is a promise it must be settled (goja
// runs the microtasks when RunString returns) and its value is returned.
func Run(t testing.TB, rt *goja.Runtime, src string) goja.Value {
	t.Helper()
	v, err := rt.RunString(src)
	if err != nil {
		t.Fatalf("run %q: %v", FirstLine(src), err)
	}
	if o, ok := v.(*goja.Object); ok && o.ExportType() == reflect.TypeOf((*goja.Promise)(nil)) {
		p := o.Export().(*goja.Promise)
		switch p.State() {
		case goja.PromiseStateFulfilled:
			return p.Result()
		case goja.PromiseStateRejected:
			t.Fatalf("run %q: rejected: %v", FirstLine(src), jserr.Text(p.Result()))
		default:
			t.Fatalf("run %q: promise still pending", FirstLine(src))
		}
	}
	return v
}

// FirstLine is the first line of s, for messages.
func FirstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + "..."
	}
	return s
}

// JSONEqual compares two JSON texts as values (like compare.mjs does).
func JSONEqual(t testing.TB, what, got, want string) {
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
