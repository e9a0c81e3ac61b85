package jserr_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/web"
)

func newRuntime(t *testing.T) *goja.Runtime {
	rt, _ := jstest.NewRuntime(t, func(rt *goja.Runtime, console io.Writer) error {
		return web.Install(rt, web.Options{Console: console})
	})
	return rt
}

// describe renders a JS error value for comparison.
func describe(t *testing.T, rt *goja.Runtime, v goja.Value) string {
	t.Helper()
	rt.Set("v", v)
	return jstest.Run(t, rt, `typeof v !== "object" || v === null ? "value " + String(v) :
		[v.name, v.message, v instanceof Error, typeof DOMException === "function" && v instanceof DOMException, v.remote === true].join("|")`).String()
}

func TestToJS(t *testing.T) {
	rt := newRuntime(t)
	thrown := jstest.Run(t, rt, `new RangeError("from JS")`)
	_, exErr := rt.RunString(`throw new SyntaxError("thrown")`)
	cause := errors.New("disk full")
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"TypeError", jserr.TypeError("bad"), "TypeError|bad|true|false|false"},
		{"RangeError", jserr.RangeError("far"), "RangeError|far|true|false|false"},
		{"DOMException", jserr.New("DataCloneError", "no"), "DataCloneError|no|true|true|false"},
		{"remote", &jserr.Error{Name: "TypeError", Message: "there", Remote: true}, "TypeError|there|true|false|true"},
		{"wrapped", fmt.Errorf("put: %w", &jserr.Error{Name: "Error", Message: "x", Err: cause}), "Error|x|true|false|false"},
		{"Go error", cause, "Error|disk full|true|false|false"},
		{"exception", exErr, "SyntaxError|thrown|true|false|false"},
		{"thrown value", jserr.Thrown{Value: thrown}, "RangeError|from JS|true|false|false"},
		{"thrown non-error", jserr.Thrown{Value: rt.ToValue(42)}, "value 42"},
	} {
		if got := describe(t, rt, jserr.ToJS(rt, c.err)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
	if v := jserr.ToJS(rt, jserr.Thrown{Value: thrown}); v != thrown {
		t.Error("a thrown value is not passed on as it is")
	}
}

func TestThrow(t *testing.T) {
	rt := newRuntime(t)
	rt.Set("fail", jserr.Func(rt, func(c goja.FunctionCall) (goja.Value, error) {
		if c.Argument(0).ToBoolean() {
			return nil, jserr.New("InvalidStateError", "not now")
		}
		return rt.ToValue("fine"), nil
	}))
	got := jstest.Run(t, rt, `let r = [fail(false)]; try { fail(true) } catch (e) { r.push(e.name, e.message, e.code) } r.join("|")`).String()
	if want := "fine|InvalidStateError|not now|11"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// An interrupt is not turned into a catchable JS error.
func TestThrow_interruptGoesOn(t *testing.T) {
	rt := newRuntime(t)
	rt.Set("interrupted", func(goja.FunctionCall) goja.Value {
		jserr.Throw(rt, &goja.InterruptedError{})
		return nil
	})
	_, err := rt.RunString(`try { interrupted() } catch (e) { "caught" }`)
	var ie *goja.InterruptedError
	if !errors.As(err, &ie) {
		t.Fatalf("RunString = %v, want the interrupt", err)
	}
}

func TestCatch(t *testing.T) {
	rt := newRuntime(t)
	_, err := jserr.Catch(func() (int, error) { panic(rt.ToValue("str")) })
	var tv jserr.Thrown
	if !errors.As(err, &tv) || tv.Value.String() != "str" {
		t.Errorf("Catch = %v", err)
	}
}

// TestAllocate: an approved allocation is nil; a refused one is the
// RangeError V8 throws for its kind, the texts goja's own refusals use.
func TestAllocate(t *testing.T) {
	rt := goja.New()
	rt.SetAllocationHook(func(n int64, _ goja.AllocationKind) bool { return n <= 10 })
	for _, c := range []struct {
		kind goja.AllocationKind
		want string
	}{
		{goja.AllocArrayBuffer, "Array buffer allocation failed"},
		{goja.AllocString, "Invalid string length"},
		{goja.AllocArray, "Invalid array length"},
	} {
		if err := jserr.Allocate(rt, 10, c.kind); err != nil {
			t.Errorf("kind %d, 10 bytes: %v, want approved", c.kind, err)
		}
		err := jserr.Allocate(rt, 11, c.kind)
		e, ok := err.(*jserr.Error)
		if !ok || e.Name != "RangeError" || e.Message != c.want {
			t.Errorf("kind %d, 11 bytes: %#v, want RangeError %q", c.kind, err, c.want)
		}
	}
	// goja's own refusal of an ArrayBuffer reads the same
	_, err := rt.RunString(`new ArrayBuffer(11)`)
	if err == nil || !strings.Contains(err.Error(), "RangeError: Array buffer allocation failed") {
		t.Errorf("new ArrayBuffer(11): %v", err)
	}
}
