// Package wrangler reads wrangler configuration files (wrangler.jsonc,
// wrangler.json, wrangler.toml) strictly: the config only, decoded and
// validated, nothing run. internal/project turns a Config into a host
// configuration. It is shared by cmd/cellhost, the test harnesses and
// cellhost test.
package wrangler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/joho/godotenv"
	"github.com/tailscale/hujson"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/jsapi"
)

// configNames are the wrangler configuration files, in the order wrangler
// looks for them.
var configNames = []string{"wrangler.jsonc", "wrangler.json", "wrangler.toml"}

// Binding is one Durable Object binding: env.<Name> is a namespace of the
// class Class exported by the entry module.
type Binding struct {
	Name  string
	Class string
}

// Config is the part of a wrangler configuration cellhost uses.
type Config struct {
	Path               string // the config file, "" when serving a bare module
	Dir                string // paths in the config are relative to this
	Name               string
	Main               string // absolute path of the entry module
	CompatibilityDate  string
	CompatibilityFlags []string
	Bindings           []Binding // the Durable Object bindings (durable_objects.bindings)
	Vars               map[string]any
	// CPULimit is limits.cpu_ms: the CPU time one event may use before it
	// is interrupted (0: the host's default, 30 s, as on Cloudflare).
	CPULimit time.Duration
	Warnings []string // keys accepted but without effect here
	// Env is the env.<name> section applied (--env), "" for none.
	Env string
	// Secrets are the names of the vars read from SecretsFile (.dev.vars,
	// .dev.vars.<env> or .env): shown hidden, as wrangler does.
	Secrets     []string
	SecretsFile string
	// CLIVars are the names of the vars set with --var.
	CLIVars []string
	// Plugins are the bindings of the binding plugins (bindings/binding:
	// kv_namespaces, d1_databases, r2_buckets, services, assets, queues,
	// ...), one Use per configuration key present, in key order.
	Plugins []binding.Use
	// Crons are the cron triggers (triggers.crons).
	Crons []string
	// Rules are the module rules (`rules`), before wrangler's defaults.
	Rules []jsapi.ModuleRule
	// Define and Alias are the configuration's `define` and `alias`.
	Define map[string]string
	Alias  map[string]string
	// Build is the custom build (`build`), nil without a build.command.
	Build    *CustomBuild
	envFiles []string // Options.EnvFiles
	// Dev is the config's "dev" section (the keys cellhost dev reads).
	Dev DevSettings
}

// DevSettings are the "dev" keys cellhost dev honours when their flags
// are not given (zero: not set).
type DevSettings struct {
	Port          int    // dev.port
	IP            string // dev.ip
	LocalProtocol string // dev.local_protocol: "http" or "https"
}

// CustomBuild is wrangler's "build" key: a shell command run before the
// worker is bundled (`cellhost dev` runs it at start and again when a file
// under a watch directory changes, as wrangler dev does).
type CustomBuild struct {
	Command   string
	Cwd       string   // absolute: build.cwd against the config's directory (default: that directory)
	WatchDirs []string // absolute: build.watch_dir (default "./src") against the config's directory
}

// Options are the command-line settings that shape a configuration.
type Options struct {
	Env  string   // --env: apply the env.<name> section
	Vars []string // --var KEY:VALUE, in order; they override every other var
	// Config is a config file to read (wrangler's -c/--config); the
	// argument, if any, is then the entry module (overriding main).
	Config string
	// EnvFiles are the .env files to read for vars (wrangler's --env-file,
	// later ones win) when there is no .dev.vars: instead of .env.
	EnvFiles []string
}

// wranglerFile is the strict shape of a wrangler config.
type wranglerFile struct {
	Rules                 []json.RawMessage `json:"rules"`
	FindAdditionalModules *bool             `json:"find_additional_modules"`
	BaseDir               string            `json:"base_dir"`
	PreserveFileNames     *bool             `json:"preserve_file_names"`
	Define                map[string]any    `json:"define"`
	Alias                 map[string]any    `json:"alias"`
	Name                  string            `json:"name"`
	Main                  string            `json:"main"`
	CompatibilityDate     string            `json:"compatibility_date"`
	CompatibilityFlags    []string          `json:"compatibility_flags"`
	DurableObjects        *durableObjects   `json:"durable_objects"`
	Migrations            []migration       `json:"migrations"`
	Vars                  map[string]any    `json:"vars"`
	Triggers              *struct {
		Crons []string `json:"crons"`
	} `json:"triggers"`
	Limits *limits                    `json:"limits"`
	Dev    map[string]json.RawMessage `json:"dev"`
	Build  *struct {
		Command  string          `json:"command"`
		Cwd      string          `json:"cwd"`
		WatchDir json.RawMessage `json:"watch_dir"`
	} `json:"build"`
}

// limits is wrangler's "limits" table. cpu_ms is honoured; subrequests is
// accepted (cellhost does not count subrequests).
type limits struct {
	CPUMs       *int64 `json:"cpu_ms"`
	Subrequests *int64 `json:"subrequests"`
}

// maxCPUMs is Cloudflare's largest limits.cpu_ms (5 minutes).
const maxCPUMs = 300_000

type durableObjects struct {
	Bindings []doBinding `json:"bindings"`
}

type doBinding struct {
	Name       string `json:"name"`
	ClassName  string `json:"class_name"`
	ScriptName string `json:"script_name"`
}

type migration struct {
	Tag               string          `json:"tag"`
	NewClasses        []string        `json:"new_classes"`
	NewSqliteClasses  []string        `json:"new_sqlite_classes"`
	RenamedClasses    json.RawMessage `json:"renamed_classes"`
	DeletedClasses    []string        `json:"deleted_classes"`
	TransferedClasses json.RawMessage `json:"transferred_classes"`
}

// knownKeys are the keys cellhost reads itself; the binding plugins read
// theirs (binding.Keys).
var knownKeys = []string{"name", "main", "compatibility_date", "compatibility_flags", "durable_objects", "migrations", "vars", "limits", "triggers", "rules", "find_additional_modules", "base_dir", "preserve_file_names", "define", "alias", "build", "dev"}

// deployKeys are wrangler keys about deployment to Cloudflare (or the
// editor); they mean nothing to a local host and are accepted silently.
var deployKeys = map[string]bool{
	"$schema": true, "account_id": true, "workers_dev": true, "routes": true, "route": true,
	"observability": true, "placement": true, "logpush": true, "upload_source_maps": true,
	"preview_urls": true, "minify": true, "keep_vars": true, "send_metrics": true,
	"env": true, "tail_consumers": true, "usage_model": true, "keep_names": true, "legacy_env": true,
}

// nonInheritable are the keys an env.<name> section does not inherit from
// the top level (wrangler's "non-inheritable keys"): bindings and vars.
var nonInheritable = map[string]bool{
	"vars": true, "define": true, "durable_objects": true, "kv_namespaces": true, "r2_buckets": true,
	"d1_databases": true, "services": true, "queues": true, "analytics_engine_datasets": true,
	"ai": true, "vectorize": true, "hyperdrive": true, "browser": true, "send_email": true,
	"version_metadata": true, "workflows": true, "dispatch_namespaces": true, "mtls_certificates": true,
	"images": true, "secrets_store_secrets": true, "pipelines": true, "unsafe": true, "tail_consumers": true,
}

// unsupportedKeys are non-binding features cellhost does not have yet.
var unsupportedKeys = map[string]string{
	"unsafe":    "unsafe bindings are not supported",
	"no_bundle": "cellhost always bundles with esbuild",
}

// Find returns the wrangler config file in dir, or "".
func Find(dir string) string {
	for _, n := range configNames {
		p := filepath.Join(dir, n)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// Load reads a wrangler config file with no command-line options.
func Load(path string) (*Config, error) { return LoadWith(path, Options{}) }

// LoadWith reads and validates a wrangler config file, applies the env
// section opt.Env, the secrets file and opt.Vars. A key cellhost does not
// know is a warning naming it; a binding of a kind cellhost does not have
// yet becomes a stub (see StubBinding); a malformed value of a key cellhost
// reads is an error.
func LoadWith(path string, opt Options) (*Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	var js []byte
	if strings.HasSuffix(path, ".toml") {
		var m map[string]any
		if _, err := toml.Decode(string(raw), &m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if js, err = json.Marshal(m); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	} else {
		if js, err = hujson.Standardize(raw); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(js, &top); err != nil {
		return nil, fmt.Errorf("%s: the configuration must be an object: %w", path, err)
	}
	base := filepath.Base(path)
	cfg := &Config{Path: path, Dir: filepath.Dir(path), Env: opt.Env, envFiles: opt.EnvFiles}
	if opt.Env != "" {
		if err := applyEnv(top, opt.Env, base, cfg); err != nil {
			return nil, err
		}
	}
	known := map[string]bool{}
	for _, k := range knownKeys {
		known[k] = true
	}
	var unknown, pluginKeys []string
	pluginRaw := map[string]json.RawMessage{}
	for _, k := range sortedKeys(top) {
		switch {
		case known[k]:
			continue
		case deployKeys[k]:
		case binding.Lookup(k) != nil:
			pluginKeys = append(pluginKeys, k)
			pluginRaw[k] = top[k]
		case unsupportedKeys[k] != "":
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %q: %s; ignored", base, k, unsupportedKeys[k]))
		default:
			unknown = append(unknown, k)
		}
		delete(top, k)
	}
	if len(unknown) > 0 {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: unknown configuration key %s; ignored (cellhost reads: %s)", base, quoteAll(unknown), strings.Join(append(append([]string(nil), knownKeys...), binding.Keys()...), ", ")))
	}
	filtered, _ := json.Marshal(top)
	dec := json.NewDecoder(bytes.NewReader(filtered))
	dec.DisallowUnknownFields()
	var f wranglerFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Main == "" {
		return nil, fmt.Errorf("%s: \"main\" is missing: name the worker's entry module, e.g. \"main\": \"src/index.js\"", path)
	}
	cfg.Name = f.Name
	if cfg.Name == "" {
		cfg.Name = filepath.Base(cfg.Dir)
	}
	cfg.Main = filepath.Join(cfg.Dir, f.Main)
	cfg.CompatibilityDate = f.CompatibilityDate
	cfg.CompatibilityFlags = f.CompatibilityFlags
	if f.Triggers != nil {
		cfg.Crons = f.Triggers.Crons
	}
	cfg.Vars = f.Vars
	if err := cfg.readBuild(&f, base); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.readCustomBuild(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := cfg.readDev(f.Dev); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Limits != nil && f.Limits.CPUMs != nil {
		ms := *f.Limits.CPUMs
		if ms < 1 || ms > maxCPUMs {
			return nil, fmt.Errorf("%s: limits.cpu_ms is %d: it must be between 1 and %d", path, ms, maxCPUMs)
		}
		cfg.CPULimit = time.Duration(ms) * time.Millisecond
	}
	if cfg.Vars == nil {
		cfg.Vars = map[string]any{}
	}
	names := map[string]string{} // env name → what it is, for clashes
	claim := func(name, what string) error {
		if prev, dup := names[name]; dup {
			return fmt.Errorf("%s: env.%s is bound twice: as %s and as %s", path, name, prev, what)
		}
		names[name] = what
		return nil
	}
	for name := range cfg.Vars {
		names[name] = "a var"
	}
	if f.DurableObjects != nil {
		for i, b := range f.DurableObjects.Bindings {
			switch {
			case b.Name == "" || b.ClassName == "":
				return nil, fmt.Errorf("%s: durable_objects.bindings[%d] needs both \"name\" and \"class_name\"", path, i)
			case b.ScriptName != "":
				return nil, fmt.Errorf("%s: durable_objects.bindings[%d] (%s) sets script_name %q: bindings to another worker's classes are not supported", path, i, b.Name, b.ScriptName)
			}
			if err := claim(b.Name, "a durable_objects binding"); err != nil {
				return nil, err
			}
			cfg.Bindings = append(cfg.Bindings, Binding{Name: b.Name, Class: b.ClassName})
		}
	}
	if err := cfg.decodePlugins(pluginKeys, pluginRaw, claim); err != nil {
		return nil, err
	}
	if err := cfg.applyVars(opt, names); err != nil {
		return nil, err
	}
	sort.Strings(cfg.Warnings)
	return cfg, nil
}

// decodePlugins hands each binding plugin's key to its Decode, in key
// order, and claims the env names of its entries.
func (cfg *Config) decodePlugins(keys []string, raw map[string]json.RawMessage, claim func(name, what string) error) error {
	d := &binding.Decoder{Path: cfg.Path, Dir: cfg.Dir, Worker: cfg.Name,
		CompatibilityDate: cfg.CompatibilityDate, CompatibilityFlags: cfg.CompatibilityFlags,
		Warn: func(msg string) { cfg.Warnings = append(cfg.Warnings, msg) }}
	for _, k := range keys {
		p := binding.Lookup(k)
		entries, err := p.Decode(d, raw[k])
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.Path, err)
		}
		for _, e := range entries {
			if e.Name == "" {
				continue
			}
			kind := e.Kind
			if kind == "" {
				kind = p.Kind
			}
			if err := claim(e.Name, article(kind)); err != nil {
				return err
			}
		}
		if len(entries) > 0 {
			cfg.Plugins = append(cfg.Plugins, binding.Use{Plugin: p, Entries: entries})
		}
	}
	return nil
}

// article puts "a" or "an" before kind ("an R2 bucket", "a KV
// namespace", "an Email sender").
func article(kind string) string {
	vowels := "AEIOUaeiou"
	if len(kind) > 1 && (kind[1] >= 'A' && kind[1] <= 'Z' || kind[1] >= '0' && kind[1] <= '9') {
		vowels = "AEFHILMNORSX" // an acronym, read letter by letter
	}
	if kind != "" && strings.ContainsRune(vowels, rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// Entries returns the entries of the binding plugin of key.
func (cfg *Config) Entries(key string) []binding.Entry {
	for _, u := range cfg.Plugins {
		if u.Plugin.Key == key {
			return u.Entries
		}
	}
	return nil
}

// applyVars reads the secrets file, then the --var settings. names maps
// the env names already bound to what they are.
func (cfg *Config) applyVars(opt Options, names map[string]string) error {
	if err := cfg.loadSecrets(); err != nil {
		return err
	}
	for _, kv := range opt.Vars {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || k == "" {
			return fmt.Errorf("--var %q: want KEY:VALUE", kv)
		}
		if what, clash := names[k]; clash && what != "a var" {
			return fmt.Errorf("--var %s: env.%s is already %s", k, k, what)
		}
		cfg.Vars[k] = v
		cfg.CLIVars = append(cfg.CLIVars, k)
	}
	return nil
}

// applyEnv replaces top's keys by those of env.<name>, as wrangler does:
// the section inherits the top level's other keys except bindings and
// vars, and the worker's name becomes <name>-<env> unless the section names
// it.
func applyEnv(top map[string]json.RawMessage, env, base string, cfg *Config) error {
	var envs map[string]map[string]json.RawMessage
	if raw, ok := top["env"]; ok {
		if err := json.Unmarshal(raw, &envs); err != nil {
			return fmt.Errorf("%s: \"env\" must map names to sections: %w", base, err)
		}
	}
	sec, ok := envs[env]
	if !ok {
		have := sortedKeys(envs)
		if len(have) == 0 {
			return fmt.Errorf("--env %s: %s has no \"env\" sections", env, base)
		}
		return fmt.Errorf("--env %s: %s has no env.%s section (it has: %s)", env, base, env, strings.Join(have, ", "))
	}
	for k := range top {
		if nonInheritable[k] {
			if _, here := sec[k]; !here {
				cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %q is set at the top level but not in env.%s; env.%s does not inherit it", base, k, env, env))
				delete(top, k)
			}
		}
	}
	if _, named := sec["name"]; !named {
		var name string
		if json.Unmarshal(top["name"], &name) == nil && name != "" {
			sec["name"], _ = json.Marshal(name + "-" + env)
		}
	}
	for k, v := range sec {
		top[k] = v
	}
	delete(top, "env")
	return nil
}

// loadSecrets reads the dev secrets as wrangler dev does: .dev.vars.<env>
// if --env names one that exists, else .dev.vars; without either, .env
// then .env.<env> (the latter wins). They override vars of the same name.
func (cfg *Config) loadSecrets() error {
	var files []string
	if cfg.Env != "" && fileExists(filepath.Join(cfg.Dir, ".dev.vars."+cfg.Env)) {
		files = []string{".dev.vars." + cfg.Env}
	} else if fileExists(filepath.Join(cfg.Dir, ".dev.vars")) {
		files = []string{".dev.vars"}
	} else if len(cfg.envFiles) > 0 {
		files = cfg.envFiles
	} else {
		for _, f := range []string{".env", ".env." + cfg.Env} {
			if f != ".env." && fileExists(filepath.Join(cfg.Dir, f)) {
				files = append(files, f)
			}
		}
	}
	seen := map[string]bool{}
	for _, f := range files {
		fp := f
		if !filepath.IsAbs(fp) {
			fp = filepath.Join(cfg.Dir, f)
		}
		vals, err := godotenv.Read(fp)
		if err != nil {
			return fmt.Errorf("%s: %w", fp, err)
		}
		for _, b := range cfg.Bindings {
			if _, clash := vals[b.Name]; clash {
				return fmt.Errorf("%s: %s is also a durable_objects binding", f, b.Name)
			}
		}
		for k, v := range vals {
			cfg.Vars[k] = v
			if !seen[k] {
				seen[k] = true
				cfg.Secrets = append(cfg.Secrets, k)
			}
		}
	}
	sort.Strings(cfg.Secrets)
	cfg.SecretsFile = strings.Join(files, ", ")
	return nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// Resolve turns the dev/serve argument (a directory or a module file)
// into a configuration, with no command-line options.
func Resolve(arg string) (*Config, error) { return ResolveWith(arg, Options{}) }

// ResolveWith is Resolve with the command-line options.
func ResolveWith(arg string, opt Options) (*Config, error) {
	switch filepath.Ext(arg) {
	case ".json", ".jsonc", ".toml":
		if opt.Config == "" {
			opt.Config, arg = arg, ""
		}
	}
	if opt.Config != "" {
		cfg, err := LoadWith(opt.Config, opt)
		if err != nil {
			return nil, err
		}
		if arg != "" {
			if cfg.Main, err = filepath.Abs(arg); err != nil {
				return nil, err
			}
		}
		if cfg.Build == nil {
			if err := cfg.CheckMain(); err != nil {
				return nil, err
			}
		}
		return cfg, nil
	}
	st, err := os.Stat(arg)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such file or directory", arg)
		}
		return nil, err
	}
	if st.IsDir() {
		p := Find(arg)
		if p == "" {
			return nil, fmt.Errorf("%s: no wrangler.jsonc, wrangler.json or wrangler.toml here; pass the entry module instead (cellhost dev %s)", arg, filepath.Join(arg, "index.js"))
		}
		cfg, err := LoadWith(p, opt)
		if err != nil {
			return nil, err
		}
		// With a custom build, main may be what the build writes: the
		// caller checks it after running the build (CheckMain).
		if cfg.Build == nil {
			if err := cfg.CheckMain(); err != nil {
				return nil, err
			}
		}
		return cfg, nil
	}
	switch filepath.Ext(arg) {
	case ".js", ".mjs", ".ts", ".mts":
	default:
		return nil, fmt.Errorf("%s: not a directory or a .js/.ts module", arg)
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, err
	}
	if opt.Env != "" {
		return nil, fmt.Errorf("--env %s: a bare module has no wrangler config to hold env sections", opt.Env)
	}
	base := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	cfg := &Config{Dir: filepath.Dir(abs), Name: base, Main: abs, Vars: map[string]any{}}
	if err := cfg.applyVars(opt, map[string]string{}); err != nil {
		return nil, err
	}
	return cfg, nil
}

// BundleOptions are the bundler's settings from the configuration.
func (cfg *Config) BundleOptions() jsapi.BundleOptions {
	return jsapi.BundleOptions{CompatibilityDate: cfg.CompatibilityDate, CompatibilityFlags: cfg.CompatibilityFlags,
		Rules: cfg.Rules, Define: cfg.Define, Alias: cfg.Alias, AliasDir: cfg.Dir}
}

// readBuild reads the keys that shape the bundle: rules (validated as
// wrangler's validateRule does), find_additional_modules, define and alias.
func (cfg *Config) readBuild(f *wranglerFile, base string) error {
	for i, raw := range f.Rules {
		field := fmt.Sprintf("rules[%d]", i)
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil || m == nil {
			return fmt.Errorf("%q should be an object but got %s", field, raw)
		}
		var r jsapi.ModuleRule
		if json.Unmarshal(m["type"], &r.Type) != nil || !slices.Contains(jsapi.ModuleRuleTypes, r.Type) {
			return fmt.Errorf("%s: bindings should have a string \"type\" field, which contains one of \"ESModule\", \"CommonJS\", \"CompiledWasm\", \"Text\", or \"Data\"", field)
		}
		if json.Unmarshal(m["globs"], &r.Globs) != nil || r.Globs == nil {
			return fmt.Errorf("%s: expected %q to be an array of strings but got %s", field, field+".globs", orUndefined(m["globs"]))
		}
		if fb, ok := m["fallthrough"]; ok {
			var b bool
			if json.Unmarshal(fb, &b) != nil {
				return fmt.Errorf("%s: the field \"fallthrough\", when present, should be a boolean", field)
			}
			r.Fallthrough = &b
		}
		cfg.Rules = append(cfg.Rules, r)
	}
	if len(f.Rules) > 0 {
		_, _, warns := jsapi.ParseRules(cfg.Rules)
		for _, w := range warns {
			cfg.Warnings = append(cfg.Warnings, base+": "+w)
		}
	}
	if f.FindAdditionalModules != nil && *f.FindAdditionalModules {
		cfg.Warnings = append(cfg.Warnings, base+": \"find_additional_modules\": cellhost bundles the modules your code imports; an import() whose path is not a string literal cannot be resolved")
	}
	if f.Define != nil {
		cfg.Define = map[string]string{}
		for k, v := range f.Define {
			str, ok := v.(string)
			if !ok {
				return fmt.Errorf("the field \"define\" should be an object with string values, but %q is %s", k, jsType(v))
			}
			cfg.Define[k] = str
		}
	}
	if f.Alias != nil {
		cfg.Alias = map[string]string{}
		for k, v := range f.Alias {
			str, ok := v.(string)
			if !ok {
				return fmt.Errorf("Expected alias[\"%s\"] to be a string, but got %s", k, jsType(v))
			}
			cfg.Alias[k] = str
		}
	}
	return nil
}

// readCustomBuild reads "build" as wrangler's normalizeAndValidateBuild
// does: a string command, a string cwd, watch_dir a string or an array of
// strings (default "./src"); paths are against the config's directory.
func (cfg *Config) readCustomBuild(f *wranglerFile) error {
	b := f.Build
	if b == nil || strings.TrimSpace(b.Command) == "" {
		return nil
	}
	cb := &CustomBuild{Command: strings.TrimSpace(b.Command), Cwd: cfg.Dir}
	if b.Cwd != "" {
		cb.Cwd = filepath.Join(cfg.Dir, b.Cwd)
		if filepath.IsAbs(b.Cwd) {
			cb.Cwd = b.Cwd
		}
	}
	dirs := []string{"./src"}
	if len(b.WatchDir) > 0 && string(b.WatchDir) != "null" {
		var one string
		if json.Unmarshal(b.WatchDir, &one) == nil {
			dirs = []string{one}
		} else if json.Unmarshal(b.WatchDir, &dirs) != nil {
			return fmt.Errorf("Expected \"build.watch_dir\" to be of type string or an array of strings but got %s", b.WatchDir)
		}
	}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			d = filepath.Join(cfg.Dir, d)
		}
		cb.WatchDirs = append(cb.WatchDirs, d)
	}
	cfg.Build = cb
	return nil
}

// readDev reads dev.port, dev.ip and dev.local_protocol; the other dev
// keys (inspector_port, upstream_protocol, host, ...) are accepted.
func (cfg *Config) readDev(dev map[string]json.RawMessage) error {
	if raw, ok := dev["port"]; ok {
		if json.Unmarshal(raw, &cfg.Dev.Port) != nil || cfg.Dev.Port < 0 || cfg.Dev.Port > 65535 {
			return fmt.Errorf("Expected \"dev.port\" to be of type number but got %s", raw)
		}
	}
	if raw, ok := dev["ip"]; ok && json.Unmarshal(raw, &cfg.Dev.IP) != nil {
		return fmt.Errorf("Expected \"dev.ip\" to be of type string but got %s", raw)
	}
	if raw, ok := dev["local_protocol"]; ok {
		if json.Unmarshal(raw, &cfg.Dev.LocalProtocol) != nil || (cfg.Dev.LocalProtocol != "http" && cfg.Dev.LocalProtocol != "https") {
			return fmt.Errorf("Expected \"dev.local_protocol\" field to be one of [\"http\",\"https\"], but got %s", raw)
		}
	}
	return nil
}

// CheckMain fails when the entry module does not exist.
func (cfg *Config) CheckMain() error {
	if _, err := os.Stat(cfg.Main); err != nil {
		if cfg.Build != nil {
			return fmt.Errorf("%s: the entry module %s does not exist after the custom build `%s` ran: check that it writes %s", cfg.Path, cfg.Main, cfg.Build.Command, relTo(cfg.Dir, cfg.Main))
		}
		return fmt.Errorf("%s: the entry module %s does not exist", cfg.Path, cfg.Main)
	}
	return nil
}

func relTo(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return r
	}
	return p
}

func orUndefined(raw json.RawMessage) string {
	if raw == nil {
		return "undefined"
	}
	return string(raw)
}

// jsType is JavaScript's typeof of a decoded JSON value.
func jsType(v any) string {
	switch v.(type) {
	case nil, map[string]any, []any:
		return "object"
	case bool:
		return "boolean"
	case float64:
		return "number"
	}
	return "string"
}
