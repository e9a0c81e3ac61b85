package host

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
)

// A cell is one Durable Object: its scope, its database and, while active,
// its JS instance. A cell lives in one shard for its whole activation; every
// field below the line is owned by that shard's loop.
type cell struct {
	class string
	id    string // 64 lowercase hex
	scope string // <class>:<id>
	s     *shard

	db    *storage.DB
	inst  *goja.Object
	gen   int  // instance generation: a reset starts a new one
	dirty bool // in s.dirty this turn
	wrote bool // the open transaction has written
	// committed counts commits that wrote; synced is the highest of them
	// known durable. A reply waits while synced < committed.
	committed, synced uint64
	resetReason       string     // why the last reset happened
	resetCause        error      // what a failed blockConcurrencyWhile threw, until a new instance is built
	blocked           int        // open blockConcurrencyWhile calls (input gate closed)
	waiting           []func()   // events held by the input gate, in arrival order
	waking            bool       // a job to deliver the next waiting event is posted
	opening           bool       // the database is being opened off the loop
	alarmCancel       func()     // the armed alarm timer, if any
	alarmRunning      bool       // alarm() is running
	alarmAgain        bool       // the alarm came due again while alarm() ran
	firingGen         int64      // generation of the alarm being run
	alarmNote         *alarmNote // an alarm change not yet durable (wake.go)
	alarmDue          int64      // Unix ms the armed alarm is due (while alarmCancel is set)
	log               *cellLog   // the cell's LTX log and lease (log mode)
	// commitsSinceCheckpoint counts uploaded commits since the WAL was
	// last truncated.
	commitsSinceCheckpoint int
	backingUp              bool      // a backup snapshot is being read (backup mode)
	backedUp               uint64    // committed at the last backup that landed
	inflight               int       // events delivered or queued whose reply has not left
	lastActive             time.Time // when the cell last ran an event
	timers                 int       // JS timers its events set, pending (clock.go)
	// keepAlive, if set, reports whether something outside the cell's
	// events (e.g. a connected WebSocket) must keep it resident.
	keepAlive func() bool
	broken    error       // set while reset fails the events it held
	sockets   cellSockets // WebSocket connections and hibernatable sockets

	// The shard's lists of cells and of open databases by last use
	// (resident.go, park.go).
	byUse, byOpen cellLinks
	resident      bool // holds its lease and log, or is acquiring them (counted in s.nResident)
	// parked: resident with its database closed (park.go); the next event
	// reopens it. closing, if not nil, is closed once the database park
	// closed off the loop is closed: nothing opens the file before.
	parked  bool
	closing chan struct{}
	dbName  string // the name the database was opened with (storage.Options.ActorName)
	// refs counts jobs posted for the cell by cellFor's callers that have
	// not run yet: the record must not be dropped under them. Incremented
	// under h.mu.
	refs atomic.Int32

	// running are the events the instance is running (started, not
	// settled): a reset fails them with its error (failRunning).
	running map[*runningEvent]struct{}
}

// BrokenObjectError is what callers of a reset object get.
type BrokenObjectError struct{ Reason string }

func (e *BrokenObjectError) Error() string { return "Durable Object reset because " + e.Reason }

// maxIDNameLength is the longest id name workerd passes on to the object
// (ctx.id.name); a longer one is dropped.
const maxIDNameLength = 1024

// bcwTimeout is workerd's limit on one blockConcurrencyWhile call.
const bcwTimeout = 30 * time.Second

// activateTimeout bounds acquiring, restoring and opening a cell.
const activateTimeout = 2 * time.Minute

const bcwTimeoutMessage = "A call to blockConcurrencyWhile() in a Durable Object waited for too long. The call was canceled and the Durable Object was reset."

// dbPath is where the cell's SQLite file lives under the state directory.
func (h *Host) dbPath(class, id string) string {
	return filepath.Join(h.cfg.StateDir, "cells", class, id+".sqlite")
}

// open opens the cell's database off the loop (SQLite file creation costs
// milliseconds), then delivers the events that waited for it; if it fails
// they fail with the error. name is the name of the id that woke the cell.
// On the loop.
func (c *cell) open(name string) {
	if c.opening {
		return
	}
	if c.parked {
		c.reopen()
		return
	}
	c.opening = true
	s := c.s
	s.makeRoom()
	c.setResident(true)
	s.makeOpenRoom()
	c.setOpen(true)
	c.dbName = name
	path := s.h.dbPath(c.class, c.id)
	closing := c.closing // a database of the last activation that park is closing
	c.closing = nil
	s.h.goFunc(func(ctx context.Context) {
		ctx, cancel := context.WithTimeout(ctx, activateTimeout)
		defer cancel()
		if closing != nil {
			<-closing
		}
		// The database opens inside the activation (acquire), while the
		// lease's marker is written.
		var db *storage.DB
		openDB := func(l *cellLog) error {
			opts := c.dbOptions(name, l != nil)
			var err error
			db, err = storage.Open(path, opts)
			if err != nil && l != nil && l.local {
				// The kept local database does not open: the bucket wins.
				c.logger().Warn("the local database does not open; restoring it from the bucket", "err", err)
				l.local = false
				if err = s.h.restore(ctx, c.scope, path, false); err == nil {
					db, err = storage.Open(path, opts)
				}
			}
			if err != nil {
				return fmt.Errorf("activate %s: %w", c.scope, err)
			}
			return nil
		}
		l, err := s.h.acquire(ctx, c, path, openDB)
		if err != nil {
			if db != nil { // opened, but the activation failed after (its lease is released)
				_ = db.Close()
			}
			s.post(func() {
				c.opening = false
				c.setOpen(false)
				c.setResident(false)
				c.failWaiting(err)
			})
			return
		}
		// Once the shard is closed nobody takes the database: close it
		// here, before Host.Close (which waits for this goroutine)
		// returns.
		abandon := func() {
			_ = db.Close()
			if l != nil {
				l.release(s.h)
			}
		}
		posted := s.post(func() {
			c.opening = false
			if s.h.closing.Load() {
				c.setOpen(false)
				c.setResident(false)
				abandon()
				c.failWaiting(ErrClosed)
				return
			}
			c.db = db
			c.attachLog(l)
			if l != nil && l.local {
				// The bucket lacks what this database holds: save it at
				// the next backup tick (committed != backedUp).
				c.committed++
				c.synced = c.committed
			}
			c.armStoredAlarm()
			c.scheduleSocketRowGC()
			c.wakeNext()
		})
		if !posted {
			abandon()
		}
	})
}

// dbOptions are the options the cell's database opens with; logged: it
// has an LTX log (log and backup modes).
func (c *cell) dbOptions(name string, logged bool) storage.Options {
	h := c.s.h
	return storage.Options{ActorName: name, DeferSync: true, CacheKV: true, LogPages: logged, OnAlarm: c.onAlarm, SQLTimeout: h.cfg.CPULimit,
		// The log mode with no local Syncer keeps nothing durable
		// locally: every activation restores from the bucket, so
		// SQLite's own fsyncs (a new WAL's header and its directory, a
		// checkpoint) protect nothing.
		NoSync: h.dur.dbNoSync(&h.cfg)}
}

// construct builds the JS instance: new Class(ctx, env). name is the name
// of the id that woke it ("" when reached by id string). On the loop.
func (c *cell) construct(name string) error {
	s := c.s
	if len(name) > maxIDNameLength { // workerd does not pass such a name on
		name = ""
	}
	state := s.w.NewState(jsapi.StateOptions{
		ID:         s.w.NewID(s.ns[c.class], c.id, name),
		Storage:    cellKV{c},
		Block:      c.block,
		Abort:      func(reason string) { c.reset(reason) },
		WaitUntil:  c.waitUntil,
		WebSockets: c.webSocketSet(),

		CompatibilityDate:  s.h.cfg.CompatibilityDate,
		CompatibilityFlags: s.h.cfg.CompatibilityFlags,
	})
	gen := c.gen
	var inst *goja.Object
	_, err := s.guard(func() (goja.Value, error) {
		var err error
		inst, err = s.w.Construct(c.class, state)
		return nil, err
	})
	if err != nil {
		return err
	}
	if c.gen != gen { // a blockConcurrencyWhile of the constructor failed
		return c.resetErr()
	}
	c.inst = inst
	c.resetCause = nil
	if f := s.h.cfg.Constructed; f != nil {
		f(c.class, c.id, name)
	}
	return nil
}

// resetMark marks err as the failure of a call that reset its object (JS
// sees durableObjectReset = true; the caller's stub stays broken).
func resetMark(err error) error {
	var se *jsapi.ScriptError
	if errors.As(err, &se) {
		r := *se
		r.Reset = true
		return &r
	}
	return err
}

// msgConstraintReset starts workerd's error for a commit that failed a
// constraint (deferred foreign keys); SQLite's message follows.
const msgConstraintReset = "Durable Object was reset and rolled back to its last known good state because the application left the database in a state where constraints were violated: "

// resetErr is the error events of the last reset instance fail with: the
// error its failed blockConcurrencyWhile() threw (as workerd breaks the
// input gate with it), else BrokenObjectError.
func (c *cell) resetErr() error {
	var se *jsapi.ScriptError
	if errors.As(c.resetCause, &se) && se.Broken {
		return se
	}
	if c.resetCause != nil {
		return resetMark(c.resetCause)
	}
	return &BrokenObjectError{Reason: c.resetReason}
}

// waitUntil keeps the object resident (not evicted) until p settles;
// a rejection is logged. On the loop.
func (c *cell) waitUntil(p goja.Value) {
	c.inflight++
	c.s.w.Settle(p, func(goja.Value) { c.inflight-- }, func(e goja.Value) {
		c.inflight--
		c.logger().Error("a ctx.waitUntil() promise rejected: " + c.s.w.ScriptErrorOf(e).Error())
	})
}

// deliver runs ev now if the database is open, the input gate is open and
// nothing is waiting; else queues it. On the loop.
func (c *cell) deliver(name string, ev func()) {
	c.used()
	if c.db == nil {
		c.waiting = append(c.waiting, ev)
		c.open(name)
		return
	}
	if c.blocked > 0 || len(c.waiting) > 0 {
		c.waiting = append(c.waiting, ev)
		return
	}
	c.run(ev)
}

// failWaiting fails every waiting event with err.
func (c *cell) failWaiting(err error) {
	waiting := c.waiting
	c.waiting = nil
	c.broken = err
	for _, ev := range waiting {
		ev()
	}
	c.broken = nil
}

// run runs one event of the cell, marking it as the shard's current cell
// for the CPU-limit watchdog.
func (c *cell) run(ev func()) {
	c.s.setCurrent(c, c.gen) // cleared when the job ends (runJob)
	c.used()
	ev()
}

// block closes the input gate for one blockConcurrencyWhile call. The
// release reopens it; an error, or the 30 s limit, resets the object.
func (c *cell) block() (release func(err error)) {
	c.blocked++
	gen := c.gen
	done := false
	cancel := c.s.AfterFunc(bcwTimeout, func() {
		if done {
			return
		}
		done = true
		if c.gen != gen {
			return
		}
		c.blocked--
		c.logger().Error(bcwTimeoutMessage)
		c.reset("a blockConcurrencyWhile() call timed out")
		c.wakeNext()
	})
	return func(err error) {
		if done {
			return
		}
		done = true
		cancel()
		if c.gen != gen { // the instance was reset: its gate is gone
			return
		}
		c.blocked--
		if err != nil {
			c.resetWith("blockConcurrencyWhile() failed: "+err.Error(), err)
			return
		}
		c.wakeNext()
	}
}

// wakeNext delivers the next waiting event in a macrotask of its own, one at
// a time, while the gate stays open.
func (c *cell) wakeNext() {
	if c.db == nil || c.blocked > 0 || len(c.waiting) == 0 || c.waking {
		return
	}
	c.waking = true
	c.s.post(func() {
		c.waking = false
		if c.db == nil || c.blocked > 0 || len(c.waiting) == 0 {
			return
		}
		ev := c.waiting[0]
		c.waiting[0] = nil
		c.waiting = c.waiting[1:]
		c.run(ev)
		c.wakeNext()
	})
}

// reset breaks the current instance: its pending writes are discarded, the
// events it held fail with BrokenObjectError, and the next event builds a
// fresh instance. On the loop.
func (c *cell) reset(reason string) { c.resetWith(reason, nil) }

// resetWith is reset with the error the held events fail with (nil:
// BrokenObjectError).
func (c *cell) resetWith(reason string, cause error) {
	c.logger().Warn("Durable Object reset because " + reason)
	if c.db != nil {
		_ = c.db.Rollback()
	}
	c.wrote = false
	c.resetReason = reason
	c.resetCause = cause
	if c.alarmRunning { // the attempt is lost with the instance: try again
		c.alarmRunning = false
		if c.alarmCancel != nil {
			c.alarmCancel()
		}
		c.alarmCancel = c.s.AfterFunc(2*time.Second, c.fireAlarm)
	}
	// The calls its RPC targets run (or were sent) fail with the cause.
	ownerErr := cause
	if ownerErr == nil {
		ownerErr = errors.New(reason)
	}
	c.s.w.AbortOwner(c.inst, c.id, ownerErr)
	c.inst = nil
	c.gen++
	c.timers = 0 // its timers are discarded (jsTimers)
	c.blocked = 0
	c.dropSockets()
	c.failRunning()
	c.failWaiting(c.resetErr())
}

// runningEvent is an event the instance is running: its promise has not
// settled.
type runningEvent struct{ fail func(error) }

func (c *cell) startRunning(fail func(error)) *runningEvent {
	e := &runningEvent{fail: fail}
	if c.running == nil {
		c.running = map[*runningEvent]struct{}{}
	}
	c.running[e] = struct{}{}
	return e
}

// stopRunning removes e once its promise settled; false if a reset had
// failed it already.
func (c *cell) stopRunning(e *runningEvent) bool {
	if _, ok := c.running[e]; !ok {
		return false
	}
	delete(c.running, e)
	return true
}

// failRunning fails the events the reset instance was still running (its
// promises will never settle: an interrupt stopped their code), as workerd
// fails an object's pending requests when it resets it. On the loop.
func (c *cell) failRunning() {
	err := c.resetErr()
	for e := range c.running {
		c.s.reply(c, func() {
			c.inflight--
			e.fail(err)
		})
	}
	clear(c.running)
}

// touch marks the cell's implicit transaction as part of this turn.
func (c *cell) touch() {
	if !c.dirty {
		c.dirty = true
		c.s.dirty = append(c.s.dirty, c)
	}
}

// commit ends the cell's implicit transaction at the end of a turn and
// reports whether it committed writes (which must now become durable). A
// failed commit resets the object. On the loop.
func (c *cell) commit() bool {
	c.dirty = false
	wrote := c.wrote
	c.wrote = false
	if c.db == nil {
		return false
	}
	if err := c.db.Commit(); err != nil {
		c.logger().Error("commit failed: " + err.Error())
		_ = c.db.Rollback()
		var se *storage.SQLError
		if errors.As(err, &se) && se.Code&0xff == sqliteConstraint {
			// A deferred foreign key failed at COMMIT: workerd resets the
			// object and fails its events (and the stub) with this error.
			c.resetWith("the database was left in a state where constraints were violated",
				&jsapi.ScriptError{Name: "Error", Message: msgConstraintReset + se.Msg, Broken: true})
			return false
		}
		c.reset("a commit failed to become durable")
		return false
	}
	if !wrote && !c.alarmCommitted() {
		return false
	}
	c.committed++
	c.alarmSeq(c.committed)
	return true
}

// event runs one event on the object through its input gate. start calls
// into the instance and returns a value or promise; when it settles, done
// converts the value on the loop and returns the delivery, which runs after
// the commit of that turn (the output gate). fail delivers an error the
// same way. Replies of an instance reset in the meantime become
// BrokenObjectError.
func (c *cell) event(name string, start func() (goja.Value, error), done func(goja.Value) func(), fail func(error)) {
	s := c.s
	c.inflight++
	failLater := func(err error) {
		s.reply(c, func() {
			c.inflight--
			fail(err)
		})
	}
	var ev func()
	ev = func() {
		if c.broken != nil {
			failLater(c.broken)
			return
		}
		if c.inst == nil {
			if err := c.construct(name); err != nil {
				failLater(err)
				return
			}
			if c.blocked > 0 { // the constructor called blockConcurrencyWhile
				c.waiting = append([]func(){ev}, c.waiting...)
				return
			}
		}
		gen := c.gen
		s.h.counted.events.Add(1)
		v, err := s.guard(start)
		if err != nil {
			if c.gen != gen { // e.g. ctx.abort()
				err = resetMark(err)
			}
			failLater(err)
			return
		}
		e := c.startRunning(fail)
		s.w.Settle(v, func(r goja.Value) {
			if !c.stopRunning(e) {
				return // failed by a reset
			}
			deliver := done(r)
			s.reply(c, func() {
				c.inflight--
				if c.gen != gen {
					fail(c.resetErr())
					return
				}
				deliver()
			})
		}, func(x goja.Value) {
			if !c.stopRunning(e) {
				return
			}
			var err error = s.w.ScriptErrorOf(x)
			if c.gen != gen {
				err = resetMark(err)
			}
			failLater(err)
		})
	}
	c.deliver(name, ev)
}

// fetch delivers an HTTP request to the object's fetch handler.
func (c *cell) fetch(name string, req *jsapi.HTTPRequest, reply func(*jsapi.HTTPResponse, error)) {
	s := c.s
	c.event(name, func() (goja.Value, error) {
		return s.w.CallObjectFetch(c.inst, req)
	}, func(v goja.Value) func() {
		resp, err := jsapi.ExportResponse(s.rt, v)
		claimSocket(resp, &wsOwner{s: s, c: c, name: name})
		return func() { reply(resp, err) }
	}, func(err error) { reply(nil, err) })
}

// call delivers an RPC (a method call, or a property read when get is set).
func (c *cell) call(name, method string, args []byte, get bool, reply func([]byte, error)) {
	s := c.s
	c.event(name, func() (goja.Value, error) {
		return s.w.CallRPC(c.class, c.inst, method, args, get)
	}, func(v goja.Value) func() {
		b, err := s.w.SerializeResultFor(c.inst, v)
		return func() { reply(b, err) }
	}, func(err error) { reply(nil, err) })
}

// cellKV is the cell's storage as jsapi sees it: every call joins the turn's
// implicit transaction.
type cellKV struct{ c *cell }

func (k cellKV) Get(keys []string) ([][]byte, error) {
	k.c.touch()
	return k.c.db.Get(keys)
}

func (k cellKV) Put(keys []string, values [][]byte) error {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.Put(keys, values)
}

func (k cellKV) Delete(keys []string) (int, error) {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.Delete(keys)
}

func (k cellKV) List(o jsapi.ListOptions) ([]jsapi.KVEntry, error) {
	k.c.touch()
	entries, err := k.c.db.List(storage.ListOptions(o))
	if err != nil {
		return nil, err
	}
	out := make([]jsapi.KVEntry, len(entries))
	for i, e := range entries {
		out[i] = jsapi.KVEntry(e)
	}
	return out, nil
}

func (k cellKV) DeleteAll() error {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.DeleteAll()
}
