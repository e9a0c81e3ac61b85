package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/bindings/assets"
	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/internal/wrangler"
)

// wranglerDevFlags are `wrangler dev`'s flags (wrangler 4.164) that cellhost
// dev accepts so that a command line written for wrangler runs unchanged.
// Those cellhost can honour are real flags (devOptions); these are
// accepted and, when given, answered with one warning line saying why they
// have no effect here.
var ignoredDevFlags = []struct {
	name, short string
	kind        string // "bool", "string" or "array"
	why         string
}{
	{"profile", "", "string", "there is no Cloudflare account here"},
	{"install-skills", "", "bool", "there is no Cloudflare account here"},
	{"latest", "", "bool", "cellhost has one runtime; compatibility_date selects its behaviour"},
	{"no-bundle", "", "bool", "cellhost always bundles with esbuild"},
	{"bundle", "", "bool", "cellhost always bundles with esbuild"},
	{"inspector-port", "", "string", "cellhost has no DevTools protocol; its inspector is the /_cellhost page on the dev port"},
	{"inspector-ip", "", "string", "cellhost has no DevTools protocol; its inspector is the /_cellhost page on the dev port"},
	{"routes", "", "array", "routes are for deployment"},
	{"route", "", "array", "routes are for deployment"},
	{"host", "", "string", "request.url keeps the address cellhost listens on"},
	{"local-upstream", "", "string", "request.url keeps the address cellhost listens on"},
	{"infer-origin-from-routes", "", "bool", "request.url keeps the address cellhost listens on"},
	{"upstream-protocol", "", "string", "cellhost forwards nothing upstream"},
	{"jsx-factory", "", "string", "cellhost bundles JSX with esbuild's defaults (React.createElement)"},
	{"jsx-fragment", "", "string", "cellhost bundles JSX with esbuild's defaults (React.Fragment)"},
	{"tsconfig", "", "string", "esbuild reads the tsconfig.json next to your sources"},
	{"remote", "r", "bool", "cellhost runs everything on this machine; running locally"},
	{"minify", "", "bool", "the code runs unminified (errors keep their lines)"},
	{"live-reload", "", "bool", "cellhost reloads the worker, not the browser; refresh the page"},
	{"show-interactive-dev-session", "", "bool", "cellhost has no interactive session"},
	{"types", "", "bool", "run `wrangler types` to generate types"},
	{"tunnel", "", "bool", "cellhost opens no tunnel"},
	{"tunnel-name", "", "string", "cellhost opens no tunnel"},
	{"tunnel-allowed-mail", "", "array", "cellhost opens no tunnel"},
	{"enable-containers", "", "bool", "containers are not supported"},
	{"site", "", "string", "Workers Sites are deprecated; use assets (--assets)"},
	{"site-include", "", "array", "Workers Sites are deprecated; use assets (--assets)"},
	{"site-exclude", "", "array", "Workers Sites are deprecated; use assets (--assets)"},
	{"node-compat", "", "bool", "use the nodejs_compat compatibility flag"},
}

// wranglerOptions are the `wrangler dev` flags cellhost honours beyond its
// own (devOptions holds the result).
type wranglerOptions struct {
	config        string   // -c/--config
	cwd           string   // --cwd
	envFiles      []string // --env-file
	name          string   // --name
	compatDate    string   // --compatibility-date
	compatFlags   []string // --compatibility-flags
	assets        string   // --assets
	define, alias []string // --define KEY:VALUE, --alias MODULE:PATH
	persistTo     string   // --persist-to: the state directory
	localProtocol string   // --local-protocol http|https
	httpsKey      string   // --https-key-path
	httpsCert     string   // --https-cert-path
	logLevel      string   // --log-level
	local         bool     // -l/--local: always so here
	testScheduled bool     // --test-scheduled: /__scheduled is always served
	showVersion   bool     // -v/--version
	// portSet, ipSet: --port/--ip were given (else dev.port/dev.ip apply)
	portSet, ipSet bool
	ignored        []string // one warning per ignored flag given
}

func addWranglerDevFlags(cmd *cobra.Command, o *devOptions) {
	w := &o.w
	f := cmd.Flags()
	f.StringVarP(&w.config, "config", "c", "", "path to the wrangler configuration file (then the argument, if any, is the entry module)")
	f.StringVar(&w.cwd, "cwd", "", "run as if cellhost were started in this directory")
	f.StringArrayVar(&w.envFiles, "env-file", nil, "an .env file to read vars from instead of .env when there is no .dev.vars (repeatable; later ones win)")
	f.StringVar(&w.name, "name", "", "the worker's name (instead of the config's)")
	f.StringVar(&w.compatDate, "compatibility-date", "", "the compatibility date (instead of the config's)")
	f.StringArrayVar(&w.compatFlags, "compatibility-flags", nil, "compatibility flags (instead of the config's; repeatable)")
	f.StringArrayVar(&w.compatFlags, "compatibility-flag", nil, "same as --compatibility-flags")
	_ = f.MarkHidden("compatibility-flag")
	f.StringVar(&w.assets, "assets", "", "the static assets directory (instead of the config's assets.directory)")
	f.StringArrayVar(&w.define, "define", nil, "KEY:VALUE substituted in the code, as the config's define (repeatable)")
	f.StringArrayVar(&w.alias, "alias", nil, "MODULE:PATH, as the config's alias (repeatable)")
	f.StringVar(&w.persistTo, "persist-to", "", "same as --state (wrangler's name)")
	f.StringVar(&w.localProtocol, "local-protocol", "", "http (default) or https: serve over TLS, with --https-key-path/--https-cert-path or a self-signed certificate (config: dev.local_protocol)")
	f.StringVar(&w.httpsKey, "https-key-path", "", "the TLS key for --local-protocol https (PEM)")
	f.StringVar(&w.httpsCert, "https-cert-path", "", "the TLS certificate for --local-protocol https (PEM)")
	f.StringVar(&w.logLevel, "log-level", "", "debug (same as --verbose), info, log, warn, error or none: the least severe of cellhost's own lines to show")
	f.BoolVarP(&w.local, "local", "l", false, "run locally (always so here)")
	f.BoolVar(&w.testScheduled, "test-scheduled", false, "serve /__scheduled (always so here)")
	f.BoolVarP(&w.showVersion, "version", "v", false, "print the version and exit (as wrangler's -v)")
	for _, fl := range ignoredDevFlags {
		usage := "wrangler's; no effect here: " + fl.why
		switch fl.kind {
		case "bool":
			f.BoolP(fl.name, fl.short, false, usage)
		case "string":
			f.StringP(fl.name, fl.short, "", usage)
		default:
			f.StringArrayP(fl.name, fl.short, nil, usage)
		}
		_ = f.MarkHidden(fl.name)
	}
}

// readWranglerDevFlags notes which flags were given, after parsing.
func readWranglerDevFlags(cmd *cobra.Command, o *devOptions) {
	f := cmd.Flags()
	o.w.portSet, o.w.ipSet = f.Changed("port"), f.Changed("ip")
	for _, fl := range ignoredDevFlags {
		if f.Changed(fl.name) {
			o.w.ignored = append(o.w.ignored, fmt.Sprintf("--%s: %s; ignored", fl.name, fl.why))
		}
	}
}

// applyWranglerDevFlags does, before the project loads, what the honoured
// wrangler flags mean: the working directory, --persist-to and the
// warnings; it returns the target and the wrangler options.
func applyWranglerDevFlags(target string, o *devOptions, stderr io.Writer) (string, error) {
	w := &o.w
	for _, line := range w.ignored {
		fmt.Fprintf(stderr, "%s %s\n", markWarn, line)
	}
	if w.cwd != "" {
		if err := os.Chdir(w.cwd); err != nil {
			return "", fmt.Errorf("--cwd: %w", err)
		}
	}
	if w.persistTo != "" {
		if o.state != "" && o.state != w.persistTo {
			return "", fmt.Errorf("--persist-to %s and --state %s name two state directories: give one", w.persistTo, o.state)
		}
		o.state = w.persistTo
	}
	switch w.logLevel {
	case "", "info", "log", "warn", "error", "none":
		if w.logLevel != "" && w.logLevel != "info" && w.logLevel != "log" {
			fmt.Fprintf(stderr, "%s --log-level %s: cellhost shows its warnings and errors at every level; ignored\n", markWarn, w.logLevel)
		}
	case "debug":
		o.verbose = true
	default:
		return "", fmt.Errorf("--log-level %q: want one of debug, info, log, warn, error, none", w.logLevel)
	}
	switch w.localProtocol {
	case "", "http", "https":
	default:
		return "", fmt.Errorf("--local-protocol %q: want http or https", w.localProtocol)
	}
	if w.config != "" && target == "." {
		target = ""
	}
	return target, nil
}

// wranglerLoadOptions are the wrangler.Options the flags ask for.
func (o devOptions) wranglerLoadOptions() wrangler.Options {
	opt := wrangler.Options{Env: o.env, Vars: o.vars, Config: o.w.config}
	for _, f := range o.w.envFiles {
		if abs, err := filepath.Abs(f); err == nil {
			f = abs
		}
		opt.EnvFiles = append(opt.EnvFiles, f)
	}
	return opt
}

// overrideConfig lays the flags that replace config keys over cfg.
func (o devOptions) overrideConfig(cfg *wrangler.Config) error {
	w := o.w
	if w.name != "" {
		cfg.Name = w.name
	}
	if w.compatDate != "" {
		cfg.CompatibilityDate = w.compatDate
	}
	if len(w.compatFlags) > 0 {
		cfg.CompatibilityFlags = w.compatFlags
	}
	if w.assets != "" {
		dir, err := filepath.Abs(w.assets)
		if err != nil {
			return err
		}
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("--assets %s: not a directory", w.assets)
		}
		if a := assets.Of(cfg.Entries(assets.ConfigKey)); a != nil {
			a.Directory = dir
		} else {
			cfg.Plugins = append(cfg.Plugins, binding.Use{Plugin: binding.Lookup(assets.ConfigKey), Entries: []binding.Entry{
				{Config: &assets.Config{Directory: dir, NotFoundHandling: "none", HTMLHandling: "auto-trailing-slash"}}}})
		}
	}
	for _, kv := range w.define {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || k == "" {
			return fmt.Errorf("--define %q: want KEY:VALUE", kv)
		}
		if cfg.Define == nil {
			cfg.Define = map[string]string{}
		}
		cfg.Define[k] = v
	}
	for _, kv := range w.alias {
		k, v, ok := strings.Cut(kv, ":")
		if !ok || k == "" {
			return fmt.Errorf("--alias %q: want MODULE:PATH", kv)
		}
		if cfg.Alias == nil {
			cfg.Alias = map[string]string{}
		}
		cfg.Alias[k] = v
	}
	return nil
}

// devTLS is the TLS configuration of --local-protocol https: the given key
// and certificate, else a self-signed certificate for localhost made at
// start (as wrangler makes one; browsers ask to accept it).
func devTLS(keyPath, certPath string) (*tls.Config, error) {
	if keyPath != "" || certPath != "" {
		if keyPath == "" || certPath == "" {
			return nil, fmt.Errorf("--https-key-path and --https-cert-path go together: give both")
		}
		c, err := tls.LoadX509KeyPair(certPath, keyPath)
		if err != nil {
			return nil, fmt.Errorf("--https-cert-path/--https-key-path: %w", err)
		}
		return &tls.Config{Certificates: []tls.Certificate{c}}, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "localhost", Organization: []string{"cellhost dev"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}, nil
}
