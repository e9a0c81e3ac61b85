package storage

import (
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// workerd counts rowsRead with the same patch of SQLite's VDBE as
// rowsWritten (sqlrows.go): one per b-tree cursor positioned by a seek, a
// rewind (a sort's too) or a move to the last entry, one per step to a
// next entry (sorters' included), and for count(*) answered from the
// b-tree (OP_Count) every entry counted. modernc's SQLite has no such
// counter; cellhost takes the steps from SQLite's own per-statement step
// counters (OP_Next adds one to aCounter[p5]: 0 for most loops,
// SQLITE_STMTSTATUS_FULLSCAN_STEP for full scans, _AUTOINDEX for automatic
// indexes), the positioning instructions from the statement's bytecode (each
// counted once: a loop nested in another is positioned once per outer row
// in workerd), and OP_Count's result from its output register. The rules
// are pinned by testjs/cases/sql-rows-read, recorded on workerd.

// readInfo is what the bytecode of a statement tells about its rowsRead,
// and the names of its result columns.
// It is kept with a cached statement and read again when SQLite prepared
// the statement again (after a schema change).
type readInfo struct {
	known      bool
	reprepared int32
	// positions is the number of positioning instructions.
	positions int64
	// countRegs are the output registers of the exact OP_Counts.
	countRegs []int32
	// cols are the names of the result columns (sqlcursor.go), nil until
	// read.
	cols []string
}

// readInfoOf returns the readInfo of stmt, from *cache when it is still
// valid (the statement was not prepared again since), updating *cache.
func (db *DB) readInfoOf(stmt sqlitex.Stmt, cache *readInfo) *readInfo {
	rep := stmt.Status(sqlite3.SQLITE_STMTSTATUS_REPREPARE, false)
	if cache.known && cache.reprepared == rep {
		return cache
	}
	*cache = readInfo{known: true, reprepared: rep}
	for _, op := range stmt.Program() {
		switch int32(op.Fopcode) {
		case sqlite3.OP_Rewind, sqlite3.OP_Last, sqlite3.OP_Sort, sqlite3.OP_SorterSort,
			sqlite3.OP_SeekGE, sqlite3.OP_SeekGT, sqlite3.OP_SeekLE, sqlite3.OP_SeekLT,
			sqlite3.OP_SeekRowid, sqlite3.OP_NotExists:
			cache.positions++
		case sqlite3.OP_Count:
			if op.Fp3 == 0 { // p3 != 0: an estimate, which workerd does not count
				cache.countRegs = append(cache.countRegs, op.Fp2)
			}
		}
	}
	return cache
}

// stepCounters are SQLite's per-statement counters OP_Next adds to.
var stepCounters = [...]int32{0, sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, sqlite3.SQLITE_STMTSTATUS_AUTOINDEX}

// steps returns the steps to a next entry stmt made since the counters
// were last reset (reset: resets them).
func (db *DB) steps(stmt sqlitex.Stmt, reset bool) int64 {
	var n int64
	for _, op := range stepCounters {
		n += int64(stmt.Status(op, reset))
	}
	return n
}

// noteCounts records the results of the statement's OP_Counts, while it is
// on a row (a halted statement's registers are no longer typed).
func (c *Cursor) noteCounts() {
	if c.read == nil || len(c.read.countRegs) == 0 {
		return
	}
	if len(c.counted) < len(c.read.countRegs) {
		c.counted = make([]int64, len(c.read.countRegs))
	}
	for i, reg := range c.read.countRegs {
		if n, ok := c.stmt.RegisterInt(reg); ok {
			c.counted[i] = n
		}
	}
}
