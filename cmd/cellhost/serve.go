package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/httpguard"
	"github.com/cellhost/cellhost/internal/metrics"
	"github.com/cellhost/cellhost/jsapi/web"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

type serveOptions struct {
	bucket         string
	listen         string
	internalListen string
	advertise      string
	state          string
	node           string
	leaseTTL       time.Duration
	deployPoll     time.Duration
	wake           wakeOptions
	failoverSweep  bool
	env            string   // --env (with a project)
	vars           []string // --var KEY:VALUE (with a project)
	ops            opsOptions
	peerTLS        peerTLSOptions
}

func newServeCommand(stdout, stderr io.Writer) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [dir | module.js] --bucket URL",
		Short: "Run a fleet node: serve any object of the application, owned here or by another node",
		Long: `Run a fleet node on a shared bucket.

Every node of a fleet shares one bucket (s3://bucket/prefix, or file:///dir for
nodes on one machine) and nothing else: a node takes a lease on
nodes/<node>.json, owns the cells it activates by compare-and-swap on
cells/<scope>/own.json, and logs every commit as LTX before the reply leaves.
Any node answers for any object: a request for an object that a live other
node owns is forwarded to that node's --advertise address (signed with the
fleet secret kept in the bucket); an object nobody live owns is taken here.
When a node dies its objects are taken over by the next node asked for them
once its lease (--lease-ttl) has expired. SIGTERM or SIGINT releases every
owned object and deletes the lease, so that other nodes take over at once.

With a dir (or module), the node serves that project. Without one it serves
the newest deployment in the bucket (cellhost deploy) and switches to a newer
one when it appears, restarting its objects with the new code.

Bindings as in cellhost dev: vars, then .dev.vars (or .dev.vars.<env>; .env
without either), then --var; Durable Objects; R2 buckets (in the fleet's
bucket, under r2/<bucket>/, shared by every node); service bindings to the
worker's own entrypoints; the assets binding; KV namespaces (in the fleet's
bucket, one object per entry, shared by every node); D1 databases (each a
cell owned by one node at a time, like an object: a query on another node is
forwarded to its owner). Static assets are not served in front of the
worker, and there is no reload or inspector. A deployment (cellhost deploy) carries the
vars (including .dev.vars at deploy time) and the same bindings.

A WebSocket to an object another node owns is held by the node the client
reached and relayed to the owner; if the owner dies, a socket the object
accepted with ctx.acceptWebSocket() is re-attached on the next owner (its
tags and attachment are stored with the object) and the client keeps its
connection; one accepted with accept() is closed with code 1012.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := ""
			if len(args) == 1 {
				target = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runServe(ctx, target, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.bucket, "bucket", "", "the fleet's bucket: s3://bucket/prefix or file:///dir (required)")
	f.StringVar(&o.listen, "listen", "127.0.0.1:8787", "public HTTP address")
	f.StringVar(&o.internalListen, "internal-listen", "127.0.0.1:0", "address for peer traffic (forwarded requests)")
	f.StringVar(&o.advertise, "advertise", "", "host:port other nodes dial to reach this one (default: the internal listener's address)")
	f.StringVar(&o.state, "state", "", "state directory, one per node (default <dir>/.cellhost/serve, or ./.cellhost/serve)")
	f.StringVar(&o.node, "node", "", "node id, node_<32 hex> (default: kept in the state directory)")
	f.DurationVar(&o.leaseTTL, "lease-ttl", ownership.DefaultTTL, "node lease time to live: a dead node's objects are taken over after it")
	f.DurationVar(&o.deployPoll, "deploy-poll", 5*time.Second, "without a dir: how often to look for a newer deployment")
	o.wake.addFlags(cmd)
	f.StringVarP(&o.env, "env", "e", "", "with a project: apply the wrangler config's env.<name> section (and read .dev.vars.<name>)")
	f.StringArrayVar(&o.vars, "var", nil, "with a project: set env.KEY to VALUE (KEY:VALUE; repeatable; overrides vars and .dev.vars)")
	f.BoolVar(&o.failoverSweep, "failover-sweep", true, "as the elected waker, take over every cell of a dead node at once (restore it, arm its alarm) instead of at its next request")
	o.ops.addFlags(cmd)
	o.peerTLS.addFlags(cmd)
	_ = cmd.MarkFlagRequired("bucket")
	return cmd
}

// fleetNode is a serve process's membership: bucket, lease, peers.
type fleetNode struct {
	store  plugins.ObjectStore
	node   *ownership.Node
	client *fleet.Client
	secret fleet.Secret
	wake   *fleet.Wake   // the wake index, the waker role and dead-node GC
	named  func() string // the bucket as messages name it (its server)
}

// close stops the wake index (after its queued writes), releases the cells
// and the lease, then closes the bucket.
func (f *fleetNode) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if f.wake != nil {
		_ = f.wake.Close(ctx)
	}
	if f.node != nil {
		_ = f.node.Close(ctx)
	}
	if f.client != nil {
		f.client.Close()
	}
	if f.store != nil {
		f.store.Close()
	}
}

// joinFleet opens the bucket, runs the storage probe, takes the node lease
// advertising addr, and reads (or creates) the fleet secret.
func joinFleet(ctx context.Context, o serveOptions, addr string, log *slog.Logger, m *metrics.Set) (*fleetNode, error) {
	store, err := plugins.OpenStore(ctx, o.bucket)
	if err != nil {
		return nil, fmt.Errorf("bucket %s: %w", o.bucket, err)
	}
	nodeID := o.node
	named := bucketName(o.bucket, store)
	if m != nil {
		store = m.Store(store, nodeID) // every bucket call counted, for /metrics
	}
	f := &fleetNode{store: store}
	// The storage probe runs here; the lease is taken by startLease once
	// the node is about to serve.
	node, err := ownership.New(ownership.Config{
		Store: store, NodeID: nodeID, Addr: addr, TTL: o.leaseTTL, RenewEvery: renewEvery(o.leaseTTL), HedgeAfter: hedgeAfter(o.bucket, o.leaseTTL),
		Log: log.With("component", "ownership"), SkipProbe: true,
	})
	if err != nil {
		f.close()
		return nil, err
	}
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := ownership.Probe(startCtx, store); err != nil {
		f.close()
		var fault *ownership.StoreFaultError
		if errors.As(err, &fault) {
			return nil, fmt.Errorf("bucket %s is refused: %w", named(), err)
		}
		return nil, fmt.Errorf("bucket %s failed the storage probe: %w", o.bucket, err)
	}
	f.node = node
	f.named = named
	secret, err := fleet.LoadSecret(startCtx, store)
	if err != nil {
		f.close()
		return nil, fmt.Errorf("bucket %s: %w", o.bucket, err)
	}
	f.secret = secret
	f.client = fleet.NewClient(secret, nodeID)
	f.client.SetSelf(addr)
	f.wake, err = fleet.NewWake(fleet.WakeConfig{
		Store: store, Node: nodeID, Poll: o.wake.poll, Tick: o.wake.tick, LeaseTTL: o.leaseTTL, FailoverSweep: o.failoverSweep,
		Log: log.With("component", "wake"),
	})
	if err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// startLease takes the node lease (nodes/<node>.json): called once the
// deployment is loaded, just before the node serves. A node killed and
// restarted within its TTL thus leaves its previous lease to expire while
// it loads, instead of renewing a live lease for an address that accepts
// connections but answers nothing yet: other nodes' forwards waited for
// it to serve (issue 31: kill -9 recoveries of 6-10 s at a 2 s TTL), now
// they take its cells over once the old lease expires, or find it
// serving. Its own cells it claims again at once (own.json names its id).
func (f *fleetNode) startLease(ctx context.Context, bucket string) error {
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := f.node.Start(startCtx); err != nil {
		var fault *ownership.StoreFaultError
		if errors.As(err, &fault) {
			return fmt.Errorf("bucket %s is refused: %w", f.named(), err)
		}
		return fmt.Errorf("bucket %s: the node lease: %w", bucket, err)
	}
	return nil
}

// rejoin closes the fenced node and starts a new one with the same id (a
// new generation), retrying with back-off until ctx ends.
func (f *fleetNode) rejoin(ctx context.Context, o serveOptions, addr string, log *slog.Logger) error {
	// The fenced node's cells are lost already; releasing them is a
	// courtesy bounded like an attempt (a paused bucket would hold it).
	closeCtx, cancel := context.WithTimeout(ctx, rejoinAttemptTimeout(o.leaseTTL))
	_ = f.node.Close(closeCtx)
	cancel()
	for failures := 1; ; failures++ {
		node, err := ownership.New(ownership.Config{
			Store: f.store, NodeID: f.node.ID(), Addr: addr, TTL: o.leaseTTL, RenewEvery: renewEvery(o.leaseTTL), HedgeAfter: hedgeAfter(o.bucket, o.leaseTTL),
			Log: log.With("component", "ownership"),
		})
		if err != nil {
			return err
		}
		// Each attempt is bounded by the lease TTL and the back-off
		// capped at a quarter of it: a bucket that comes back (a
		// restarted or resumed S3 server) is noticed within about
		// TTL/4, and an attempt stuck on a paused server is given up
		// after TTL (was 30 s, and a back-off of up to 19 s: recovery
		// took up to 16 TTLs).
		startCtx, cancel := context.WithTimeout(ctx, rejoinAttemptTimeout(o.leaseTTL))
		err = node.Start(startCtx)
		cancel()
		if err == nil {
			f.node = node
			return nil
		}
		log.Warn("rejoin failed; trying again", "error", err.Error(), "attempt", failures)
		wait := min(fleet.Jittered(fleet.RetryDelay(o.leaseTTL/10, failures), rand.Float64()), o.leaseTTL/4)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// renewEvery is a serve node's lease renewal period: TTL/5, so that a
// renewal slowed past its TTL/3 timeout by a loaded machine or bucket still
// leaves time for its read-back and a retry before the fence point at
// TTL - TTL/5 (with TTL/3, a healthy node fenced at load 15: issue 31).
//
// On S3 it is also how long a renewal's write may be in flight before
// another is sent beside it (hedgeAfter): at a 2 s TTL, writes at 0.4, 0.8
// and 1.2 s after the last landed one each have a chance to land before
// the fence point at 1.6 s, where one slow S3 write used to fence a
// healthy node.
func renewEvery(ttl time.Duration) time.Duration { return ttl / 5 }

// hedgeAfter is ownership.Config.HedgeAfter for bucket: renewEvery on S3,
// where requests are independent and a sibling write can overtake a slow
// one; 0 on a file bucket, where writes of one lease key are serialised by
// its lock: a sibling only queues behind the slow write and adds two
// fsyncs to a disk that is slow already (the chaos run on files fenced
// more with siblings: 17 healthy fences against 4 at load 60).
func hedgeAfter(bucket string, ttl time.Duration) time.Duration {
	if strings.HasPrefix(bucket, "file:") {
		return 0
	}
	return renewEvery(ttl)
}

// rejoinAttemptTimeout bounds one attempt to rejoin (storage probe and
// lease write): the lease TTL, at least 1 s.
func rejoinAttemptTimeout(ttl time.Duration) time.Duration { return max(ttl, time.Second) }

func listenTCP(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		if errors.Is(err, errAddrInUse) {
			return nil, fmt.Errorf("cannot listen on %s: the port is in use by another program; stop it or pass %s", addr, flag)
		}
		return nil, fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	return ln, nil
}

func runServe(ctx context.Context, target string, o serveOptions, stdout, stderr io.Writer) error {
	if o.bucket == "" {
		return errors.New("serve needs --bucket: s3://bucket/prefix or file:///dir")
	}
	state := o.state
	if state == "" {
		base := "."
		if target != "" {
			if st, err := os.Stat(target); err == nil && st.IsDir() {
				base = target
			} else {
				base = filepath.Dir(target)
			}
		}
		state = filepath.Join(base, ".cellhost", "serve")
	}
	pub, err := listenTCP(o.listen, "--listen")
	if err != nil {
		return err
	}
	defer pub.Close()
	serverTLS, clientTLS, reloadTLS, err := o.peerTLS.configs()
	if err != nil {
		return err
	}
	internal, err := listenTCP(o.internalListen, "--internal-listen")
	if err != nil {
		return err
	}
	defer internal.Close()
	addr := o.advertise
	if addr == "" {
		addr = internal.Addr().String()
	}
	lock, err := host.LockState(state)
	if err != nil {
		return err
	}
	defer lock.Close()

	if o.node == "" {
		if o.node, err = persistentNodeID(state); err != nil {
			return err
		}
	}
	logger, err := newServeLogger(stderr, o.ops.logFormat, o.ops.logLevel, o.node)
	if err != nil {
		return err
	}
	var admin net.Listener
	if o.ops.adminListen != "" {
		if admin, err = listenTCP(o.ops.adminListen, "--admin-listen"); err != nil {
			return err
		}
		defer admin.Close()
	}
	ms := metrics.New(versionString())

	fl, err := joinFleet(ctx, o, addr, logger, ms)
	if err != nil {
		return err
	}
	defer fl.close()
	if o.peerTLS.fleetCA {
		ca, err := fleet.LoadFleetCA(ctx, fl.store)
		if err != nil {
			return fmt.Errorf("bucket %s: %w", o.bucket, err)
		}
		if serverTLS, clientTLS, err = ca.NodeTLS(o.node, addr, time.Now()); err != nil {
			return fmt.Errorf("--internal-tls-fleet-ca: %w", err)
		}
	}
	if serverTLS != nil {
		internal = tls.NewListener(internal, serverTLS)
		fl.client.SetTLS(clientTLS)
	}
	{
		// SIGHUP re-reads --internal-tls-cert/-key/-ca (certificate renewal,
		// CA rotation); open connections carry on, new handshakes use the
		// new files. A file that does not load keeps the old material.
		// Without those flags it only says so: a reload must never stop
		// the node (SIGHUP's default action).
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					if reloadTLS == nil {
						logger.Info("SIGHUP: nothing to reload (no --internal-tls-cert)")
					} else if err := reloadTLS(); err != nil {
						logger.Error("internal TLS not reloaded: the certificates loaded before stay in use", "err", err)
					} else {
						logger.Info("internal TLS reloaded", "cert", o.peerTLS.cert, "ca", o.peerTLS.ca)
					}
				}
			}
		}()
	}

	app, err := newServedApp(ctx, target, state, lock, fl, o, stdout, stderr, &serveHooks{log: logger, metrics: ms, json: o.ops.logFormat == "json"})
	if err != nil {
		return err
	}
	defer app.close()
	health := &nodeHealth{loaded: app.loaded, probe: leaseProbe(fl.store, o.node)}
	health.node.Store(fl.node)
	watchSnapshot(ms, func() metricsSnapshot { return app.snapshot(fl, health.node.Load()) })

	if err := fl.startLease(ctx, o.bucket); err != nil {
		return err
	}
	// The wake index: alarms of this node's cells, and, as the elected
	// waker, those of cells nobody live owns; dead-node GC.
	wakeCtx, cancelWake := context.WithTimeout(ctx, 30*time.Second)
	err = fl.wake.Start(wakeCtx, app)
	cancelWake()
	if err != nil {
		return fmt.Errorf("wake index: %w", err)
	}

	status := newNodeStatus(app, fl.wake, logger)
	sampleCtx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go status.sample(sampleCtx)
	// Every server: timeouts, a header limit, and a connection cap that
	// answers 503 (internal/httpguard).
	maxPub, maxInternal := defaultMaxConns()
	var peerHandler http.Handler = fleet.NewServer(fleet.ServerConfig{Node: fl.node.ID(), Secret: fl.secret, Local: app, Status: status.status,
		RefuseFrom: web.IsSubrequest, // a script's fetch() never reaches the internal listener
		Log:        logger.With("component", "peer")})
	var adminSrv *http.Server
	if admin != nil {
		adminSrv = httpguard.Server(adminHandler(ms, health, nil), httpguard.Config{})
		adminSrv.ErrorLog = slog.NewLogLogger(logger.With("component", "admin").Handler(), slog.LevelWarn)
	} else {
		peerHandler = adminHandler(ms, health, peerHandler)
	}
	// net/http's own messages (a failed TLS handshake, a panic) go to the
	// one logger too.
	peerSrv := httpguard.Server(peerHandler, httpguard.Config{})
	peerSrv.ErrorLog = slog.NewLogLogger(logger.With("component", "peer").Handler(), slog.LevelWarn)
	pubSrv := httpguard.Server(instrument(app, ms, logger, requestClass(app.hasClass)), httpguard.Config{})
	pubSrv.ErrorLog = slog.NewLogLogger(logger.With("component", "http").Handler(), slog.LevelWarn)
	fmt.Fprintf(stdout, "cellhost serve: node %s on http://%s (peers reach it at %s), bucket %s\n", fl.node.ID(), pub.Addr(), addr, o.bucket)
	errc := make(chan error, 3)
	go func() { errc <- pubSrv.Serve(httpguard.Listen(pub, maxPub)) }()
	go func() { errc <- peerSrv.Serve(httpguard.Listen(internal, maxInternal)) }()
	if adminSrv != nil {
		go func() { errc <- adminSrv.Serve(httpguard.Listen(admin, maxInternal)) }()
	}

	var runErr error
	for runErr == nil {
		select {
		case err := <-errc:
			runErr = err
		case err := <-app.failed():
			runErr = err
		case <-ctx.Done():
		case <-fl.node.Done():
			// The lease lapsed (the process was paused past its TTL, or
			// the bucket was unreachable): every cell was lost and nothing
			// more was acknowledged. Take a new lease (a new generation)
			// and serve again, without a restart.
			ms.Fenced()
			logger.Warn("fenced: rejoining the fleet with a new lease", "error", errString(fl.node.Err()))
			if err := app.rejoin(rejoinAttemptTimeout(o.leaseTTL), func() error { return fl.rejoin(ctx, o, addr, logger) }); err != nil {
				if ctx.Err() != nil {
					break // stopped (SIGTERM) while rejoining
				}
				runErr = fmt.Errorf("this node's lease lapsed and it could not rejoin: %w", err)
				break
			}
			health.node.Store(fl.node)
			ms.Rejoined()
			logger.Info("rejoined the fleet", "generation", fl.node.Generation())
			continue
		}
		break
	}
	health.draining.Store(true) // /readyz: 503 from now on, so that balancers drain this node
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = pubSrv.Shutdown(shutdownCtx)
	_ = peerSrv.Shutdown(shutdownCtx)
	if adminSrv != nil {
		_ = adminSrv.Shutdown(shutdownCtx)
	}
	// Deferred: app.close (the host makes its logs durable and closes the
	// cells), then fl.close (releases every owned cell, deletes the lease).
	return runErr
}
