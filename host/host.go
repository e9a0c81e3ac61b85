// Package host runs Durable Object classes: shards (one goja runtime and
// event loop each), cells (activation, delivery, commit), gates, and the
// HTTP front. Its core is usable without the HTTP edge (http.go).
package host

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
	"golang.org/x/sync/semaphore"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
)

// Binding binds a Durable Object class to a name on env.
type Binding struct {
	Name  string // env.<Name>
	Class string // the exported class
}

// Config is everything a Host needs; cmd/cellhost builds it from the wrangler
// config and flags. Host reads no files or environment on its own beyond
// StateDir.
type Config struct {
	Bundle   *jsapi.Bundle
	Script   string // the worker's name: part of every id (bucket-protocol.md 3)
	Bindings []Binding
	Vars     map[string]any
	// Bind, if set, adds the other bindings to env (KV namespaces, service
	// bindings, ...); see jsapi.WorkerOptions.Bind. Called on each shard's
	// loop whenever it builds a runtime.
	Bind func(rt *goja.Runtime, env *goja.Object) error
	// Internal are the classes of internal cells (cells that run Go, such
	// as D1 databases; internal.go).
	Internal []InternalClass
	// BindInternal, if set, adds the bindings that reach internal cells
	// (D1 databases) to env, with the shard's CellCaller. Called after
	// Bind, on each shard's loop whenever it builds a runtime.
	BindInternal func(rt *goja.Runtime, env *goja.Object, cells CellCaller) error
	// CompatibilityDate and CompatibilityFlags are the worker's (wrangler
	// config); they select behaviour such as deleteAll() and alarms.
	CompatibilityDate  string
	CompatibilityFlags []string
	Shards             int // default: number of CPUs
	// Clock is the time of timers and eviction (the real clock when nil;
	// clock.go).
	Clock Clock

	Limits
	Storage
	Fleet
	Dev
	Logging

	// clock is idle eviction's clock (Clock.Now when nil); tests set it
	// (export_test.go).
	clock func() time.Time
	// workerShard, when above 0, is 1 + the index of the shard every
	// worker request runs on (tests that need the worker and an object on
	// chosen shards); 0: the least busy.
	workerShard int
	// linger, when set (tests, export_test.go), gets the output gate's
	// group-commit policy before the syncer starts, to record its waits
	// and fix its clock.
	linger func(*queue.Linger)
}

// The groups of Config, embedded: their fields read as Config's own
// (cfg.StateDir), and a literal names the group
// (Config{Storage: Storage{StateDir: dir}}). withDefaults fills every
// zero that has a default, in one place.

// withDefaults fills c's zero fields that have defaults and checks the
// durability mode (New).
func (c *Config) withDefaults() error {
	if c.Shards <= 0 {
		c.Shards = runtime.NumCPU()
	}
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	c.Logging.withDefaults()
	c.Limits.withDefaults()
	if c.CommitCoalesce == 0 {
		c.CommitCoalesce = DefaultCommitCoalesce
	}
	return configureDurability(c)
}

func (l *Logging) withDefaults() {
	if l.Log == nil {
		l.Log = os.Stderr
	}
	if l.Logger == nil {
		l.Logger = slog.New(newConsoleHandler(l.Log))
	}
}

func (l *Limits) withDefaults() {
	if l.IdleTimeout == 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.MaxOpenDatabases == 0 {
		l.MaxOpenDatabases = DefaultMaxOpenDatabases
	}
	if l.InstanceIdleTimeout == 0 {
		l.InstanceIdleTimeout = DefaultInstanceIdleTimeout
	}
	if l.MemoryLimit == 0 {
		l.MemoryLimit = DefaultMemoryLimit
	}
	if l.CPULimit <= 0 {
		l.CPULimit = 30 * time.Second
	}
	if l.RequestTimeout <= 0 {
		l.RequestTimeout = 2 * time.Minute
	}
	if l.MaxWebSocketsPerObject <= 0 {
		l.MaxWebSocketsPerObject = DefaultMaxWebSocketsPerObject
	}
	if l.MaxWebSocketQueued <= 0 {
		l.MaxWebSocketQueued = DefaultMaxWebSocketQueued
	}
}

// Node is what host uses of this process's membership of the fleet
// (*ownership.Node implements it).
type Node interface {
	// ID is the node's id (owner marks of the backup mode).
	ID() string
	// TryAcquireThen takes the lease of the cell scope (the own.json CAS)
	// and runs then (the restore and the database open) while the
	// node-cells marker is written; it releases the lease if then fails.
	TryAcquireThen(ctx context.Context, scope string, then func(*ownership.Lease) error) (*ownership.Lease, error)
	// CanAck reports whether the node may acknowledge a write or answer
	// from memory now: not fenced, and its last renewal recent enough.
	CanAck() bool
}

var _ Node = (*ownership.Node)(nil)

// Limits bounds what one object, connection or request may take; zero
// means the default named on each field.
type Limits struct {
	// RequestTimeout bounds how long an HTTP request (Handler) waits for
	// its answer; past it the answer is 500 and the log says why. Default
	// 2 minutes. FetchObject and Fetch wait as long as their ctx allows.
	RequestTimeout time.Duration
	// CPULimit bounds one event's run on the loop (a macrotask); past it the
	// JS is interrupted and the object reset. Default 30 s. A watchdog looks
	// every eighth of it, so the interrupt comes within 1.125 times it.
	CPULimit time.Duration
	// MaxWebSocketsPerObject caps the open WebSockets of one object (each
	// holds a connection, two goroutines and their buffers); an upgrade
	// past it is answered 503. Default DefaultMaxWebSocketsPerObject.
	MaxWebSocketsPerObject int
	// MaxWebSocketQueued caps the bytes sent to one WebSocket client and
	// not yet written (a client that does not read); past it the
	// connection is closed with 1008. Default DefaultMaxWebSocketQueued.
	MaxWebSocketQueued int64
	// IdleTimeout is how long an object stays resident without events
	// before it is evicted (DefaultIdleTimeout when zero; negative: never).
	IdleTimeout time.Duration
	// MaxResidentCells bounds the cells that hold their database open at
	// once (0: no bound); past it the least recently used idle cells are
	// evicted (resident.go).
	MaxResidentCells int
	// MaxOpenDatabases bounds the resident cells whose database is open
	// at once, each holding 4 file descriptors and its page cache
	// (DefaultMaxOpenDatabases when zero; negative: no bound); past it the
	// least recently used idle ones close theirs and stay resident
	// (park.go).
	MaxOpenDatabases int
	// MemoryLimit bounds how much the live heap may grow while one event
	// of an object runs (DefaultMemoryLimit, 128 MiB as workerd's isolate
	// limit, when zero; negative: no limit). Past it the object is reset
	// (memwatch.go).
	MemoryLimit int64
	// InstanceIdleTimeout is how long an object's instance stays without
	// events before it is dropped, the cell staying resident
	// (DefaultInstanceIdleTimeout, workerd's 10 s, when zero; negative:
	// never). Hibernatable WebSockets stay connected meanwhile.
	InstanceIdleTimeout time.Duration
}

// Storage is where cells live and how their commits become durable.
type Storage struct {
	StateDir string // cell databases and the state lock live here
	// Durability is DurabilityLocal, DurabilityLog or DurabilityBackup;
	// default: log when Bucket is set, else local.
	Durability string
	// Bucket is the object store holding the cells' LTX logs (log and
	// backup modes).
	Bucket plugins.ObjectStore
	// StateLock, if set, is the caller's lock of StateDir (LockState);
	// otherwise Open takes it.
	StateLock *StateLock
	// BackupInterval is how often the backup mode saves changed cells
	// (DefaultBackupInterval when zero): its RPO.
	BackupInterval time.Duration
	// Syncer makes commits durable on the local disk before replies leave
	// (the output gate). Default: LocalSync in the local and backup modes,
	// none in the log mode (the upload makes a commit durable); one set in
	// the log mode runs before each round's upload. Tests set their own.
	Syncer Syncer
	// CommitCoalesce is how long the turns of one loop batch may keep an
	// object's implicit transaction open so that they share one commit
	// (DefaultCommitCoalesce when zero; negative: every turn commits on
	// its own). See shard.endTurn.
	CommitCoalesce time.Duration
}

// Fleet is this process's membership of a fleet (nil fields: one node,
// no ownership checks or forwarding).
type Fleet struct {
	// Node is this process's membership of the fleet (cell ownership;
	// an *ownership.Node). It must be started; the host does not close
	// it. Nil: no ownership checks (tests, single-process tools).
	Node Node
	// Placement, if set, reaches objects that a live other node owns
	// (placement.go; fleet.Placement); nil: a request for one fails with
	// *ownership.CellOwnedElsewhereError.
	Placement Placement
	// AlarmSink, if set, is told about every durable alarm (wake.go); idle
	// objects with an armed alarm are then evicted like any other. Nil: an
	// armed alarm keeps its object resident.
	AlarmSink AlarmSink
}

// Dev holds the hooks of a development server (cellhost dev): error
// pages, the request's cf object, console lines and request lines.
type Dev struct {
	// ErrorPage, if set, writes the 500 answer to a request whose handler
	// threw (err; a *jsapi.ScriptError carries the stack) instead of the
	// bare "Internal Server Error" workerd sends in production. cellhost
	// dev sets it, as wrangler dev shows the error.
	ErrorPage func(w http.ResponseWriter, r *http.Request, err error)
	// RequestCF, if set, is the cf object (JSON) every request arriving
	// over HTTP carries, for the worker and for /do/ routes: cellhost dev
	// sets wrangler dev's offline placeholder, or the user's --cf file.
	RequestCF string
	// Console, if set, receives every console line with its level and the
	// object whose event wrote it (scope "<Class>:<id>"; "" for the
	// worker), instead of Log. Called on a shard's loop; it must not block.
	Console func(scope, level, line string)
	// RequestLog, if set, is called once for every request the Handler
	// served, after its answer (the dev command prints a line for each).
	RequestLog func(RequestInfo)
	// Constructed, if set, is called each time an object's instance is
	// constructed, with the name of the id that woke it ("" when reached
	// by an id string or woken by its alarm): cellhost dev records it for
	// its inspector (which names objects made by getByName/idFromName and
	// lists those that never wrote). Called on a shard's loop; it must
	// not block.
	Constructed func(class, id, name string)
}

// Logging is where the host's messages and metrics go.
type Logging struct {
	Log io.Writer // console output (and host messages by default); default os.Stderr
	// Logger receives the host's own messages, with the attributes scope
	// and shard where they apply. Default: readable lines on Log.
	Logger *slog.Logger
	// Metrics, if set, is told of every durability round (metrics.go), for
	// an exporter such as cellhost serve's /metrics.
	Metrics Metrics
}

// DefaultCommitCoalesce is Config.CommitCoalesce when zero.
const DefaultCommitCoalesce = time.Millisecond

// Host runs one worker's Durable Objects.
//
// Lifecycle: New (no side effects) → Open (once) → FetchObject, Fetch,
// Handler from any goroutines → Close (once). Open starts every goroutine
// the host runs, and the ones it starts later (activations, uploads,
// deletes, backups, lease watchers) are started through goFunc, under the
// host's root context; Close cancels that context, waits for all of them,
// and only then closes the databases and releases the state lock.
type Host struct {
	cfg     Config
	log     *slog.Logger
	classes map[string]bool
	// internal are the classes of internal cells, by name (internal.go).
	internal map[string]InternalClass
	shards   []*shard
	next     atomic.Uint32 // round-robin shard for worker (non-object) requests
	lock     *StateLock    // taken by Open when Config.StateLock is nil
	syncer   *syncer
	dur      durability // Config.Durability's behaviour (durable.go)
	closing  atomic.Bool
	sockets  wsRegistry // upgraded WebSocket connections
	counted  counters   // stats.go
	// releasedAt is counted.parked when memory was last returned to the
	// operating system (park.go).
	releasedAt atomic.Int64

	// ctx is the root of every goroutine's context; cancel ends it (Close).
	ctx    context.Context
	cancel context.CancelFunc
	// stop is closed when Close begins: the tickers end.
	stop chan struct{}
	// drained is closed once Close has stopped every loop and goroutine:
	// no reply can come after it (await).
	drained chan struct{}
	wg      sync.WaitGroup // every goroutine started by goFunc
	goMu    sync.Mutex
	gone    bool // guarded by goMu: Close waits on wg; goFunc runs inline

	now       func() time.Time    // idle eviction's clock (Config.clock, else Clock.Now)
	clock     Clock               // Config.Clock
	bodies    *semaphore.Weighted // request bodies in memory (http.go)
	bodyBytes atomic.Int64        // bytes reserved in bodies

	mu    sync.Mutex
	cells map[string]*cell // by scope; guarded by mu
}

// ErrClosed is what events waiting for an object get when the host closes
// before the object could take them.
var ErrClosed = errors.New("the host is shutting down")

// ErrUnanswered is what a request still running when its host closed (a
// cellhost dev reload, a shutdown) gets: its promise will never settle
// once the loops have stopped, so it is failed (503) rather than left
// waiting for a client's timeout.
var ErrUnanswered = fmt.Errorf("the request was still running when the worker stopped (a reload or a shutdown); send it again: %w", ErrClosed)

// New validates cfg and returns a Host that is not yet running.
func New(cfg Config) (*Host, error) {
	if cfg.Bundle == nil {
		return nil, errors.New("new host: no worker bundle")
	}
	if cfg.StateDir == "" {
		return nil, errors.New("new host: no state directory")
	}
	if err := cfg.withDefaults(); err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	h := &Host{cfg: cfg, dur: newDurability(cfg.Durability), log: cfg.Logger, classes: map[string]bool{}, cells: map[string]*cell{}, stop: make(chan struct{}), drained: make(chan struct{}), now: cfg.Clock.Now, clock: cfg.Clock, bodies: semaphore.NewWeighted(bodyBudget)}
	if cfg.clock != nil {
		h.now = cfg.clock
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	for _, b := range cfg.Bindings {
		h.classes[b.Class] = true
	}
	internal, err := checkInternal(&cfg, h.classes)
	if err != nil {
		return nil, fmt.Errorf("new host: %w", err)
	}
	h.internal = internal
	return h, nil
}

// ErrStateLocked means another process uses the state directory.
var ErrStateLocked = errors.New("state directory is in use")

// StateLock is the exclusive lock of a state directory (flock on
// <dir>/LOCK, held until Close): one process per state directory.
type StateLock struct{ f *os.File }

// LockState takes the state directory's lock, creating the directory.
func LockState(dir string) (*StateLock, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil { // holds every object's data
		return nil, fmt.Errorf("lock state: %w", err)
	}
	lockPath := filepath.Join(dir, "LOCK")
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock state: %w", err)
	}
	if err := tryLockFile(f); err != nil {
		b, _ := os.ReadFile(lockPath)
		f.Close()
		holder := strings.TrimSpace(string(b))
		if holder == "" {
			holder = "unknown"
		}
		return nil, fmt.Errorf("%w: %s is locked by another cellhost process (pid %s); stop it, or pass --state to use another directory", ErrStateLocked, dir, holder)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &StateLock{f: f}, nil
}

// Close releases the lock.
func (l *StateLock) Close() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = unlockFile(l.f)
	err := l.f.Close()
	l.f = nil
	return err
}

// Open locks the state directory (unless Config.StateLock holds it), builds
// every shard's runtime and starts the loops. On error nothing is left
// running.
func (h *Host) Open() error {
	if h.cfg.StateLock == nil {
		lock, err := LockState(h.cfg.StateDir)
		if err != nil {
			return err
		}
		h.lock = lock
	}

	h.syncer = newSyncer(h)
	h.goFunc(func(context.Context) { h.syncer.run() })
	h.shards = make([]*shard, h.cfg.Shards)
	errs := make(chan error, h.cfg.Shards)
	for i := range h.shards {
		s := newShard(h, i)
		h.shards[i] = s
		h.goFunc(func(ctx context.Context) {
			// The label splits CPU profiles (CELLHOST_PPROF) by shard.
			pprof.Do(ctx, pprof.Labels("shard", strconv.Itoa(s.idx)), func(context.Context) {
				err := s.load()
				errs <- err
				if err != nil {
					s.jobs.Close()
					close(s.done)
					return
				}
				s.run()
			})
		})
	}
	var failed []error
	for range h.shards {
		if err := <-errs; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return errors.Join(append(failed, h.Close(context.Background()))...)
	}
	h.dur.start(h)
	if h.cfg.IdleTimeout > 0 {
		h.goFunc(func(context.Context) { everyShard(h, h.cfg.IdleTimeout/2, (*shard).evictIdle) })
	}
	if h.cfg.InstanceIdleTimeout > 0 {
		h.sweepInstances()
	}
	h.startInternal()
	return nil
}

// goFunc runs f on a goroutine of its own that Close waits for; f's ctx
// ends when Close gives up on graceful work (or its ctx expires). Safe from
// any goroutine. Once Close is waiting, f runs on the caller's goroutine
// instead (its ctx already canceled), so nothing escapes the wait.
func (h *Host) goFunc(f func(ctx context.Context)) {
	h.goMu.Lock()
	if h.gone {
		h.goMu.Unlock()
		f(h.ctx)
		return
	}
	h.wg.Add(1)
	h.goMu.Unlock()
	go func() {
		defer h.wg.Done()
		f(h.ctx)
	}()
}

// Close stops the host: the WebSocket connections close, the tickers stop,
// every shard runs the jobs already queued, the syncer makes the commits
// already made durable (delivering their replies), then the root context
// is canceled and Close waits for every goroutine the host started
// (activations still restoring give up and close what they opened), saves
// the backup mode's changed cells, closes the cell databases, releases
// their leases and the state lock. If ctx ends first, the graceful part is
// cut short (uploads and restores are canceled), but Close still waits for
// the goroutines: nothing the host started writes into the state
// directory after Close returns. Close returns every error, joined, and
// ctx's error if it ended. Later calls return nil.
func (h *Host) Close(ctx context.Context) error {
	if h.closing.Swap(true) {
		return nil
	}
	stopCancel := context.AfterFunc(ctx, h.cancel)
	defer stopCancel()
	close(h.stop)
	h.closeWebSockets()
	for _, s := range h.shards {
		s.close()
	}
	if h.syncer != nil {
		h.syncer.close()
	}
	h.cancel()
	h.goMu.Lock()
	h.gone = true
	h.goMu.Unlock()
	h.wg.Wait()
	close(h.drained)

	h.mu.Lock()
	cells := make([]*cell, 0, len(h.cells))
	for _, c := range h.cells {
		cells = append(cells, c)
	}
	h.mu.Unlock()
	// Every goroutine has ended: the cells are ours now.
	var errs []error
	for _, c := range cells {
		if err := h.dur.final(ctx, h, c); err != nil {
			c.logger().Error("final backup: " + err.Error())
			errs = append(errs, fmt.Errorf("final backup of %s: %w", c.scope, err))
		}
		if err := c.closeDB(true); err != nil {
			errs = append(errs, fmt.Errorf("close %s: %w", c.scope, err))
		}
	}
	if h.lock != nil {
		if err := h.lock.Close(); err != nil {
			errs = append(errs, fmt.Errorf("release state lock: %w", err))
		}
		h.lock = nil
	}
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("close host: %w", err))
	}
	return errors.Join(errs...)
}

// Script is the worker's name.
func (h *Host) Script() string { return h.cfg.Script }

// shardFor is the shard of a scope for its whole activation.
func (h *Host) shardFor(scope string) *shard {
	f := fnv.New32a()
	f.Write([]byte(scope))
	return h.shards[f.Sum32()%uint32(len(h.shards))]
}

// cellFor returns the cell for class and id, creating its record if needed,
// with a reference the caller hands to the job it posts to the cell's
// shard; that job calls c.unref first. Safe from any goroutine.
func (h *Host) cellFor(class, id string) *cell {
	scope := class + ":" + id
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.cells[scope]
	if !ok {
		c = &cell{class: class, id: id, scope: scope, s: h.shardFor(scope)}
		h.cells[scope] = c
	}
	c.refs.Add(1)
	return c
}

// unref drops the reference cellFor took. On the cell's loop.
func (c *cell) unref() { c.refs.Add(-1) }

// ErrUnknownClass is returned for a class that is not a bound Durable Object class.
var ErrUnknownClass = errors.New("unknown Durable Object class")

// ResolveID turns an HTTP address (a 64-hex id or a name) into an id and
// the name (empty when addressed by id).
func (h *Host) ResolveID(class, idOrName string) (id, name string, err error) {
	if !h.classes[class] {
		return "", "", fmt.Errorf("%w %q", ErrUnknownClass, class)
	}
	if isHexID(idOrName) {
		id, err := ParseID(h.cfg.Script, class, idOrName)
		return id, "", err
	}
	return IDFromName(h.cfg.Script, class, idOrName), idOrName, nil
}

// FetchObject delivers req to the object class/id (name is the name the id
// came from, or ""), and waits for its response until ctx ends. Safe from
// any goroutine. With Config.Placement set, a request for an object another
// live node owns goes to that node (placement.go).
func (h *Host) FetchObject(ctx context.Context, class, id, name string, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	return h.fetchRouted(ctx, class, id, name, req)
}

// Fetch delivers req to the worker's default fetch handler and waits for
// its response until ctx ends. Safe from any goroutine.
func (h *Host) Fetch(ctx context.Context, req *jsapi.HTTPRequest) (*jsapi.HTTPResponse, error) {
	s := h.workerShard()
	return h.await(ctx, func(reply func(*jsapi.HTTPResponse, error)) {
		s.post(func() { s.workerFetch(req, reply) })
	})
}

// workerShard picks the shard for a worker (stateless) request: the one
// with the shortest queue, starting the scan round-robin. Busy objects keep
// their shard's queue long, so the worker's own JS moves to the others.
func (h *Host) workerShard() *shard {
	if i := h.cfg.workerShard; i > 0 {
		return h.shards[(i-1)%len(h.shards)]
	}
	start := int(h.next.Add(1))
	best, bestLen := h.shards[start%len(h.shards)], -1
	for i := range h.shards {
		s := h.shards[(start+i)%len(h.shards)]
		n := s.jobs.Len()
		if bestLen < 0 || n < bestLen {
			best, bestLen = s, n
		}
	}
	return best
}

// ErrTimeout means an object did not answer within the request timeout.
var ErrTimeout = errors.New("the Durable Object did not answer in time")

type result struct {
	resp *jsapi.HTTPResponse
	err  error
}

func (h *Host) await(ctx context.Context, start func(reply func(*jsapi.HTTPResponse, error))) (*jsapi.HTTPResponse, error) {
	ch := make(chan result, 1)
	start(func(r *jsapi.HTTPResponse, err error) { ch <- result{r, err} })
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-h.drained:
		// The loops have stopped: a reply not sent by now never will
		// be (a promise the closed loop would have settled).
		select {
		case r := <-ch:
			return r.resp, r.err
		default:
			return nil, ErrUnanswered
		}
	}
}

// workerFetch runs the default export's fetch handler. On the loop.
func (s *shard) workerFetch(req *jsapi.HTTPRequest, reply func(*jsapi.HTTPResponse, error)) {
	fail := func(err error) { s.reply(nil, func() { reply(nil, err) }) }
	ctx := s.w.NewExecutionContext(nil) // waitUntil keeps nothing alive yet
	v, err := s.guard(func() (goja.Value, error) { return s.w.CallFetch(req, ctx) })
	if err != nil {
		fail(err)
		return
	}
	s.settleResponse(v, s.startWorkerEvent(reply))
}

// settleResponse waits for v (a Response or a promise of one) and queues
// reply for the end of the turn in which it settles.
func (s *shard) settleResponse(v goja.Value, reply func(*jsapi.HTTPResponse, error)) {
	s.w.Settle(v, func(r goja.Value) {
		resp, err := jsapi.ExportResponse(s.rt, r)
		claimSocket(resp, &wsOwner{s: s})
		s.reply(nil, func() { reply(resp, err) })
	}, func(e goja.Value) {
		err := s.w.ScriptErrorOf(e)
		s.reply(nil, func() { reply(nil, err) })
	})
}

// namespace is one class's binding inside one shard (jsapi.Namespace).
type namespace struct {
	s     *shard
	class string
	// ids caches IDFromName (two HMAC-SHA256 per call; getByName runs on
	// most requests). Used on the shard's loop only; it starts over when
	// it reaches maxCachedIDs.
	ids map[string]string
}

const maxCachedIDs = 4096

func (n *namespace) IDFromName(name string) string {
	if id, ok := n.ids[name]; ok {
		return id
	}
	id := IDFromName(n.s.h.cfg.Script, n.class, name)
	if n.ids == nil || len(n.ids) >= maxCachedIDs {
		n.ids = make(map[string]string)
	}
	n.ids[name] = id
	return id
}

func (n *namespace) IDFromString(str string) (string, error) {
	return ParseID(n.s.h.cfg.Script, n.class, str)
}

func (n *namespace) NewUniqueID() string { return NewUniqueID(n.s.h.cfg.Script, n.class) }

// Fetch delivers req to the object and calls done on the caller's loop.
func (n *namespace) Fetch(id, name string, req *jsapi.HTTPRequest, done func(*jsapi.HTTPResponse, error)) {
	c := n.s.h.cellFor(n.class, id)
	caller := n.s
	done = wrapDone(caller, done)
	c.s.post(func() {
		c.unref()
		c.fetch(name, req, func(resp *jsapi.HTTPResponse, err error) {
			if n.s.h.cfg.Placement != nil && isElsewhere(err) {
				n.s.h.goFunc(func(ctx context.Context) {
					ctx, cancel := context.WithTimeout(ctx, n.s.h.cfg.RequestTimeout)
					defer cancel()
					resp, err := n.s.h.fetchRouted(ctx, n.class, id, name, req)
					err = remoteError(err, id, false)
					caller.post(func() { done(resp, err) })
				})
				return
			}
			err = remoteError(err, id, false)
			caller.post(func() { done(resp, err) })
		})
	})
}

// Call delivers an RPC to the object and calls done on the caller's loop.
func (n *namespace) Call(id, name, method string, args []byte, get bool, done func([]byte, error)) {
	c := n.s.h.cellFor(n.class, id)
	caller := n.s
	done = wrapDone(caller, done)
	c.s.post(func() {
		c.unref()
		c.call(name, method, args, get, func(res []byte, err error) {
			if n.s.h.cfg.Placement != nil && isElsewhere(err) {
				n.s.h.goFunc(func(ctx context.Context) {
					ctx, cancel := context.WithTimeout(ctx, n.s.h.cfg.RequestTimeout)
					defer cancel()
					res, err := n.s.h.callRouted(ctx, n.class, id, name, method, args, get)
					err = remoteError(err, id, true)
					caller.post(func() { done(res, err) })
				})
				return
			}
			err = remoteError(err, id, true)
			caller.post(func() { done(res, err) })
		})
	})
}

// remoteError marks an error thrown by the object id: JS sees it with
// error.remote = true (and, with enhanced_error_serialization,
// error.durableObjectId). An RPC's error that broke the object without
// durableObjectReset stays unmarked, as on workerd (a fetch's is marked).
func remoteError(err error, id string, rpc bool) error {
	var se *jsapi.ScriptError
	if errors.As(err, &se) {
		if rpc && se.Broken {
			return err
		}
		remote := *se
		remote.Remote = true
		if remote.Value != nil {
			// enhanced_error_serialization: the error names its object.
			remote.ObjectID = id
		}
		return &remote
	}
	var be *BrokenObjectError
	if errors.As(err, &be) {
		return &jsapi.ScriptError{Name: "Error", Message: be.Error(), Remote: true, Reset: true}
	}
	return err
}
