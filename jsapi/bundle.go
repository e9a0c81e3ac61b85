package jsapi

import (
	_ "embed"
	"strconv"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/evanw/esbuild/pkg/api"
)

// How cellhost bundles a worker, kept to what wrangler 4 does
// (packages/wrangler/src/deployment-bundle/bundle.ts, bundleWorker):
//
//   - platform "browser" (wrangler's default when WRANGLER_BUILD_PLATFORM is
//     unset), so package.json "browser" fields and the "browser" condition
//     apply, and main fields are browser, module, main;
//   - conditions "workerd", "worker", "browser" (WRANGLER_BUILD_CONDITIONS);
//   - .js, .mjs and .cjs files parsed with the JSX loader;
//   - keepNames (function and class .name survive renaming);
//   - defines: process.env.NODE_ENV, navigator.userAgent
//     ("Cloudflare-Workers") and the configuration's own `define`.
//
// Two things differ, for goja's sake: the output is an IIFE (goja has no
// ES modules) and syntax goja lacks is lowered (the Supported map in
// BuildBundle).

// BundleOptions are the build settings wrangler takes from its configuration
// and its environment. The zero value bundles as `wrangler dev` does with
// NODE_ENV unset would in workerd.
type BundleOptions struct {
	// NodeEnv replaces process.env.NODE_ENV; "" means "development".
	// Wrangler takes it from its own NODE_ENV; cmd passes that in.
	NodeEnv string
	// Define is the configuration's `define`: each key (an expression such
	// as "DEBUG" or "process.env.API") is replaced by its value, which is
	// JavaScript source ("true", "\"text\""). It wins over the defaults.
	Define map[string]string
	// Conditions replaces wrangler's default conditions (as
	// WRANGLER_BUILD_CONDITIONS does); nil keeps them.
	Conditions []string
	// NoPolyfills leaves out the core-js and prelude built-ins (tests that
	// measure goja itself).
	NoPolyfills bool
	// CompatibilityDate and CompatibilityFlags are the worker's: they
	// decide what of Node.js the bundle may import (nodejs_compat).
	CompatibilityDate  string
	CompatibilityFlags []string
	// Rules are the configuration's module rules, before wrangler's
	// defaults (see ParseRules).
	Rules []ModuleRule
	// Alias is the configuration's `alias`: an import of exactly a key
	// resolves to its value (a package name, or a path), resolved from
	// AliasDir (the configuration's directory; "" means the entry's).
	Alias    map[string]string
	AliasDir string
}

// gojaLowered is the syntax esbuild lowers because goja lacks it.
var gojaLowered = map[string]bool{
	"async-generator": false,
	"for-await":       false,
	"using":           false,
	"decorators":      false,
	"dynamic-import":  false,
}

// wranglerConditions are wrangler's default build conditions.
var wranglerConditions = []string{"workerd", "worker", "browser"}

// corejs is core-js's implementation of the ECMAScript built-ins goja lacks
// (iterator helpers, Array.fromAsync, Promise.withResolvers and try,
// Object/Map.groupBy, ...), built by polyfill/build.sh.
//
//go:embed polyfill/corejs.js
var corejs string

// prelude is the hand-written rest (Error.captureStackTrace).
//
//go:embed polyfill/prelude.js
var prelude string

// applyWranglerOptions sets o as wrangler would build the worker.
func applyWranglerOptions(o *api.BuildOptions, b BundleOptions) {
	o.Platform = api.PlatformBrowser
	o.MainFields = []string{"browser", "module", "main"}
	o.Conditions = wranglerConditions
	if b.Conditions != nil {
		o.Conditions = b.Conditions
	}
	o.KeepNames = true
	// wrangler's default module rules: Text for .txt, .html and .sql (Data
	// and CompiledWasm are moduleRulesPlugin's; JSON is esbuild's own).
	o.Loader = map[string]api.Loader{".js": api.LoaderJSX, ".mjs": api.LoaderJSX, ".cjs": api.LoaderJSX,
		".txt": api.LoaderText, ".html": api.LoaderText, ".sql": api.LoaderText}
	nodeEnv := b.NodeEnv
	if nodeEnv == "" {
		nodeEnv = "development"
	}
	o.Define = map[string]string{
		"process.env.NODE_ENV": strconv.Quote(nodeEnv),
		"navigator.userAgent":  `"Cloudflare-Workers"`,
	}
	for k, v := range b.Define {
		o.Define[k] = v
	}
	if !b.NoPolyfills {
		// Before the IIFE, so the worker's module scope sees the built-ins.
		o.Banner = map[string]string{"js": strings.TrimSpace(corejs) + "\n" + strings.TrimSpace(prelude)}
	}
}

var (
	polyfillOnce    sync.Once
	polyfillProgram *goja.Program
)

// Polyfills returns the built-ins every bundle starts with (core-js and the
// prelude), compiled once, for code that runs scripts outside a bundle (the
// test262 runner). Safe for concurrent use.
func Polyfills() *goja.Program {
	polyfillOnce.Do(func() {
		polyfillProgram = goja.MustCompile("cellhost-polyfills.js", corejs+"\n"+prelude, false)
	})
	return polyfillProgram
}

// TransformScript applies to a script (not a module) the syntax lowering and
// defines a worker's bundle gets, without bundling or wrapping it, so that
// its top-level declarations stay global. Used by the test262 runner.
func TransformScript(name, src string, bo BundleOptions) (string, error) {
	var o api.BuildOptions
	applyWranglerOptions(&o, bo)
	res := api.Transform(src, api.TransformOptions{
		Sourcefile: name,
		Loader:     api.LoaderJS,
		Target:     api.ESNext,
		Supported:  gojaLowered,
		Charset:    api.CharsetUTF8,
		KeepNames:  o.KeepNames,
		Define:     o.Define,
		LogLevel:   api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		return "", &BuildError{Messages: formatMessages(res.Errors)}
	}
	return string(res.Code), nil
}
