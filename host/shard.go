package host

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/jsapi"
)

// maxCallStackSize bounds JS recursion so that JS→Go→JS recursion ends in a
// RangeError instead of a fatal Go stack overflow.
const maxCallStackSize = 8192

// A shard owns one goja runtime, the worker bundle evaluated in it, and the
// JS instances of the cells that hash to it. One goroutine (run) executes
// every job; anything else reaches the runtime by post.
type shard struct {
	h   *Host
	idx int
	log *slog.Logger // h's, with the attribute shard

	jobs *queue.Queue[func()]
	done chan struct{} // closed when run returns

	// The CPU-limit watchdog (watchdog): guarded by cpuMu.
	cpuMu       sync.Mutex
	jobStart    time.Time // when the running job started
	jobRunning  bool
	interrupted bool // the watchdog interrupted the current job
	// memExceeded: the interrupt came from the memory watchdog (memwatch.go).
	memExceeded atomic.Bool
	// objectJob: the running job is an object's code (current is set), for
	// the watchdog's choice of message.
	objectJob atomic.Bool

	// Owned by the loop goroutine.
	current   *cell // the cell whose event is running, if any
	epoch     int   // runtime generation: timers of a replaced runtime never fire
	rt        *goja.Runtime
	w         *jsapi.Worker
	ns        map[string]*namespace // by class name
	dirty     []*cell               // cells whose implicit transaction is open
	cells     cellList              // the cells the shard knows, by last use (resident.go)
	nResident int                   // cells holding or opening their database
	open      cellList              // the cells whose database is open or opening, by last use (park.go)
	replies   []pendingReply        // released after this turn's commits
	// carryStart is when the oldest commit still carried over from an
	// earlier turn of the batch was held back (zero: none is).
	carryStart time.Time
	// currentGen is current's generation (cell.gen) when the code running
	// was started: an older one means the instance it belongs to is gone.
	currentGen int
	// alloc: the allocation check's view of the heap (memalloc.go).
	alloc allocBase
	// Pending timers by deadline, and those due, in order (timers.go).
	timers      timerHeap
	readyTimers []*shardTimer
	timerSeq    uint64

	// workerEvents are the worker requests in flight (enginepanic.go).
	workerEvents map[*workerEvent]struct{}
}

// pendingReply is a reply produced during a turn: it leaves once the commits
// of its cell (nil: none) are durable.
type pendingReply struct {
	c *cell
	f func()
}

func newShard(h *Host, idx int) *shard {
	return &shard{h: h, idx: idx, log: h.log.With("shard", idx), jobs: queue.New[func()](), done: make(chan struct{}), ns: map[string]*namespace{},
		cells: cellList{links: byUse}, open: cellList{links: byOpen}}
}

// load builds the runtime and evaluates the bundle. Called before run, on the
// goroutine that will run the loop.
func (s *shard) load() error {
	rt := goja.New()
	rt.SetMaxCallStackSize(maxCallStackSize)
	s.alloc.valid = false // module scope is measured from here
	rt.SetAllocationHook(s.allowAlloc)
	wo := jsapi.WebOptions{Console: s.h.cfg.Log}
	if f := s.h.cfg.Console; f != nil {
		wo.ConsoleFunc = func(level, line string) {
			scope := ""
			if c := s.current; c != nil {
				scope = c.scope
			}
			f(scope, level, line)
		}
	}
	if err := jsapi.InstallWeb(rt, wo); err != nil {
		return fmt.Errorf("shard %d: %w", s.idx, err)
	}
	jsapi.InstallTimers(rt, jsTimers{s})
	nss := map[string]jsapi.Namespace{}
	bindingClasses := map[string]string{}
	classes := make([]string, 0, len(s.h.cfg.Bindings))
	for _, b := range s.h.cfg.Bindings {
		n, ok := s.ns[b.Class]
		if !ok {
			n = &namespace{s: s, class: b.Class}
			s.ns[b.Class] = n
		}
		nss[b.Name] = n
		bindingClasses[b.Name] = b.Class
		classes = append(classes, b.Class)
	}
	bind := s.h.cfg.Bind
	if bi := s.h.cfg.BindInternal; bi != nil {
		bind = func(rt *goja.Runtime, env *goja.Object) error {
			if b := s.h.cfg.Bind; b != nil {
				if err := b(rt, env); err != nil {
					return err
				}
			}
			return bi(rt, env, shardCells{s})
		}
	}
	stop := jsapi.GuardModuleScope(rt, s.h.cfg.CPULimit, s.h.cfg.MemoryLimit) // module scope's limits (memalloc.go)
	w, err := jsapi.NewWorker(rt, jsapi.WorkerOptions{Bundle: s.h.cfg.Bundle, Namespaces: nss, Vars: s.h.cfg.Vars, Classes: classes,
		BindingClasses: bindingClasses, Post: s.post, PostAs: s.postAs, Bind: bind, CurrentScope: s.currentScope, BridgeSocket: s.bridgeSocket,
		WasmMemoryLimit: s.h.cfg.MemoryLimit, WasmMemoryExceeded: s.wasmMemoryExceeded})
	if why := stop(); why != nil {
		rt.ClearInterrupt()
		return fmt.Errorf("%v", why)
	}
	if err != nil {
		return err
	}
	s.rt, s.w = rt, w
	return nil
}

// replaceRuntime builds a fresh runtime for the shard and resets every
// object living in it. Only for an interrupt that belongs to no object
// (module-scope timers, jobs of the RPC layer) and for a Go panic that
// crossed goja; an interrupted object's own code resets that object alone
// (runJob). On the loop.
func (s *shard) replaceRuntime(reason string) {
	s.epoch++
	old, oldW := s.rt, s.w
	if err := s.load(); err != nil {
		// The bundle loaded before, so this is unexpected; keep the old
		// runtime rather than leave the shard without one.
		s.log.Error(fmt.Sprintf("shard %d: cannot rebuild the runtime: %v", s.idx, err))
		s.rt, s.w = old, oldW
		return
	}
	oldW.Retire()       // the RPC targets it exported die with it
	oldW.CloseAllWasm() // and its wasm instances
	s.failWorkerEvents(reason)
	for _, c := range s.h.cellsOf(s) {
		if c.inst != nil || len(c.waiting) > 0 {
			c.reset(reason)
		}
	}
}

// post queues f to run on the loop as a macrotask of its own. Safe from any
// goroutine; never blocks. Jobs posted after close are dropped: post then
// reports false.
func (s *shard) post(f func()) bool { return s.jobs.Push(f) }

// postAs returns a post whose functions run as the code running now: as
// the current cell's (shard.current, with its generation, as wrapDone
// does), so that the continuation of the object's asynchronous work (a
// fetch() response, a stream body's chunk, a blockConcurrencyWhile
// callback) logs with its [Class:id] label and counts against its CPU
// limit; plain post when the worker's own code runs. On the loop.
func (s *shard) postAs() func(func()) bool {
	c, gen := s.current, s.currentGen
	if c == nil {
		return s.post
	}
	return func(f func()) bool {
		return s.post(func() {
			s.setCurrent(c, gen)
			f()
		})
	}
}

// postOrRun posts f, or, once the shard is closed, runs f on the calling
// goroutine after the loop has stopped: what the loop owned is then the
// caller's (Close waits for that caller before it closes the cells). For
// the goroutines Host.Close waits for, so that their results (a sync
// round's replies) are not lost.
func (s *shard) postOrRun(f func()) {
	if !s.post(f) {
		<-s.done
		f()
	}
}

// run is the event loop. It returns once close was called and the queue
// drained.
func (s *shard) run() {
	defer close(s.done)
	s.h.goFunc(func(context.Context) { s.watchdog() })
	s.h.goFunc(func(context.Context) { s.memWatchdog() })
	queue.Run(s.jobs, nil, func(batch []func()) (int, int) {
		for i, job := range batch {
			s.runJob(job)
			s.endTurn(i < len(batch)-1)
			batch[i] = nil
		}
		return len(batch), len(batch)
	})
}

// close stops the loop after the jobs already queued, and waits.
func (s *shard) close() {
	s.jobs.Close()
	<-s.done
}

// watchdog interrupts a job that has run for the CPU limit. It looks every
// eighth of the limit, so a job is interrupted between 1 and 1.125 times
// the limit; one ticker per shard costs less than a timer per job (a
// request runs several jobs). It ends with the loop.
func (s *shard) watchdog() {
	limit := s.h.cfg.CPULimit
	t := time.NewTicker(max(limit/8, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case now := <-t.C:
			s.cpuMu.Lock()
			if s.jobRunning && !s.interrupted && now.Sub(s.jobStart) >= limit {
				s.interrupted = true
				s.h.counted.cpuResets.Add(1)
				s.rt.Interrupt(errCPULimit{limit, s.objectJob.Load()})
			}
			s.cpuMu.Unlock()
		}
	}
}

// errCPULimit is the value the watchdog interrupts a runtime with. Its
// text is Cloudflare's (workerd itself enforces no CPU limit): an object's
// caller reads "Durable Object exceeded its CPU time limit and was reset.",
// a worker's "Worker exceeded CPU time limit."; the limit goes to the log
// (logText).
type errCPULimit struct {
	limit  time.Duration
	object bool // the code was a Durable Object's
}

func (e errCPULimit) String() string {
	if e.object {
		return "Durable Object exceeded its CPU time limit and was reset."
	}
	return "Worker exceeded CPU time limit."
}

// logText is the log's line: the text and the limit that was passed.
func (e errCPULimit) logText() string {
	return fmt.Sprintf("%s (cpu limit %s)", e.String(), e.limit)
}

// setCurrent marks c (nil: none) as the cell whose code runs. On the loop.
func (s *shard) setCurrent(c *cell, gen int) {
	s.current, s.currentGen = c, gen
	s.objectJob.Store(c != nil)
}

// interruptCPU interrupts the running job at the CPU limit as the watchdog
// does, for a limit found elsewhere (a SQL statement stopped at the turn's
// SQL deadline). On the loop, inside the job.
func (s *shard) interruptCPU() {
	s.cpuMu.Lock()
	defer s.cpuMu.Unlock()
	if s.jobRunning && !s.interrupted {
		s.interrupted = true
		s.h.counted.cpuResets.Add(1)
		s.rt.Interrupt(errCPULimit{s.h.cfg.CPULimit, s.current != nil})
	}
}

// runJob runs one macrotask under the CPU-time watchdog. A panic (from a
// host function or a throwing timer callback) is logged, never allowed to
// kill the process. A job interrupted at the limit resets the object whose
// event was running.
func (s *shard) runJob(job func()) {
	s.cpuMu.Lock()
	s.jobStart = time.Now()
	s.jobRunning = true
	s.cpuMu.Unlock()
	defer func() {
		s.cpuMu.Lock()
		s.jobRunning = false
		interrupted := s.interrupted
		s.interrupted = false
		s.cpuMu.Unlock()
		if interrupted {
			s.rt.ClearInterrupt()
			s.onInterrupt(s.interruptReason())
		}
		// Also after an interrupt: one that stopped a WebAssembly instance
		// the module scope shares leaves the runtime poisoned (jsapi/wasm).
		if s.w.Poisoned {
			s.replaceRuntime(errEnginePanic)
		}
		s.setCurrent(nil, 0)
	}()
	defer func() {
		if r := recover(); r != nil {
			if ex, ok := r.(*goja.Exception); ok {
				s.log.Error("uncaught exception: " + ex.String())
				return
			}
			if _, ok := r.(*goja.InterruptedError); ok {
				return // a timer's callback was interrupted: handled above
			}
			s.log.Error(fmt.Sprintf("internal error in shard %d: %v\n%s", s.idx, r, debug.Stack()))
			// A Go panic that crossed goja left its call stack unwound
			// halfway: the runtime cannot be trusted any more.
			s.w.Poisoned = true
		}
	}()
	job()
}

// endTurn ends a macrotask: commit every cell the turn dirtied, release the
// replies whose cells have nothing waiting to become durable, and hand the
// commits and the other replies to the syncer (the output gate). A reply
// never waits for more than its own cell's commits.
//
// When more jobs of the same loop batch follow (more), a cell's implicit
// transaction may instead stay open into them (storage.DB.EndTurnOpen), for
// at most Config.CommitCoalesce: the turns of one batch then share one
// SQLite commit, one WAL append and one LTX file, which under load is most
// of what a write costs. Nothing leaves early for it: a reply of such a cell stays
// here until the commit it depends on is made and durable, like any reply
// (workerd's output gate likewise holds an object's messages until its
// pending writes are durable). What a reset in a later turn of the batch
// changes: the carried writes are rolled back with it, and their replies,
// still held, fail with BrokenObjectError, as they would when the reset
// came before their commit was durable.
func (s *shard) endTurn(more bool) {
	carry := false
	if more && len(s.dirty) > 0 {
		now := time.Now()
		if s.carryStart.IsZero() {
			s.carryStart = now
		}
		carry = now.Sub(s.carryStart) < s.h.cfg.CommitCoalesce
	}
	var b *syncBatch
	kept := 0
	for _, c := range s.dirty {
		if carry && c.db != nil && c.db.EndTurnOpen() {
			s.dirty[kept] = c
			kept++
			continue
		}
		if !c.commit() {
			continue
		}
		if b == nil {
			b = &syncBatch{s: s}
		}
		b.add(c)
	}
	clear(s.dirty[kept:])
	s.dirty = s.dirty[:kept]
	if kept == 0 {
		s.carryStart = time.Time{}
	}
	if len(s.replies) > 0 {
		replies := s.replies
		s.replies = nil
		var held []pendingReply
		for _, r := range replies {
			switch {
			case r.c != nil && r.c.dirty: // its cell's commit was carried
				held = append(held, r)
			case r.c == nil || r.c.synced >= r.c.committed:
				// Nothing to make durable (a read): the answer comes from
				// memory, so it leaves only while the node still holds
				// the object's lease. A node paused past its lease and
				// just resumed, before its deadline timer ran, answered
				// a read from its old instance after another node had
				// taken the object over and acknowledged later writes
				// (issue 31's chaos run: a history not linearizable).
				// The reset fails the reply (the instance's generation
				// changed).
				if r.c != nil && !r.c.leaseHeld() {
					r.c.deactivate("the node's lease could have lapsed before its answer left", &MaybeAppliedError{Reason: "this node's lease could have lapsed before the answer was sent (the process was paused or could not renew); the object answers again from its next owner"})
				}
				r.f()
			default:
				if b == nil {
					b = &syncBatch{s: s}
				}
				b.replies = append(b.replies, r.f)
			}
		}
		if held != nil {
			s.replies = append(held, s.replies...)
		}
	}
	if b != nil {
		s.h.syncer.submit(b)
	}
}

// leaseHeld reports whether c may answer from memory now: it has no
// lease (no bucket), or its lease is not lost and the node can still
// acknowledge (ownership.Node.CanAck: not fenced, and the last renewal
// is less than TTL - margin old on the monotonic clock). On the loop.
func (c *cell) leaseHeld() bool {
	l := c.log
	if l == nil || l.Lease() == nil {
		return true
	}
	select {
	case <-l.Lease().Lost:
		return false
	default:
	}
	n := c.s.h.cfg.Node
	return n == nil || n.CanAck()
}

// reply queues f to run at the end of this turn, once the commits of c
// (nil: no cell) are durable.
func (s *shard) reply(c *cell, f func()) { s.replies = append(s.replies, pendingReply{c, f}) }

// currentScope is the scope of the object whose code runs ("" for the
// worker's handlers). On the loop.
func (s *shard) currentScope() string {
	if c := s.current; c != nil {
		return c.scope
	}
	return ""
}
