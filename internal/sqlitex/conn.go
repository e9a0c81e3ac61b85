package sqlitex

import (
	"encoding/binary"
	"errors"
	"strconv"
	"sync"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// Conn is the C-level SQLite handle of one modernc.org/sqlite connection
// with the libc thread state it is used with: the typed statement API that
// storage's application SQL and the file store's Get run on, past
// database/sql. Every call into modernc's transpiled C and every byte of C
// memory the project touches goes through Conn and Stmt, so a modernc or
// libc upgrade that changes a signature or a memory rule breaks here, under
// sqlitex_test.go, not in its users.
//
// A Conn is used by one goroutine at a time (database/sql hands the
// connection under it to one user at a time). It owns C memory (the
// out-parameters of prepare and the buffers text is copied into); Close
// frees it, not the connection, which stays database/sql's.
type Conn struct {
	tls *libc.TLS
	db  uintptr
	out uintptr // two pointer slots: prepare's *sqlite3_stmt and tail, db_status's pair

	// text is the buffer Prepare copies its text into, bind the one
	// binds copy their value into (SQLite copies it again:
	// SQLITE_TRANSIENT), each grown on demand up to keepMax and reused.
	// textP holds the C copy of textOf (in text, or of its own: textTmp).
	text, bind       cbuf
	textOf           string
	textP            uintptr
	textTmp          bool
	progressRegister bool
}

// cbuf is a growable C buffer.
type cbuf struct {
	p uintptr
	n int
}

// Error is a failed SQLite call: its result code and the connection's
// message for it.
type Error struct {
	Code int32
	Msg  string
}

func (e *Error) Error() string { return e.Msg + " (" + strconv.Itoa(int(e.Code)) + ")" }

// errNoMem is what a failed allocation of C memory reports.
var errNoMem = &Error{Code: sqlite3.SQLITE_NOMEM, Msg: "out of memory"}

// OpenConn returns the Conn of a modernc.org/sqlite driver connection (the
// value database/sql's Conn.Raw passes); see Handle.
func OpenConn(driverConn any) (*Conn, error) {
	tls, db, err := Handle(driverConn)
	if err != nil {
		return nil, err
	}
	c := &Conn{tls: tls, db: db}
	c.out = libc.Xmalloc(tls, 2*uint64(PtrSize))
	if c.out == 0 {
		return nil, errNoMem
	}
	return c, nil
}

// Close frees the Conn's C memory and its progress handler, not the
// connection. The Conn and its statements are not used afterwards.
func (c *Conn) Close() {
	if c.progressRegister {
		sqlite3.Xsqlite3_progress_handler(c.tls, c.db, 0, 0, 0)
		progress.Delete(c.db)
		c.progressRegister = false
	}
	c.DropText()
	for _, b := range []*cbuf{&c.text, &c.bind} {
		if b.p != 0 {
			libc.Xfree(c.tls, b.p)
			*b = cbuf{}
		}
	}
	c.DropText()
	if c.out != 0 {
		libc.Xfree(c.tls, c.out)
		c.out = 0
	}
}

// keepMax is the largest buffer a Conn keeps between calls: a larger text
// or value is copied into C memory of its own, freed after use (a resident
// object keeps at most two such buffers).
const keepMax = 16 << 10

// fill copies s into b (NUL-terminated), growing it as needed; a copy
// larger than keepMax goes to fresh C memory, which the caller frees
// (tmp). p is 0 when C memory ran out.
func (c *Conn) fill(b *cbuf, s string) (p uintptr, tmp bool) {
	n := len(s) + 1
	switch {
	case n > keepMax:
		p, tmp = libc.Xmalloc(c.tls, uint64(n)), true
	case b.n < n:
		m := min(max(n, 2*b.n, 64), keepMax)
		q := libc.Xmalloc(c.tls, uint64(m))
		if q == 0 {
			return 0, false
		}
		if b.p != 0 {
			libc.Xfree(c.tls, b.p)
		}
		*b = cbuf{p: q, n: m}
		p = q
	default:
		p = b.p
	}
	if p == 0 {
		return 0, false
	}
	m := CMem(p, n)
	copy(m, s)
	m[len(s)] = 0
	return p, tmp
}

// free frees p when fill made it for one use.
func (c *Conn) free(p uintptr, tmp bool) {
	if tmp {
		libc.Xfree(c.tls, p)
	}
}

// Prepare compiles the first statement of text[off:] (prepare_v3 with
// flags, SQLITE_PREPARE_*) and returns it, the offset in text just after it
// (so text[off:next] is the statement's text) and SQLite's result code. The
// statement is zero when text[off:] holds only spaces and comments. Calls
// for the statements of one text copy it to C memory once.
func (c *Conn) Prepare(text string, off int, flags uint32) (s Stmt, next int, rc int32) {
	if off < 0 || off > len(text) {
		return Stmt{}, len(text), sqlite3.SQLITE_RANGE
	}
	// The same string as last time (same bytes in Go memory): its C copy
	// is still at c.textP. textOf keeps it reachable, so its address
	// cannot be reused by another string meanwhile.
	if len(text) != len(c.textOf) || len(text) == 0 || unsafe.StringData(text) != unsafe.StringData(c.textOf) {
		c.DropText()
		p, tmp := c.fill(&c.text, text)
		if p == 0 {
			return Stmt{}, len(text), sqlite3.SQLITE_NOMEM
		}
		c.textOf, c.textP, c.textTmp = text, p, tmp
	}
	rc = sqlite3.Xsqlite3_prepare_v3(c.tls, c.db, c.textP+uintptr(off), int32(len(text)-off), flags, c.out, c.out+PtrSize)
	if rc != sqlite3.SQLITE_OK {
		return Stmt{}, len(text), rc
	}
	next = int(PeekPtr(c.out+PtrSize) - c.textP)
	if next < off || next > len(text) {
		next = len(text)
	}
	return Stmt{tls: c.tls, p: PeekPtr(c.out)}, next, rc
}

// DropText forgets the text Prepare copied last (the next Prepare copies
// its text again), freeing its C copy if it was too large to keep.
func (c *Conn) DropText() {
	c.free(c.textP, c.textTmp)
	c.textOf, c.textP, c.textTmp = "", 0, false
}

// Exec runs sql (one or more statements without parameters or results,
// sqlite3_exec) and returns SQLite's result code.
func (c *Conn) Exec(sql string) int32 {
	p, tmp := c.fill(&c.bind, sql)
	if p == 0 {
		return sqlite3.SQLITE_NOMEM
	}
	defer c.free(p, tmp)
	return sqlite3.Xsqlite3_exec(c.tls, c.db, p, 0, 0, 0)
}

// Limit sets the run-time limit id (SQLITE_LIMIT_*) to v and returns its
// previous value.
func (c *Conn) Limit(id, v int32) int32 { return sqlite3.Xsqlite3_limit(c.tls, c.db, id, v) }

// Autocommit reports whether the connection is outside a transaction.
func (c *Conn) Autocommit() bool { return sqlite3.Xsqlite3_get_autocommit(c.tls, c.db) != 0 }

// TotalChanges is the number of rows changed since the connection opened
// (sqlite3_total_changes64).
func (c *Conn) TotalChanges() int64 { return sqlite3.Xsqlite3_total_changes64(c.tls, c.db) }

// Changes is the number of rows the last INSERT, UPDATE or DELETE changed
// (sqlite3_changes64).
func (c *Conn) Changes() int64 { return sqlite3.Xsqlite3_changes64(c.tls, c.db) }

// ErrMsg is the message of the connection's last error (sqlite3_errmsg).
func (c *Conn) ErrMsg() string { return libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)) }

// ErrCode is the primary result code of the connection's last call.
func (c *Conn) ErrCode() int32 { return sqlite3.Xsqlite3_errcode(c.tls, c.db) }

// ExtendedErrCode is the extended result code of the connection's last call.
func (c *Conn) ExtendedErrCode() int32 { return sqlite3.Xsqlite3_extended_errcode(c.tls, c.db) }

// ErrorOffset is the byte offset in the statement text of the last error,
// or -1 (sqlite3_error_offset).
func (c *Conn) ErrorOffset() int32 { return sqlite3.Xsqlite3_error_offset(c.tls, c.db) }

// ErrStr is SQLite's own text for result code rc (sqlite3_errstr).
func (c *Conn) ErrStr(rc int32) string { return libc.GoString(sqlite3.Xsqlite3_errstr(c.tls, rc)) }

// Err is the failure rc of the connection's last call as an *Error with
// the connection's message.
func (c *Conn) Err(rc int32) error { return &Error{Code: rc, Msg: c.ErrMsg()} }

// DBStatus reads the connection's counter op (SQLITE_DBSTATUS_*), its
// current value and high-water mark, resetting it when reset.
func (c *Conn) DBStatus(op int32, reset bool) (cur, high int32, rc int32) {
	rc = sqlite3.Xsqlite3_db_status(c.tls, c.db, op, c.out, c.out+4, b2i(reset))
	m := CMem(c.out, 8)
	return int32(binary.NativeEndian.Uint32(m)), int32(binary.NativeEndian.Uint32(m[4:])), rc
}

// progress maps a connection's handle to its progress function.
var progress sync.Map // uintptr -> func() bool

// progressCallback is the one C progress handler: it calls the function
// registered for the connection (its argument) and interrupts the running
// statement when it returns true. It runs inside SQLite calls, on the
// connection's goroutine.
func progressCallback(_ *libc.TLS, handle uintptr) int32 {
	if f, ok := progress.Load(handle); ok && f.(func() bool)() {
		return 1
	}
	return 0
}

// OnProgress has SQLite call stop every `every` virtual machine
// instructions of a running statement (sqlite3_progress_handler); the
// statement is interrupted (SQLITE_INTERRUPT) when it returns true. nil
// removes it.
func (c *Conn) OnProgress(every int32, stop func() bool) {
	if stop == nil {
		sqlite3.Xsqlite3_progress_handler(c.tls, c.db, 0, 0, 0)
		progress.Delete(c.db)
		c.progressRegister = false
		return
	}
	progress.Store(c.db, stop)
	c.progressRegister = true
	sqlite3.Xsqlite3_progress_handler(c.tls, c.db, every, CFuncPointer(progressCallback), c.db)
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// Stmt is a prepared statement of a Conn; the zero Stmt is none. Its
// methods are SQLite's of the same name; result codes are returned as
// SQLite gives them (SQLITE_ROW, SQLITE_DONE, ...), for callers that word
// errors their own way (Conn.Err gives a plain one).
type Stmt struct {
	tls *libc.TLS
	p   uintptr
}

// IsZero reports whether s is no statement.
func (s Stmt) IsZero() bool { return s.p == 0 }

// Finalize deletes the statement. A zero Stmt is a no-op.
func (s Stmt) Finalize() int32 {
	if s.p == 0 {
		return sqlite3.SQLITE_OK
	}
	return sqlite3.Xsqlite3_finalize(s.tls, s.p)
}

// Step runs the statement to its next row (SQLITE_ROW), to its end
// (SQLITE_DONE) or to an error.
func (s Stmt) Step() int32 { return sqlite3.Xsqlite3_step(s.tls, s.p) }

// Reset makes the statement ready to run again (ending its read
// transaction); the bindings stay.
func (s Stmt) Reset() int32 { return sqlite3.Xsqlite3_reset(s.tls, s.p) }

// ClearBindings sets every parameter to NULL.
func (s Stmt) ClearBindings() int32 { return sqlite3.Xsqlite3_clear_bindings(s.tls, s.p) }

// BindParameterCount is the number of the statement's parameters.
func (s Stmt) BindParameterCount() int {
	return int(sqlite3.Xsqlite3_bind_parameter_count(s.tls, s.p))
}

// ReadOnly reports whether the statement writes nothing itself.
func (s Stmt) ReadOnly() bool { return sqlite3.Xsqlite3_stmt_readonly(s.tls, s.p) != 0 }

// BindNull binds NULL to parameter i (from 1).
func (s Stmt) BindNull(i int) int32 { return sqlite3.Xsqlite3_bind_null(s.tls, s.p, int32(i)) }

// BindInt64 binds v to parameter i.
func (s Stmt) BindInt64(i int, v int64) int32 {
	return sqlite3.Xsqlite3_bind_int64(s.tls, s.p, int32(i), v)
}

// BindFloat binds v to parameter i.
func (s Stmt) BindFloat(i int, v float64) int32 {
	return sqlite3.Xsqlite3_bind_double(s.tls, s.p, int32(i), v)
}

// BindText binds v as TEXT (UTF-8) to parameter i, through c's bind
// buffer: SQLite keeps its own copy (SQLITE_TRANSIENT).
func (s Stmt) BindText(c *Conn, i int, v string) int32 {
	p, tmp := c.fill(&c.bind, v)
	if p == 0 {
		return sqlite3.SQLITE_NOMEM
	}
	defer c.free(p, tmp)
	return sqlite3.Xsqlite3_bind_text64(s.tls, s.p, int32(i), p, uint64(len(v)), sqlite3.SQLITE_TRANSIENT, sqlite3.SQLITE_UTF8)
}

// BindBlob binds v as a BLOB to parameter i as BindText does; an empty v
// is the empty BLOB (not NULL).
func (s Stmt) BindBlob(c *Conn, i int, v []byte) int32 {
	if len(v) == 0 {
		return sqlite3.Xsqlite3_bind_zeroblob(s.tls, s.p, int32(i), 0)
	}
	p, tmp := c.fill(&c.bind, unsafe.String(&v[0], len(v)))
	if p == 0 {
		return sqlite3.SQLITE_NOMEM
	}
	defer c.free(p, tmp)
	return sqlite3.Xsqlite3_bind_blob64(s.tls, s.p, int32(i), p, uint64(len(v)), sqlite3.SQLITE_TRANSIENT)
}

// ColumnCount is the number of result columns.
func (s Stmt) ColumnCount() int { return int(sqlite3.Xsqlite3_column_count(s.tls, s.p)) }

// ColumnName is the name of result column i (from 0).
func (s Stmt) ColumnName(i int) string {
	return libc.GoString(sqlite3.Xsqlite3_column_name(s.tls, s.p, int32(i)))
}

// ColumnType is the storage class (SQLITE_INTEGER, SQLITE_FLOAT,
// SQLITE_TEXT, SQLITE_BLOB, SQLITE_NULL) of column i of the current row.
func (s Stmt) ColumnType(i int) int32 { return sqlite3.Xsqlite3_column_type(s.tls, s.p, int32(i)) }

// ColumnInt64 is column i of the current row as an integer.
func (s Stmt) ColumnInt64(i int) int64 { return sqlite3.Xsqlite3_column_int64(s.tls, s.p, int32(i)) }

// ColumnFloat is column i of the current row as a float.
func (s Stmt) ColumnFloat(i int) float64 {
	return sqlite3.Xsqlite3_column_double(s.tls, s.p, int32(i))
}

// ColumnText is column i of the current row as text, copied to Go memory.
func (s Stmt) ColumnText(i int) string {
	// The text first, then its length: the order SQLite documents.
	p := sqlite3.Xsqlite3_column_text(s.tls, s.p, int32(i))
	return string(CMem(p, int(sqlite3.Xsqlite3_column_bytes(s.tls, s.p, int32(i)))))
}

// ColumnBlob is column i of the current row as bytes, copied to Go memory
// (empty, not nil, for an empty BLOB).
func (s Stmt) ColumnBlob(i int) []byte {
	p := sqlite3.Xsqlite3_column_blob(s.tls, s.p, int32(i))
	b := make([]byte, int(sqlite3.Xsqlite3_column_bytes(s.tls, s.p, int32(i))))
	copy(b, CMem(p, len(b)))
	return b
}

// Status reads the statement's counter op (SQLITE_STMTSTATUS_*),
// resetting it when reset.
func (s Stmt) Status(op int32, reset bool) int32 {
	return sqlite3.Xsqlite3_stmt_status(s.tls, s.p, op, b2i(reset))
}

// Program is the statement's bytecode (see the package function Program).
func (s Stmt) Program() []sqlite3.TVdbeOp { return Program(s.p) }

// RegisterInt reads register reg of the statement (see the package
// function RegisterInt).
func (s Stmt) RegisterInt(reg int32) (int64, bool) { return RegisterInt(s.p, reg) }

// ErrNoStatement is returned by PrepareOne for a text without a statement.
var ErrNoStatement = errors.New("sqlitex: no statement in the text")

// PrepareOne compiles text, which must hold one statement, and returns
// it or the connection's error.
func (c *Conn) PrepareOne(text string) (Stmt, error) {
	s, _, rc := c.Prepare(text, 0, 0)
	if rc != sqlite3.SQLITE_OK {
		return Stmt{}, c.Err(rc)
	}
	if s.IsZero() {
		return Stmt{}, ErrNoStatement
	}
	return s, nil
}
