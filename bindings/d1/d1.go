// Package d1 is the D1 database binding (wrangler's d1_databases):
// env.<BINDING> is a D1Database object (prepare with bind, first, all, raw
// and run; batch; exec; withSession).
//
// As miniflare runs each D1 database as a Durable Object of a class of its
// own, each database is an internal cell of the host (class Class,
// host.InternalClass): a cell's SQLite database, logged to the bucket,
// owned by one node of a fleet and reached from the others by forwarding,
// restored on any node. The binding (Bind) sends each query to that cell as
// bytes (wire.go) and resolves its promise when the answer comes back;
// Serve answers on the cell, with storage.DB, the machinery of a Durable
// Object's SQL, as workerd's local D1 runs on a Durable Object's
// ctx.storage.sql: the same authorizer, the same error texts (with " at
// offset N"), and rows_read and rows_written counted the same way. An
// answer that wrote leaves once its commit is durable.
package d1

import (
	"errors"
	"strings"
	"time"

	"github.com/cellhost/cellhost/storage"
)

// Class is the internal class of D1 databases (host.InternalClass): each
// database is one cell "cellhost.D1:<id>", whose id is
// host.InternalID(Class, <database_id>). The '.' keeps every exported
// JavaScript class (and so every durable_objects binding) from naming it.
const Class = "cellhost.D1"

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
	SizeAfter   int64

	wrote bool // the statement was not read-only
}

// Error is a D1 error: its text is D1's ("D1_ERROR: ...").
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// d1Error turns an error of storage into D1's: "D1_ERROR: <workerd's text>".
func d1Error(err error) error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	var se *storage.SQLError
	if errors.As(err, &se) {
		return &Error{Msg: "D1_ERROR: " + se.Msg}
	}
	return &Error{Msg: "D1_ERROR: " + err.Error()}
}

// params converts parameters to storage's types.
func params(ps []any) []any {
	out := make([]any, len(ps))
	for i, p := range ps {
		switch v := p.(type) {
		case int:
			out[i] = int64(v)
		case int32:
			out[i] = int64(v)
		case float32:
			out[i] = float64(v)
		case bool:
			if v {
				out[i] = int64(1)
			} else {
				out[i] = int64(0)
			}
		default:
			out[i] = v
		}
	}
	return out
}

// run executes one statement in the open transaction.
func run(db *storage.DB, st Statement) (*Result, error) {
	if strings.TrimSpace(st.SQL) == "" {
		return nil, &Error{Msg: "D1_ERROR: " + noStatements}
	}
	c, err := db.Exec(st.SQL, params(st.Params)...)
	if err != nil {
		return nil, d1Error(err)
	}
	defer c.Close()
	r := &Result{Columns: c.Columns()}
	for {
		row, ok, err := c.Next()
		if err != nil {
			return nil, d1Error(err)
		}
		if !ok {
			break
		}
		r.Rows = append(r.Rows, row)
	}
	r.RowsRead, r.RowsWritten = int64(c.RowsRead()), int64(c.RowsWritten())
	r.wrote = !c.ReadOnly()
	r.ChangedDB = r.RowsWritten > 0
	// changes() and last_insert_rowid() of the connection: D1 reports
	// last_insert_rowid() after every statement, reads included, and
	// changes only after writes.
	q, err := db.Exec("SELECT changes(), last_insert_rowid()")
	if err != nil {
		return nil, d1Error(err)
	}
	row, ok, err := q.Next()
	q.Close()
	if err != nil {
		return nil, d1Error(err)
	}
	if ok {
		r.LastRowID, _ = row[1].(int64)
		if !c.ReadOnly() {
			r.Changes, _ = row[0].(int64)
		}
	}
	// storage counts the rows a statement returned or scanned; an UPDATE or
	// DELETE that found its rows by key scanned none, but workerd's SQLite
	// counts each row it changed as read.
	if w := strings.ToUpper(firstWord(st.SQL)); (w == "UPDATE" || w == "DELETE") && r.Changes > r.RowsRead {
		r.RowsRead = r.Changes
	}
	return r, nil
}

// Serve answers one request (a Request, encoded) on db, the database's
// cell: the host.InternalClass Serve of Class. A batch runs in an explicit
// transaction (a savepoint): all of it applies, or none. wrote reports
// whether it may have written. On the cell's loop.
func Serve(db *storage.DB, req []byte) (resp []byte, wrote bool) {
	start := time.Now()
	r, err := DecodeRequest(req)
	var out Response
	switch {
	case err != nil:
		out.Error = "D1_ERROR: " + err.Error()
	case r.Exec != nil:
		var n int
		n, wrote, err = exec(db, *r.Exec)
		out.Count = &n
	default:
		out.Results, wrote, err = batch(db, r.Batch)
	}
	if err != nil {
		out = Response{Error: d1Error(err).Error()}
	}
	out.Duration = float64(time.Since(start).Microseconds()) / 1000
	b, err := EncodeResponse(&out)
	if err != nil {
		b, _ = EncodeResponse(&Response{Error: "D1_ERROR: " + err.Error()})
	}
	return b, wrote
}

// batch runs statements in one explicit transaction: all apply, or none.
func batch(db *storage.DB, sts []Statement) (_ []*Result, wrote bool, _ error) {
	depth, err := db.BeginTransaction()
	if err != nil {
		return nil, false, d1Error(err)
	}
	out := make([]*Result, 0, len(sts))
	for _, st := range sts {
		r, ro, err := runRO(db, st)
		wrote = wrote || !ro
		if err != nil {
			_ = db.RollbackTransaction(depth)
			return nil, wrote, err
		}
		out = append(out, r)
	}
	if err := db.CommitTransaction(depth); err != nil {
		return nil, true, d1Error(err)
	}
	size, _ := db.Size()
	for _, r := range out {
		r.SizeAfter = size
	}
	return out, wrote, nil
}

// runRO is run that also reports whether the statement was read-only
// (false when it failed: it may have written before it did).
func runRO(db *storage.DB, st Statement) (*Result, bool, error) {
	r, err := run(db, st)
	if err != nil {
		return nil, false, err
	}
	return r, !r.wrote, nil
}

// exec runs the statements of a script, one per line as D1's exec does,
// and returns how many lines ran. Each line applies on its own (a
// savepoint each), so the lines before a failing one stay. A failure is
// reported as workerd's local D1 reports it, whichever line failed:
// "Error in line 1: <first line>: <the failing statement's error>".
func exec(db *storage.DB, script string) (n int, wrote bool, _ error) {
	first := ""
	for _, line := range strings.Split(script, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if n == 0 {
			first = line
		}
		depth, err := db.BeginTransaction()
		if err == nil {
			var ro bool
			ro, err = execLine(db, line)
			wrote = wrote || !ro
			if err != nil {
				_ = db.RollbackTransaction(depth)
			} else {
				err = db.CommitTransaction(depth)
			}
		}
		if err != nil {
			return n, wrote, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: " + first + ": " + strings.TrimPrefix(d1Error(err).Error(), "D1_ERROR: ")}
		}
		n++
	}
	if n == 0 {
		return 0, wrote, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: : " + noStatements}
	}
	return n, wrote, nil
}

// execLine runs one line of an exec script to its end and reports whether
// it was read-only.
func execLine(db *storage.DB, line string) (bool, error) {
	c, err := db.Exec(line)
	if err != nil {
		return false, err
	}
	defer c.Close()
	for {
		_, ok, err := c.Next()
		if err != nil {
			return false, err
		}
		if !ok {
			return c.ReadOnly(), nil
		}
	}
}

// firstWord returns the first word of q after spaces and comments.
func firstWord(q string) string {
	for {
		q = strings.TrimLeft(q, " \t\r\n")
		switch {
		case strings.HasPrefix(q, "--"):
			i := strings.IndexByte(q, '\n')
			if i < 0 {
				return ""
			}
			q = q[i:]
		case strings.HasPrefix(q, "/*"):
			i := strings.Index(q, "*/")
			if i < 0 {
				return ""
			}
			q = q[i+2:]
		default:
			end := strings.IndexFunc(q, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') })
			if end < 0 {
				return q
			}
			return q[:end]
		}
	}
}

// noStatements is D1's text for SQL with no statement in it.
const noStatements = "No SQL statements detected."
