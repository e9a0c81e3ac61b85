package storage

import (
	"context"
	"encoding/json"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// workerd counts rowsWritten with a patch of SQLite's VDBE (libSQL's row
// counters): every b-tree insert into a table or an index, deletes of
// counted changes, and the AUTOINCREMENT sequence row. modernc's SQLite has
// no such counter; cellhost adds to SQLite's change count the index
// entries and the sequence row a statement's changes imply: an INSERT
// writes one entry per row in each index of its table (and the
// sqlite_sequence row once, for an AUTOINCREMENT table), an UPDATE one per
// row in each index holding an updated column, a DELETE none (workerd does
// not count index deletes). Rows written by triggers count without their
// index entries.

// dmlTarget is the table a statement writes and how.
type dmlTarget struct {
	op    sqlite.AuthorizerActionCode // 0: none
	table string
	cols  []string // the updated columns (UPDATE)
	// The statement's schema change: the first DDL action authorized and
	// its arguments (CREATE INDEX: index, table; CREATE TABLE: table).
	ddl               sqlite.AuthorizerActionCode
	ddlName, ddlTable string
	addColumn         bool // ALTER TABLE ... ADD COLUMN
	amp               writeAmp
}

// isAddColumn reports whether the statement text is ALTER TABLE <name>
// ADD [COLUMN] ....
func isAddColumn(text string) bool {
	t := trimTrivia(text)
	for _, kw := range []string{"ALTER", "TABLE"} {
		w := leadingWord(t)
		if !strings.EqualFold(w, kw) {
			return false
		}
		t = trimTrivia(t[len(w):])
	}
	// The table name: bare or quoted, possibly schema-qualified.
	for {
		if t == "" {
			return false
		}
		switch t[0] {
		case '"', '`', '[':
			end := map[byte]byte{'"': '"', '`': '`', '[': ']'}[t[0]]
			i := strings.IndexByte(t[1:], end)
			if i < 0 {
				return false
			}
			t = t[i+2:]
		default:
			w := leadingWord(t)
			if w == "" {
				return false
			}
			t = t[len(w):]
		}
		t = trimTrivia(t)
		if !strings.HasPrefix(t, ".") {
			break
		}
		t = trimTrivia(t[1:])
	}
	return strings.EqualFold(leadingWord(t), "ADD")
}

// ddlWrites is workerd's rowsWritten of a statement that changed the
// schema (its schema rows, as the VDBE inserts them): a table 2 (insert,
// then update of its sqlite_master row), plus 1 per automatic index, plus
// 2 when its AUTOINCREMENT made sqlite_sequence (seqBefore: it existed
// before); an index 1 plus one entry per row of its table; a view or a
// trigger 2; ADD COLUMN 1 (the row is updated); a DROP 0 (deletes of
// schema rows are not counted). Other changes (a RENAME, a virtual table)
// count 2.
func (db *DB) ddlWrites(t *dmlTarget, seqBefore bool) int64 {
	ctx := context.Background()
	var n int64
	switch t.ddl {
	case sqlite.AuthCreateTable:
		n = 2
		var auto, seq int64
		_ = db.conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_index_list(?1) il WHERE il.origin <> 'c' AND NOT (il.origin = 'pk' AND coalesce((SELECT wr FROM pragma_table_list(?1)), 0))`, t.ddlName).Scan(&auto)
		n += auto
		if !seqBefore {
			_ = db.conn.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE name = 'sqlite_sequence'`).Scan(&seq)
			n += 2 * seq
		}
	case sqlite.AuthCreateIndex:
		var rows int64
		_ = db.conn.QueryRowContext(ctx, `SELECT count(*) FROM "`+strings.ReplaceAll(t.ddlTable, `"`, `""`)+`"`).Scan(&rows)
		n = 1 + rows
	case sqlite.AuthDropIndex, sqlite.AuthDropTable, sqlite.AuthDropTrigger, sqlite.AuthDropView:
		n = 0
	case sqlite.AuthAlterTable:
		n = 2 // a RENAME rewrites a number of schema rows
		if t.addColumn {
			n = 1 // the table's schema row, updated
		}
	default:
		n = 2
	}
	return n
}

// sequenceExists reports whether sqlite_sequence exists.
func (db *DB) sequenceExists() bool {
	var n int64
	_ = db.conn.QueryRowContext(context.Background(), `SELECT count(*) FROM main.sqlite_master WHERE name = 'sqlite_sequence'`).Scan(&n)
	return n > 0
}

// note records the first table the statement writes (the statement's own;
// triggers are authorized after it) and, for an UPDATE, its columns.
func (t *dmlTarget) note(op sqlite.AuthorizerActionCode, table, col string) {
	if strings.HasPrefix(strings.ToLower(table), "sqlite_") {
		return
	}
	switch {
	case t.op == 0:
		t.op, t.table = op, table
	case t.op != op || !strings.EqualFold(t.table, table):
		return
	}
	if op == sqlite.AuthUpdate && col != "" {
		t.cols = append(t.cols, col)
	}
}

// writeAmp is what a statement's changes add to workerd's rowsWritten
// beyond SQLite's change count: perRow index entries per changed row, and
// once (the AUTOINCREMENT sequence row) when it changed any. It depends on
// the schema only, so it is kept with the statement (in its dmlTarget) and
// computed again when SQLite prepared the statement again, which it does
// after every schema change (SQLITE_STMTSTATUS_REPREPARE).
type writeAmp struct {
	known        bool
	reprepared   int32
	perRow, once int64
}

// extraWrites is what workerd's rowsWritten adds to SQLite's change count
// for changes rows written by stmt, a statement with target t.
func (db *DB) extraWrites(t *dmlTarget, stmt sqlitex.Stmt, changes int64) int64 {
	if t == nil || t.op == 0 || changes <= 0 {
		return 0
	}
	rep := int32(-1)
	if !stmt.IsZero() {
		rep = stmt.Status(sqlite3.SQLITE_STMTSTATUS_REPREPARE, false)
	}
	if !t.amp.known || t.amp.reprepared != rep || rep < 0 {
		t.amp = db.writeAmp(t)
		t.amp.reprepared = rep
	}
	return changes*t.amp.perRow + t.amp.once
}

// writeAmp reads from the schema what the changes of a statement with
// target t add to its rowsWritten.
func (db *DB) writeAmp(t *dmlTarget) writeAmp {
	ctx := context.Background()
	const notTable = `NOT (il.origin = 'pk' AND coalesce((SELECT wr FROM pragma_table_list(?1)), 0))`
	a := writeAmp{known: true}
	switch t.op {
	case sqlite.AuthInsert:
		_ = db.conn.QueryRowContext(ctx, `SELECT count(*) FROM pragma_index_list(?1) il WHERE `+notTable, t.table).Scan(&a.perRow)
		_ = db.conn.QueryRowContext(ctx, `SELECT count(*) FROM main.sqlite_master WHERE type = 'table' AND name = ?1 AND sql LIKE '%AUTOINCREMENT%'`, t.table).Scan(&a.once)
	case sqlite.AuthUpdate:
		cols, _ := json.Marshal(t.cols)
		_ = db.conn.QueryRowContext(ctx, `SELECT count(DISTINCT il.name) FROM pragma_index_list(?1) il, pragma_index_info(il.name) ii
			WHERE ii.name IN (SELECT value FROM json_each(?2)) AND `+notTable, t.table, string(cols)).Scan(&a.perRow)
	}
	return a
}
