// Package vitest runs a project's Vitest suite written for
// @cloudflare/vitest-pool-workers on cellhost (`cellhost test`), with no
// change to its test files: it reads the project's vitest.config (the
// pool's poolOptions.workers), bundles each test file with the worker into
// one worker whose "vitest" and "cloudflare:test" imports are cellhost's
// (js/), and runs it on real hosts, one fresh host per test when storage is
// isolated (docs/testing.md, "Vitest suites").
package vitest

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/evanw/esbuild/pkg/api"
)

//go:embed js/config-shims.js
var configShims string

// Config is what cellhost test reads of a vitest.config: the pool's
// options (test.poolOptions.workers) and the test selection.
type Config struct {
	File string // the vitest.config file ("" when there is none)
	Dir  string // the project directory (the config's)
	// Wrangler is the wrangler config (poolOptions.workers.wrangler.
	// configPath, absolute), Environment its env section.
	Wrangler    string
	Environment string
	// Main overrides the config's main (poolOptions.workers.main).
	Main string
	// Bindings are miniflare.bindings: extra env values (JSON).
	Bindings map[string]json.RawMessage
	// CompatibilityDate and CompatibilityFlags are miniflare's, added to
	// the wrangler config's.
	CompatibilityDate  string
	CompatibilityFlags []string
	// IsolatedStorage (default true): each test starts from the storage
	// its file's setup and beforeAll hooks made, and what it writes is
	// undone after it.
	IsolatedStorage bool
	SingleWorker    bool
	Include         []string
	Exclude         []string
	SetupFiles      []string // absolute
	TestTimeout     int      // ms
	HookTimeout     int      // ms
	// RestoreMocks is test.restoreMocks: vi.restoreAllMocks() after each
	// test.
	RestoreMocks bool
	// QueueConsumers are miniflare.queueConsumers: per queue, settings
	// laid over the wrangler config's consumer.
	QueueConsumers map[string]QueueConsumer
	// Ignored names the options read but not honoured (printed once).
	Ignored []string
}

// configNames are the files Vitest looks for, in its order.
var configNames = []string{"vitest.config.ts", "vitest.config.mts", "vitest.config.cts", "vitest.config.js", "vitest.config.mjs", "vitest.config.cjs"}

// FindConfig returns the vitest config file of dir, or "".
func FindConfig(dir string) string {
	for _, n := range configNames {
		p := filepath.Join(dir, n)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// QueueConsumer is one entry of miniflare.queueConsumers (seconds).
type QueueConsumer struct {
	MaxBatchSize    *int     `json:"maxBatchSize"`
	MaxBatchTimeout *float64 `json:"maxBatchTimeout"`
	MaxRetries      *int     `json:"maxRetries"`
	DeadLetterQueue *string  `json:"deadLetterQueue"`
	RetryDelay      *float64 `json:"retryDelay"`
}

// rawConfig is the JSON shape of the evaluated config's `test` key.
type rawConfig struct {
	Include      []string `json:"include"`
	Exclude      []string `json:"exclude"`
	SetupFiles   any      `json:"setupFiles"`
	TestTimeout  int      `json:"testTimeout"`
	HookTimeout  int      `json:"hookTimeout"`
	RestoreMocks bool     `json:"restoreMocks"`
	PoolOptions  struct {
		Workers struct {
			Main            string `json:"main"`
			IsolatedStorage *bool  `json:"isolatedStorage"`
			SingleWorker    bool   `json:"singleWorker"`
			Wrangler        struct {
				ConfigPath  string `json:"configPath"`
				Environment string `json:"environment"`
			} `json:"wrangler"`
			Miniflare map[string]json.RawMessage `json:"miniflare"`
		} `json:"workers"`
	} `json:"poolOptions"`
}

// LoadConfig reads the vitest config of dir (file, or found in dir when
// file is ""): bundled with esbuild and evaluated in goja, with the pool's
// config helpers and vitest/config replaced by cellhost's (config-shims.js).
func LoadConfig(dir, file string) (*Config, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if file == "" {
		file = FindConfig(dir)
	} else if file, err = filepath.Abs(file); err != nil {
		return nil, err
	}
	c := &Config{Dir: dir, File: file, IsolatedStorage: true}
	var raw rawConfig
	if file != "" {
		c.Dir = filepath.Dir(file)
		js, err := evalConfig(file)
		if err != nil {
			return nil, err
		}
		var top struct {
			Test json.RawMessage `json:"test"`
		}
		if err := json.Unmarshal(js, &top); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(top.Test) > 0 {
			if err := json.Unmarshal(top.Test, &raw); err != nil {
				return nil, fmt.Errorf("%s: test: %w", file, err)
			}
		}
	}
	w := raw.PoolOptions.Workers
	if w.IsolatedStorage != nil {
		c.IsolatedStorage = *w.IsolatedStorage
	}
	c.SingleWorker = w.SingleWorker
	c.Environment = w.Wrangler.Environment
	if w.Wrangler.ConfigPath != "" {
		c.Wrangler = filepath.Join(c.Dir, w.Wrangler.ConfigPath)
	}
	if w.Main != "" {
		c.Main = filepath.Join(c.Dir, w.Main)
	}
	for k, v := range w.Miniflare {
		var err error
		switch k {
		case "bindings":
			err = json.Unmarshal(v, &c.Bindings)
		case "compatibilityDate":
			err = json.Unmarshal(v, &c.CompatibilityDate)
		case "compatibilityFlags":
			err = json.Unmarshal(v, &c.CompatibilityFlags)
		case "queueConsumers":
			err = json.Unmarshal(v, &c.QueueConsumers)
		default:
			c.Ignored = append(c.Ignored, "miniflare."+k)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: poolOptions.workers.miniflare.%s: %w", file, k, err)
		}
	}
	sort.Strings(c.Ignored)
	c.Include, c.Exclude = raw.Include, raw.Exclude
	switch s := raw.SetupFiles.(type) {
	case string:
		c.SetupFiles = []string{filepath.Join(c.Dir, s)}
	case []any:
		for _, x := range s {
			if p, ok := x.(string); ok {
				c.SetupFiles = append(c.SetupFiles, filepath.Join(c.Dir, p))
			}
		}
	}
	c.TestTimeout, c.HookTimeout, c.RestoreMocks = raw.TestTimeout, raw.HookTimeout, raw.RestoreMocks
	if c.TestTimeout == 0 {
		c.TestTimeout = 5000
	}
	if c.HookTimeout == 0 {
		c.HookTimeout = 10000
	}
	if c.Wrangler == "" {
		for _, n := range []string{"wrangler.jsonc", "wrangler.json", "wrangler.toml"} {
			if p := filepath.Join(c.Dir, n); fileExists(p) {
				c.Wrangler = p
				break
			}
		}
	}
	if c.Wrangler == "" && c.Main == "" {
		return nil, fmt.Errorf("%s: no wrangler config: set poolOptions.workers.wrangler.configPath (or main), or put a wrangler.jsonc beside it", orDir(file, dir))
	}
	return c, nil
}

func orDir(file, dir string) string {
	if file != "" {
		return file
	}
	return dir
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// shimModules splits config-shims.js into its modules.
func shimModules() map[string]string {
	out := map[string]string{}
	parts := strings.Split(configShims, "//--- ")
	for _, p := range parts[1:] {
		name, body, _ := strings.Cut(p, "\n")
		out[strings.TrimSpace(name)] = body
	}
	out["@cloudflare/vitest-pool-workers"] = out["@cloudflare/vitest-pool-workers/config"]
	out["vitest/config"] += ""
	out["path"] = out["node:path"]
	out["url"] = out["node:url"]
	return out
}

// evalConfig evaluates a vitest config and returns its default export
// (awaited when it is a function or a promise) as JSON.
func evalConfig(file string) ([]byte, error) {
	shims := shimModules()
	dir := filepath.Dir(file)
	res := api.Build(api.BuildOptions{
		EntryPoints: []string{file},
		Bundle:      true,
		Write:       false,
		Format:      api.FormatIIFE,
		GlobalName:  "__vitest_config",
		Platform:    api.PlatformNeutral,
		Target:      api.ES2017,
		LogLevel:    api.LogLevelSilent,
		Define: map[string]string{
			"__dirname":           jsString(dir),
			"__filename":          jsString(file),
			"import.meta.dirname": jsString(dir),
			"import.meta.url":     jsString("file://" + file),
		},
		Plugins: []api.Plugin{{
			Name: "cellhost-vitest-config",
			Setup: func(b api.PluginBuild) {
				b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
					if _, ok := shims[a.Path]; ok {
						return api.OnResolveResult{Path: a.Path, Namespace: "cellhost-shim"}, nil
					}
					if strings.HasPrefix(a.Path, ".") || filepath.IsAbs(a.Path) {
						return api.OnResolveResult{}, nil // a file of the project: bundled
					}
					return api.OnResolveResult{}, fmt.Errorf("cellhost test evaluates vitest.config without Node: it cannot import %q (it knows @cloudflare/vitest-pool-workers/config, vitest/config, node:path and node:url)", a.Path)
				})
				b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "cellhost-shim"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
					s := shims[a.Path]
					return api.OnLoadResult{Contents: &s, Loader: api.LoaderJS}, nil
				})
			},
		}},
	})
	if len(res.Errors) > 0 {
		var msgs []string
		for _, m := range res.Errors {
			loc := ""
			if m.Location != nil {
				loc = fmt.Sprintf("%s:%d:%d: ", m.Location.File, m.Location.Line, m.Location.Column)
			}
			msgs = append(msgs, loc+m.Text)
		}
		return nil, fmt.Errorf("%s: %s", file, strings.Join(msgs, "; "))
	}
	rt := goja.New()
	native := rt.NewObject()
	_ = native.Set("readD1Migrations", func(p string) (any, error) {
		ms, err := ReadD1Migrations(p)
		if err != nil {
			return nil, err
		}
		// JS names (name, queries), not Go's, in this order (an object,
		// not a Go map, whose keys goja would list in random order).
		out := make([]any, len(ms))
		for i, m := range ms {
			qs := make([]any, len(m.Queries))
			for j, q := range m.Queries {
				qs[j] = q
			}
			o := rt.NewObject()
			_ = o.Set("name", m.Name)
			_ = o.Set("queries", rt.NewArray(qs...))
			out[i] = o
		}
		return out, nil
	})
	_ = native.Set("join", func(p ...string) string { return filepath.Join(p...) })
	_ = native.Set("resolve", func(p ...string) string {
		out := dir
		for _, x := range p {
			if filepath.IsAbs(x) {
				out = x
			} else {
				out = filepath.Join(out, x)
			}
		}
		return filepath.Clean(out)
	})
	_ = native.Set("dirname", filepath.Dir)
	_ = native.Set("basename", filepath.Base)
	_ = native.Set("relative", func(a, b string) string { r, _ := filepath.Rel(a, b); return r })
	_ = rt.Set("__native", native)
	if _, err := rt.RunString(string(res.OutputFiles[0].Contents)); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	v, err := rt.RunString(`(() => {
  let c = __vitest_config.default;
  if (typeof c === "function") c = c({ command: "serve", mode: "test" });
  let out, err;
  Promise.resolve(c).then((v) => { out = v; }, (e) => { err = e; });
  return () => { if (err) throw err; return JSON.stringify(out ?? {}); };
})()`)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	get, _ := goja.AssertFunction(v)
	s, err := get(goja.Undefined()) // promise jobs ran when RunString returned
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return []byte(s.String()), nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Migration is one D1 migration as the pool's readD1Migrations returns it.
type Migration struct {
	Name    string   `json:"name"`
	Queries []string `json:"queries"`
}

// ReadD1Migrations reads the .sql files of dir in name order, each split
// into its statements (SplitSQL), as the pool's readD1Migrations does.
func ReadD1Migrations(dir string) ([]Migration, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("readD1Migrations: %w", err)
	}
	out := []Migration{}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Name: e.Name(), Queries: SplitSQL(string(b))})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SplitSQL splits a SQL script into statements at the semicolons outside
// quotes (”, "", “, []) and comments (--, /* */), dropping empty ones
// and comments, as wrangler's splitSqlQuery does for D1 migrations.
// Hand-written: wrangler's is TypeScript and no Go SQLite library exposes
// a statement splitter; pinned by TestSplitSQL.
func SplitSQL(s string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		if t := strings.TrimSpace(cur.String()); t != "" {
			out = append(out, t)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			cur.WriteByte('\n')
		case ch == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				i += end + 3
			}
			cur.WriteByte(' ')
		case ch == '\'' || ch == '"' || ch == '`' || ch == '[':
			closer := ch
			if ch == '[' {
				closer = ']'
			}
			j := i + 1
			for j < len(s) {
				if s[j] == closer {
					if closer != ']' && j+1 < len(s) && s[j+1] == closer {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if j >= len(s) {
				j = len(s) - 1
			}
			cur.WriteString(s[i : j+1])
			i = j
		case ch == ';':
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return out
}

// testFilePattern is Vitest's default include,
// **/*.{test,spec}.?(c|m)[jt]s?(x).
var testFilePattern = regexp.MustCompile(`\.(test|spec)\.(c|m)?[jt]sx?$`)

// globRegexp turns a Vitest include/exclude glob (**, *, ?, {a,b}) into
// a regular expression over slash paths relative to the project.
func globRegexp(g string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	g = strings.TrimPrefix(g, "./")
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			if i+1 < len(g) && g[i+1] == '*' {
				i++
				if i+1 < len(g) && g[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		case '{':
			b.WriteString("(?:")
		case '}':
			b.WriteString(")")
		case ',':
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

// TestFiles lists the project's test files (relative slash paths, sorted):
// the config's include globs, or Vitest's default pattern, minus the
// excludes and node_modules, dist and dot directories.
func (c *Config) TestFiles() ([]string, error) {
	var inc, exc []*regexp.Regexp
	for _, g := range c.Include {
		r, err := globRegexp(g)
		if err != nil {
			return nil, fmt.Errorf("include %q: %w", g, err)
		}
		inc = append(inc, r)
	}
	for _, g := range c.Exclude {
		r, err := globRegexp(g)
		if err != nil {
			return nil, fmt.Errorf("exclude %q: %w", g, err)
		}
		exc = append(exc, r)
	}
	var out []string
	err := filepath.WalkDir(c.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != c.Dir && (name == "node_modules" || name == "dist" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(c.Dir, p)
		rel = filepath.ToSlash(rel)
		ok := false
		if len(inc) == 0 {
			ok = testFilePattern.MatchString(name)
		}
		for _, r := range inc {
			ok = ok || r.MatchString(rel)
		}
		for _, r := range exc {
			if r.MatchString(rel) {
				ok = false
			}
		}
		if ok {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
