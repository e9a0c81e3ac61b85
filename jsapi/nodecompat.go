package jsapi

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/cellhost/cellhost/jsapi/node"
)

// nodeNamespace is esbuild's namespace for the node:* modules cellhost
// provides: each is a CommonJS module whose exports come from the runtime
// (node.RequireGlobal), so named and default imports both work.
const nodeNamespace = "cellhost-node"

// bareNodeName matches a specifier that may be a bare Node built-in name.
var bareNodeName = regexp.MustCompile(`^[a-z_][a-z0-9_]*(/[a-z_]+)?$`)

// noSuchModule is workerd's error for an import it cannot satisfy.
func noSuchModule(spec string) error {
	return errors.New("No such module \"" + spec + "\".")
}

// nodeModulesPlugin resolves node:* imports (and, with nodejs_compat, bare
// built-in names such as "path", as wrangler aliases them) to the runtime's
// modules, and fails the others with workerd's error naming the module.
func nodeModulesPlugin(c node.Compat) api.Plugin {
	return api.Plugin{
		Name: "cellhost-node",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `^node:`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				name := strings.TrimPrefix(a.Path, "node:")
				if !c.Enabled(name) {
					return api.OnResolveResult{}, noSuchModule(a.Path)
				}
				return api.OnResolveResult{Path: name, Namespace: nodeNamespace}, nil
			})
			if c.Modules {
				b.OnResolve(api.OnResolveOptions{Filter: bareNodeName.String()}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					if !node.NodeName(a.Path) {
						return api.OnResolveResult{}, nil // an npm package: esbuild resolves it
					}
					if !c.Enabled(a.Path) {
						return api.OnResolveResult{}, noSuchModule("node:" + a.Path)
					}
					return api.OnResolveResult{Path: a.Path, Namespace: nodeNamespace}, nil
				})
			}
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: nodeNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				src := "module.exports = globalThis." + node.RequireGlobal + "(" + jsQuote(a.Path) + ");\n"
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
			})
		},
	}
}

func jsQuote(s string) string {
	return "\"" + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + "\""
}

// installNode installs the Node.js layer the bundle was built for.
func installNode(rt *goja.Runtime, b *Bundle, vars map[string]any, fsScope func() string) error {
	c := b.Node
	env := map[string]string{}
	for k, v := range vars {
		if s, ok := v.(string); ok {
			env[k] = s
		}
	}
	return node.Install(rt, node.Options{
		Compat:      c,
		Env:         env,
		FSScope:     fsScope,
		BundleFiles: []string{strings.TrimSuffix(filepath.Base(b.Entry), filepath.Ext(b.Entry)) + ".js"},
		SetImmediate: func(f func()) func() {
			st, _ := goja.AssertFunction(rt.Get("setTimeout"))
			ct, _ := goja.AssertFunction(rt.Get("clearTimeout"))
			id, err := st(goja.Undefined(), rt.ToValue(func(goja.FunctionCall) goja.Value { f(); return goja.Undefined() }), rt.ToValue(0))
			if err != nil {
				panic(err)
			}
			return func() { _, _ = ct(goja.Undefined(), id) }
		},
	})
}
