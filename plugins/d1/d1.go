// Package d1 is the D1 database binding (wrangler's d1_databases) as
// `wrangler dev` simulates it locally: each database is one SQLite file,
// and env.<BINDING> is a D1Database object (prepare with bind, first, all,
// raw and run; batch; exec; withSession).
//
// Unlike a cell, a D1 database is not logged to the bucket yet: it lives in
// the state directory only.
package d1

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Database is one D1 database. Its methods are safe for concurrent use.
type Database struct {
	Path string
	db   *sql.DB
}

// Open opens (creating) the database stored at path.
func Open(path string) (*Database, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("open d1 database: %w", err)
	}
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)")
	if err != nil {
		return nil, fmt.Errorf("open d1 database: %w", err)
	}
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open d1 database %s: %w", path, err)
	}
	return &Database{Path: path, db: db}, nil
}

// Close closes the database.
func (d *Database) Close() error { return d.db.Close() }

// Statement is one SQL statement with its parameters.
type Statement struct {
	SQL    string
	Params []any
}

// Result is what a statement produced.
type Result struct {
	Columns     []string
	Rows        [][]any // int64, float64, string, []byte or nil
	Changes     int64
	LastRowID   int64
	RowsRead    int64
	RowsWritten int64
	ChangedDB   bool
}

// Error is a D1 error: its text is D1's ("D1_ERROR: ...").
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// sqliteCodes names SQLite's primary result codes, as D1's errors do.
var sqliteCodes = map[int]string{1: "SQLITE_ERROR", 5: "SQLITE_BUSY", 8: "SQLITE_READONLY", 13: "SQLITE_FULL",
	18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 25: "SQLITE_RANGE", 11: "SQLITE_CORRUPT"}

// sqliteExtendedCodes names the extended result codes D1 reports after the
// primary one ("SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)").
var sqliteExtendedCodes = map[int]string{275: "SQLITE_CONSTRAINT_CHECK", 531: "SQLITE_CONSTRAINT_COMMITHOOK",
	787: "SQLITE_CONSTRAINT_FOREIGNKEY", 1043: "SQLITE_CONSTRAINT_FUNCTION", 1299: "SQLITE_CONSTRAINT_NOTNULL",
	1555: "SQLITE_CONSTRAINT_PRIMARYKEY", 1811: "SQLITE_CONSTRAINT_TRIGGER", 2067: "SQLITE_CONSTRAINT_UNIQUE",
	2323: "SQLITE_CONSTRAINT_VTAB", 2579: "SQLITE_CONSTRAINT_ROWID", 3091: "SQLITE_CONSTRAINT_DATATYPE",
	264: "SQLITE_READONLY_RECOVERY", 520: "SQLITE_READONLY_CANTLOCK", 1032: "SQLITE_READONLY_DBMOVED",
	261: "SQLITE_BUSY_RECOVERY", 517: "SQLITE_BUSY_SNAPSHOT", 773: "SQLITE_BUSY_TIMEOUT"}

// d1Error turns modernc's "<generic text>: <message> (<code>)" into D1's
// "D1_ERROR: <message>: SQLITE_<NAME>".
func d1Error(err error) error {
	msg := err.Error()
	code, ext := 1, 1
	if i := strings.LastIndex(msg, " ("); i >= 0 && strings.HasSuffix(msg, ")") {
		if n, e := strconv.Atoi(msg[i+2 : len(msg)-1]); e == nil {
			code, ext = n&0xff, n
			msg = msg[:i]
		}
	}
	for _, generic := range []string{"SQL logic error: ", "constraint failed: ", "datatype mismatch: "} {
		msg = strings.TrimPrefix(msg, generic)
	}
	name, ok := sqliteCodes[code]
	if !ok {
		name = "SQLITE_ERROR"
	}
	if x, ok := sqliteExtendedCodes[ext]; ok && ext != code {
		name += " (extended: " + x + ")"
	}
	return &Error{Msg: "D1_ERROR: " + msg + ": " + name}
}

// run executes one statement on e.
func run(ctx context.Context, e *sql.Tx, st Statement) (*Result, error) {
	if strings.TrimSpace(st.SQL) == "" {
		return nil, &Error{Msg: "D1_ERROR: " + noStatements}
	}
	rows, err := e.QueryContext(ctx, st.SQL, st.Params...)
	if err != nil {
		return nil, d1Error(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, d1Error(err)
	}
	r := &Result{Columns: cols}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, d1Error(err)
		}
		r.Rows = append(r.Rows, vals)
	}
	if err := rows.Err(); err != nil {
		return nil, d1Error(err)
	}
	rows.Close()
	r.RowsRead = int64(len(r.Rows))
	// changes() and last_insert_rowid() of this connection (one only). D1
	// reports the connection's last_insert_rowid() after every statement,
	// reads included; changes only after writes.
	var changes, last int64
	if err := e.QueryRowContext(ctx, "SELECT changes(), last_insert_rowid()").Scan(&changes, &last); err == nil {
		r.LastRowID = last
		if isWrite(st.SQL) {
			r.Changes, r.RowsWritten, r.ChangedDB = changes, changes, true
		}
	}
	return r, nil
}

// isWrite reports whether a statement may change the database.
func isWrite(q string) bool {
	q = strings.ToUpper(strings.TrimSpace(q))
	for _, p := range []string{"INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE", "DROP", "ALTER", "WITH"} {
		if strings.HasPrefix(q, p) {
			return true
		}
	}
	return false
}

// Query runs one statement.
func (d *Database) Query(ctx context.Context, st Statement) (*Result, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, d1Error(err)
	}
	r, err := run(ctx, tx, st)
	if err != nil {
		tx.Rollback()
		return nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, d1Error(err)
	}
	return r, nil
}

// Batch runs statements in one transaction: all apply, or none.
func (d *Database) Batch(ctx context.Context, sts []Statement) ([]*Result, error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, d1Error(err)
	}
	out := make([]*Result, 0, len(sts))
	for _, st := range sts {
		r, err := run(ctx, tx, st)
		if err != nil {
			tx.Rollback()
			return nil, err
		}
		out = append(out, r)
	}
	if err := tx.Commit(); err != nil {
		return nil, d1Error(err)
	}
	return out, nil
}

// Exec runs the statements of a script, one per line as D1's exec does,
// and returns how many lines ran. A failure is reported as workerd's local
// D1 reports it, whichever line failed: "Error in line 1: <first line>:
// <the failing statement's error>".
func (d *Database) Exec(ctx context.Context, script string) (int, error) {
	n := 0
	first := ""
	for _, line := range strings.Split(script, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if n == 0 {
			first = line
		}
		if _, err := d.db.ExecContext(ctx, line); err != nil {
			return n, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: " + first + ": " + strings.TrimPrefix(d1Error(err).Error(), "D1_ERROR: ")}
		}
		n++
	}
	if n == 0 {
		return 0, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: : " + noStatements}
	}
	return n, nil
}

// noStatements is D1's text for SQL with no statement in it.
const noStatements = "No SQL statements detected."

func statFile(path string) (int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}
