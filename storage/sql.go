package storage

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// This file runs the application's SQL (ctx.storage.sql.exec) directly on
// the SQLite handle under the DB's connection: database/sql cannot report
// what workerd reports (storage classes of values, column names of
// statements that return no rows, error offsets and extended codes,
// several statements in one string), and the guard rails need SQLite's
// authorizer and limits.

// Limits workerd sets on its SQLite connections (sqlite3_limit).
// SQLITE_LIMIT_LENGTH, the longest string, blob or table row (so also a
// stored key with its value), is the one workerd 1.20261117.1 has: the
// largest zeroblob(), string parameter and blob it takes is 8 388 642
// bytes, one more is SQLITE_TOOBIG (testjs/cases/storage-value-size;
// workerd's source had 2 200 000 until August 2026, then 4 MiB).
var sqliteLimits = []struct {
	id, value int32
}{
	{sqlite3.SQLITE_LIMIT_LENGTH, maxSQLiteLength},
	{sqlite3.SQLITE_LIMIT_SQL_LENGTH, 100_000},
	{sqlite3.SQLITE_LIMIT_COLUMN, 100},
	{sqlite3.SQLITE_LIMIT_EXPR_DEPTH, 100},
	{sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, 5},
	{sqlite3.SQLITE_LIMIT_VDBE_OP, 25_000},
	{sqlite3.SQLITE_LIMIT_FUNCTION_ARG, 127},
	{sqlite3.SQLITE_LIMIT_ATTACHED, 0},
	{sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 50},
	{sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 100},
	{sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH, 10},
	{sqlite3.SQLITE_LIMIT_WORKER_THREADS, 0},
}

// maxSQLiteLength is SQLITE_LIMIT_LENGTH (sqliteLimits).
const maxSQLiteLength = 8_388_642

// Messages of the errors workerd raises itself (not SQLite).
const (
	msgNoStatement    = "SQL code did not contain a statement."
	msgWrongBindings  = "Wrong number of parameter bindings for SQL query."
	msgMultiBindings  = "When executing multiple SQL statements in a single call, only the last statement can have parameters."
	msgTransactionSQL = "To execute a transaction, please use the state.storage.transaction() or state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or SAVEPOINT statements. The JavaScript API is safer because it will automatically roll back on exceptions, and because it interacts correctly with Durable Objects' automatic atomic write coalescing."
)

// SQLError is the failure of an application SQL statement. Its message is
// exactly the one workerd gives (the JS Error's message), e.g.
// "no such table: nope: SQLITE_ERROR".
type SQLError struct {
	Msg string
	// Code is SQLite's extended result code, 0 for errors raised before
	// SQLite ran (wrong bindings, refused transactions).
	Code int
}

func (e *SQLError) Error() string { return e.Msg }

// openRaw reaches the SQLite handle under conn (sqlitex.Conn), installs
// authorize as its authorizer and applies workerd's limits.
func openRaw(conn *sql.Conn, authorize sqlite.AuthorizerFn) (r *sqlitex.Conn, err error) {
	err = conn.Raw(func(dc any) error {
		r, err = sqlitex.OpenConn(dc)
		if err != nil {
			return err
		}
		reg, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			r.Close()
			r = nil
			return errors.New("modernc.org/sqlite connection without an authorizer")
		}
		return reg.RegisterAuthorizer(authorize)
	})
	if err != nil {
		if r != nil {
			r.Close()
		}
		return nil, err
	}
	for _, l := range sqliteLimits {
		r.Limit(l.id, l.value)
	}
	return r, nil
}

// progressEvery is how many VM instructions run between two checks of the
// SQL deadline.
const progressEvery = 1000

// installProgress installs db's progress handler: it interrupts the
// application's running statement once the DB's SQL deadline passed
// (cellhost's own statements are never interrupted). It runs inside SQLite
// calls, on the DB's goroutine.
func (db *DB) installProgress() {
	db.raw.OnProgress(progressEvery, func() bool {
		return db.auth.user && !db.deadline.IsZero() && time.Now().After(db.deadline)
	})
}

// DefaultSQLTimeout bounds the SQL work of one transaction (one turn) when
// Options.SQLTimeout is zero: workerd's CPU limit.
const DefaultSQLTimeout = 30 * time.Second

// SQLDeadlinePassed reports whether the current turn's SQL time budget
// ran out: a statement that failed with SQLITE_INTERRUPT was stopped by
// it (nothing else interrupts a cell's connection).
func (db *DB) SQLDeadlinePassed() bool {
	return !db.deadline.IsZero() && time.Now().After(db.deadline)
}

// armDeadline starts the SQL time budget of the turn if it is not running.
func (db *DB) armDeadline() {
	if db.deadline.IsZero() {
		db.deadline = time.Now().Add(db.sqlTimeout)
	}
}

// ---------------------------------------------------------------------------
// Errors

// sqliteCodeNames names SQLite's result codes as workerd prints them.
var sqliteCodeNames = map[int32]string{
	0: "SQLITE_OK", 1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT",
	5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY",
	9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND",
	13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY",
	17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH",
	21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT",
	25: "SQLITE_RANGE", 26: "SQLITE_NOTADB", 27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
	100: "SQLITE_ROW", 101: "SQLITE_DONE",

	1 | 1<<8: "SQLITE_ERROR_MISSING_COLLSEQ", 1 | 2<<8: "SQLITE_ERROR_RETRY",
	1 | 3<<8: "SQLITE_ERROR_SNAPSHOT", 1 | 4<<8: "SQLITE_ERROR_RESERVESIZE",
	1 | 5<<8: "SQLITE_ERROR_KEY", 1 | 6<<8: "SQLITE_ERROR_UNABLE",
	4 | 2<<8: "SQLITE_ABORT_ROLLBACK",
	5 | 1<<8: "SQLITE_BUSY_RECOVERY", 5 | 2<<8: "SQLITE_BUSY_SNAPSHOT", 5 | 3<<8: "SQLITE_BUSY_TIMEOUT",
	6 | 1<<8: "SQLITE_LOCKED_SHAREDCACHE", 6 | 2<<8: "SQLITE_LOCKED_VTAB",
	8 | 1<<8: "SQLITE_READONLY_RECOVERY", 8 | 2<<8: "SQLITE_READONLY_CANTLOCK",
	8 | 3<<8: "SQLITE_READONLY_ROLLBACK", 8 | 4<<8: "SQLITE_READONLY_DBMOVED",
	8 | 5<<8: "SQLITE_READONLY_CANTINIT", 8 | 6<<8: "SQLITE_READONLY_DIRECTORY",
	10 | 1<<8: "SQLITE_IOERR_READ", 10 | 2<<8: "SQLITE_IOERR_SHORT_READ", 10 | 3<<8: "SQLITE_IOERR_WRITE",
	10 | 4<<8: "SQLITE_IOERR_FSYNC", 10 | 5<<8: "SQLITE_IOERR_DIR_FSYNC", 10 | 6<<8: "SQLITE_IOERR_TRUNCATE",
	10 | 7<<8: "SQLITE_IOERR_FSTAT", 10 | 8<<8: "SQLITE_IOERR_UNLOCK", 10 | 9<<8: "SQLITE_IOERR_RDLOCK",
	10 | 10<<8: "SQLITE_IOERR_DELETE", 10 | 12<<8: "SQLITE_IOERR_NOMEM", 10 | 13<<8: "SQLITE_IOERR_ACCESS",
	10 | 15<<8: "SQLITE_IOERR_LOCK", 10 | 16<<8: "SQLITE_IOERR_CLOSE", 10 | 18<<8: "SQLITE_IOERR_SHMOPEN",
	10 | 19<<8: "SQLITE_IOERR_SHMSIZE", 10 | 21<<8: "SQLITE_IOERR_SHMMAP", 10 | 22<<8: "SQLITE_IOERR_SEEK",
	10 | 23<<8: "SQLITE_IOERR_DELETE_NOENT", 10 | 24<<8: "SQLITE_IOERR_MMAP",
	11 | 1<<8: "SQLITE_CORRUPT_VTAB", 11 | 2<<8: "SQLITE_CORRUPT_SEQUENCE", 11 | 3<<8: "SQLITE_CORRUPT_INDEX",
	14 | 1<<8: "SQLITE_CANTOPEN_NOTEMPDIR", 14 | 2<<8: "SQLITE_CANTOPEN_ISDIR",
	14 | 3<<8: "SQLITE_CANTOPEN_FULLPATH",
	19 | 1<<8: "SQLITE_CONSTRAINT_CHECK", 19 | 2<<8: "SQLITE_CONSTRAINT_COMMITHOOK",
	19 | 3<<8: "SQLITE_CONSTRAINT_FOREIGNKEY", 19 | 4<<8: "SQLITE_CONSTRAINT_FUNCTION",
	19 | 5<<8: "SQLITE_CONSTRAINT_NOTNULL", 19 | 6<<8: "SQLITE_CONSTRAINT_PRIMARYKEY",
	19 | 7<<8: "SQLITE_CONSTRAINT_TRIGGER", 19 | 8<<8: "SQLITE_CONSTRAINT_UNIQUE",
	19 | 9<<8: "SQLITE_CONSTRAINT_VTAB", 19 | 10<<8: "SQLITE_CONSTRAINT_ROWID",
	19 | 11<<8: "SQLITE_CONSTRAINT_PINNED", 19 | 12<<8: "SQLITE_CONSTRAINT_DATATYPE",
	23 | 1<<8: "SQLITE_AUTH_USER",
}

func sqliteCodeName(code int32) string {
	if s, ok := sqliteCodeNames[code]; ok {
		return s
	}
	return "SQLITE_UNKNOWN(" + strconv.Itoa(int(code)) + ")"
}

// sqlError builds the error of a failed SQLite call that returned rc, as
// workerd words it: "<message>[ at offset N]: <CODE>[ (extended: <CODE>)]".
// A refusal the authorizer worded itself wins.
func (db *DB) sqlError(rc int32) error {
	if err := db.auth.err; err != nil {
		db.auth.err = nil
		return err
	}
	r := db.raw
	msg := r.ErrMsg()
	if r.ErrCode() == sqlite3.SQLITE_OK {
		// The handle's error was cleared (the driver reset the
		// statement): the code's own text is all there is.
		msg = r.ErrStr(rc)
		var b strings.Builder
		b.WriteString(msg)
		b.WriteString(": ")
		b.WriteString(sqliteCodeName(rc & 0xff))
		if rc&0xff != rc {
			b.WriteString(" (extended: " + sqliteCodeName(rc) + ")")
		}
		return &SQLError{Msg: b.String(), Code: int(rc)}
	}
	var b strings.Builder
	b.WriteString(msg)
	if off := r.ErrorOffset(); off >= 0 {
		b.WriteString(" at offset ")
		b.WriteString(strconv.Itoa(int(off)))
	}
	primary := rc & 0xff
	b.WriteString(": ")
	b.WriteString(sqliteCodeName(primary))
	ext := r.ExtendedErrCode()
	if ext&0xff == primary && ext != primary {
		b.WriteString(" (extended: ")
		b.WriteString(sqliteCodeName(ext))
		b.WriteString(")")
	} else {
		ext = primary
	}
	return &SQLError{Msg: b.String(), Code: int(ext)}
}

// ---------------------------------------------------------------------------
// Statements

// maxCachedStatements bounds the statement cache of one cell.
const (
	maxCachedStatements = 64
	maxCachedSQLBytes   = 256 << 10
)

// cachedStmt is a prepared application statement kept for reuse by the
// text of its query (a single statement).
type cachedStmt struct {
	query   string
	stmt    sqlitex.Stmt
	busy    bool // a cursor is using it
	evicted bool // finalize when the cursor is done
	ddl     bool // the statement changes the schema
	// The statement reads the schema table; hidden tells whether it was
	// prepared with cellhost's internal tables hidden.
	schemaRead, hidden bool
	dml                dmlTarget // what it writes (sqlrows.go)
	read               readInfo  // what it reads (sqlread.go)
	elem               *list.Element
}

type stmtCache struct {
	m     map[string]*cachedStmt
	lru   list.List // of *cachedStmt, most recent first
	bytes int
}

func (c *stmtCache) get(query string) *cachedStmt {
	e := c.m[query]
	if e == nil || e.busy {
		return nil
	}
	c.lru.MoveToFront(e.elem)
	return e
}

func (db *DB) cacheStmt(query string, stmt sqlitex.Stmt) *cachedStmt {
	c := &db.stmtCache
	if c.m == nil {
		c.m = make(map[string]*cachedStmt)
	}
	if old := c.m[query]; old != nil {
		// A busy entry with the same text: keep the older one.
		return nil
	}
	e := &cachedStmt{query: query, stmt: stmt}
	e.elem = c.lru.PushFront(e)
	c.m[query] = e
	c.bytes += len(query)
	for c.lru.Len() > maxCachedStatements || c.bytes > maxCachedSQLBytes {
		last := c.lru.Back().Value.(*cachedStmt)
		if last == e {
			break
		}
		db.evict(last)
	}
	return e
}

func (db *DB) evict(e *cachedStmt) {
	c := &db.stmtCache
	c.lru.Remove(e.elem)
	delete(c.m, e.query)
	c.bytes -= len(e.query)
	if e.busy {
		e.evicted = true
		return
	}
	e.stmt.Finalize()
}

// clearStmtCache finalizes every cached statement not in use.
func (db *DB) clearStmtCache() {
	for _, e := range db.stmtCache.m {
		db.evict(e)
	}
}

// maxQueryBytes is larger than any statement SQLite accepts; longer text is
// refused before it is copied.
const maxQueryBytes = 1 << 24

// Exec runs query, one or more SQL statements, as the application's SQL:
// under workerd's authorizer and limits, inside the implicit transaction.
// Every statement but the last runs at once (stepped once, as workerd
// does) and may not have parameters; args are bound to the last one, whose
// first row is computed before Exec returns. Each arg is nil (NULL), int64,
// float64, string (TEXT) or []byte (BLOB).
//
// The cursor must be read to its end or closed; cursors still open at the
// end of a turn are read ahead (see Commit). Failed statements return a
// *SQLError and leave the transaction as SQLite leaves it (a constraint
// failure undoes only its statement).
func (db *DB) Exec(query string, args ...any) (*Cursor, error) {
	if !db.inTx && len(db.pendingKV) == 0 && len(args) == 0 && isForeignKeysPragma(query) {
		// SQLite ignores PRAGMA foreign_keys inside a transaction; workerd
		// opens its implicit transaction at the first write, so the
		// pragma takes effect when nothing was written yet (at the start
		// of a turn, e.g. in blockConcurrencyWhile). It writes nothing.
		if db.closed {
			return nil, ErrClosed
		}
		if db.aborted != nil {
			return nil, db.aborted
		}
	} else if err := db.enter(); err != nil {
		return nil, err
	}
	db.armDeadline()
	if len(query) > maxQueryBytes {
		return nil, &SQLError{Msg: "statement too long: SQLITE_TOOBIG", Code: sqlite3.SQLITE_TOOBIG}
	}
	for _, a := range args {
		switch a.(type) {
		case nil, int64, float64, string, []byte:
		default:
			return nil, fmt.Errorf("exec: unsupported binding of type %T", a)
		}
	}
	c := &Cursor{db: db, readOnly: true}
	db.auth.schema = false
	e := db.stmtCache.get(query)
	if e != nil && e.schemaRead && !e.hidden && db.hasInternalTables() {
		// Prepared before the internal tables appeared: prepare it again.
		db.evict(e)
		e = nil
	}
	if e != nil {
		e.busy = true
		c.cached = e
		c.stmt = e.stmt
		c.ddlStmt = e.ddl
		c.dml = &e.dml
	} else if err := db.prepareMulti(c, query); err != nil {
		return nil, err
	}
	if err := c.start(args); err != nil {
		return nil, err
	}
	return c, nil
}

// prepareMulti prepares query statement by statement, running all but the
// last one, and leaves the last one prepared in c.
func (db *DB) prepareMulti(c *Cursor, query string) error {
	defer db.raw.DropText()
	off := 0
	for {
		stmt, next, err := db.prepare(query, off)
		if err != nil {
			return err
		}
		if stmt.IsZero() {
			return &SQLError{Msg: msgNoStatement}
		}
		schemaRead := db.auth.schemaRead || db.auth.tableList
		dml := db.auth.dml
		if dml.ddl == sqlite.AuthAlterTable {
			dml.addColumn = isAddColumn(query[off:next])
		}
		hidden := false
		if schemaRead && db.hasInternalTables() {
			if s2 := db.hideInternal(query[off:next]); !s2.IsZero() {
				stmt.Finalize()
				stmt, hidden = s2, true
			}
		}
		if onlySpace(query[next:]) {
			c.stmt = stmt
			c.dml = &dml
			if off == 0 {
				// A single statement: keep it for the next exec of the same text.
				if e := db.cacheStmt(query, stmt); e != nil {
					e.busy = true
					e.schemaRead, e.hidden = schemaRead, hidden
					e.dml = dml
					c.cached = e
				}
			}
			return nil
		}
		if err := db.runIntermediate(c, stmt); err != nil {
			return err
		}
		db.dropStat4()
		off = next
	}
}

// prepare compiles the application statement at text[off:] and returns
// it (zero when the text holds only comments and spaces) and the offset
// just after it.
func (db *DB) prepare(text string, off int) (stmt sqlitex.Stmt, next int, err error) {
	db.auth.user = true
	db.auth.err = nil
	db.auth.schemaRead, db.auth.tableList = false, false
	db.auth.dml = dmlTarget{}
	stmt, next, rc := db.raw.Prepare(text, off, 0)
	db.auth.user = false
	if rc != sqlite3.SQLITE_OK {
		return sqlitex.Stmt{}, 0, db.stepFailed(rc)
	}
	db.auth.err = nil
	return stmt, next, nil
}

// hasInternalTables reports whether any of cellhost's internal tables
// exists.
func (db *DB) hasInternalTables() bool { return db.hasKV || db.hasAlarm || db.hasMeta }

// hiddenSchemaCTE shadows the schema table for a statement of the
// application: workerd keeps its alarm elsewhere and its tables have no
// automatic indexes, so _cf_ALARM and the indexes of the _cf_ tables are
// left out.
const hiddenSchemaCTE = `sqlite_master AS (SELECT * FROM main.sqlite_master WHERE tbl_name <> '_cf_ALARM' AND NOT (type = 'index' AND substr(tbl_name, 1, 4) = '_cf_')), sqlite_schema AS (SELECT * FROM sqlite_master)`

// hiddenTableList replaces PRAGMA table_list for the same reason.
const hiddenTableList = `SELECT * FROM pragma_table_list WHERE NOT (schema = 'main' AND name = '_cf_ALARM')`

// hideInternal prepares the statement text again so that the schema table
// (or PRAGMA table_list) it reads does not show cellhost's own additions to
// workerd's internal tables (the schema is otherwise celld's, see
// Options). It returns a zero Stmt when the statement cannot take the
// rewrite (it then runs as written).
func (db *DB) hideInternal(text string) sqlitex.Stmt {
	var rewritten string
	if db.auth.tableList {
		if !isPragmaTableList(text) {
			return sqlitex.Stmt{}
		}
		rewritten = hiddenTableList
	} else {
		lead := len(text) - len(trimTrivia(text))
		rest := text[lead:]
		if kw := leadingWord(rest); strings.EqualFold(kw, "WITH") {
			rest = rest[len(kw):]
			after := trimTrivia(rest)
			if kw2 := leadingWord(after); strings.EqualFold(kw2, "RECURSIVE") {
				rewritten = text[:lead] + "WITH RECURSIVE " + hiddenSchemaCTE + ", " + after[len(kw2):]
			} else {
				rewritten = text[:lead] + "WITH " + hiddenSchemaCTE + ", " + after
			}
		} else {
			rewritten = text[:lead] + "WITH " + hiddenSchemaCTE + " " + rest
		}
	}
	saved := db.auth
	stmt, _, err := db.prepare(rewritten, 0)
	db.auth.schema = saved.schema
	if err != nil {
		return sqlitex.Stmt{}
	}
	return stmt
}

// trimTrivia removes leading whitespace and comments.
func trimTrivia(s string) string {
	for {
		t := strings.TrimLeft(s, " \t\n\r\f")
		switch {
		case strings.HasPrefix(t, "--"):
			i := strings.IndexByte(t, '\n')
			if i < 0 {
				return ""
			}
			s = t[i+1:]
		case strings.HasPrefix(t, "/*"):
			i := strings.Index(t[2:], "*/")
			if i < 0 {
				return ""
			}
			s = t[i+4:]
		default:
			return t
		}
	}
}

// leadingWord returns the identifier-like word at the start of s.
func leadingWord(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || i > 0 && s[i] >= '0' && s[i] <= '9') {
		i++
	}
	return s[:i]
}

// isPragmaTableList reports whether text is just PRAGMA table_list.
func isPragmaTableList(text string) bool {
	t := trimTrivia(text)
	kw := leadingWord(t)
	if !strings.EqualFold(kw, "PRAGMA") {
		return false
	}
	t = trimTrivia(t[len(kw):])
	kw = leadingWord(t)
	if !strings.EqualFold(kw, "table_list") {
		return false
	}
	t = trimTrivia(t[len(kw):])
	return t == "" || t[0] == ';' && onlyTrivia(t[1:])
}

// isForeignKeysPragma reports whether text is a single PRAGMA
// foreign_keys = <value> statement.
func isForeignKeysPragma(text string) bool {
	t := trimTrivia(text)
	kw := leadingWord(t)
	if !strings.EqualFold(kw, "PRAGMA") {
		return false
	}
	t = trimTrivia(t[len(kw):])
	kw = leadingWord(t)
	if !strings.EqualFold(kw, "foreign_keys") {
		return false
	}
	t = trimTrivia(t[len(kw):])
	if !strings.HasPrefix(t, "=") {
		return false
	}
	return !strings.Contains(t, ";") || onlySpace(t[strings.IndexByte(t, ';')+1:])
}

// runIntermediate runs a statement that is not the last of an exec: it is
// stepped once (rows it returns are discarded) and finalized.
func (db *DB) runIntermediate(c *Cursor, stmt sqlitex.Stmt) error {
	defer stmt.Finalize()
	if stmt.BindParameterCount() != 0 {
		return &SQLError{Msg: msgMultiBindings}
	}
	ro := stmt.ReadOnly()
	c.readOnly = c.readOnly && ro
	rc := db.step(stmt)
	if rc != sqlite3.SQLITE_ROW && rc != sqlite3.SQLITE_DONE {
		return db.stepFailed(rc)
	}
	// workerd's rowsRead and rowsWritten are the last statement's: what
	// an earlier one reads or writes is not counted (recorded on workerd).
	db.auth.schema = false
	return nil
}

// step steps an application statement.
func (db *DB) step(stmt sqlitex.Stmt) int32 {
	db.auth.user = true
	rc := stmt.Step()
	db.auth.user = false
	return rc
}

// stepFailed turns the failure rc of an application statement into its
// error, and notices when SQLite rolled the whole transaction back (ON
// CONFLICT ROLLBACK, I/O errors): the implicit transaction is then lost.
func (db *DB) stepFailed(rc int32) error {
	err := db.sqlError(rc)
	if db.inTx && db.raw.Autocommit() {
		db.inTx = false
		db.sp = nil
		db.aborted = fmt.Errorf("%w: %w", ErrTxAborted, err)
		db.refreshSchema()
	}
	return err
}

// txAlive reports whether the implicit transaction is still open in SQLite.
func (db *DB) txAlive() bool {
	return db.inTx && !db.raw.Autocommit()
}

func (db *DB) totalChanges() int64 {
	return db.raw.TotalChanges()
}

// schemaCookie returns the schema version of the main database.
func (db *DB) schemaCookie() int64 {
	var v int64
	_ = db.conn.QueryRowContext(context.Background(), `PRAGMA schema_version`).Scan(&v)
	return v
}

func (db *DB) schemaCookieIf(ok bool) int64 {
	if !ok {
		return 0
	}
	return db.schemaCookie()
}

// onlySpace reports whether s holds only C whitespace (isspace: space, \t,
// \n, \v, \f, \r). What follows a statement decides whether it is the last
// one as workerd decides it: a trailing comment is one more statement, which
// has none ("SQL code did not contain a statement."), and a trailing \v,
// which SQLite would not take as whitespace, ends the text.
func onlySpace(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
		default:
			return false
		}
	}
	return true
}

// onlyTrivia reports whether s holds only whitespace and SQL comments.
func onlyTrivia(s string) bool {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case c == '-' && i+1 < len(s) && s[i+1] == '-':
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return true
			}
			i += j + 1
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return true // an unterminated comment runs to the end
			}
			i += j + 4
		default:
			return false
		}
	}
	return true
}
