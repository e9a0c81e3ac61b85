// Package storage keeps one SQLite database per Durable Object cell: the
// celld-compatible internal tables, the key-value layer under
// ctx.storage.get/put/delete/list/deleteAll, the application's SQL
// (ctx.storage.sql) under workerd's authorizer and limits, explicit
// transactions (savepoints), the alarm row, and the implicit transaction
// that holds them all until the end of the turn.
//
// A DB is not safe for concurrent use. It is called from one goroutine at a
// time, the event loop of the shard that holds the cell; different DBs may be
// used from different goroutines concurrently. Sync and Cursor.Release are
// the exceptions: they may be called from any goroutine.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// Connection settings applied to every cell database.
const (
	// busyTimeout is how long a statement waits for a lock another
	// connection holds (another process reading the same file, a tool).
	busyTimeout = 5000 // ms
	// cacheSizeKiB bounds the page cache of one cell: SQLite's default,
	// which workerd keeps. The cache takes pages as statements read them,
	// so a cell with a small database holds no more than with a smaller
	// bound; a bound below a table's size makes every scan of it (count(*)
	// over a growing table) read all its pages from the files again.
	cacheSizeKiB = 2000
)

// celld's internal tables (_cf_KV, _cf_METADATA, _cf_ALARM) are created
// when first needed, as workerd's appear: _cf_KV with the first put, the
// other two with the first alarm; deleteAll drops them again (keeping a
// pending alarm). Keys are TEXT with the default BINARY collation, which
// compares UTF-8 strings in byte order. _cf_KV is a WITHOUT ROWID table,
// as workerd's: one b-tree and no automatic index, so sql.databaseSize
// counts the pages workerd's does (databases made before keep their rowid
// table and its index; both answer the same statements).
const sqlCreateKV = `CREATE TABLE IF NOT EXISTS _cf_KV (scope TEXT, k TEXT, v TEXT, PRIMARY KEY (scope, k)) WITHOUT ROWID`

// SQL of cellhost's own statements.
const (
	sqlBegin    = `BEGIN`
	sqlCommit   = `COMMIT`
	sqlRollback = `ROLLBACK`
	sqlGet      = `SELECT v FROM _cf_KV WHERE scope = ? AND k = ?`
	sqlGetMany  = `SELECT k, v FROM _cf_KV WHERE scope = ? AND k IN (SELECT value FROM json_each(?))`
	// A nil or empty value is stored as an empty BLOB, never as NULL.
	sqlPut    = `INSERT INTO _cf_KV (scope, k, v) VALUES (?1, ?2, coalesce(?3, x'')) ON CONFLICT (scope, k) DO UPDATE SET v = excluded.v`
	sqlDelete = `DELETE FROM _cf_KV WHERE scope = ? AND k = ?`
)

var (
	// ErrClosed is returned by every method of a closed DB except Close.
	ErrClosed = errors.New("database closed")
	// ErrTxAborted is returned when a statement of the implicit
	// transaction failed: the transaction was rolled back, every later
	// operation fails with it, and Commit reports it, until Commit or
	// Rollback ends the failed transaction.
	ErrTxAborted = errors.New("transaction aborted")
)

// Options configures Open.
type Options struct {
	// Scope is the value of the scope column of the KV, metadata and
	// alarm tables ("" for the default namespace); it is stored as given.
	Scope string
	// ActorName, if non-empty, is written to _cf_METADATA for Scope when
	// the table is created (with the first alarm) or has no row for Scope.
	ActorName string
	// DeferSync runs the database with synchronous=NORMAL: Commit only
	// writes the WAL, and the caller makes commits durable with Sync (or
	// SyncFS for many databases at once). This lets concurrent commits share
	// one fsync (group commit). Without it every Commit is fsync'd.
	DeferSync bool
	// NoSync runs the database with synchronous=OFF: neither Commit nor a
	// checkpoint fsyncs anything, so a power cut may leave the file torn.
	// For a database whose durable copy is elsewhere and which is replaced
	// from it on every open (the host's log mode: the bucket). Sync still
	// fsyncs the WAL. It overrides DeferSync.
	NoSync bool
	// LogPages turns automatic checkpoints off (wal_autocheckpoint=0) so
	// every committed frame stays in the WAL for a WALCapture to read until
	// Checkpoint (wal.go).
	LogPages bool
	// OnAlarm, if set, is called after each Commit that changed the
	// cell's alarm (set, replaced or deleted) with the alarm now stored
	// (ok false: none). It runs on the DB's goroutine, after COMMIT: with
	// DeferSync the change is durable only after the next Sync.
	OnAlarm func(a Alarm, ok bool)
	// SQLTimeout bounds the application's SQL work in one transaction (a
	// turn, as the host commits at the end of each): past it, the running
	// statement fails with SQLITE_INTERRUPT. Zero means DefaultSQLTimeout.
	// The host should give its CPU limit.
	SQLTimeout time.Duration
	// CacheKV keeps the values of recently read and written keys in memory
	// (at most kvCacheMaxBytes), so that a get of such a key does not run
	// SQL. The caller promises that no other connection writes this
	// scope's keys while the DB is open: the cache follows this
	// connection's own writes, commits and rollbacks only.
	CacheKV bool
}

// DB is one cell's SQLite database, used through a single dedicated
// connection. Every operation runs inside the implicit transaction: the
// first operation after Commit or Rollback begins it, and only Commit makes
// its writes visible to other connections and durable.
type DB struct {
	abs   string
	path  string
	scope string

	sqldb *sql.DB
	conn  *sql.Conn

	begin, commit, rollback *sql.Stmt
	// stmts caches cellhost's other statements by SQL text.
	stmts map[string]*sql.Stmt

	inTx    bool
	aborted error // non-nil after a statement of the transaction failed
	closed  bool
	sp      []int // depths of the open explicit transactions (savepoints)

	// Which internal tables exist (as seen by the open transaction).
	// While one is missing, the first operation of each transaction that
	// needs it checks again (another connection may have created it).
	hasKV, hasAlarm, hasMeta bool
	schemaFresh              bool // the flags were read in this transaction

	// kvCache (with Options.CacheKV) holds values this connection read or
	// wrote, as they are in the open transaction (kv.go).
	kvCache      map[string]kvCached
	kvCacheBytes int
	cacheKV      bool
	// pendingKV (with Options.CacheKV) holds puts not yet written to
	// SQLite: the write-back buffer (kv.go).
	pendingKV    map[string][]byte
	pendingBytes int

	actorName  string
	onAlarm    func(Alarm, bool)
	alarmDirty bool // the transaction may have changed the alarm

	// The application's SQL (sql.go).
	raw       *sqlitex.Conn
	auth      authState
	cursors   map[*Cursor]struct{} // cursors with an open statement
	stmtCache stmtCache
	// deadline ends the SQL time budget of the current turn (zero: not
	// started); Commit and Rollback clear it.
	deadline   time.Time
	sqlTimeout time.Duration

	// syncMu guards the WAL file handle used by Sync, which may run on
	// another goroutine than the rest of the DB's methods.
	syncMu    sync.Mutex
	wal       *os.File
	dirSynced bool
	noSync    bool // closed: Sync has nothing left to do
}

// Open opens the cell database at path, creating it and its parent
// directories if needed. The database runs in WAL mode with
// synchronous=FULL (NORMAL with DeferSync), so a successful Commit has been
// fsync'd. Open returns with no transaction open.
func Open(path string, opts Options) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// An object's data: a database SQLite would create 0644 is created
	// 0600 here first (its WAL and shared memory copy the mode).
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	sync := syncFull
	switch {
	case opts.NoSync:
		sync = syncOff
	case opts.DeferSync:
		sync = syncNormal
	}
	connector, err := sqlite.NewConnector(withLogPages(dsn(abs, sync), opts.LogPages))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(1)
	sqldb.SetMaxIdleConns(1)
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)

	db := &DB{
		abs:       abs,
		path:      path,
		scope:     opts.Scope,
		sqldb:     sqldb,
		stmts:     make(map[string]*sql.Stmt),
		actorName: opts.ActorName,
		onAlarm:   opts.OnAlarm,
		cacheKV:   opts.CacheKV,
	}
	db.sqlTimeout = opts.SQLTimeout
	if db.sqlTimeout <= 0 {
		db.sqlTimeout = DefaultSQLTimeout
	}
	if err := db.init(opts); err != nil {
		db.closeAll()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db, nil
}

// The synchronous pragmas of Options: FULL by default, NORMAL with
// DeferSync, OFF with NoSync.
const (
	syncFull   = "synchronous(FULL)"
	syncNormal = "synchronous(NORMAL)"
	syncOff    = "synchronous(OFF)"
)

// dsn returns the data source name of the cell database at the absolute
// path abs, with the connection pragmas and sync, one of the synchronous
// pragmas above.
func dsn(abs string, sync string) string {
	return sqlitex.DSN(abs,
		"busy_timeout("+strconv.Itoa(busyTimeout)+")",
		"journal_mode(WAL)",
		sync,
		"foreign_keys(ON)",
		"cache_size(-"+strconv.Itoa(cacheSizeKiB)+")",
	)
}

func (db *DB) init(opts Options) error {
	ctx := context.Background()
	conn, err := db.sqldb.Conn(ctx)
	if err != nil {
		return err
	}
	db.conn = conn
	raw, err := openRaw(conn, db.auth.authorize)
	if err != nil {
		return err
	}
	db.raw = raw
	db.installProgress()

	for _, s := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&db.begin, sqlBegin},
		{&db.commit, sqlCommit},
		{&db.rollback, sqlRollback},
	} {
		stmt, err := conn.PrepareContext(ctx, s.sql)
		if err != nil {
			return fmt.Errorf("prepare statement: %w", err)
		}
		*s.stmt = stmt
	}
	if err := db.readSchema(); err != nil {
		return err
	}
	if db.hasMeta && opts.ActorName != "" {
		// A database with an alarm table from before: make sure the
		// actor's row exists.
		_, err := conn.ExecContext(ctx, sqlSetActor, db.scope, opts.ActorName)
		if err != nil {
			return fmt.Errorf("write metadata: %w", err)
		}
	}
	return nil
}

// readSchema reads which internal tables exist.
func (db *DB) readSchema() error {
	rows, err := db.conn.QueryContext(context.Background(),
		`SELECT name FROM sqlite_schema WHERE type = 'table' AND name IN ('_cf_KV', '_cf_METADATA', '_cf_ALARM')`)
	if err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	defer rows.Close()
	db.hasKV, db.hasAlarm, db.hasMeta = false, false, false
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return fmt.Errorf("read schema: %w", err)
		}
		switch name {
		case "_cf_KV":
			db.hasKV = true
		case "_cf_ALARM":
			db.hasAlarm = true
		case "_cf_METADATA":
			db.hasMeta = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read schema: %w", err)
	}
	return nil
}

// refreshSchema rereads which internal tables exist after a rollback undid
// what the transaction created or dropped. If it cannot, it assumes they
// all exist (statements on a missing table fail rather than lose data).
func (db *DB) refreshSchema() {
	// Every rollback (of the transaction, of an explicit transaction's
	// savepoint, after a failed statement or COMMIT) comes here: the
	// cached KV values may be ones it undid.
	db.dropKVCache()
	if db.closed {
		return
	}
	if err := db.readSchema(); err != nil {
		db.hasKV, db.hasAlarm, db.hasMeta = true, true, true
	}
}

// Path returns the path the database was opened with.
func (db *DB) Path() string { return db.path }

// InTx reports whether a transaction is open: some operation ran since the
// last Commit or Rollback. It is also true while a failed transaction
// (ErrTxAborted) waits for Commit or Rollback.
func (db *DB) InTx() bool { return db.inTx || db.aborted != nil }

// Commit commits the implicit transaction; when it returns nil the writes
// are durable (fsync'd). With no transaction open it does nothing. If the
// commit fails, or the transaction had aborted, the transaction is rolled
// back, its writes are lost, and the error is returned; the next operation
// begins a new transaction.
func (db *DB) Commit() error {
	if db.closed {
		return fmt.Errorf("commit transaction: %w", ErrClosed)
	}
	db.deadline = time.Time{}
	if err := db.aborted; err != nil {
		db.aborted = nil
		return fmt.Errorf("commit transaction: %w", err)
	}
	if !db.inTx {
		return nil
	}
	if len(db.sp) > 0 {
		// An explicit transaction (an async storage.transaction()) spans
		// turns: its writes commit with the turn that ends it.
		return nil
	}
	if len(db.cursors) > 0 {
		db.armDeadline()
		db.settleCursors()
		db.deadline = time.Time{}
	}
	db.dropStat4()
	if err := db.flushKV(); err != nil {
		db.aborted = nil // flushKV rolled back and aborted
		return fmt.Errorf("commit transaction: %w", err)
	}
	var (
		alarm      Alarm
		alarmOK    bool
		alarmKnown bool
	)
	if db.alarmDirty && db.onAlarm != nil {
		var err error
		alarm, alarmOK, err = db.readAlarm()
		alarmKnown = err == nil
	}
	db.alarmDirty = false
	db.inTx = false
	if _, err := db.commit.Exec(); err != nil {
		// A failed COMMIT can leave the transaction open (SQLITE_BUSY):
		// end it so the next operation starts clean. If SQLite already
		// rolled back, this ROLLBACK fails harmlessly.
		db.stopCursors()
		_, _ = db.rollback.Exec()
		db.refreshSchema()
		return fmt.Errorf("commit transaction: %w", commitError(err))
	}
	if alarmKnown {
		db.onAlarm(alarm, alarmOK)
	}
	return nil
}

// EndTurnOpen ends a turn without committing: when the implicit
// transaction can simply go on into the next turn, it starts that turn's SQL
// time budget afresh and reports true, and the caller commits later (the
// host coalesces the commits of the turns of one loop batch). It reports
// false, changing nothing, when the transaction must be committed now: none
// is open, it failed, an explicit transaction or a cursor is open, or the
// alarm changed (its scheduler hears of it at commit).
func (db *DB) EndTurnOpen() bool {
	if db.closed || !db.inTx || db.aborted != nil || len(db.sp) > 0 || len(db.cursors) > 0 || db.alarmDirty {
		return false
	}
	db.deadline = time.Time{}
	return true
}

// Rollback discards the implicit transaction. With no transaction open it
// does nothing. It also clears an aborted transaction.
func (db *DB) Rollback() error {
	if db.closed {
		return fmt.Errorf("roll back transaction: %w", ErrClosed)
	}
	db.aborted = nil
	db.sp = nil
	db.alarmDirty = false
	db.deadline = time.Time{}
	db.dropPendingKV()
	db.stopCursors()
	if !db.inTx {
		return nil
	}
	db.inTx = false
	if _, err := db.rollback.Exec(); err != nil {
		return fmt.Errorf("roll back transaction: %w", err)
	}
	db.refreshSchema()
	return nil
}

// Close rolls back an open transaction and closes the database. Closing a
// closed DB does nothing.
func (db *DB) Close() error {
	if db.closed {
		return nil
	}
	var errs []error
	db.dropPendingKV()
	db.stopCursors()
	db.clearStmtCache()
	if db.inTx {
		db.inTx = false
		if _, err := db.rollback.Exec(); err != nil {
			errs = append(errs, fmt.Errorf("roll back transaction: %w", err))
		}
	}
	db.aborted = nil
	db.sp = nil
	if err := db.closeAll(); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close database: %w", err)
	}
	return nil
}

// Sync makes every transaction committed so far durable: it fsyncs the
// WAL file (and, the first time, its directory). Unlike the other methods it
// may be called from any goroutine, concurrently with them: frames SQLite
// appends meanwhile are simply flushed too. After Close it does nothing
// (closing the last connection checkpoints and syncs the WAL itself).
func (db *DB) Sync() error {
	db.syncMu.Lock()
	defer db.syncMu.Unlock()
	if db.noSync {
		return nil
	}
	if db.wal == nil {
		f, err := os.OpenFile(db.abs+"-wal", walSyncFlag, 0)
		if errors.Is(err, os.ErrNotExist) {
			return nil // nothing was ever committed through the WAL
		}
		if err != nil {
			return fmt.Errorf("sync database: %w", err)
		}
		db.wal = f
	}
	if err := db.wal.Sync(); err != nil {
		return fmt.Errorf("sync database %s: %w", db.path, err)
	}
	if !db.dirSynced {
		if err := syncDir(filepath.Dir(db.abs)); err != nil {
			return fmt.Errorf("sync database %s: %w", db.path, err)
		}
		db.dirSynced = true
	}
	return nil
}

// closeAll closes the statements, the connection and the pool.
func (db *DB) closeAll() error {
	db.closed = true
	db.syncMu.Lock()
	db.noSync = true
	if db.wal != nil {
		db.wal.Close()
		db.wal = nil
	}
	db.syncMu.Unlock()
	var errs []error
	if db.raw != nil {
		db.raw.Close()
	}
	for _, s := range []*sql.Stmt{db.begin, db.commit, db.rollback} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	for _, s := range db.stmts {
		errs = append(errs, s.Close())
	}
	clear(db.stmts)
	if db.conn != nil {
		errs = append(errs, db.conn.Close())
	}
	errs = append(errs, db.sqldb.Close())
	return errors.Join(errs...)
}

// Size returns the size of the database in bytes as workerd counts it (pages
// in use: page_count - freelist_count, times page_size),
// as seen by the open transaction if there is one. It does not begin a
// transaction.
func (db *DB) Size() (int64, error) {
	if db.closed {
		return 0, fmt.Errorf("read database size: %w", ErrClosed)
	}
	if err := db.flushKV(); err != nil {
		return 0, fmt.Errorf("read database size: %w", err)
	}
	var n int64
	err := db.conn.QueryRowContext(context.Background(),
		`SELECT ((SELECT * FROM pragma_page_count) - (SELECT * FROM pragma_freelist_count)) * (SELECT * FROM pragma_page_size)`,
	).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read database size: %w", err)
	}
	return n, nil
}

// enter makes sure the implicit transaction is open before an operation.
func (db *DB) enter() error {
	if err := db.enterTx(); err != nil {
		return err
	}
	return db.flushKV()
}

// enterTx is enter for the operations that may leave puts in the
// write-back buffer (Get and Put).
func (db *DB) enterTx() error {
	if db.closed {
		return ErrClosed
	}
	if db.aborted != nil {
		return db.aborted
	}
	if db.inTx {
		return nil
	}
	if _, err := db.begin.Exec(); err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	db.inTx = true
	db.schemaFresh = false
	return nil
}

// kvExists reports whether _cf_KV exists, checking the schema again once
// per transaction while it seems not to.
func (db *DB) kvExists() bool {
	if !db.hasKV && !db.schemaFresh {
		db.refreshSchema()
		db.schemaFresh = true
	}
	return db.hasKV
}

// alarmExists is kvExists for _cf_ALARM.
func (db *DB) alarmExists() bool {
	if !db.hasAlarm && !db.schemaFresh {
		db.refreshSchema()
		db.schemaFresh = true
	}
	return db.hasAlarm
}

// abort handles the failure err of a statement inside the transaction: it
// rolls the transaction back (SQLite may already have done so, and a
// half-applied batch must not be committed) and records the failure until
// Commit or Rollback. It returns err.
func (db *DB) abort(err error) error {
	db.dropPendingKV()
	db.stopCursors()
	db.sp = nil
	db.alarmDirty = false
	if db.inTx {
		db.inTx = false
		_, _ = db.rollback.Exec()
	}
	db.refreshSchema()
	db.aborted = fmt.Errorf("%w: %w", ErrTxAborted, err)
	return err
}

// stmt returns the cached prepared statement for query, preparing it on
// first use.
func (db *DB) stmt(query string) (*sql.Stmt, error) {
	if s, ok := db.stmts[query]; ok {
		return s, nil
	}
	s, err := db.conn.PrepareContext(context.Background(), query)
	if err != nil {
		return nil, fmt.Errorf("prepare statement: %w", err)
	}
	db.stmts[query] = s
	return s, nil
}

// commitError words a COMMIT's constraint failure (deferred foreign keys,
// the only constraint SQLite checks at COMMIT) as workerd's *SQLError;
// other failures are returned as they are.
func commitError(err error) error {
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_CONSTRAINT {
		return err
	}
	code := int32(se.Code())
	msg := "FOREIGN KEY constraint failed"
	if code != sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY {
		msg = "constraint failed"
	}
	msg += ": " + sqliteCodeName(code&0xff)
	if code&0xff != code {
		msg += " (extended: " + sqliteCodeName(code) + ")"
	}
	return &SQLError{Msg: msg, Code: int(code)}
}
