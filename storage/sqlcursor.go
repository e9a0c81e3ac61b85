package storage

import (
	"math"
	"sync/atomic"

	"github.com/cellhost/cellhost/internal/sqlitex"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ---------------------------------------------------------------------------
// Cursors

// Cursor reads the rows of the last statement of an Exec. It is used on the
// DB's goroutine only.
type Cursor struct {
	db     *DB
	stmt   sqlitex.Stmt // zero once finished
	cached *cachedStmt
	cols   []string

	hasRow bool    // the statement is on a row not yet returned
	buf    [][]any // rows read ahead (at the end of a turn)
	err    error   // error to report after buf

	readOnly bool
	// released is set (from any goroutine) when the application can no
	// longer read the cursor: it ends at the next commit.
	released atomic.Bool

	// Row counts, of the last statement only (as workerd counts them),
	// taken while it runs.
	written     int64     // rows written by the last statement
	changesBase int64     // total changes when the last statement started
	rows        int64     // rows the last statement produced
	steps       int64     // steps to a next entry of the last statement, once finished
	read        *readInfo // its bytecode's rowsRead rules (sqlread.go)
	readLocal   readInfo  // read, for a statement not cached
	counted     []int64   // its OP_Counts' results
	ddl         bool      // the last statement changed the schema
	ddlStmt     bool      // the last statement is DDL (cached: at its first prepare)
	dml         *dmlTarget
	ddlWritten  int64 // the schema rows the last statement wrote (sqlrows.go)
}

// setWritten counts the rows the last statement wrote so far, as workerd
// does (sqlrows.go).
func (c *Cursor) setWritten() {
	n := c.db.totalChanges() - c.changesBase
	c.written = n + c.db.extraWrites(c.dml, c.stmt, n)
}

// start binds args to the prepared statement, computes its first row and
// registers the cursor while the statement stays open.
func (c *Cursor) start(args []any) error {
	db := c.db
	n := c.stmt.BindParameterCount()
	if n != len(args) {
		c.finish()
		return &SQLError{Msg: msgWrongBindings}
	}
	for i, a := range args {
		if rc := c.bind(i+1, a); rc != sqlite3.SQLITE_OK {
			err := db.sqlError(rc)
			c.finish()
			return err
		}
	}
	if c.cached != nil {
		db.steps(c.stmt, true)
	}
	ro := c.stmt.ReadOnly()
	c.readOnly = c.readOnly && ro
	c.changesBase = db.totalChanges()
	ddl := !ro && (c.ddlStmt || db.auth.schema)
	if c.cached != nil && db.auth.schema {
		c.cached.ddl = true
	}
	cookie := db.schemaCookieIf(ddl)
	seqBefore := true
	if ddl && c.dml != nil && c.dml.ddl == sqlite.AuthCreateTable {
		seqBefore = db.sequenceExists()
	}
	rc := db.step(c.stmt)
	// The bytecode after the first step: it may have prepared the
	// statement again for a changed schema.
	if c.cached != nil {
		c.read = db.readInfoOf(c.stmt, &c.cached.read)
	} else {
		c.read = db.readInfoOf(c.stmt, &c.readLocal)
	}
	if rc == sqlite3.SQLITE_ROW {
		c.noteCounts()
	}
	var failed error
	if rc != sqlite3.SQLITE_ROW && rc != sqlite3.SQLITE_DONE {
		// Taken before anything else runs on the handle (the schema
		// cookie below is a query of its own and clears the message).
		failed = db.stepFailed(rc)
	}
	// The names after the first step (it may have prepared the statement
	// again for a changed schema), kept with the bytecode's readInfo.
	if c.read.cols == nil {
		cols := make([]string, c.stmt.ColumnCount())
		for i := range cols {
			cols[i] = c.stmt.ColumnName(i)
		}
		c.read.cols = cols
	}
	c.cols = c.read.cols
	c.setWritten()
	if ddl && db.schemaCookie() != cookie {
		c.ddl = true
		c.ddlWritten = 2
		if c.dml != nil {
			c.ddlWritten = db.ddlWrites(c.dml, seqBefore)
		}
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
	c.finish()
	return failed
}

func (c *Cursor) bind(i int, a any) int32 {
	switch v := a.(type) {
	case nil:
		return c.stmt.BindNull(i)
	case int64:
		return c.stmt.BindInt64(i, v)
	case float64:
		if math.IsNaN(v) {
			return c.stmt.BindNull(i)
		}
		return c.stmt.BindFloat(i, v)
	case string:
		return c.stmt.BindText(c.db.raw, i, v)
	case []byte:
		return c.stmt.BindBlob(c.db.raw, i, v)
	}
	return sqlite3.SQLITE_MISMATCH
}

// Columns returns the names of the result columns (empty for statements
// that return no rows). The slice is shared: do not modify it.
func (c *Cursor) Columns() []string { return c.cols }

// ReadOnly reports whether none of the statements of the exec writes.
func (c *Cursor) ReadOnly() bool { return c.readOnly }

// RowsRead is the number of rows the last statement read, as workerd
// counts them (sqlread.go).
func (c *Cursor) RowsRead() int {
	n := c.steps
	if !c.stmt.IsZero() {
		n = c.db.steps(c.stmt, false)
	}
	if c.read != nil {
		n += c.read.positions
	}
	for _, k := range c.counted {
		n += k
	}
	return int(n)
}

// RowsWritten is the number of rows the statements wrote: rows inserted,
// updated or deleted (also by triggers), and two schema rows per schema
// change.
func (c *Cursor) RowsWritten() int {
	n := c.written
	if c.ddl {
		n += c.ddlWritten
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
		c.noteCounts()
		return nil
	case sqlite3.SQLITE_DONE:
		c.hasRow = false
		if !c.readOnly {
			// Statements with RETURNING count their changes when they end.
			c.setWritten()
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
	row := make([]any, len(c.cols))
	for i := range row {
		switch c.stmt.ColumnType(i) {
		case sqlite3.SQLITE_INTEGER:
			row[i] = c.stmt.ColumnInt64(i)
		case sqlite3.SQLITE_FLOAT:
			row[i] = c.stmt.ColumnFloat(i)
		case sqlite3.SQLITE_TEXT:
			row[i] = c.stmt.ColumnText(i)
		case sqlite3.SQLITE_BLOB:
			row[i] = c.stmt.ColumnBlob(i)
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

// Open reports whether the cursor's statement is still open (rows not read
// yet that it has not read ahead): only then does Release change anything.
func (c *Cursor) Open() bool { return !c.stmt.IsZero() }

// Close ends the cursor early; its remaining rows are discarded.
func (c *Cursor) Close() {
	c.hasRow = false
	c.buf = nil
	c.err = nil
	c.finish()
}

// finish releases the statement (back to the cache, or finalized).
func (c *Cursor) finish() {
	if c.stmt.IsZero() {
		return
	}
	db := c.db
	delete(db.cursors, c)
	c.steps = db.steps(c.stmt, false)
	if e := c.cached; e != nil && !db.closed {
		c.stmt.Reset()
		c.stmt.ClearBindings()
		e.busy = false
		if e.evicted {
			c.stmt.Finalize()
		}
	} else if !db.closed {
		c.stmt.Finalize()
	}
	c.stmt = sqlitex.Stmt{}
	c.cached = nil
	db.dropStat4()
}

// dropStat4 drops the sqlite_stat4 table an ANALYZE made, once no
// statement runs. modernc's SQLite is built with SQLITE_ENABLE_STAT4 and
// workerd's is not: there, ANALYZE writes sqlite_stat1 only, so the table
// is not in the schema, not readable and not counted in databaseSize (its
// page goes to the free list), and the query planner works without it.
func (db *DB) dropStat4() {
	if !db.auth.analyzed || db.closed || len(db.cursors) > 0 || !db.inTx {
		return
	}
	saved := db.auth
	err := db.execInternal(`DROP TABLE IF EXISTS sqlite_stat4`)
	db.auth = saved
	if err == nil {
		db.auth.analyzed = false
	}
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

// ExecAll runs query as Exec does and reads every row of its cursor, for
// Go callers (internal cells) whose results are small.
func (db *DB) ExecAll(query string, args ...any) ([][]any, error) {
	c, err := db.Exec(query, args...)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var rows [][]any
	for {
		r, ok, err := c.Next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return rows, nil
		}
		rows = append(rows, r)
	}
}
