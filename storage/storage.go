// Package storage keeps one SQLite database per Durable Object cell: the
// celld-compatible internal tables, the key-value layer under
// ctx.storage.get/put/delete/list/deleteAll, and the implicit transaction.
//
// A DB is not safe for concurrent use. It is called from one goroutine at a
// time, the event loop of the shard that holds the cell; different DBs may be
// used from different goroutines concurrently.
package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
)

// Connection settings applied to every cell database.
const (
	// busyTimeout is how long a statement waits for a lock another
	// connection holds (another process reading the same file, a tool).
	busyTimeout = 5000 // ms
	// cacheSizeKiB bounds the page cache of one cell; a host holds many.
	cacheSizeKiB = 512
)

// Schema of celld's internal tables. Keys are TEXT with the default BINARY
// collation, which compares UTF-8 strings in byte order.
const schema = `
CREATE TABLE IF NOT EXISTS _cf_KV (scope TEXT, k TEXT, v TEXT, PRIMARY KEY (scope, k));
CREATE TABLE IF NOT EXISTS _cf_METADATA (scope TEXT PRIMARY KEY, actor_name TEXT);
CREATE TABLE IF NOT EXISTS _cf_ALARM (scope TEXT PRIMARY KEY, at_ms INTEGER, retry INTEGER DEFAULT 0, counted_retry INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0);
`

// SQL of the statements prepared once at Open.
const (
	sqlBegin    = `BEGIN`
	sqlCommit   = `COMMIT`
	sqlRollback = `ROLLBACK`
	sqlGet      = `SELECT v FROM _cf_KV WHERE scope = ? AND k = ?`
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
	// no row exists for Scope yet.
	ActorName string
	// DeferSync runs the database with synchronous=NORMAL: Commit only
	// writes the WAL, and the caller makes commits durable with Sync (or
	// SyncFS for many databases at once). This lets concurrent commits share
	// one fsync (group commit). Without it every Commit is fsync'd.
	DeferSync bool
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
	get, put, del           *sql.Stmt
	// stmts caches the other statements (List variants) by SQL text.
	stmts map[string]*sql.Stmt

	inTx    bool
	aborted error // non-nil after a statement of the transaction failed
	closed  bool

	// syncMu guards the WAL file handle used by Sync, which may run on
	// another goroutine than the rest of the DB's methods.
	syncMu    sync.Mutex
	wal       *os.File
	dirSynced bool
	noSync    bool // closed: Sync has nothing left to do
}

// Open opens the cell database at path, creating it and its parent
// directories if needed, and creates the internal tables if absent. The
// database runs in WAL mode with synchronous=FULL, so a successful Commit
// has been fsync'd. Open commits its own setup; it returns with no
// transaction open.
func Open(path string, opts Options) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	connector, err := sqlite.NewConnector(dsn(abs, opts.DeferSync))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	sqldb := sql.OpenDB(connector)
	sqldb.SetMaxOpenConns(1)
	sqldb.SetMaxIdleConns(1)
	sqldb.SetConnMaxLifetime(0)
	sqldb.SetConnMaxIdleTime(0)

	db := &DB{
		abs:   abs,
		path:  path,
		scope: opts.Scope,
		sqldb: sqldb,
		stmts: make(map[string]*sql.Stmt),
	}
	if err := db.init(opts); err != nil {
		db.closeAll()
		return nil, fmt.Errorf("open database: %w", err)
	}
	return db, nil
}

// dsn returns the modernc.org/sqlite data source name of the database file
// at the absolute path abs: a file: URI (so any byte of the path survives)
// with the connection pragmas.
func dsn(abs string, deferSync bool) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), OmitHost: true}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.Itoa(busyTimeout)+")")
	q.Add("_pragma", "journal_mode(WAL)")
	if deferSync {
		q.Add("_pragma", "synchronous(NORMAL)")
	} else {
		q.Add("_pragma", "synchronous(FULL)")
	}
	q.Add("_pragma", "foreign_keys(ON)")
	q.Add("_pragma", "cache_size(-"+strconv.Itoa(cacheSizeKiB)+")")
	u.RawQuery = q.Encode()
	return u.String()
}

func (db *DB) init(opts Options) error {
	ctx := context.Background()
	conn, err := db.sqldb.Conn(ctx)
	if err != nil {
		return err
	}
	db.conn = conn

	// A database that is already set up is only read here, so a second
	// connection can open it while the first holds a write transaction.
	ready, err := db.ready(opts)
	if err != nil {
		return err
	}
	if !ready {
		if err := db.setup(opts); err != nil {
			return fmt.Errorf("create tables: %w", err)
		}
	}

	for _, s := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&db.begin, sqlBegin},
		{&db.commit, sqlCommit},
		{&db.rollback, sqlRollback},
		{&db.get, sqlGet},
		{&db.put, sqlPut},
		{&db.del, sqlDelete},
	} {
		stmt, err := conn.PrepareContext(ctx, s.sql)
		if err != nil {
			return fmt.Errorf("prepare statement: %w", err)
		}
		*s.stmt = stmt
	}
	return nil
}

// ready reports whether the internal tables exist and, when opts names an
// actor, the metadata row of the scope exists.
func (db *DB) ready(opts Options) (bool, error) {
	var n int
	err := db.conn.QueryRowContext(context.Background(),
		`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('_cf_KV', '_cf_METADATA', '_cf_ALARM')`,
	).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read schema: %w", err)
	}
	if n != 3 {
		return false, nil
	}
	if opts.ActorName == "" {
		return true, nil
	}
	err = db.conn.QueryRowContext(context.Background(),
		`SELECT count(*) FROM _cf_METADATA WHERE scope = ?`, opts.Scope,
	).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("read metadata: %w", err)
	}
	return n > 0, nil
}

// setup creates the internal tables and the metadata row in a transaction
// of its own.
func (db *DB) setup(opts Options) (err error) {
	ctx := context.Background()
	if _, err := db.conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = db.conn.ExecContext(ctx, sqlRollback)
		}
	}()
	if _, err := db.conn.ExecContext(ctx, schema); err != nil {
		return err
	}
	if opts.ActorName != "" {
		_, err := db.conn.ExecContext(ctx,
			`INSERT OR IGNORE INTO _cf_METADATA (scope, actor_name) VALUES (?, ?)`,
			opts.Scope, opts.ActorName)
		if err != nil {
			return err
		}
	}
	_, err = db.conn.ExecContext(ctx, sqlCommit)
	return err
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
	if err := db.aborted; err != nil {
		db.aborted = nil
		return fmt.Errorf("commit transaction: %w", err)
	}
	if !db.inTx {
		return nil
	}
	db.inTx = false
	if _, err := db.commit.Exec(); err != nil {
		// A failed COMMIT can leave the transaction open (SQLITE_BUSY):
		// end it so the next operation starts clean. If SQLite already
		// rolled back, this ROLLBACK fails harmlessly.
		_, _ = db.rollback.Exec()
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// Rollback discards the implicit transaction. With no transaction open it
// does nothing. It also clears an aborted transaction.
func (db *DB) Rollback() error {
	if db.closed {
		return fmt.Errorf("roll back transaction: %w", ErrClosed)
	}
	db.aborted = nil
	if !db.inTx {
		return nil
	}
	db.inTx = false
	if _, err := db.rollback.Exec(); err != nil {
		return fmt.Errorf("roll back transaction: %w", err)
	}
	return nil
}

// Close rolls back an open transaction and closes the database. Closing a
// closed DB does nothing.
func (db *DB) Close() error {
	if db.closed {
		return nil
	}
	var errs []error
	if db.inTx {
		db.inTx = false
		if _, err := db.rollback.Exec(); err != nil {
			errs = append(errs, fmt.Errorf("roll back transaction: %w", err))
		}
	}
	db.aborted = nil
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
		f, err := os.OpenFile(db.abs+"-wal", os.O_RDONLY, 0)
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

// SyncFS flushes the whole filesystem that holds path (Linux syncfs(2)):
// one call that makes the commits of many databases durable at once.
func SyncFS(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("sync filesystem: %w", err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync filesystem of %s: %w", path, err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
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
	for _, s := range []*sql.Stmt{db.begin, db.commit, db.rollback, db.get, db.put, db.del} {
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

// Size returns the size of the database in bytes (page_count * page_size),
// as seen by the open transaction if there is one. It does not begin a
// transaction.
func (db *DB) Size() (int64, error) {
	if db.closed {
		return 0, fmt.Errorf("read database size: %w", ErrClosed)
	}
	var n int64
	err := db.conn.QueryRowContext(context.Background(),
		`SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`,
	).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("read database size: %w", err)
	}
	return n, nil
}

// enter makes sure the implicit transaction is open before an operation.
func (db *DB) enter() error {
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
	return nil
}

// abort handles the failure err of a statement inside the transaction: it
// rolls the transaction back (SQLite may already have done so, and a
// half-applied batch must not be committed) and records the failure until
// Commit or Rollback. It returns err.
func (db *DB) abort(err error) error {
	if db.inTx {
		db.inTx = false
		_, _ = db.rollback.Exec()
	}
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
