package main

import (
	"context"

	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/gorilla/websocket"

	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/fleet"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/internal/wsrelay"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/jsapi/wasm"
)

// fleet's Placement is host's, and the relays its Fetch returns are the
// RemoteSockets host serves (host checks them by type assertion).
var (
	_ host.Placement    = (*fleet.Placement)(nil)
	_ host.RemoteSocket = (*fleet.PendingRelay)(nil)
)

// servedApp is the application a serve node runs: one Host at a time. With
// a project it is that project's for the whole run; without one it is the
// newest deployment in the bucket, replaced by a newer one when it appears
// (the old Host is closed first, which makes its objects' logs durable and
// releases them; the new one activates them again with the new code, as a
// deploy resets Durable Objects on Cloudflare). Requests that arrive
// during a switch wait for the new Host. It is the public http.Handler and
// the fleet.Local of the peer server.
type servedApp struct {
	state  string
	lock   *host.StateLock
	fl     *fleetNode
	log    io.Writer
	stdout io.Writer
	// bindings are the KV and R2 resources of every Host of the app, in
	// the fleet's bucket (D1 databases are cells of the Host).
	bindings *bindingSet

	switching sync.Mutex // held while the Host is replaced (deploy, rejoin)

	mu     sync.Mutex
	gen    *appGen       // guarded by mu; the Host serving (or last served)
	hc     host.Config   // guarded by mu; the configuration gen was built from
	ready  chan struct{} // guarded by mu; closed while gen serves
	deploy string        // guarded by mu; the deployment key being served, "" with a project

	errc chan error
	stop chan struct{}
	done chan struct{}

	hooks *serveHooks // the node's logger and metrics, set on every Host
}

func newServedApp(ctx context.Context, target, state string, lock *host.StateLock, fl *fleetNode, o serveOptions, stdout, stderr io.Writer, hooks *serveHooks) (*servedApp, error) {
	a := &servedApp{state: state, lock: lock, fl: fl, log: stderr, stdout: stdout, errc: make(chan error, 1), ready: make(chan struct{}),
		bindings: newBindingSet(state, fl.store), hooks: hooks}
	if target != "" {
		cfg, hc, err := loadProject(target, devOptions{env: o.env, vars: o.vars}, stderr)
		if err != nil {
			return nil, err
		}
		hc.StateDir, hc.Log = state, stderr
		if err = a.bindings.bind(cfg, &hc); err != nil {
			a.bindings.close()
			return nil, err
		}
		if err := a.start(hc, ""); err != nil {
			a.bindings.close()
			return nil, err
		}
		if err := moveLegacyD1(ctx, a.gen.h, state, cfg.Entries(d1.ConfigKey), stderr); err != nil {
			a.close()
			return nil, err
		}
		return a, nil
	}
	key, err := fleet.NewestDeploymentKey(ctx, fl.store)
	if err != nil {
		return nil, err
	}
	hc, err := a.deploymentConfig(ctx, key)
	if err != nil {
		return nil, err
	}
	if err := a.start(hc, key); err != nil {
		return nil, err
	}
	a.stop, a.done = make(chan struct{}), make(chan struct{})
	go a.watch(o.deployPoll)
	return a, nil
}

// deploymentConfig reads the deployment at key into a host configuration.
func (a *servedApp) deploymentConfig(ctx context.Context, key string) (host.Config, error) {
	d, err := fleet.ReadDeployment(ctx, a.fl.store, key)
	if err != nil {
		return host.Config{}, err
	}
	prog, err := goja.Compile(d.Entry, d.Code, true) // strict, as jsapi.BuildBundle compiles
	if err != nil {
		return host.Config{}, fmt.Errorf("deployment %s: compile: %w", d.ID, err)
	}
	mods, err := wasm.BundledModules(d.Code) // once per deployment, not per shard
	if err != nil {
		return host.Config{}, fmt.Errorf("deployment %s: %w", d.ID, err)
	}
	hc := host.Config{
		Bundle: &jsapi.Bundle{Entry: d.Entry, Code: d.Code, Program: prog, Wasm: mods,
			WasmCompile: jsapi.WasmCompileFor(d.CompatibilityDate, d.CompatibilityFlags)},
		Script:             d.Script,
		Vars:               d.Vars,
		CompatibilityDate:  d.CompatibilityDate,
		CompatibilityFlags: d.CompatibilityFlags,
		Limits:             host.Limits{MaxOpenDatabases: defaultMaxOpenDatabases()},
		Storage:            host.Storage{StateDir: a.state},
		Logging:            host.Logging{Log: a.log},
	}
	for _, b := range d.Bindings {
		hc.Bindings = append(hc.Bindings, host.Binding{Name: b.Name, Class: b.Class})
	}
	cfg := &wrangler.Config{Plugins: deployedPlugins(d)}
	if err = a.bindings.bind(cfg, &hc); err != nil {
		return host.Config{}, fmt.Errorf("deployment %s: %w", d.ID, err)
	}
	if _, err := jsapi.CheckWorker(hc.Bundle, nil); err != nil {
		return host.Config{}, fmt.Errorf("deployment %s: %w", d.ID, err)
	}
	return hc, nil
}

// start opens a Host for hc and serves it.
func (a *servedApp) start(hc host.Config, deploy string) error {
	base := hc
	hc.StateLock = a.lock
	hc.Durability = host.DurabilityLog
	hc.Bucket, hc.Node = a.fl.store, a.fl.node
	if a.fl.wake != nil {
		hc.AlarmSink = a.fl.wake
	}
	a.hooks.apply(&hc)
	// One Placement per host: its edge connections close with it.
	hc.Placement = fleet.NewPlacement(fleet.PlacementConfig{Client: a.fl.client, Node: a.fl.node, Logger: hc.Logger, RequestTimeout: hc.RequestTimeout})
	h, err := host.New(hc)
	if err != nil {
		return err
	}
	if err := h.Open(); err != nil {
		return err
	}
	a.mu.Lock()
	a.gen, a.deploy, a.hc = &appGen{h: h, handler: h.Handler()}, deploy, base
	close(a.ready)
	a.mu.Unlock()
	if deploy != "" {
		fmt.Fprintf(a.stdout, "cellhost serve: running deployment %s\n", deploy)
	}
	return nil
}

// watch looks for a newer deployment every poll and switches to it.
func (a *servedApp) watch(poll time.Duration) {
	defer close(a.done)
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		select {
		case <-a.stop:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), poll+30*time.Second)
		err := a.switchIfNewer(ctx)
		cancel()
		if err != nil {
			a.hooks.logger(a.log).Error("deployment switch failed", "error", err.Error())
		}
	}
}

func (a *servedApp) switchIfNewer(ctx context.Context) error {
	a.switching.Lock()
	defer a.switching.Unlock()
	key, err := fleet.NewestDeploymentKey(ctx, a.fl.store)
	if err != nil {
		return err
	}
	a.mu.Lock()
	cur := a.deploy
	a.mu.Unlock()
	if key <= cur {
		return nil
	}
	hc, err := a.deploymentConfig(ctx, key)
	if err != nil {
		return fmt.Errorf("new deployment %s not started: %w", key, err)
	}
	a.suspend()
	if err := a.start(hc, key); err != nil {
		select {
		case a.errc <- fmt.Errorf("deployment %s: %w", key, err):
		default:
		}
		return err
	}
	return nil
}

// suspend holds new requests, lets running ones finish (drainTimeout) and
// closes the Host (its objects' logs become durable and are released).
// The caller holds a.switching and calls start next.
func (a *servedApp) suspend() { a.suspendWithin(drainTimeout, hostCloseTimeout) }

// suspendWithin is suspend with bounds on the wait for the old Host's
// requests and on its close.
func (a *servedApp) suspendWithin(drain, close time.Duration) {
	a.mu.Lock()
	old := a.gen
	a.ready = make(chan struct{})
	a.mu.Unlock()
	old.drainAndClose(a.log, drain, close)
}

// rejoin replaces the Host after the node's lease lapsed: the old Host
// (whose cells are all lost) is closed, join takes a new node lease (a new
// generation), and the same application starts again on it.
//
// within bounds the wait for the old Host (its requests, its close): every
// cell it had is lost already and nothing it still holds can be
// acknowledged, so the node waits at most that long (the lease TTL) before
// it rejoins, even while the bucket is unreachable (a paused S3 server).
func (a *servedApp) rejoin(within time.Duration, join func() error) error {
	a.switching.Lock()
	defer a.switching.Unlock()
	a.suspendWithin(within, within)
	if err := join(); err != nil {
		return err
	}
	a.mu.Lock()
	hc, deploy := a.hc, a.deploy
	a.mu.Unlock()
	return a.start(hc, deploy)
}

// failed delivers an error that ends the node (a deployment that could
// not start after the old one was closed).
func (a *servedApp) failed() <-chan error { return a.errc }

// appGen is one Host of a servedApp and the requests it is running.
type appGen struct {
	h       *host.Host
	handler http.Handler
	running sync.WaitGroup // requests in h; Add only under servedApp.mu while gen is current
}

// drainTimeout bounds how long a switch waits for the old Host's requests
// (a WebSocket may hold one for long; it is closed with the Host).
const drainTimeout = 30 * time.Second

// drainAndClose waits (up to drainTimeout) for the requests running in g,
// then closes its Host: its objects' logs become durable and are released.
func (g *appGen) drainAndClose(log io.Writer, drain, closeWithin time.Duration) {
	drained := make(chan struct{})
	go func() { g.running.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drain):
		fmt.Fprintf(log, "cellhost serve: requests still running after %v; closing the old application anyway\n", drain)
	}
	closeHostWithin(g.h, log, closeWithin)
}

// enter waits until a Host serves and returns its generation with the
// request counted in it; the caller calls gen.running.Done when done.
func (a *servedApp) enter(ctx context.Context) (*appGen, error) {
	for {
		a.mu.Lock()
		ready := a.ready
		select {
		case <-ready:
			g := a.gen
			g.running.Add(1)
			a.mu.Unlock()
			return g, nil
		default:
		}
		a.mu.Unlock()
		select {
		case <-ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (a *servedApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	g, err := a.enter(r.Context())
	if err != nil {
		return
	}
	defer g.running.Done()
	g.handler.ServeHTTP(w, r)
}

// FetchHere implements fleet.Local.
func (a *servedApp) FetchHere(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	g, err := a.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer g.running.Done()
	return g.h.FetchHere(ctx, class, id, name, req)
}

// CallHere implements fleet.Local.
func (a *servedApp) CallHere(ctx context.Context, class, id, name, method string, args []byte, get bool) ([]byte, error) {
	g, err := a.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer g.running.Done()
	return g.h.CallHere(ctx, class, id, name, method, args, get)
}

// Wake implements fleet.CellWaker: the wake index brings a cell back on
// the current Host.
func (a *servedApp) Wake(ctx context.Context, scope string) error {
	g, err := a.enter(ctx)
	if err != nil {
		return err
	}
	defer g.running.Done()
	return g.h.Wake(ctx, scope)
}

// ServeObjectHTTP implements fleet.HTTPLocal.
func (a *servedApp) ServeObjectHTTP(w http.ResponseWriter, r *http.Request, class, id, name string) {
	g, err := a.enter(r.Context())
	if err != nil {
		return
	}
	defer g.running.Done()
	g.h.ServeObjectHTTP(w, r, class, id, name)
}

// close stops watching and closes the Host.
// hostStats returns the current Host's Stats; false while none serves.
func (a *servedApp) hostStats() (host.Stats, bool) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g, err := a.enter(ctx)
	if err != nil {
		return host.Stats{}, false
	}
	defer g.running.Done()
	return g.h.Stats(), true
}

// ServeSocket implements fleet.SocketLocal.
func (a *servedApp) ServeSocket(conn *websocket.Conn, open *wsrelay.Open) {
	g, err := a.enter(context.Background())
	if err != nil {
		_ = conn.Close()
		return
	}
	defer g.running.Done()
	g.h.ServeSocket(conn, open)
}

func (a *servedApp) close() {
	if a.stop != nil {
		close(a.stop)
		<-a.done
	}
	a.mu.Lock()
	g := a.gen
	a.mu.Unlock()
	if g != nil {
		closeHost(g.h, a.log)
	}
	a.bindings.close()
}

var (
	_ fleet.Local     = (*servedApp)(nil)
	_ fleet.HTTPLocal = (*servedApp)(nil)
	_ fleet.CellWaker = (*servedApp)(nil)
)
