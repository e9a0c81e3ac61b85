package jsapi

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/evanw/esbuild/pkg/api"
)

// moduleRulesPlugin applies wrangler's default module rules esbuild has no
// loader for: .bin files are Data modules (the default export is an
// ArrayBuffer of the file's bytes); .wasm files (CompiledWasm) fail the
// build naming the file, since goja has no WebAssembly. Text rules (.txt,
// .html, .sql) are esbuild's text loader (applyWranglerOptions).
func moduleRulesPlugin() api.Plugin {
	return api.Plugin{
		Name: "cellhost-module-rules",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `\.wasm(\?module)?$`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				name := strings.TrimSuffix(a.Path, "?module")
				return api.OnResolveResult{}, errors.New(name + " is a WebAssembly module (CompiledWasm), which cellhost cannot run: goja has no WebAssembly")
			})
			b.OnLoad(api.OnLoadOptions{Filter: `\.bin$`}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				data, err := os.ReadFile(a.Path)
				if err != nil {
					return api.OnLoadResult{}, err
				}
				src := "export default Uint8Array.from(atob(\"" + base64.StdEncoding.EncodeToString(data) + "\"), (c) => c.charCodeAt(0)).buffer;\n"
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS, ResolveDir: filepath.Dir(a.Path)}, nil
			})
		},
	}
}
