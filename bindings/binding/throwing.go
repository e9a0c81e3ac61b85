package binding

import (
	"fmt"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
)

var throwingProgram = goja.MustCompile("cellhost:throwing", `(function (binding, why) {
  // A binding of a kind cellhost does not have: using it throws.
  return new Proxy({}, {
    get(_, prop) {
      if (typeof prop === "symbol" || prop === "then" || prop === "toJSON") return undefined;
      throw new Error(why + " (used: env." + binding + "." + String(prop) + ")");
    },
  });
})`, true)

// Throwing returns an object of rt whose every property access throws an
// Error with why (naming the property): what env.<name> is for a binding
// cellhost cannot serve. It is not a thenable and has no toJSON,
// so that logging env does not throw (JSON.stringify gives {}).
func Throwing(rt *goja.Runtime, name, why string) (goja.Value, error) {
	fv, err := rt.RunProgram(throwingProgram)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(fv)
	v, err := fn(goja.Undefined(), rt.ToValue(name), rt.ToValue(why))
	if err != nil {
		return nil, fmt.Errorf("bind %s: %w", name, err)
	}
	return v, nil
}

// BindThrowing is the Bind of entries whose Throws is set.
func BindThrowing(entries []Entry) Bind {
	return func(rt *goja.Runtime, env *goja.Object, _ CellCaller) error {
		for _, e := range entries {
			if e.Throws == "" {
				continue
			}
			v, err := Throwing(rt, e.Name, e.Throws)
			if err != nil {
				return err
			}
			if err := env.Set(e.Name, v); err != nil {
				return err
			}
		}
		return nil
	}
}

// SafeFileName keeps letters, digits, '-', '_' and '.' of an id (other
// characters become '_'), for a file name derived from a configured id.
func SafeFileName(id string) string {
	var sb strings.Builder
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			sb.WriteRune(r)
		default:
			sb.WriteByte('_')
		}
	}
	if s := sb.String(); s != "" && s != "." && s != ".." {
		return s
	}
	return "_"
}
