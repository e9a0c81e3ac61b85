package jsapi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/cellhost/cellhost/jsapi/wasm"
)

// ModuleRule is one of wrangler's module rules (the configuration's
// `rules`): imports whose path matches one of Globs load as Type.
type ModuleRule struct {
	Type        string   `json:"type"`
	Globs       []string `json:"globs"`
	Fallthrough *bool    `json:"fallthrough,omitempty"`
}

// String is the rule as wrangler prints it (JSON.stringify).
func (r ModuleRule) String() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// DefaultModuleRules are wrangler's DEFAULT_MODULE_RULES.
var DefaultModuleRules = []ModuleRule{
	{Type: "Text", Globs: []string{"**/*.txt", "**/*.html", "**/*.sql"}},
	{Type: "Data", Globs: []string{"**/*.bin"}},
	{Type: "CompiledWasm", Globs: []string{"**/*.wasm", "**/*.wasm?module"}},
}

// ModuleRuleTypes are the rule types wrangler's configuration accepts.
var ModuleRuleTypes = []string{"ESModule", "CommonJS", "CompiledWasm", "Text", "Data"}

// ParseRules is wrangler's parseRules (src/deployment-bundle/rules.ts): the
// user's rules, then the defaults; once a rule of a type without
// `fallthrough: true` is seen, later rules of that type are removed (an
// import matching only a removed rule fails the build). warnings are
// wrangler's, for removed rules whose earlier rule does not say
// `fallthrough: false`.
func ParseRules(user []ModuleRule) (rules, removed []ModuleRule, warnings []string) {
	all := append(append([]ModuleRule(nil), user...), DefaultModuleRules...)
	completed := map[string]int{}
	redundant := map[string][]int{}
	var order []string
	for i, r := range all {
		if at, ok := completed[r.Type]; ok {
			if f := all[at].Fallthrough; f == nil || *f {
				redundant[r.Type] = append(redundant[r.Type], i)
			}
			removed = append(removed, r)
			continue
		}
		rules = append(rules, r)
		if r.Fallthrough == nil || !*r.Fallthrough {
			completed[r.Type] = i
			order = append(order, r.Type)
		}
	}
	for _, typ := range order {
		idx := redundant[typ]
		if len(idx) == 0 {
			continue
		}
		at := completed[typ]
		def := ""
		if at >= len(user) {
			def = "default "
		}
		var b strings.Builder
		fmt.Fprintf(&b, "The %smodule rule %s does not have a fallback, the following rules will be ignored:", def, all[at])
		for _, i := range idx {
			fmt.Fprintf(&b, "\n %s", all[i])
			if i >= len(user) {
				b.WriteString(" (DEFAULT)")
			}
		}
		b.WriteString("\n\nAdd `fallthrough = true` to rule to allow next rule to be used or `fallthrough = false` to silence this warning")
		warnings = append(warnings, b.String())
	}
	return rules, removed, warnings
}

// globRegexp is npm glob-to-regexp with its default options, which wrangler
// uses to turn a rule's glob into esbuild's onResolve filter: `*` (any run
// of them) matches anything, including "/"; regexp metacharacters and the
// extended-glob characters ? [ ] { } , are literal. Hand-written because it
// is a dozen lines of a JavaScript package; TestGlobRegexp pins its cases.
func globRegexp(glob string) string {
	var b strings.Builder
	b.WriteByte('^')
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch c {
		case '/', '$', '^', '+', '.', '(', ')', '=', '!', '|', '?', '[', ']', '{', '}', ',':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '*':
			for i+1 < len(glob) && glob[i+1] == '*' {
				i++
			}
			b.WriteString(".*")
		case '\\':
			// A backslash escapes nothing in glob-to-regexp: it passes into
			// the regular expression as is.
			b.WriteByte(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteByte('$')
	return b.String()
}

// moduleRulesPlugin applies the module rules as wrangler's module collector
// does, with the difference that cellhost inlines what wrangler uploads as
// separate modules: a Text import's default export is the file's text, a
// Data import's an ArrayBuffer of its bytes; a CompiledWasm import's a
// WebAssembly.Module (the bytes inlined, compiled once per process:
// jsapi/wasm). JavaScript rules
// (ESModule, CommonJS) leave the file to esbuild. An import that matches a
// rule removed by ParseRules fails the build with wrangler's error.
//
// The bytes of CompiledWasm modules are put in wasmMods (by wasm.Hash), which
// the build writes at the end of the script (wasm.AddSection); the import
// becomes a call of wasm.BundleGlobal with the hash.
func moduleRulesPlugin(user []ModuleRule, wasmMods *wasmCollector) api.Plugin {
	rules, removed, _ := ParseRules(user)
	return api.Plugin{
		Name: "cellhost-module-rules",
		Setup: func(b api.PluginBuild) {
			for _, r := range rules {
				if r.Type == "ESModule" || r.Type == "CommonJS" {
					continue
				}
				r := r
				for _, g := range r.Globs {
					b.OnResolve(api.OnResolveOptions{Filter: globRegexp(g)}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
						if a.PluginData == skipRules {
							return api.OnResolveResult{}, nil
						}
						clean := a.Path
						if i := strings.IndexByte(clean, '?'); i >= 0 {
							clean = clean[:i]
						}
						file := filepath.Join(a.ResolveDir, clean)
						if res := b.Resolve(clean, api.ResolveOptions{Kind: a.Kind, Importer: a.Importer, ResolveDir: a.ResolveDir, PluginData: skipRules}); len(res.Errors) == 0 && res.Path != "" {
							file = res.Path
						}
						return api.OnResolveResult{Path: file, Namespace: "cellhost-rule-" + r.Type, WatchFiles: []string{file}}, nil
					})
				}
			}
			for _, r := range removed {
				r := r
				for _, g := range r.Globs {
					b.OnResolve(api.OnResolveOptions{Filter: globRegexp(g)}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
						if a.PluginData == skipRules {
							return api.OnResolveResult{}, nil
						}
						return api.OnResolveResult{}, fmt.Errorf("The file %s matched a module rule in your configuration (%s), but was ignored because a previous rule with the same type was not marked as `fallthrough = true`.", a.Path, r)
					})
				}
			}
			load := func(typ string) func(api.OnLoadArgs) (api.OnLoadResult, error) {
				return func(a api.OnLoadArgs) (api.OnLoadResult, error) {
					data, err := os.ReadFile(a.Path)
					if err != nil {
						return api.OnLoadResult{}, err
					}
					var src string
					if typ == "CompiledWasm" {
						// Compiled now (and cached for the process): a module
						// that does not compile fails the build, as wrangler's
						// upload would, and the first object does not wait for
						// the compiler.
						if _, err := wasm.Compile(data); err != nil {
							return api.OnLoadResult{}, fmt.Errorf("%s: WebAssembly.Module(): %v", a.Path, err)
						}
						h := wasm.Hash(data)
						wasmMods.add(h, data)
						src = "export default " + wasm.BundleGlobal + "(\"" + h + "\");\n"
						return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS, ResolveDir: filepath.Dir(a.Path)}, nil
					}
					if typ == "Text" {
						// JSON is JavaScript: the text as a string literal
						// (invalid UTF-8 becomes U+FFFD, as decoding does).
						var lit bytes.Buffer
						enc := json.NewEncoder(&lit)
						enc.SetEscapeHTML(false)
						_ = enc.Encode(string(data))
						src = "export default " + strings.TrimSpace(lit.String()) + ";\n"
					} else {
						src = "export default Uint8Array.from(atob(\"" + base64.StdEncoding.EncodeToString(data) + "\"), (c) => c.charCodeAt(0)).buffer;\n"
					}
					return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS, ResolveDir: filepath.Dir(a.Path)}, nil
				}
			}
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "cellhost-rule-Text"}, load("Text"))
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "cellhost-rule-Data"}, load("Data"))
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "cellhost-rule-CompiledWasm"}, load("CompiledWasm"))
		},
	}
}

// wasmCollector gathers a build's CompiledWasm modules (esbuild may load
// files concurrently).
type wasmCollector struct {
	mu   sync.Mutex
	mods map[string][]byte
}

func (c *wasmCollector) add(h string, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mods == nil {
		c.mods = map[string][]byte{}
	}
	c.mods[h] = b
}

// skipRules marks the plugin's own b.Resolve calls, as wrangler's
// pluginData.skip does.
var skipRules = &struct{ skip bool }{true}

// aliasPlugin is wrangler's alias plugin: an import whose path is exactly a
// key of alias resolves to the value, with Node's resolution from dir (the
// project root), whatever file imports it.
func aliasPlugin(alias map[string]string, dir string) api.Plugin {
	return api.Plugin{
		Name: "cellhost-alias",
		Setup: func(b api.PluginBuild) {
			if len(alias) == 0 {
				return
			}
			keys := make([]string, 0, len(alias))
			for k := range alias {
				keys = append(keys, "^"+regexp.QuoteMeta(k)+"$")
			}
			sort.Strings(keys)
			b.OnResolve(api.OnResolveOptions{Filter: strings.Join(keys, "|")}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				to, ok := alias[a.Path]
				if !ok {
					return api.OnResolveResult{}, nil
				}
				res := b.Resolve(to, api.ResolveOptions{Kind: a.Kind, ResolveDir: dir})
				if len(res.Errors) > 0 {
					return api.OnResolveResult{}, fmt.Errorf("alias %q: cannot resolve %q from %s: %s", a.Path, to, dir, res.Errors[0].Text)
				}
				return api.OnResolveResult{Path: res.Path, Namespace: res.Namespace, External: res.External}, nil
			})
		},
	}
}

func aliasDir(bo BundleOptions, entry string) string {
	if bo.AliasDir != "" {
		return bo.AliasDir
	}
	return filepath.Dir(entry)
}
