// Package wrangler reads wrangler configuration files (wrangler.jsonc,
// wrangler.json, wrangler.toml) strictly and turns a project into a host
// configuration. It is shared by cmd/cellhost and testjs.
package wrangler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/tailscale/hujson"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi"
)

// configNames are the wrangler configuration files, in the order wrangler
// looks for them.
var configNames = []string{"wrangler.jsonc", "wrangler.json", "wrangler.toml"}

// Config is the part of a wrangler configuration cellhost uses.
type Config struct {
	Path               string // the config file, "" when serving a bare module
	Dir                string // paths in the config are relative to this
	Name               string
	Main               string // absolute path of the entry module
	CompatibilityDate  string
	CompatibilityFlags []string
	Bindings           []host.Binding
	Vars               map[string]any
	// CPULimit is limits.cpu_ms: the CPU time one event may use before it
	// is interrupted (0: the host's default, 30 s, as on Cloudflare).
	CPULimit time.Duration
	Warnings []string // keys accepted but without effect here
}

// wranglerFile is the strict shape of a wrangler config.
type wranglerFile struct {
	Name               string          `json:"name"`
	Main               string          `json:"main"`
	CompatibilityDate  string          `json:"compatibility_date"`
	CompatibilityFlags []string        `json:"compatibility_flags"`
	DurableObjects     *durableObjects `json:"durable_objects"`
	Migrations         []migration     `json:"migrations"`
	Vars               map[string]any  `json:"vars"`
	Limits             *limits         `json:"limits"`
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

// ignoredKeys are wrangler keys about deployment to Cloudflare; they have no
// meaning for a local host and are accepted with a warning.
var ignoredKeys = map[string]bool{
	"$schema": true, "account_id": true, "workers_dev": true, "routes": true, "route": true,
	"observability": true, "placement": true, "logpush": true, "upload_source_maps": true,
	"preview_urls": true, "minify": true, "keep_vars": true, "send_metrics": true, "dev": true,
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

// Load reads and validates a wrangler config file strictly: an unknown
// key is an error that names it.
func Load(path string) (*Config, error) {
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
	known := map[string]bool{}
	for _, k := range []string{"name", "main", "compatibility_date", "compatibility_flags", "durable_objects", "migrations", "vars", "limits"} {
		known[k] = true
	}
	cfg := &Config{Path: path, Dir: filepath.Dir(path)}
	var unknown []string
	for k := range top {
		switch {
		case known[k]:
		case ignoredKeys[k]:
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: %q has no effect in cellhost; ignored", filepath.Base(path), k))
			delete(top, k)
		default:
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown configuration key %s (cellhost understands: name, main, compatibility_date, compatibility_flags, durable_objects, migrations, vars, limits)", path, quoteAll(unknown))
	}
	sort.Strings(cfg.Warnings)
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
	cfg.Vars = f.Vars
	if f.Limits != nil && f.Limits.CPUMs != nil {
		ms := *f.Limits.CPUMs
		if ms < 1 || ms > maxCPUMs {
			return nil, fmt.Errorf("%s: limits.cpu_ms is %d: it must be between 1 and %d", path, ms, maxCPUMs)
		}
		cfg.CPULimit = time.Duration(ms) * time.Millisecond
	}
	if f.DurableObjects != nil {
		seen := map[string]bool{}
		for i, b := range f.DurableObjects.Bindings {
			switch {
			case b.Name == "" || b.ClassName == "":
				return nil, fmt.Errorf("%s: durable_objects.bindings[%d] needs both \"name\" and \"class_name\"", path, i)
			case b.ScriptName != "":
				return nil, fmt.Errorf("%s: durable_objects.bindings[%d] (%s) sets script_name %q: bindings to another worker's classes are not supported", path, i, b.Name, b.ScriptName)
			case seen[b.Name]:
				return nil, fmt.Errorf("%s: durable_objects binding %q is declared twice", path, b.Name)
			}
			if _, clash := f.Vars[b.Name]; clash {
				return nil, fmt.Errorf("%s: %q is both a var and a durable_objects binding", path, b.Name)
			}
			seen[b.Name] = true
			cfg.Bindings = append(cfg.Bindings, host.Binding{Name: b.Name, Class: b.ClassName})
		}
	}
	return cfg, nil
}

func quoteAll(keys []string) string {
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}

// Resolve turns the dev/serve argument (a directory or a module file)
// into a configuration.
func Resolve(arg string) (*Config, error) {
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
		cfg, err := Load(p)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(cfg.Main); err != nil {
			return nil, fmt.Errorf("%s: the entry module %s does not exist", p, cfg.Main)
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
	base := strings.TrimSuffix(filepath.Base(abs), filepath.Ext(abs))
	return &Config{Dir: filepath.Dir(abs), Name: base, Main: abs}, nil
}

// HostConfig bundles the entry module and returns the host configuration for
// the project (every field but StateDir and Log). With no config file, every
// exported class becomes a Durable Object class bound under its own name.
func (cfg *Config) HostConfig() (host.Config, error) {
	bundle, err := jsapi.BuildBundle(cfg.Main)
	if err != nil {
		return host.Config{}, err
	}
	bindings := cfg.Bindings
	required := make([]string, 0, len(bindings))
	for _, b := range bindings {
		required = append(required, b.Class)
	}
	classes, err := jsapi.CheckWorker(bundle, required)
	if err != nil {
		return host.Config{}, err
	}
	if cfg.Path == "" {
		for _, c := range classes {
			bindings = append(bindings, host.Binding{Name: c, Class: c})
		}
	}
	return host.Config{
		Bundle: bundle, Script: cfg.Name, Bindings: bindings, Vars: cfg.Vars,
		CompatibilityDate: cfg.CompatibilityDate, CompatibilityFlags: cfg.CompatibilityFlags,
		CPULimit: cfg.CPULimit,
	}, nil
}
