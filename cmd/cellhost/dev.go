package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/httpguard"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/jsapi"
)

type devOptions struct {
	port           int
	ip             string
	state          string
	bucket         string
	durability     string
	backupInterval time.Duration
	noWatch        bool     // --no-watch: no reload on change
	verbose        bool     // --verbose: internal lines (ownership, ...) too
	noInspector    bool     // --no-inspector: no /_cellhost pages
	inspectorHost  string   // --inspector-host: a name besides the loopback ones the inspector answers
	env            string   // --env: the wrangler env.<name> section
	vars           []string // --var KEY:VALUE
	cf             string   // --cf: request.cf over wrangler's placeholder
	w              wranglerOptions

	// Hooks for tests: onReady is called with the listening address once
	// requests are served; onReload after every reload attempt.
	onReady     func(addr string)
	onReload    func(error)
	maxResident int
	maxOpen     int
	wake        wakeOptions
}

func newDevCommand(stdout, stderr io.Writer) *cobra.Command {
	var o devOptions
	cmd := &cobra.Command{
		Use:   "dev [dir | module.js]",
		Short: "Serve a worker and its Durable Objects locally, like wrangler dev",
		Long: `Serve a worker and its Durable Objects locally, like wrangler dev.

The argument is a directory with a wrangler.jsonc, wrangler.json or
wrangler.toml (default: the current directory), or a single .js/.ts module, in
which case every exported class is a Durable Object class bound under its own
name. /do/<Class>/<id-or-name> reaches an object directly; every other path
goes to the worker's default fetch handler. State is kept in <dir>/.cellhost:
the cell databases, and the bucket (a local directory, <state>/bucket) that
logs every commit as LTX before its reply leaves. --bucket s3://... logs to
S3 instead; --durability local skips the bucket (fsync only).

Vars come from the config's "vars", then .dev.vars (or .dev.vars.<env> with
--env; .env without either), then --var. cellhost dev watches the project and
reloads on every change; a build error keeps the previous code serving.`,
		Example: `  cellhost dev                              # the wrangler project in this directory
  cellhost dev examples/counter             # then: curl http://127.0.0.1:8787/
  cellhost dev src/index.ts --port 8788     # a bare module: every exported class is a DO class
  cellhost dev --env staging                # apply env.staging of wrangler.jsonc, read .dev.vars.staging
  cellhost dev --var API_TOKEN:dev-token --var DEBUG:1
  cellhost dev --state /tmp/app-state       # keep the objects' state elsewhere
  cellhost dev --durability local           # no bucket: commits are only fsync'd locally
  cellhost dev --bucket 's3://my-bucket/cells?endpoint=http://127.0.0.1:7070&region=us-east-1'`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			readWranglerDevFlags(cmd, &o)
			if o.w.showVersion {
				fmt.Fprintln(stdout, versionString())
				return nil
			}
			target := "."
			if len(args) == 1 {
				target = args[0]
			}
			target, err := applyWranglerDevFlags(target, &o, stderr)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runDev(ctx, target, o, stdout, stderr)
		},
	}
	cmd.Flags().IntVar(&o.port, "port", 8787, "port to listen on")
	cmd.Flags().StringVar(&o.ip, "ip", "127.0.0.1", "address to listen on")
	cmd.Flags().StringVar(&o.state, "state", "", "state directory (default <dir>/.cellhost)")
	cmd.Flags().StringVar(&o.bucket, "bucket", "", "bucket URL: file:///path, s3://bucket/prefix or mem://name (default file://<state>/bucket)")
	cmd.Flags().StringVar(&o.durability, "durability", host.DurabilityLog, "log (every commit in the bucket before its reply, RPO 0), backup (local fsync; changed cells saved to the bucket every --backup-interval) or local (fsync only, no bucket)")
	cmd.Flags().BoolVar(&o.verbose, "verbose", false, "also print cellhost's internal lines (cell ownership, leases)")
	cmd.Flags().BoolVar(&o.noInspector, "no-inspector", false, "do not serve the inspector at /_cellhost")
	cmd.Flags().StringVar(&o.inspectorHost, "inspector-host", "", "a host name the inspector answers besides localhost, 127.0.0.1 and [::1] (it refuses any other Host, and pages of another origin)")
	cmd.Flags().BoolVar(&o.noWatch, "no-watch", false, "do not reload when the project's files change")
	cmd.Flags().StringVarP(&o.env, "env", "e", "", "apply the wrangler config's env.<name> section (and read .dev.vars.<name>)")
	cmd.Flags().StringArrayVar(&o.vars, "var", nil, "set env.KEY to VALUE (KEY:VALUE; repeatable; overrides vars and .dev.vars)")
	cmd.Flags().DurationVar(&o.backupInterval, "backup-interval", host.DefaultBackupInterval, "how often --durability backup saves changed cells (its RPO)")
	cmd.Flags().IntVar(&o.maxResident, "max-resident-cells", defaultMaxResidentCells(), "most objects kept resident (holding their lease); past it the least recently used idle ones are evicted (the default is from memory; env CELLHOST_MAX_RESIDENT_CELLS)")
	cmd.Flags().IntVar(&o.maxOpen, "max-open-databases", defaultMaxOpenDatabases(), "most object databases open at once; past it the least recently used idle ones close theirs and stay resident (the default is from the descriptor limit; env CELLHOST_MAX_OPEN_DATABASES)")
	cmd.Flags().StringVar(&o.cf, "cf", "", "request.cf for every request: a JSON object or a file holding one, laid over wrangler dev's offline placeholder (country US, city Austin, colo DFW, ...); default: the file in CLOUDFLARE_CF_FETCH_PATH, as wrangler")
	o.wake.addFlags(cmd)
	addWranglerDevFlags(cmd, &o)
	return cmd
}

// prepareHost loads the project and builds an unopened Host. The caller
// sets Bucket and Node (serve.go's fleet wiring) before host.New.
func prepareHost(target, state string, log io.Writer) (host.Config, *wrangler.Config, error) {
	cfg, err := wrangler.Resolve(target)
	if err != nil {
		return host.Config{}, nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		return host.Config{}, nil, err
	}
	if state == "" {
		state = filepath.Join(cfg.Dir, ".cellhost")
	}
	hc.StateDir, hc.Log = state, log
	return hc, cfg, nil
}

// Markers of the lines cellhost dev prints about the worker, as wrangler
// marks its own.
const (
	markError = "✘ [ERROR]"
	markWarn  = "▲ [WARNING]"
)

// loadProject resolves the project and builds its host configuration (the
// project's fields only). Warnings go to warn when it is not nil.
func loadProject(target string, o devOptions, warn io.Writer) (*wrangler.Config, host.Config, error) {
	return loadProjectBuilt(target, o, warn, nil)
}

// loadProjectBuilt is loadProject with build, if not nil, run between
// reading the configuration and bundling (the custom build).
func loadProjectBuilt(target string, o devOptions, warn io.Writer, build func(*wrangler.Config) error) (*wrangler.Config, host.Config, error) {
	cfg, err := wrangler.ResolveWith(target, o.wranglerLoadOptions())
	if err != nil {
		return nil, host.Config{}, err
	}
	if err := o.overrideConfig(cfg); err != nil {
		return nil, host.Config{}, err
	}
	if warn != nil {
		for _, w := range cfg.Warnings {
			fmt.Fprintf(warn, "%s %s\n", markWarn, w)
		}
	}
	if cfg.Build != nil {
		if build != nil {
			if err := build(cfg); err != nil {
				return nil, host.Config{}, err
			}
		}
		if err := cfg.CheckMain(); err != nil {
			return nil, host.Config{}, err
		}
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		return nil, host.Config{}, err
	}
	return cfg, hc, nil
}

func runDev(ctx context.Context, target string, o devOptions, stdout, stderr io.Writer) error {
	endBuild := buildGC(true)
	defer endBuild() // (already ended once the worker serves)
	// The custom build runs before the first bundle, as wrangler's does;
	// its failure ends the command (wrangler dev exits too).
	cfg, hc, err := loadProjectBuilt(target, o, stderr, func(cfg *wrangler.Config) error {
		return runCustomBuild(ctx, cfg.Build, stdout)
	})
	var be *jsapi.BuildError
	if errors.As(err, &be) && be.Frames != "" {
		io.WriteString(stderr, be.Frames)
		return fmt.Errorf("the worker does not build: %s", strings.Join(be.Messages, "; "))
	}
	if err != nil {
		return err
	}
	cf, err := requestCF(o.cf)
	if err != nil {
		return err
	}
	// The config's dev section gives what its flags did not.
	if !o.w.portSet && cfg.Dev.Port != 0 {
		o.port = cfg.Dev.Port
	}
	if !o.w.ipSet && cfg.Dev.IP != "" {
		o.ip = cfg.Dev.IP
	}
	scheme := o.w.localProtocol
	if scheme == "" {
		scheme = cfg.Dev.LocalProtocol
	}
	var tlsConfig *tls.Config
	if scheme == "https" {
		if tlsConfig, err = devTLS(o.w.httpsKey, o.w.httpsCert); err != nil {
			return err
		}
	} else {
		scheme = "http"
	}
	addr := net.JoinHostPort(o.ip, strconv.Itoa(o.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, errAddrInUse) {
			return fmt.Errorf("cannot listen on %s: the port is in use by another program; stop it or pass --port", addr)
		}
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	defer ln.Close()
	hub := newLogHub() // the inspector's live log sees what the terminal does
	projectDir := cfg.Dir
	if abs, err := filepath.Abs(projectDir); err == nil {
		projectDir = abs // stacks name absolute files
	}
	log := newDevLog(hub.tee(stderr), projectDir)
	keep := host.Config{
		Storage: host.Storage{StateDir: o.state, BackupInterval: o.backupInterval},
		Dev:     host.Dev{ErrorPage: errorPage(projectDir), Console: log.console, RequestCF: cf},
		Logging: host.Logging{Log: log, Logger: slog.New(&devHandler{l: log, verbose: o.verbose})},
	}
	if keep.StateDir == "" {
		keep.StateDir = filepath.Join(cfg.Dir, ".cellhost")
	}
	// The state lock comes before the bucket: a second process on this
	// state directory must not touch the first one's node lease.
	lock, err := host.LockState(keep.StateDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	keep.StateLock = lock
	if err := ignoreState(keep.StateDir); err != nil {
		fmt.Fprintf(stderr, "%s %v\n", markWarn, err)
	}
	// The objects the host constructs, with the names that reached them,
	// for the inspector (objectnames.go); closed after the host (defers
	// run last first).
	names, err := openObjectNames(keep.StateDir)
	if err != nil {
		fmt.Fprintf(stderr, "%s the inspector cannot keep object names in %s: %v\n", markWarn, names.path, err)
	}
	defer names.close()
	keep.Constructed = names.record
	keep.MaxResidentCells, keep.MaxOpenDatabases = o.maxResident, o.maxOpen
	// Ownership's lines are internal (behind --verbose), except its
	// warnings, which a user must see without asking: among them the node
	// fenced itself (it answers 503 until the bucket is back) and it
	// rejoined.
	fleet, err := joinBucket(ctx, &keep, o.bucket, o.durability, slog.New(&devHandler{l: log, verbose: o.verbose, internal: true}))
	if err != nil {
		return err
	}
	defer fleet.close()
	// The wake index's lines are internal too (behind --verbose); its
	// warnings and errors are not.
	if err := fleet.prepareWake(ctx, &keep, o.wake, slog.New(&devHandler{l: log, verbose: o.verbose, internal: true})); err != nil {
		return err
	}
	d := &devServer{target: target, o: o, stdout: stdout, stderr: stderr, keep: keep, bindings: newBindingSet(keep.StateDir, keep.Bucket),
		reqLog: hub.tee(stdout), color: isTerminal(stdout), cronWake: make(chan struct{}, 1)}
	if !o.noInspector {
		d.inspector = &inspector{stateDir: keep.StateDir, classes: d.classes, hub: hub, live: d.inspectObject, name: d.objectName, names: names}
	}
	if err := d.start(cfg, hc); err != nil {
		return err
	}
	endBuild()
	defer d.close()
	if err := fleet.startWake(ctx, d); err != nil {
		return err
	}
	// Timeouts, a header limit, and a connection cap that answers 503
	// (internal/httpguard).
	maxConns, _ := defaultMaxConns()
	srv := httpguard.Server(d, httpguard.Config{})
	srv.RegisterOnShutdown(hub.close) // live log streams end, so Shutdown need not wait for them
	fmt.Fprintf(stdout, "cellhost dev: serving %s (%s) on %s://%s\n", cfg.Name, relOrAbs(cfg.Main), scheme, ln.Addr())
	d.addr = ln.Addr().String()
	var shown bytes.Buffer
	printBindings(&shown, cfg, hc, d.addr)
	d.shownBindings = shown.String()
	io.WriteString(stdout, d.shownBindings)
	if d.inspector != nil {
		fmt.Fprintf(stdout, "Inspector (objects, their KV and SQL): %s\n", strings.Replace(inspectorLink(ln.Addr().String()), "http:", scheme+":", 1))
	}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watchDone := make(chan struct{})
	defer func() { stopWatch(); <-watchDone }()
	if o.noWatch {
		close(watchDone)
	} else {
		// The directories are watched before the server answers (and
		// before onReady): an edit made once the first request has been
		// answered reloads. Before, the watch was set up concurrently and
		// an edit right after start could go unseen on a loaded machine.
		watching := make(chan struct{})
		go func() {
			defer close(watchDone)
			if err := d.watch(watchCtx, o.onReload, watching); err != nil {
				fmt.Fprintf(stderr, "%s %v; edits will not reload\n", markWarn, err)
			}
		}()
		<-watching
	}
	if len(cfg.Crons) > 0 {
		parseCrons(cfg.Crons, stderr)
		fmt.Fprintf(stdout, "Cron triggers fire on schedule; run one now: curl 'http://%s/cdn-cgi/handler/scheduled?cron=%s'\n", ln.Addr(), url.QueryEscape(cfg.Crons[0]))
		cronDone := make(chan struct{})
		go func() { defer close(cronDone); d.runCrons(watchCtx) }()
		defer func() { stopWatch(); <-cronDone }()
	}
	errc := make(chan error, 1)
	var gl net.Listener = httpguard.Listen(ln, maxConns)
	if tlsConfig != nil {
		gl = tls.NewListener(gl, tlsConfig)
	}
	go func() { errc <- srv.Serve(gl) }()
	if o.onReady != nil {
		o.onReady(ln.Addr().String())
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		// A lapsed node lease (a bucket outage) does not end the process:
		// the node fences itself, acknowledges nothing, and rejoins when
		// the bucket answers (ownership.Config.Rejoin).
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	return nil
}

// printBindings lists what the worker finds on env, as wrangler dev does:
// secrets hidden, vars as JSON.
func printBindings(w io.Writer, cfg *wrangler.Config, hc host.Config, addr string) {
	type row struct{ name, kind, value string }
	var rows []row
	for _, b := range hc.Bindings {
		rows = append(rows, row{b.Name, "Durable Object", fmt.Sprintf("%s  (http://%s/do/%s/<id-or-name>)", b.Class, addr, b.Class)})
	}
	var throwing []row
	for _, u := range cfg.Plugins {
		for _, e := range u.Entries {
			name, kind := e.Name, e.Kind
			if name == "" {
				name = "(" + u.Plugin.Key + ")"
			}
			if kind == "" {
				kind = u.Plugin.Kind
			}
			if e.Throws != "" {
				throwing = append(throwing, row{name, kind, "not supported yet: throws when used"})
				continue
			}
			rows = append(rows, row{name, kind, e.Show})
		}
	}
	secret, cli := map[string]bool{}, map[string]bool{}
	for _, k := range cfg.Secrets {
		secret[k] = true
	}
	for _, k := range cfg.CLIVars {
		cli[k] = true
	}
	names := make([]string, 0, len(cfg.Vars))
	for k := range cfg.Vars {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		switch {
		case cli[k]:
			rows = append(rows, row{k, "Var (--var)", jsonOf(cfg.Vars[k])})
		case secret[k]:
			rows = append(rows, row{k, "Secret (" + cfg.SecretsFile + ")", "(hidden)"})
		default:
			rows = append(rows, row{k, "Var", jsonOf(cfg.Vars[k])})
		}
	}
	rows = append(rows, throwing...)
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "Your worker has access to the following bindings:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "  env.%s\t%s\t%s\n", r.name, r.kind, r.value)
	}
	tw.Flush()
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}

func relOrAbs(p string) string {
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && len(r) < len(p) {
		return r
	}
	return p
}
