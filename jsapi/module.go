// Package jsapi is everything a Durable Object program sees: module loading
// (esbuild), the DurableObject model, the Web platform globals, structured
// clone and errors. It knows nothing of SQLite or object stores: it calls the
// interfaces that host hands it.
package jsapi

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/evanw/esbuild/pkg/api"

	"github.com/cellhost/cellhost/jsapi/node"
	"github.com/cellhost/cellhost/jsapi/wasm"
)

// bundleGlobal is the global variable the IIFE bundle assigns its exports to.
const bundleGlobal = "__cellhost_worker"

// virtualNamespace is esbuild's namespace for modules cellhost provides.
const virtualNamespace = "cellhost-virtual"

// virtualModules are the imports served by cellhost itself. Their contents read
// host-provided values from a global installed before the bundle runs.
var virtualModules = map[string]string{
	"cloudflare:workers": `const m = globalThis.__cellhost_cloudflare_workers;
export const DurableObject = m.DurableObject;
export const WorkerEntrypoint = m.WorkerEntrypoint;
export const WorkflowEntrypoint = m.WorkflowEntrypoint;
export const RpcTarget = m.RpcTarget;
export const RpcStub = m.RpcStub;
export const RpcPromise = m.RpcPromise;
export const RpcProperty = m.RpcProperty;
export const ServiceStub = m.ServiceStub;
export const env = m.env;
export const exports = m.exports;
export const waitUntil = m.waitUntil;
export const withEnv = m.withEnv;
export const withExports = m.withExports;
export const withEnvAndExports = m.withEnvAndExports;
export const restore = m.restore;
export const abortIsolate = m.abortIsolate;
export const cache = m.cache;
export const tracing = m.tracing;
export default m;
`,
	// cloudflare:email's EmailMessage: the message send_email bindings take.
	// (No send_email binding exists here: its stub throws when used.)
	"cloudflare:email": `export class EmailMessage {
  constructor(from, to, raw) {
    this.from = from;
    this.to = to;
    this["EmailMessage::raw"] = raw;
  }
}
export default { EmailMessage };
`,
	"cloudflare:workflows": `export class NonRetryableError extends Error {
  constructor(message, name = "NonRetryableError") {
    super(message);
    this.name = name;
  }
}
export default { NonRetryableError };
`,
	// Outbound TCP sockets and node:http servers are not built yet: the
	// modules load (libraries import them at the top), and a call throws
	// naming what is missing.
	"cloudflare:sockets": `const missing = (what) => () => { throw new Error(what + " is not supported by cellhost yet"); };
export const connect = missing("connect() from cloudflare:sockets (outbound TCP)");
export const internalNewHttpClient = missing("internalNewHttpClient() from cloudflare:sockets");
export default { connect, internalNewHttpClient };
`,
	"cloudflare:node": `const missing = (what) => () => { throw new Error(what + " from cloudflare:node is not supported by cellhost yet"); };
export const httpServerHandler = missing("httpServerHandler()");
export const handleAsNodeRequest = missing("handleAsNodeRequest()");
export const handleAsNodeConnection = missing("handleAsNodeConnection()");
export const connectHandler = missing("connectHandler()");
export default { httpServerHandler, handleAsNodeRequest, handleAsNodeConnection, connectHandler };
`,
}

// Bundle is a worker's entry module bundled into one script goja can run.
// A Bundle is immutable and may be shared by every shard's runtime.
type Bundle struct {
	Entry   string        // absolute path of the entry module
	Code    string        // the bundled script
	Program *goja.Program // Code compiled once
	Inputs  []string      // absolute paths of the source files (for reloading)
	// Node is what the compatibility date and flags enable of Node.js.
	Node node.Compat
	// Wasm are the bundle's CompiledWasm modules, read from Code
	// (wasm.BundledModules); nil: NewWorker reads them.
	Wasm map[string]*wasm.Compiled
	// WasmCompile is where the bundle's code may compile WebAssembly from
	// bytes (WasmCompileFor its compatibility date and flags).
	WasmCompile WasmCompile
}

// WasmCompile says where code may compile WebAssembly from bytes it holds
// (new WebAssembly.Module(bytes), WebAssembly.compile, instantiate of
// bytes). workerd allows that exactly where it allows eval (V8's
// AllowWasmCodeGenerationCallback returns its evalAllowed: jsg/setup.c++),
// and refuses elsewhere with "Wasm code generation disallowed by
// embedder"; checked on workerd 1.20261117.1: compatibility date
// 2026-01-01 compiles at module scope and refuses in a request,
// 2025-05-01 refuses both.
type WasmCompile int

const (
	// WasmCompileNever: only the modules the bundle carries.
	WasmCompileNever WasmCompile = iota
	// WasmCompileAtStartup: while the bundle's top level runs
	// (allow_eval_during_startup, the default from 2025-06-01).
	WasmCompileAtStartup
	// WasmCompileAlways: also in requests
	// (allow_insecure_inefficient_logged_eval, workerd's experimental flag
	// its own WPT runs use; never a default).
	WasmCompileAlways
)

// WasmCompileFor is workerd's rule for a compatibility date and flags.
func WasmCompileFor(date string, flags []string) WasmCompile {
	w := WasmCompileNever
	if date >= "2025-06-01" {
		w = WasmCompileAtStartup
	}
	always := false
	for _, f := range flags {
		switch f {
		case "allow_eval_during_startup":
			w = max(w, WasmCompileAtStartup)
		case "disallow_eval_during_startup":
			w = WasmCompileNever
		case "allow_insecure_inefficient_logged_eval":
			always = true
		}
	}
	if always {
		return WasmCompileAlways
	}
	return w
}

// BuildError is a bundling failure; each message is "file:line:column: text".
type BuildError struct {
	Messages []string // "file:line:col: text", file relative to the project
	// Frames is esbuild's own rendering of the errors (api.FormatMessages):
	// each with its file, line and column and the source line with a caret
	// under the column, as wrangler prints them.
	Frames string
}

func (e *BuildError) Error() string {
	return "build worker: " + strings.Join(e.Messages, "\n")
}

// BuildBundle bundles the module at entry (JavaScript or TypeScript) with
// esbuild's Go API into an IIFE that goja runs, with the zero BundleOptions.
func BuildBundle(entry string) (*Bundle, error) { return BuildBundleWith(entry, BundleOptions{}) }

// BuildBundleWith bundles the module at entry as wrangler would with bo
// (see bundle.go).
func BuildBundleWith(entry string, bo BundleOptions) (*Bundle, error) {
	abs, err := filepath.Abs(entry)
	if err != nil {
		return nil, fmt.Errorf("build worker: %w", err)
	}
	nc := node.CompatFor(bo.CompatibilityDate, bo.CompatibilityFlags)
	wasmMods := &wasmCollector{}
	opts := api.BuildOptions{
		EntryPoints:   []string{abs},
		Bundle:        true,
		Write:         false,
		Metafile:      true,
		Format:        api.FormatIIFE,
		GlobalName:    bundleGlobal,
		Target:        api.ESNext,
		Charset:       api.CharsetUTF8,
		AbsWorkingDir: filepath.Dir(abs),
		LogLevel:      api.LogLevelSilent,
		// goja reads the inline map: stacks name the original files and lines.
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Supported:      gojaLowered,
		Plugins:        []api.Plugin{aliasPlugin(bo.Alias, aliasDir(bo, abs)), nodeModulesPlugin(nc), virtualModulesPlugin(), moduleRulesPlugin(bo.Rules, wasmMods)},
	}
	applyWranglerOptions(&opts, bo)
	res := api.Build(opts)
	module := false
	if len(res.Errors) > 0 && needsTopLevelAwait(formatMessages(res.Errors)) {
		// Top-level await: an ES module, wrapped (tla.go).
		opts.Format, opts.GlobalName, module = api.FormatESModule, "", true
		res = api.Build(opts)
	}
	if len(res.Errors) > 0 {
		return nil, buildError(res.Errors, opts.AbsWorkingDir, aliasDir(bo, abs))
	}
	if len(res.OutputFiles) != 1 {
		return nil, fmt.Errorf("build worker: esbuild produced %d outputs, want 1", len(res.OutputFiles))
	}
	code := string(res.OutputFiles[0].Contents)
	if module {
		code = wrapModule(code)
	}
	// The CompiledWasm modules' bytes, as comment lines at the end of the
	// script (jsapi/wasm/bundled.go): read back by the host before the
	// script runs, never by its code.
	code = wasm.AddSection(code, wasmMods.mods)
	mods, err := wasm.BundledModules(code)
	if err != nil {
		return nil, fmt.Errorf("build worker: %w", err)
	}
	// Strict: the sources are ES modules, which are strict code (as in
	// workerd, which runs wrangler's ESM bundle as a module), but esbuild's
	// IIFE output carries no "use strict" of its own.
	prog, err := goja.Compile(abs, code, true)
	if err != nil {
		return nil, fmt.Errorf("build worker: compile bundle of %s: %w", abs, err)
	}
	return &Bundle{Entry: abs, Code: code, Program: prog, Inputs: metafileInputs(res.Metafile, filepath.Dir(abs)), Node: nc, Wasm: mods,
		WasmCompile: WasmCompileFor(bo.CompatibilityDate, bo.CompatibilityFlags)}, nil
}

// buildError makes the error of a failed build: esbuild's messages, whose
// files are relative to workDir, named relative to the project's directory
// (src/server/index.ts, not index.ts) when they are inside it.
func buildError(msgs []api.Message, workDir, projectDir string) *BuildError {
	if abs, err := filepath.Abs(projectDir); err == nil {
		projectDir = abs
	}
	rel := make([]api.Message, len(msgs))
	for i, m := range msgs {
		if m.Location != nil {
			loc := *m.Location
			abs := loc.File
			if !filepath.IsAbs(abs) && !strings.Contains(abs, ":") {
				abs = filepath.Join(workDir, abs)
			}
			if r, err := filepath.Rel(projectDir, abs); err == nil && filepath.IsAbs(abs) && !strings.HasPrefix(r, "..") {
				loc.File = r
			}
			m.Location = &loc
		}
		rel[i] = m
	}
	frames := api.FormatMessages(rel, api.FormatMessagesOptions{Kind: api.ErrorMessage, TerminalWidth: 100})
	return &BuildError{Messages: formatMessages(rel), Frames: strings.Join(frames, "")}
}

func formatMessages(msgs []api.Message) []string {
	out := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if m.Location != nil {
			out = append(out, fmt.Sprintf("%s:%d:%d: %s", m.Location.File, m.Location.Line, m.Location.Column+1, m.Text))
		} else {
			out = append(out, m.Text)
		}
	}
	return out
}

// metafileInputs lists the bundle's source files from esbuild's metafile.
func metafileInputs(meta, dir string) []string {
	var m struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if json.Unmarshal([]byte(meta), &m) != nil {
		return nil
	}
	inputs := make([]string, 0, len(m.Inputs))
	for p := range m.Inputs {
		if strings.Contains(p, ":") && !filepath.IsAbs(p) {
			continue // a virtual module such as cellhost-virtual:cloudflare:workers
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		inputs = append(inputs, p)
	}
	sort.Strings(inputs)
	return inputs
}

// virtualModulesPlugin serves cellhost's own modules and refuses the
// cloudflare: and workerd: modules it does not provide, naming them
// (node: modules are nodeModulesPlugin's).
func virtualModulesPlugin() api.Plugin {
	return api.Plugin{
		Name: "cellhost-modules",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `^(cloudflare|workerd):`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				if _, ok := virtualModules[a.Path]; ok {
					return api.OnResolveResult{Path: a.Path, Namespace: virtualNamespace}, nil
				}
				return api.OnResolveResult{}, noSuchModule(a.Path)
			})
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: virtualNamespace}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				src := virtualModules[a.Path]
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
			})
		},
	}
}
