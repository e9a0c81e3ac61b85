package storage

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/libc"
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
var sqliteLimits = []struct {
	id, value int32
}{
	{sqlite3.SQLITE_LIMIT_LENGTH, 2_200_000},
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

// rawConn is the SQLite handle of a modernc.org/sqlite connection and the
// libc thread state it is used with.
type rawConn struct {
	tls     *libc.TLS
	db      uintptr
	scratch uintptr // out-parameters of prepare: *sqlite3_stmt, tail
}

const ptrSize = sqlitex.PtrSize

// openRaw reaches the SQLite handle under conn, installs authorize as its
// authorizer and applies workerd's limits.
func openRaw(conn *sql.Conn, authorize sqlite.AuthorizerFn) (r rawConn, err error) {
	err = conn.Raw(func(dc any) error {
		r.tls, r.db, err = sqlitex.Handle(dc)
		if err != nil {
			return err
		}
		reg, ok := dc.(sqlite.AuthorizerRegisterer)
		if !ok {
			return errors.New("modernc.org/sqlite connection without an authorizer")
		}
		return reg.RegisterAuthorizer(authorize)
	})
	if err != nil {
		return rawConn{}, err
	}
	for _, l := range sqliteLimits {
		sqlite3.Xsqlite3_limit(r.tls, r.db, l.id, l.value)
	}
	r.scratch = libc.Xmalloc(r.tls, 2*uint64(ptrSize))
	if r.scratch == 0 {
		return rawConn{}, errors.New("allocate prepare scratch: out of memory")
	}
	return r, nil
}

// progressDBs maps SQLite handles to their DB for the progress handler.
var progressDBs sync.Map // uintptr → *DB

// progressEvery is how many VM instructions run between two checks of the
// SQL deadline.
const progressEvery = 1000

// progressCallback is SQLite's progress handler of every cell connection:
// it interrupts the application's running statement once the DB's SQL
// deadline passed (cellhost's own statements are never interrupted).
// It runs inside SQLite calls, on the DB's goroutine.
func progressCallback(_ *libc.TLS, handle uintptr) int32 {
	v, ok := progressDBs.Load(handle)
	if !ok {
		return 0
	}
	db := v.(*DB)
	if db.auth.user && !db.deadline.IsZero() && time.Now().After(db.deadline) {
		return 1
	}
	return 0
}

// installProgress installs the progress handler for db.
func (db *DB) installProgress() {
	progressDBs.Store(db.raw.db, db)
	sqlite3.Xsqlite3_progress_handler(db.raw.tls, db.raw.db, progressEvery, sqlitex.CFuncPointer(progressCallback), db.raw.db)
}

// DefaultSQLTimeout bounds the SQL work of one transaction (one turn) when
// Options.SQLTimeout is zero: workerd's CPU limit.
const DefaultSQLTimeout = 30 * time.Second

// armDeadline starts the SQL time budget of the turn if it is not running.
func (db *DB) armDeadline() {
	if db.deadline.IsZero() {
		db.deadline = time.Now().Add(db.sqlTimeout)
	}
}

func (r *rawConn) free() {
	if r.scratch != 0 {
		libc.Xfree(r.tls, r.scratch)
		r.scratch = 0
	}
}

// cBytes copies b into fresh C memory (NUL-terminated); free it with
// libc.Xfree.
func (r *rawConn) cBytes(b string) (uintptr, error) {
	p := libc.Xmalloc(r.tls, uint64(len(b))+1)
	if p == 0 {
		return 0, errors.New("out of memory")
	}
	m := sqlitex.CMem(p, len(b)+1)
	copy(m, b)
	m[len(b)] = 0
	return p, nil
}

// ---------------------------------------------------------------------------
// Authorizer

// authState is what the authorizer reports about the statement being
// prepared. The authorizer runs inside SQLite calls on the DB's goroutine.
type authState struct {
	user   bool  // the statement being prepared or stepped is the application's
	err    error // the first refusal with a message of its own
	schema bool  // the statement changes the schema
	// The application's statement reads sqlite_master (schemaRead) or
	// runs PRAGMA table_list (tableList): see hideInternal.
	schemaRead, tableList bool
}

// isReservedName reports whether name is reserved for cellhost's own
// tables (workerd reserves the _cf_ prefix, in any case).
func isReservedName(name string) bool {
	return len(name) >= 4 && strings.EqualFold(name[:4], "_cf_")
}

// workerdColumn is the name workerd's _cf_KV column has where ours has
// another: the messages about reading it name workerd's.
func workerdColumn(table, column string) string {
	if strings.EqualFold(table, "_cf_KV") {
		switch column {
		case "scope", "k":
			return "key"
		case "v":
			return "value"
		}
	}
	return column
}

// deniedFunctions are SQL functions the application may not call: they
// reveal build details or load native code.
var deniedFunctions = map[string]bool{
	"load_extension":            true,
	"sqlite_version":            true,
	"sqlite_source_id":          true,
	"sqlite_compileoption_get":  true,
	"sqlite_compileoption_used": true,
	"sqlite_offset":             true,
	"fts3_tokenizer":            true,
}

// deniedTables are eponymous virtual tables that read or write the raw
// database file.
var deniedTables = map[string]bool{
	"sqlite_dbpage": true,
	"dbstat":        true,
}

type pragmaKind int

const (
	pragmaNoArg      pragmaKind = iota + 1 // allowed without an argument only
	pragmaBoolean                          // optional boolean argument
	pragmaObjectName                       // required table or index name
	pragmaOptional                         // optional argument
)

// allowedPragmas is workerd's PRAGMA allowlist.
var allowedPragmas = map[string]pragmaKind{
	"data_version":              pragmaNoArg,
	"table_list":                pragmaNoArg,
	"case_sensitive_like":       pragmaBoolean,
	"foreign_keys":              pragmaBoolean,
	"defer_foreign_keys":        pragmaBoolean,
	"ignore_check_constraints":  pragmaBoolean,
	"legacy_alter_table":        pragmaBoolean,
	"recursive_triggers":        pragmaBoolean,
	"reverse_unordered_selects": pragmaBoolean,
	"table_info":                pragmaObjectName,
	"table_xinfo":               pragmaObjectName,
	"foreign_key_list":          pragmaObjectName,
	"index_info":                pragmaObjectName,
	"index_list":                pragmaObjectName,
	"index_xinfo":               pragmaObjectName,
	"foreign_key_check":         pragmaOptional,
	"quick_check":               pragmaOptional,
	"optimize":                  pragmaOptional,
}

// validBoolean reports whether v is one of SQLite's spellings of a boolean,
// optionally quoted.
func validBoolean(v string) bool {
	if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		v = v[1 : len(v)-1]
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// authorize is the SQLite authorizer of a cell connection. Statements of
// cellhost itself are always allowed; the application's are checked
// against workerd's rules.
func (a *authState) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, dbName, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthCreateIndex, sqlite.AuthCreateTable, sqlite.AuthCreateTrigger, sqlite.AuthCreateView,
		sqlite.AuthDropIndex, sqlite.AuthDropTable, sqlite.AuthDropTrigger, sqlite.AuthDropView,
		sqlite.AuthAlterTable, sqlite.AuthCreateVTable, sqlite.AuthDropVTable:
		a.schema = true
	}
	if !a.user {
		return sqlite.AuthorizerOK
	}
	if a.allowed(action, arg1, arg2, dbName) {
		return sqlite.AuthorizerOK
	}
	return sqlite.AuthorizerDeny
}

func (a *authState) fail(err error) bool {
	if a.err == nil {
		a.err = err
	}
	return false
}

func (a *authState) allowed(action sqlite.AuthorizerActionCode, arg1, arg2, dbName string) bool {
	if action == sqlite.AuthAlterTable {
		// arg1 is the database, arg2 the table; for DROP COLUMN SQLite
		// passes the column where the database name goes.
		return strings.EqualFold(arg1, "main") && !isReservedName(arg2)
	}
	switch dbName {
	case "", "main":
	case "temp":
		switch action {
		case sqlite.AuthRead, sqlite.AuthUpdate:
			return !isReservedName(arg1)
		}
		return false
	default:
		return false
	}
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRecursive:
		return true
	case sqlite.AuthRead:
		if strings.EqualFold(arg1, "sqlite_master") {
			a.schemaRead = true
		}
		if isReservedName(arg1) {
			return a.fail(&SQLError{
				Msg:  "access to " + arg1 + "." + workerdColumn(arg1, arg2) + " is prohibited: SQLITE_AUTH",
				Code: sqlite3.SQLITE_AUTH,
			})
		}
		return !deniedTables[strings.ToLower(arg1)]
	case sqlite.AuthUpdate, sqlite.AuthInsert, sqlite.AuthDelete:
		return !isReservedName(arg1) && !deniedTables[strings.ToLower(arg1)]
	case sqlite.AuthAnalyze:
		// workerd allows ANALYZE on every table (a bare ANALYZE covers the
		// internal ones): it writes statistics, not rows.
		return true
	case sqlite.AuthCreateTable, sqlite.AuthDropTable,
		sqlite.AuthCreateView, sqlite.AuthDropView, sqlite.AuthReindex:
		return !isReservedName(arg1)
	case sqlite.AuthAlterTable:
		return !isReservedName(arg2)
	case sqlite.AuthCreateIndex, sqlite.AuthDropIndex, sqlite.AuthCreateTrigger, sqlite.AuthDropTrigger:
		return !isReservedName(arg1) && !isReservedName(arg2)
	case sqlite.AuthTransaction, sqlite.AuthSavepoint:
		return a.fail(&SQLError{Msg: msgTransactionSQL})
	case sqlite.AuthPragma:
		if strings.EqualFold(arg1, "table_list") {
			a.tableList = true
		}
		kind := allowedPragmas[strings.ToLower(arg1)]
		switch kind {
		case pragmaNoArg:
			return arg2 == ""
		case pragmaBoolean:
			return arg2 == "" || validBoolean(arg2)
		case pragmaObjectName:
			return arg2 != "" && !isReservedName(arg2)
		case pragmaOptional:
			return !isReservedName(arg2)
		}
		return false
	case sqlite.AuthFunction:
		return !deniedFunctions[strings.ToLower(arg2)]
	case sqlite.AuthCreateVTable, sqlite.AuthDropVTable:
		return !isReservedName(arg1) && (strings.EqualFold(arg2, "fts5") || strings.EqualFold(arg2, "fts5vocab"))
	}
	// ATTACH, DETACH, temporary objects, COPY and anything unknown.
	return false
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
	r := &db.raw
	msg := libc.GoString(sqlite3.Xsqlite3_errmsg(r.tls, r.db))
	if sqlite3.Xsqlite3_errcode(r.tls, r.db) == sqlite3.SQLITE_OK {
		// The handle's error was cleared (the driver reset the
		// statement): the code's own text is all there is.
		msg = libc.GoString(sqlite3.Xsqlite3_errstr(r.tls, rc))
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
	if off := sqlite3.Xsqlite3_error_offset(r.tls, r.db); off >= 0 {
		b.WriteString(" at offset ")
		b.WriteString(strconv.Itoa(int(off)))
	}
	primary := rc & 0xff
	b.WriteString(": ")
	b.WriteString(sqliteCodeName(primary))
	ext := sqlite3.Xsqlite3_extended_errcode(r.tls, r.db)
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
	stmt    uintptr
	busy    bool // a cursor is using it
	evicted bool // finalize when the cursor is done
	ddl     bool // the statement changes the schema
	// The statement reads the schema table; hidden tells whether it was
	// prepared with cellhost's internal tables hidden.
	schemaRead, hidden bool
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

func (db *DB) cacheStmt(query string, stmt uintptr) *cachedStmt {
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
	sqlite3.Xsqlite3_finalize(db.raw.tls, e.stmt)
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
	if err := db.enter(); err != nil {
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
	if e := db.stmtCache.get(query); e != nil && e.schemaRead && !e.hidden && db.hasInternalTables() {
		// Prepared before the internal tables appeared: prepare it again.
		db.evict(e)
	}
	if e := db.stmtCache.get(query); e != nil {
		e.busy = true
		c.cached = e
		c.stmt = e.stmt
		c.ddlStmt = e.ddl
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
	r := &db.raw
	p, err := r.cBytes(query)
	if err != nil {
		return err
	}
	defer libc.Xfree(r.tls, p)
	off := 0
	for {
		stmt, tail, err := db.prepare(p+uintptr(off), len(query)-off)
		if err != nil {
			return err
		}
		if stmt == 0 {
			return &SQLError{Msg: msgNoStatement}
		}
		next := int(tail - p)
		if next < off || next > len(query) {
			next = len(query)
		}
		schemaRead := db.auth.schemaRead || db.auth.tableList
		hidden := false
		if schemaRead && db.hasInternalTables() {
			if s2 := db.hideInternal(query[off:next]); s2 != 0 {
				sqlite3.Xsqlite3_finalize(r.tls, stmt)
				stmt, hidden = s2, true
			}
		}
		if onlyTrivia(query[next:]) {
			c.stmt = stmt
			if off == 0 {
				// A single statement: keep it for the next exec of the same text.
				if e := db.cacheStmt(query, stmt); e != nil {
					e.busy = true
					e.schemaRead, e.hidden = schemaRead, hidden
					c.cached = e
				}
			}
			return nil
		}
		if err := db.runIntermediate(c, stmt); err != nil {
			return err
		}
		off = next
	}
}

// prepare compiles the application statement at p (n bytes) and returns it
// (0 when the text holds only comments and spaces) and the address just
// after it.
func (db *DB) prepare(p uintptr, n int) (stmt, tail uintptr, err error) {
	r := &db.raw
	db.auth.user = true
	db.auth.err = nil
	db.auth.schemaRead, db.auth.tableList = false, false
	rc := sqlite3.Xsqlite3_prepare_v3(r.tls, r.db, p, int32(n), 0, r.scratch, r.scratch+ptrSize)
	db.auth.user = false
	if rc != sqlite3.SQLITE_OK {
		return 0, 0, db.stepFailed(rc)
	}
	db.auth.err = nil
	return sqlitex.PeekPtr(r.scratch), sqlitex.PeekPtr(r.scratch + ptrSize), nil
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
// Options). It returns 0 when the statement cannot take the rewrite (it
// then runs as written).
func (db *DB) hideInternal(text string) uintptr {
	var rewritten string
	if db.auth.tableList {
		if !isPragmaTableList(text) {
			return 0
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
	r := &db.raw
	p, err := r.cBytes(rewritten)
	if err != nil {
		return 0
	}
	defer libc.Xfree(r.tls, p)
	saved := db.auth
	stmt, _, err := db.prepare(p, len(rewritten))
	db.auth.schema = saved.schema
	if err != nil {
		return 0
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

// runIntermediate runs a statement that is not the last of an exec: it is
// stepped once (rows it returns are discarded) and finalized.
func (db *DB) runIntermediate(c *Cursor, stmt uintptr) error {
	r := &db.raw
	defer sqlite3.Xsqlite3_finalize(r.tls, stmt)
	if sqlite3.Xsqlite3_bind_parameter_count(r.tls, stmt) != 0 {
		return &SQLError{Msg: msgMultiBindings}
	}
	ro := sqlite3.Xsqlite3_stmt_readonly(r.tls, stmt) != 0
	c.readOnly = c.readOnly && ro
	changes := db.totalChanges()
	cookie := db.schemaCookieIf(db.auth.schema)
	rc := db.step(stmt)
	if rc != sqlite3.SQLITE_ROW && rc != sqlite3.SQLITE_DONE {
		return db.stepFailed(rc)
	}
	c.baseWritten += db.totalChanges() - changes
	if rc == sqlite3.SQLITE_ROW {
		c.baseRead++
	}
	c.baseRead += int64(sqlite3.Xsqlite3_stmt_status(r.tls, stmt, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))
	if db.auth.schema && db.schemaCookie() != cookie {
		c.baseRead++
		c.baseWritten += 2
	}
	db.auth.schema = false
	return nil
}

// step steps an application statement.
func (db *DB) step(stmt uintptr) int32 {
	db.auth.user = true
	rc := sqlite3.Xsqlite3_step(db.raw.tls, stmt)
	db.auth.user = false
	return rc
}

// stepFailed turns the failure rc of an application statement into its
// error, and notices when SQLite rolled the whole transaction back (ON
// CONFLICT ROLLBACK, I/O errors): the implicit transaction is then lost.
func (db *DB) stepFailed(rc int32) error {
	err := db.sqlError(rc)
	if db.inTx && sqlite3.Xsqlite3_get_autocommit(db.raw.tls, db.raw.db) != 0 {
		db.inTx = false
		db.sp = nil
		db.aborted = fmt.Errorf("%w: %w", ErrTxAborted, err)
		db.refreshSchema()
	}
	return err
}

// txAlive reports whether the implicit transaction is still open in SQLite.
func (db *DB) txAlive() bool {
	return db.inTx && sqlite3.Xsqlite3_get_autocommit(db.raw.tls, db.raw.db) == 0
}

func (db *DB) totalChanges() int64 {
	return sqlite3.Xsqlite3_total_changes64(db.raw.tls, db.raw.db)
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

// ---------------------------------------------------------------------------
// Cursors

// Cursor reads the rows of the last statement of an Exec. It is used on the
// DB's goroutine only.
type Cursor struct {
	db     *DB
	stmt   uintptr // 0 once finished
	cached *cachedStmt
	cols   []string

	hasRow bool    // the statement is on a row not yet returned
	buf    [][]any // rows read ahead (at the end of a turn)
	err    error   // error to report after buf

	readOnly bool
	// released is set (from any goroutine) when the application can no
	// longer read the cursor: it ends at the next commit.
	released atomic.Bool

	// Row counts: base counts the statements before the last one; the
	// last one's count is taken while it runs.
	baseRead, baseWritten int64
	written               int64 // rows written by the last statement
	changesBase           int64 // total changes when the last statement started
	rows                  int64 // rows the last statement produced
	scanned               int64 // full-scan steps of the last statement
	ddl                   bool  // the last statement changed the schema
	ddlStmt               bool  // the last statement is DDL (cached: at its first prepare)
}

// start binds args to the prepared statement, computes its first row and
// registers the cursor while the statement stays open.
func (c *Cursor) start(args []any) error {
	db := c.db
	r := &db.raw
	n := int(sqlite3.Xsqlite3_bind_parameter_count(r.tls, c.stmt))
	if n != len(args) {
		c.finish()
		return &SQLError{Msg: msgWrongBindings}
	}
	for i, a := range args {
		if rc := c.bind(int32(i+1), a); rc != sqlite3.SQLITE_OK {
			err := db.sqlError(rc)
			c.finish()
			return err
		}
	}
	if c.cached != nil {
		sqlite3.Xsqlite3_stmt_status(r.tls, c.stmt, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, 1)
	}
	ro := sqlite3.Xsqlite3_stmt_readonly(r.tls, c.stmt) != 0
	c.readOnly = c.readOnly && ro
	c.changesBase = db.totalChanges()
	ddl := !ro && (c.ddlStmt || db.auth.schema)
	if c.cached != nil && db.auth.schema {
		c.cached.ddl = true
	}
	cookie := db.schemaCookieIf(ddl)
	rc := db.step(c.stmt)
	// The names after the first step: it may have prepared the statement
	// again for a changed schema.
	ncol := int(sqlite3.Xsqlite3_column_count(r.tls, c.stmt))
	c.cols = make([]string, ncol)
	for i := range c.cols {
		c.cols[i] = libc.GoString(sqlite3.Xsqlite3_column_name(r.tls, c.stmt, int32(i)))
	}
	c.written = db.totalChanges() - c.changesBase
	if ddl && db.schemaCookie() != cookie {
		c.ddl = true
	}
	db.auth.schema = false
	switch rc {
	case sqlite3.SQLITE_ROW:
		c.hasRow = true
		c.rows++
		if db.cursors == nil {
			db.cursors = make(map[*Cursor]struct{})
		}
		db.cursors[c] = struct{}{}
		return nil
	case sqlite3.SQLITE_DONE:
		c.finish()
		return nil
	}
	err := db.stepFailed(rc)
	c.finish()
	return err
}

func (c *Cursor) bind(i int32, a any) int32 {
	r := &c.db.raw
	switch v := a.(type) {
	case nil:
		return sqlite3.Xsqlite3_bind_null(r.tls, c.stmt, i)
	case int64:
		return sqlite3.Xsqlite3_bind_int64(r.tls, c.stmt, i, v)
	case float64:
		if math.IsNaN(v) {
			return sqlite3.Xsqlite3_bind_null(r.tls, c.stmt, i)
		}
		return sqlite3.Xsqlite3_bind_double(r.tls, c.stmt, i, v)
	case string:
		p, err := r.cBytes(v)
		if err != nil {
			return sqlite3.SQLITE_NOMEM
		}
		defer libc.Xfree(r.tls, p)
		return sqlite3.Xsqlite3_bind_text64(r.tls, c.stmt, i, p, uint64(len(v)), sqlite3.SQLITE_TRANSIENT, sqlite3.SQLITE_UTF8)
	case []byte:
		if len(v) == 0 {
			return sqlite3.Xsqlite3_bind_zeroblob(r.tls, c.stmt, i, 0)
		}
		p, err := r.cBytes(string(v))
		if err != nil {
			return sqlite3.SQLITE_NOMEM
		}
		defer libc.Xfree(r.tls, p)
		return sqlite3.Xsqlite3_bind_blob64(r.tls, c.stmt, i, p, uint64(len(v)), sqlite3.SQLITE_TRANSIENT)
	}
	return sqlite3.SQLITE_MISMATCH
}

// Columns returns the names of the result columns (empty for statements
// that return no rows).
func (c *Cursor) Columns() []string { return c.cols }

// ReadOnly reports whether none of the statements of the exec writes.
func (c *Cursor) ReadOnly() bool { return c.readOnly }

// RowsRead is an estimate of the rows the statements read, as workerd
// counts them: rows returned or scanned, plus one per schema change.
func (c *Cursor) RowsRead() int {
	scanned := c.scanned
	if c.stmt != 0 {
		scanned = int64(sqlite3.Xsqlite3_stmt_status(c.db.raw.tls, c.stmt, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))
	}
	n := c.rows
	if scanned > 0 {
		n = max(n, scanned+1)
	}
	if c.ddl {
		n++
	}
	return int(c.baseRead + n)
}

// RowsWritten is the number of rows the statements wrote: rows inserted,
// updated or deleted (also by triggers), and two schema rows per schema
// change.
func (c *Cursor) RowsWritten() int {
	n := c.baseWritten + c.written
	if c.ddl {
		n += 2
	}
	return int(n)
}

// Next returns the next row: each value is nil (NULL), int64, float64,
// string or []byte. ok is false at the end (and after an error).
func (c *Cursor) Next() (row []any, ok bool, err error) {
	if len(c.buf) > 0 {
		row, c.buf = c.buf[0], c.buf[1:]
		return row, true, nil
	}
	if c.err != nil {
		err, c.err = c.err, nil
		return nil, false, err
	}
	if !c.hasRow {
		return nil, false, nil
	}
	if c.db.closed {
		c.hasRow = false
		return nil, false, ErrClosed
	}
	c.db.armDeadline()
	row = c.readRow()
	if err := c.advance(); err != nil {
		return nil, false, err
	}
	return row, true, nil
}

// advance steps to the next row, finishing the cursor at the end.
func (c *Cursor) advance() error {
	rc := c.db.step(c.stmt)
	switch rc {
	case sqlite3.SQLITE_ROW:
		c.hasRow = true
		c.rows++
		return nil
	case sqlite3.SQLITE_DONE:
		c.hasRow = false
		if !c.readOnly {
			// Statements with RETURNING count their changes when they end.
			c.written = c.db.totalChanges() - c.changesBase
		}
		c.finish()
		return nil
	}
	c.hasRow = false
	err := c.db.stepFailed(rc)
	c.finish()
	return err
}

// readRow reads the columns of the current row.
func (c *Cursor) readRow() []any {
	r := &c.db.raw
	row := make([]any, len(c.cols))
	for i := range row {
		col := int32(i)
		switch sqlite3.Xsqlite3_column_type(r.tls, c.stmt, col) {
		case sqlite3.SQLITE_INTEGER:
			row[i] = sqlite3.Xsqlite3_column_int64(r.tls, c.stmt, col)
		case sqlite3.SQLITE_FLOAT:
			row[i] = sqlite3.Xsqlite3_column_double(r.tls, c.stmt, col)
		case sqlite3.SQLITE_TEXT:
			p := sqlite3.Xsqlite3_column_text(r.tls, c.stmt, col)
			n := int(sqlite3.Xsqlite3_column_bytes(r.tls, c.stmt, col))
			row[i] = string(sqlitex.CMem(p, n))
		case sqlite3.SQLITE_BLOB:
			p := sqlite3.Xsqlite3_column_blob(r.tls, c.stmt, col)
			n := int(sqlite3.Xsqlite3_column_bytes(r.tls, c.stmt, col))
			b := make([]byte, n)
			copy(b, sqlitex.CMem(p, n))
			row[i] = b
		default:
			row[i] = nil
		}
	}
	return row
}

// readAhead reads up to limit rows (all when limit < 0) of the open
// statement into the cursor's buffer, finishing it at the end. A failure
// is kept to be returned after the buffered rows.
func (c *Cursor) readAhead(limit int) {
	for c.hasRow && limit != 0 {
		c.buf = append(c.buf, c.readRow())
		limit--
		if err := c.advance(); err != nil {
			c.err = err
			return
		}
	}
}

// Release marks the cursor as unreachable by the application (its JS
// object was collected). It may be called from any goroutine; the cursor
// ends at the next commit instead of being read ahead.
func (c *Cursor) Release() { c.released.Store(true) }

// Close ends the cursor early; its remaining rows are discarded.
func (c *Cursor) Close() {
	c.hasRow = false
	c.buf = nil
	c.err = nil
	c.finish()
}

// finish releases the statement (back to the cache, or finalized).
func (c *Cursor) finish() {
	if c.stmt == 0 {
		return
	}
	db := c.db
	r := &db.raw
	delete(db.cursors, c)
	c.scanned = int64(sqlite3.Xsqlite3_stmt_status(r.tls, c.stmt, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, 0))
	if e := c.cached; e != nil && !db.closed {
		sqlite3.Xsqlite3_reset(r.tls, c.stmt)
		sqlite3.Xsqlite3_clear_bindings(r.tls, c.stmt)
		e.busy = false
		if e.evicted {
			sqlite3.Xsqlite3_finalize(r.tls, c.stmt)
		}
	} else if !db.closed {
		sqlite3.Xsqlite3_finalize(r.tls, c.stmt)
	}
	c.stmt = 0
	c.cached = nil
}

// readAheadLimit is how many rows of a cursor left open at the end of a
// turn are read ahead; a cursor with more rows keeps its statement open.
const readAheadLimit = 1000

// settleCursors prepares the open cursors for the end of the transaction:
// statements that write are read to their end (SQLite cannot commit while
// they run), others are read ahead up to readAheadLimit rows, so cursors
// the application dropped do not keep statements open.
func (db *DB) settleCursors() {
	for c := range db.cursors {
		if c.released.Load() {
			c.hasRow = false
			c.finish()
			continue
		}
		if c.readOnly {
			c.readAhead(readAheadLimit)
		} else {
			c.readAhead(-1)
		}
	}
}

// stopCursors ends every open cursor (rows not read yet are lost). Used
// before operations SQLite cannot run while statements are open.
func (db *DB) stopCursors() {
	for c := range db.cursors {
		c.hasRow = false
		c.finish()
	}
}

// OpenCursors returns the number of cursors whose statement is open.
func (db *DB) OpenCursors() int { return len(db.cursors) }

// DatabaseSize is the size of the database file in bytes (sql.databaseSize).
func (db *DB) DatabaseSize() (int64, error) { return db.Size() }
