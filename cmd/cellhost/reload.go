package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
	"github.com/cellhost/cellhost/jsapi"
)

// reloadDebounce is how long the watcher waits after the last change before
// it rebuilds: an editor's save is often several events (truncate, write,
// rename, chmod).
const reloadDebounce = 30 * time.Millisecond

// devServer serves one project and swaps in a freshly built Host when the
// project's files change, as wrangler dev does: the old code keeps serving
// until the new code has built and loaded, requests that arrive during the
// swap wait for the new code, and state survives (the cells' databases and
// the bucket outlive every Host). Objects get the new code the way workerd
// gives it on a reload: every resident object is dropped and constructed
// again on its next event.
type devServer struct {
	target         string
	o              devOptions
	stdout, stderr io.Writer
	// keep holds the fields that outlive a reload (StateDir, Log, the state
	// lock, the bucket and node lease, durability).
	keep host.Config

	bindings  *bindingSet   // KV namespaces, kept open across reloads
	reqLog    io.Writer     // one line per request; nil: none
	cronWake  chan struct{} // a reload tells runCrons to re-read the crons
	inspector *inspector    // /_cellhost; nil: off
	color     bool          // reqLog is a terminal

	mu     sync.Mutex
	assets *assetServer // the assets h's project serves first, or nil
	h      *host.Host
	hc     host.Config      // h's configuration, to go back to if a new one fails
	cfg    *wrangler.Config // the project h serves
	web    http.Handler     // h.Handler()
	hold   chan struct{}    // non-nil while a reload swaps hosts

	addr          string // the listening address, for the bindings' table
	shownBindings string // the bindings' table last printed
	changed       string // the file whose change triggers the next reload (the watcher's)
}

// ServeHTTP hands the request to the current Host; during a swap it waits
// for the new one.
func (d *devServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w}
	d.serve(rec, r)
	if d.reqLog != nil {
		io.WriteString(d.reqLog, requestLine(r, rec.status, time.Since(start), d.color))
	}
}

func (d *devServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/cdn-cgi/handler/scheduled" || r.URL.Path == "/__scheduled" {
		d.serveScheduled(w, r)
		return
	}
	if d.inspector != nil && (r.URL.Path == inspectorPrefix || strings.HasPrefix(r.URL.Path, inspectorPrefix+"/")) {
		if ok, why := inspectorAllowed(r, d.o.inspectorHost); !ok {
			http.Error(w, why, http.StatusForbidden)
			return
		}
		d.inspector.ServeHTTP(w, r)
		return
	}
	d.mu.Lock()
	web, hold, assets := d.web, d.hold, d.assets
	d.mu.Unlock()
	if assets != nil && !assets.First() && assets.Serve(w, r, false) {
		return
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
		d.mu.Lock()
		web = d.web
		d.mu.Unlock()
	}
	web.ServeHTTP(w, r)
}

// Wake brings a cell back in the current Host (fleet.CellWaker, for the
// wake index: it outlives reloads).
func (d *devServer) Wake(ctx context.Context, scope string) error {
	d.mu.Lock()
	h, hold := d.h, d.hold
	d.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-ctx.Done():
			return ctx.Err()
		}
		d.mu.Lock()
		h = d.h
		d.mu.Unlock()
	}
	if h == nil {
		return errors.New("cellhost dev: the worker is not running")
	}
	return h.Wake(ctx, scope)
}

// classes lists the bound Durable Object classes of the current code.
func (d *devServer) classes() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	seen := map[string]bool{}
	for _, b := range d.hc.Bindings {
		if !seen[b.Class] {
			seen[b.Class] = true
			out = append(out, b.Class)
		}
	}
	sort.Strings(out)
	if d.cfg != nil && len(d.cfg.Entries(d1.ConfigKey)) > 0 {
		out = append(out, d1.Class) // the D1 databases, after the classes
	}
	return out
}

// objectName names the cells the inspector shows that their databases do
// not name: a D1 database by its binding and id.
func (d *devServer) objectName(class, id string) string {
	if class != d1.Class {
		return ""
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cfg == nil {
		return ""
	}
	for _, x := range d.cfg.Entries(d1.ConfigKey) {
		if dbID := x.Config.(d1.Config).ID; host.InternalID(d1.Class, dbID) == id {
			return "env." + x.Name + " (" + dbID + ")"
		}
	}
	return ""
}

// bind sets hc.Bind for the project's bindings beyond Durable Objects and
// returns its assets server (nil without assets).
func (d *devServer) bind(cfg *wrangler.Config, hc *host.Config) (*assetServer, error) {
	if err := d.bindings.bind(cfg, hc); err != nil {
		return nil, err
	}
	return newAssetServer(cfg), nil
}

// open builds and opens a Host from a project configuration plus the fields
// that outlive reloads.
func (d *devServer) open(hc host.Config) (*host.Host, error) {
	k := d.keep
	hc.StateDir, hc.Log, hc.StateLock = k.StateDir, k.Log, k.StateLock
	hc.Bucket, hc.Node, hc.Durability, hc.BackupInterval = k.Bucket, k.Node, k.Durability, k.BackupInterval
	hc.ErrorPage, hc.Logger, hc.Console, hc.RequestCF = k.ErrorPage, k.Logger, k.Console, k.RequestCF
	hc.Constructed = k.Constructed
	hc.AlarmSink, hc.MaxResidentCells, hc.MaxOpenDatabases = k.AlarmSink, k.MaxResidentCells, k.MaxOpenDatabases
	h, err := host.New(hc)
	if err != nil {
		return nil, err
	}
	if err := h.Open(); err != nil {
		return nil, err
	}
	return h, nil
}

// start opens the first Host.
func (d *devServer) start(cfg *wrangler.Config, hc host.Config) error {
	assets, err := d.bind(cfg, &hc)
	if err != nil {
		d.bindings.close()
		return err
	}
	h, err := d.open(hc)
	if err != nil {
		d.bindings.close()
		return err
	}
	if err := moveLegacyD1(context.Background(), h, d.keep.StateDir, cfg.Entries(d1.ConfigKey), d.stderr); err != nil {
		closeHost(h, d.stderr)
		d.bindings.close()
		return err
	}
	d.h, d.hc, d.cfg, d.web, d.assets = h, hc, cfg, h.Handler(), assets
	return nil
}

// close stops the current Host.
func (d *devServer) close() {
	d.mu.Lock()
	h := d.h
	d.h = nil
	d.mu.Unlock()
	if h != nil {
		closeHost(h, d.stderr)
	}
	d.bindings.close()
}

// reload rebuilds the project. A build or load error leaves the old code
// serving and is printed with its file and line.
func (d *devServer) reload() error {
	start := time.Now()
	endBuild := buildGC(false)
	defer endBuild()
	cfg, hc, err := loadProject(d.target, d.o, nil)
	var assets *assetServer
	if err == nil {
		assets, err = d.bind(cfg, &hc)
	}
	if err != nil {
		var be *jsapi.BuildError
		if errors.As(err, &be) && be.Frames != "" {
			// esbuild's rendering: the file, line and a caret under the column
			io.WriteString(d.stderr, be.Frames)
			fmt.Fprintf(d.stderr, "%s reload failed; still serving the previous code\n", markError)
			return err
		}
		fmt.Fprintf(d.stderr, "%s reload failed; still serving the previous code:\n%s\n", markError, indent(err.Error()))
		return err
	}
	hold := make(chan struct{})
	d.mu.Lock()
	old, oldHC, oldAssets := d.h, d.hc, d.assets
	d.hold = hold
	d.mu.Unlock()
	closeHost(old, d.stderr)
	h, err := d.open(hc)
	if err != nil {
		// The new code built but does not start: go back to the old one.
		fmt.Fprintf(d.stderr, "%s reload failed; still serving the previous code:\n%s\n", markError, indent(err.Error()))
		h, hc, cfg, assets = nil, oldHC, d.cfg, oldAssets
		var err2 error
		if h, err2 = d.open(oldHC); err2 != nil {
			fmt.Fprintf(d.stderr, "%s cannot restart the previous code either: %v\n", markError, err2)
		}
	}
	d.mu.Lock()
	d.h, d.hc, d.cfg, d.hold, d.assets = h, hc, cfg, nil, assets
	if h != nil {
		d.web = h.Handler()
	} else {
		d.web = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "cellhost dev: the worker failed to reload; see the terminal", http.StatusServiceUnavailable)
		})
	}
	d.mu.Unlock()
	close(hold)
	select {
	case d.cronWake <- struct{}{}:
	default:
	}
	if err == nil {
		why := ""
		if d.changed != "" {
			why = " (" + relOrAbs(d.changed) + " changed)"
		}
		fmt.Fprintf(d.stdout, "cellhost dev: reloaded in %d ms%s\n", time.Since(start).Milliseconds(), why)
		// The bindings again when they changed (a binding added to the
		// config is live now), as wrangler prints them on a reload.
		var shown bytes.Buffer
		printBindings(&shown, cfg, hc, d.addr)
		if shown.String() != d.shownBindings {
			d.shownBindings = shown.String()
			if d.shownBindings == "" {
				io.WriteString(d.stdout, "Your worker has no bindings now.\n")
			}
			io.WriteString(d.stdout, d.shownBindings)
		}
	}
	return err
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// watchDirs lists the directories whose changes trigger a reload: the
// project's, the config file's and those of every source file the bundle
// read, except dependencies under node_modules.
func (d *devServer) watchDirs() []string {
	d.mu.Lock()
	cfg, hc := d.cfg, d.hc
	d.mu.Unlock()
	set := map[string]bool{cfg.Dir: true}
	if cfg.Path != "" {
		set[filepath.Dir(cfg.Path)] = true
	}
	if hc.Bundle != nil {
		for _, in := range hc.Bundle.Inputs {
			if !strings.Contains(filepath.ToSlash(in), "/node_modules/") {
				set[filepath.Dir(in)] = true
			}
		}
	}
	dirs := make([]string, 0, len(set))
	for dir := range set {
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	return dirs
}

// watchedExt are the extensions of files whose change rebuilds the worker.
var watchedExt = map[string]bool{
	".js": true, ".mjs": true, ".cjs": true, ".jsx": true,
	".ts": true, ".mts": true, ".cts": true, ".tsx": true,
	".json": true, ".jsonc": true, ".toml": true, ".wasm": true, ".txt": true, ".html": true,
}

// relevant reports whether a change to the file named name should reload.
func relevant(name string) bool {
	base := filepath.Base(name)
	if base == ".dev.vars" || strings.HasPrefix(base, ".dev.vars.") || base == ".env" || strings.HasPrefix(base, ".env.") {
		return true
	}
	if strings.HasPrefix(base, ".") || strings.HasSuffix(base, "~") || strings.HasPrefix(base, "#") {
		return false // hidden, editor backups and lock files
	}
	return watchedExt[strings.ToLower(filepath.Ext(base))]
}

// watch reloads the project on every relevant change until ctx ends.
// onReload, if set, is called after each reload attempt. ready is closed
// once the project's directories are watched (or watching failed): a
// change made after that reloads.
func (d *devServer) watch(ctx context.Context, onReload func(error), ready chan<- struct{}) error {
	readyOnce := sync.OnceFunc(func() { close(ready) })
	defer readyOnce()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch project: %w", err)
	}
	defer w.Close()
	watched := map[string]bool{}
	rewatch := func() {
		want := map[string]bool{}
		d.mu.Lock()
		build := d.cfg.Build
		d.mu.Unlock()
		for _, dir := range append(d.watchDirs(), buildWatchDirs(build)...) {
			want[dir] = true
			if !watched[dir] {
				if err := w.Add(dir); err != nil {
					fmt.Fprintf(d.stderr, "%s cannot watch %s: %v\n", markWarn, dir, err)
					continue
				}
				watched[dir] = true
			}
		}
		for dir := range watched {
			if !want[dir] {
				_ = w.Remove(dir)
				delete(watched, dir)
			}
		}
	}
	rewatch()
	readyOnce()
	var fire <-chan time.Time
	var timer *time.Timer
	buildFile := "" // the last changed file under the build's watch_dir since the last build
	for {
		select {
		case <-ctx.Done():
			if timer != nil {
				timer.Stop()
			}
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			// A change under the custom build's watch_dir (any file, as
			// wrangler's watcher sees them) re-runs the build first.
			d.mu.Lock()
			build := d.cfg.Build
			d.mu.Unlock()
			if build != nil && underAny(ev.Name, build.WatchDirs) {
				buildFile = ev.Name
			} else if !relevant(ev.Name) {
				continue
			}
			d.changed = ev.Name
			if timer == nil {
				timer = time.NewTimer(reloadDebounce)
			} else {
				timer.Reset(reloadDebounce)
			}
			fire = timer.C
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			fmt.Fprintf(d.stderr, "%s watching the project: %v\n", markWarn, err)
		case <-fire:
			fire = nil
			if buildFile != "" {
				d.mu.Lock()
				build := d.cfg.Build
				d.mu.Unlock()
				fmt.Fprintf(d.stdout, "The file %s changed, restarting build...\n", relOrAbs(buildFile))
				buildFile = ""
				if err := runCustomBuild(ctx, build, d.stdout); err != nil {
					if ctx.Err() != nil {
						return nil
					}
					fmt.Fprintf(d.stderr, "%s %v\n  still serving the previous code\n", markError, err)
					rewatch()
					if onReload != nil {
						onReload(err)
					}
					continue
				}
			}
			err := d.reload()
			rewatch()
			if onReload != nil {
				onReload(err)
			}
		}
	}
}
