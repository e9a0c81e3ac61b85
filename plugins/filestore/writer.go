package filestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/queue"
	"github.com/cellhost/cellhost/internal/sqlitex"
	"github.com/cellhost/cellhost/plugins"
)

// Group commit lingers under load. A round's fsync costs ~70 us of kernel
// CPU and its WAL frames are written whole, however few operations share
// it; when writers arrive one after another (each LTX upload first reads and
// encodes its pages), a round that starts at once takes 3-4 of them. Waiting
// defaultLinger, when the previous round ended less than
// queue.LingerWindow ago and had more than one operation, lets more join. Measured with 1000
// objects and 64 clients in log mode: 3 570 -> 4 500 req/s with 300 us,
// and 800 us saves another 6-8% of CPU per request over 300 us (a 2 ms
// window was too short, as rounds under that load start ~3 ms apart). A
// lone writer (one object's uploads, which follow each other) only loses
// by waiting: -4..-6% req/s with 800 us, so a round after a round of one
// operation does not wait, nor does a write to a store idle for
// queue.LingerWindow.
const defaultLinger = 800 * time.Microsecond

// op is one queued Put or Delete, and then its result.
type op struct {
	del         bool // a Delete; else a Put
	key         string
	body        []byte
	etag        string // the Put's new ETag
	ifNoneMatch bool
	ifMatch     string

	err  error
	done chan struct{} // closed when err is set
}

// writer owns the store's one write connection and runs the rounds of
// group commit on it (see the package doc).
type writer struct {
	path    string
	walPath string
	// wal is the WAL file, open for syncWAL's fsync (opened at the first
	// round, reopened if SQLite ever replaced the file); only rounds use
	// it, under roundMu.
	wal  *os.File
	db   *sql.DB
	conn *sql.Conn
	// raw is conn's SQLite handle: a round's statements run on it past
	// database/sql, whose per-statement conversions, context checks and
	// allocations cost more CPU than a lone writer's small round itself.
	raw  *sqlitex.Conn
	stmt struct {
		begin, commit, rollback                  sqlitex.Stmt
		put, create, replace, del, delIf, exists sqlitex.Stmt
	}

	pending *queue.Queue[*op] // the next round of the loop
	done    chan struct{}     // closed when the loop has returned

	// roundMu is held for a round: the loop's, or a lone writer's, which
	// commits on its own goroutine (do). Fields below it are guarded by it.
	roundMu sync.Mutex
	lingerP queue.Linger // the loop's group-commit policy, fed by every round
	stopped bool         // close has run: no more rounds

	// linger is how long a round waits for more operations (see
	// lingerAfter; defaultLinger, tests set 0).
	linger time.Duration

	rounds atomic.Uint64 // committed or failed rounds, for tests
	// hook, when set (by tests), runs before each operation in a round;
	// an error it returns is that operation's statement error.
	hook func(*op) error
	// hookLone, when set (by tests), runs when a lone writer starts its
	// own round, before it.
	hookLone func(*op)
	// hookQueued, when set (by tests), runs when a writer has queued o
	// for the loop.
	hookQueued func(*op)
	// hookCommitted, when set (by tests), runs after a round's COMMIT has
	// released SQLite's write lock and before syncWAL's fsync.
	hookCommitted func()
}

func newWriter(path string) (*writer, error) {
	db, err := sql.Open("sqlite", sqlitex.DSN(path,
		"busy_timeout("+strconv.Itoa(busyTimeout)+")",
		"journal_mode(WAL)",
		// NORMAL: COMMIT writes the round's WAL frames without an fsync,
		// and the writer fsyncs the WAL itself after COMMIT has released
		// SQLite's write lock (syncWAL), so the lock is never held across
		// a disk flush (see the package doc, "A paused process").
		// Checkpoints still fsync the WAL before and the database after.
		"synchronous(NORMAL)",
	))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	w := &writer{path: path, walPath: path + "-wal", db: db, pending: queue.New[*op](), done: make(chan struct{}), linger: defaultLinger}
	w.lingerP.Wait = w.lingerAfter
	if err := w.prepare(); err != nil {
		w.closeRaw()
		if w.conn != nil {
			w.conn.Close()
		}
		db.Close()
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	go w.loop()
	return w, nil
}

func (w *writer) prepare() error {
	ctx := context.Background()
	conn, err := w.db.Conn(ctx)
	if err != nil {
		return err
	}
	w.conn = conn
	if err := conn.Raw(func(dc any) (err error) { w.raw, err = sqlitex.OpenConn(dc); return err }); err != nil {
		return err
	}
	for _, s := range []struct {
		stmt *sqlitex.Stmt
		sql  string
	}{
		{&w.stmt.begin, "BEGIN IMMEDIATE"},
		{&w.stmt.commit, "COMMIT"},
		{&w.stmt.rollback, "ROLLBACK"},
		{&w.stmt.put, sqlPut},
		{&w.stmt.create, sqlCreate},
		{&w.stmt.replace, sqlReplace},
		{&w.stmt.del, sqlDelete},
		{&w.stmt.delIf, sqlDelIf},
		{&w.stmt.exists, sqlExists},
	} {
		stmt, err := w.raw.PrepareOne(s.sql)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", s.sql, err)
		}
		*s.stmt = stmt
	}
	return nil
}

// do runs o and waits for its result. Group commit is adaptive, as a good
// one is: a lone writer (nothing queued, no round running, and the last
// round served only one) commits at once on its own goroutine, with no
// hand-off to the loop and back; writers that arrive while a round runs, or
// while several are at work, queue for the loop's next round, which they
// share (and which may linger for more, see lingerAfter).
func (w *writer) do(o *op) error {
	o.done = make(chan struct{})
	if w.pending.Len() == 0 && w.roundMu.TryLock() {
		switch {
		case w.stopped:
			w.roundMu.Unlock()
			return plugins.ErrClosed
		case w.lingerP.Busy(time.Now()):
			// Several writers are at work: join the loop's round.
			w.roundMu.Unlock()
			return w.queue(o)
		}
		if w.hookLone != nil {
			w.hookLone(o)
		}
		backlog := w.round([]*op{o})
		w.lingerP.After(time.Now(), 1, backlog)
		w.roundMu.Unlock()
		return o.err
	}
	return w.queue(o)
}

// queue hands o to the loop's next round and waits for its result.
func (w *writer) queue(o *op) error {
	if !w.pending.Push(o) {
		return plugins.ErrClosed
	}
	if w.hookQueued != nil {
		w.hookQueued(o)
	}
	<-o.done
	return o.err
}

// loop runs a round for everything queued since the last one began, until
// close; it runs the operations queued before close first.
func (w *writer) loop() {
	defer close(w.done)
	queue.Run(w.pending, nil, func(batch []*op) (int, int) {
		w.roundMu.Lock()
		defer w.roundMu.Unlock()
		// Under load: let the writers that are about to arrive join the
		// round, so that they share its fsync (see defaultLinger).
		if w.lingerP.Before(time.Now()) {
			more, _ := w.pending.Drain(nil)
			batch = append(batch, more...)
		}
		backlog := w.round(batch)
		w.lingerP.After(time.Now(), len(batch), len(batch) > 1 || backlog)
		return len(batch), len(batch)
	})
}

// lingerAfter is the store's linger policy: wait w.linger after a round of
// several operations, not after a lone writer's (see defaultLinger).
func (w *writer) lingerAfter(prev int) time.Duration {
	if prev > 1 {
		return w.linger
	}
	return 0
}

// round commits batch as one transaction and delivers each operation's
// result. An operation whose statement fails (not a precondition: an error
// of SQLite) gets that error, and the others are committed without it in a
// new transaction. It reports whether more operations were queued before
// the results were released: those come from other writers, whereas a lone
// writer's next one comes only after its result (see queue.Run).
func (w *writer) round(batch []*op) (backlog bool) {
	for len(batch) > 0 {
		failed, err := w.try(batch)
		backlog = backlog || w.pending.Len() > 0
		if failed < 0 {
			for _, o := range batch {
				if err != nil {
					o.err = err
				}
				close(o.done)
			}
			return
		}
		o := batch[failed]
		o.err = err
		close(o.done)
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
	return backlog
}

// try runs batch in one transaction. It returns the index of the operation
// whose statement failed, after rolling back, or -1 and the error of the
// transaction itself; each operation's own result is in its err.
func (w *writer) try(batch []*op) (failed int, err error) {
	w.rounds.Add(1)
	if _, err := w.exec(w.stmt.begin); err != nil {
		return -1, fmt.Errorf("begin transaction on %s: %w", w.path, err)
	}
	for i, o := range batch {
		o.err = w.apply(o)
		if o.err != nil && !errors.Is(o.err, plugins.ErrPreconditionFailed) && !errors.Is(o.err, plugins.ErrNotFound) {
			w.exec(w.stmt.rollback) // SQLite may have rolled back already
			return i, o.err
		}
	}
	if _, err := w.exec(w.stmt.commit); err != nil {
		w.exec(w.stmt.rollback)
		return -1, fmt.Errorf("commit to %s: %w", w.path, err)
	}
	// The write lock is released: a pause from here on holds up no other
	// process. The round's results wait for the fsync.
	if w.hookCommitted != nil {
		w.hookCommitted()
	}
	if err := w.syncWAL(); err != nil {
		// Committed (other processes may read it) but not known durable:
		// as ambiguous as a failed COMMIT.
		return -1, fmt.Errorf("commit to %s: sync the write-ahead log: %w", w.path, err)
	}
	return -1, nil
}

// syncWAL makes the round just committed durable: it fsyncs the WAL file,
// which holds the round's frames (written by COMMIT, with synchronous
// NORMAL, to the page cache), outside SQLite's write lock. An fsync
// flushes the file's dirty pages whoever wrote them, so frames of other
// processes' later rounds are flushed too, which costs nothing to
// correctness. If a checkpoint has copied the frames into the database
// meanwhile, the checkpointer fsynced the WAL before copying (SQLite does
// at every synchronous level but OFF), so the round was durable already;
// a WAL restarted after a complete checkpoint (the same file, rewritten
// from its start) only follows a checkpoint that fsynced the database.
// The file SQLite writes is the one at walPath while a connection (this
// writer's) is open; should it ever be another inode (a WAL removed by the
// last connection closing and created again), the new file is opened and
// the database file is fsynced too.
func (w *writer) syncWAL() error {
	fi, err := os.Stat(w.walPath)
	if errors.Is(err, fs.ErrNotExist) { // checkpointed into the database and removed
		return syncFile(w.path)
	}
	if err != nil {
		return err
	}
	if w.wal != nil {
		if cur, err := w.wal.Stat(); err != nil || !os.SameFile(cur, fi) {
			w.wal.Close()
			w.wal = nil
			if err := syncFile(w.path); err != nil {
				return err
			}
		}
	}
	if w.wal == nil {
		// This descriptor takes no lock, and SQLite locks the database
		// and -shm files, never the WAL, so closing it drops none of
		// SQLite's POSIX locks. Read-write, as Windows' FlushFileBuffers
		// needs.
		f, err := os.OpenFile(w.walPath, os.O_RDWR, 0)
		if err != nil {
			return err
		}
		w.wal = f
	}
	return datasync(w.wal)
}

// exec binds args (strings as TEXT, byte slices as BLOBs) to s, runs it
// and resets it; it returns 1 when s stopped on a row (a query that found
// one), else the number of rows s changed.
func (w *writer) exec(s sqlitex.Stmt, args ...any) (changed int64, err error) {
	defer s.Reset()
	for i, a := range args {
		var rc int32
		switch v := a.(type) {
		case string:
			rc = s.BindText(w.raw, i+1, v)
		case []byte:
			rc = s.BindBlob(w.raw, i+1, v)
		}
		if rc != sqlite3.SQLITE_OK {
			return 0, w.raw.Err(rc)
		}
	}
	switch rc := s.Step(); rc {
	case sqlite3.SQLITE_DONE:
		return w.raw.Changes(), nil
	case sqlite3.SQLITE_ROW:
		return 1, nil
	default:
		return 0, w.raw.Err(rc)
	}
}

// apply runs one operation inside the round's transaction. A rejected
// precondition changes nothing: each operation is a single statement.
func (w *writer) apply(o *op) error {
	if w.hook != nil {
		if err := w.hook(o); err != nil {
			return err
		}
	}
	var (
		n   int64
		err error
	)
	switch {
	case o.del && o.ifMatch == "":
		_, err = w.exec(w.stmt.del, o.key)
		return err
	case o.del:
		n, err = w.exec(w.stmt.delIf, o.key, o.ifMatch)
	case o.ifNoneMatch:
		n, err = w.exec(w.stmt.create, o.key, o.etag, o.body)
	case o.ifMatch != "":
		n, err = w.exec(w.stmt.replace, o.key, o.etag, o.body, o.ifMatch)
	default:
		_, err = w.exec(w.stmt.put, o.key, o.etag, o.body)
		return err
	}
	if err != nil || n == 1 {
		return err
	}
	if o.ifNoneMatch {
		return plugins.ErrPreconditionFailed // the key exists
	}
	// If-Match did not match: a missing key is ErrNotFound, as AWS answers.
	switch found, err := w.exec(w.stmt.exists, o.key); {
	case err != nil:
		return err
	case found == 0:
		return plugins.ErrNotFound
	}
	return plugins.ErrPreconditionFailed
}

// close runs the operations already queued, waits for a lone writer's
// round, then closes the connection.
func (w *writer) close() error {
	w.pending.Close()
	<-w.done
	w.roundMu.Lock()
	w.stopped = true
	w.roundMu.Unlock()
	w.closeRaw()
	if w.wal != nil {
		w.wal.Close()
		w.wal = nil
	}
	w.conn.Close()
	return w.db.Close()
}

// closeRaw finalizes the round's statements and frees the raw handle's C
// memory (the connection stays database/sql's).
func (w *writer) closeRaw() {
	st := &w.stmt
	for _, s := range []*sqlitex.Stmt{&st.begin, &st.commit, &st.rollback, &st.put, &st.create, &st.replace, &st.del, &st.delIf, &st.exists} {
		s.Finalize()
		*s = sqlitex.Stmt{}
	}
	if w.raw != nil {
		w.raw.Close()
		w.raw = nil
	}
}
