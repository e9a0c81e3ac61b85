package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
)

type devOptions struct {
	port           int
	ip             string
	state          string
	bucket         string
	durability     string
	backupInterval time.Duration
	maxResident    int
	wake           wakeOptions
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
S3 instead; --durability local skips the bucket (fsync only).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := "."
			if len(args) == 1 {
				target = args[0]
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
	cmd.Flags().DurationVar(&o.backupInterval, "backup-interval", host.DefaultBackupInterval, "how often --durability backup saves changed cells (its RPO)")
	cmd.Flags().IntVar(&o.maxResident, "max-resident-cells", defaultMaxResidentCells(), "most objects kept in memory with their database open; past it the least recently used idle ones are evicted (default: from the descriptor limit and memory; env CELLHOST_MAX_RESIDENT_CELLS)")
	o.wake.addFlags(cmd)
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
	hc, err := cfg.HostConfig()
	if err != nil {
		return host.Config{}, nil, err
	}
	if state == "" {
		state = filepath.Join(cfg.Dir, ".cellhost")
	}
	hc.StateDir, hc.Log = state, log
	return hc, cfg, nil
}

func runDev(ctx context.Context, target string, o devOptions, stdout, stderr io.Writer) error {
	hc, cfg, err := prepareHost(target, o.state, stderr)
	if err != nil {
		return err
	}
	addr := net.JoinHostPort(o.ip, strconv.Itoa(o.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("cannot listen on %s: the port is in use by another program; stop it or pass --port", addr)
		}
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	defer ln.Close()
	// The state lock comes before the bucket: a second process on this
	// state directory must not touch the first one's node lease.
	lock, err := host.LockState(hc.StateDir)
	if err != nil {
		return err
	}
	defer lock.Close()
	hc.StateLock = lock
	hc.BackupInterval = o.backupInterval
	hc.MaxResidentCells = o.maxResident
	fleet, err := joinBucket(ctx, &hc, o.bucket, o.durability, stderr)
	if err != nil {
		return err
	}
	defer fleet.close()
	if err := fleet.prepareWake(ctx, &hc, o.wake, stderr); err != nil {
		return err
	}
	h, err := host.New(hc)
	if err != nil {
		return err
	}
	if err := h.Open(); err != nil {
		return err
	}
	defer closeHost(h, stderr)
	if err := fleet.startWake(ctx, h); err != nil {
		return err
	}
	srv := &http.Server{Handler: h.Handler(), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(stdout, "cellhost dev: serving %s (%s) on http://%s\n", cfg.Name, relOrAbs(cfg.Main), ln.Addr())
	for _, b := range cfg.Bindings {
		fmt.Fprintf(stdout, "  env.%s: Durable Object class %s  (http://%s/do/%s/<id-or-name>)\n", b.Name, b.Class, ln.Addr(), b.Class)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
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
