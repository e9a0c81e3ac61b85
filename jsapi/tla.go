package jsapi

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
)

// Top-level await. workerd runs the main module as an ES module, so it may
// await at its top level; esbuild cannot write such a module as the IIFE
// cellhost's bundles are (goja has no ES modules). A bundle whose modules
// await at the top level is built as an ES module instead and wrapped here
// in an async function: its body is the module's, its result the exports
// object (getters, as live bindings), and bundleGlobal holds its promise.
// The worker loads once the promise has settled (loadedExports): at the end
// of the bundle's evaluation, when its promise jobs ran. Module scope cannot
// do I/O (workerd: "Disallowed operation called within global scope"), so a
// promise still pending then never settles, and the worker fails to load,
// as workerd's does with a top-level await that never resolves.

// errTLAIIFE is esbuild's error for top-level await in an IIFE.
const errTLAIIFE = "Top-level await is currently not supported"

func needsTopLevelAwait(msgs []string) bool {
	for _, m := range msgs {
		if strings.Contains(m, errTLAIIFE) {
			return true
		}
	}
	return false
}

// esmExports is the export clause esbuild ends an ES module bundle with.
var esmExports = regexp.MustCompile(`(?s)\nexport \{([^}]*)\};\n`)

// wrapModule turns esbuild's ES module bundle into a script that assigns
// the promise of the module's evaluation to bundleGlobal. The wrapper opens
// on the bundle's first line, so that the inline source map still holds.
func wrapModule(code string) string {
	locs := esmExports.FindAllStringSubmatchIndex(code, -1)
	var ret strings.Builder
	ret.WriteString("\nreturn {")
	if len(locs) > 0 {
		loc := locs[len(locs)-1]
		for _, e := range strings.Split(code[loc[2]:loc[3]], ",") {
			e = strings.TrimSpace(e)
			if e == "" {
				continue
			}
			local, exported, ok := strings.Cut(e, " as ")
			if !ok {
				exported = local
			}
			if !strings.HasPrefix(exported, `"`) {
				exported = `"` + exported + `"`
			}
			fmt.Fprintf(&ret, " get %s() { return %s; },", exported, local)
		}
		code = code[:loc[0]] + "\n" + code[loc[1]:]
	}
	ret.WriteString(" };\n")
	// The return goes before the source map comment.
	body, tail := code, ""
	if i := strings.LastIndex(code, "\n//# sourceMappingURL="); i >= 0 {
		body, tail = code[:i], code[i:]
	}
	return "var " + bundleGlobal + " = (async () => {" + body + ret.String() + "})();" + tail
}

// loadedExports is the worker's exports object once the bundle ran: the
// value bundleGlobal holds, or, for a module with top-level await, what
// its promise fulfilled with. rejected is the promise's rejection, if so.
func loadedExports(rt *goja.Runtime) (exports, rejected goja.Value, err error) {
	v := rt.Get(bundleGlobal)
	o, ok := v.(*goja.Object)
	if !ok || o.ExportType() != promiseType {
		return v, nil, nil
	}
	p := o.Export().(*goja.Promise)
	switch p.State() {
	case goja.PromiseStateFulfilled:
		return p.Result(), nil, nil
	case goja.PromiseStateRejected:
		return nil, p.Result(), nil
	}
	return nil, nil, errTLAPending
}

var promiseType = reflect.TypeOf((*goja.Promise)(nil))

var errTLAPending = errors.New("the main module's top-level await never settled (module scope cannot wait for I/O)")
