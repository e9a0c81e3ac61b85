// Package d1 is the D1 database binding (wrangler's d1_databases) as
// `wrangler dev` simulates it locally: each database is one SQLite file,
// and env.<BINDING> is a D1Database object (prepare with bind, first, all,
// raw and run; batch; exec; withSession).
//
// A database runs on storage.DB, the machinery of a Durable Object's SQL,
// as workerd's local D1 runs on a Durable Object's ctx.storage.sql: the same
// authorizer, the same error texts (with " at offset N"), and rows_read and
// rows_written counted the same way.
package d1

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cellhost/cellhost/storage"
)

// Database is one D1 database. Its methods are safe for concurrent use.
type Database struct {
	Path string
	mu   sync.Mutex
	db   *storage.DB
}

// Open opens (creating) the database stored at path.
func Open(path string) (*Database, error) {
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		return nil, fmt.Errorf("open d1 database: %w", err)
	}
	return &Database{Path: path, db: db}, nil
}

// Close closes the database.
func (d *Database) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.db.Close()
}

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
func (d *Database) run(st Statement) (*Result, error) {
	if strings.TrimSpace(st.SQL) == "" {
		return nil, &Error{Msg: "D1_ERROR: " + noStatements}
	}
	c, err := d.db.Exec(st.SQL, params(st.Params)...)
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
	r.ChangedDB = r.RowsWritten > 0
	// changes() and last_insert_rowid() of the connection: D1 reports
	// last_insert_rowid() after every statement, reads included, and
	// changes only after writes.
	q, err := d.db.Exec("SELECT changes(), last_insert_rowid()")
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

// Query runs one statement.
func (d *Database) Query(ctx context.Context, st Statement) (*Result, error) {
	rs, err := d.Batch(ctx, []Statement{st})
	if err != nil {
		return nil, err
	}
	return rs[0], nil
}

// Batch runs statements in one transaction: all apply, or none.
func (d *Database) Batch(_ context.Context, sts []Statement) ([]*Result, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*Result, 0, len(sts))
	for _, st := range sts {
		r, err := d.run(st)
		if err != nil {
			_ = d.db.Rollback()
			return nil, err
		}
		out = append(out, r)
	}
	if err := d.db.Commit(); err != nil {
		return nil, d1Error(err)
	}
	size, _ := d.db.Size()
	for _, r := range out {
		r.SizeAfter = size
	}
	return out, nil
}

// Exec runs the statements of a script, one per line as D1's exec does,
// and returns how many lines ran. Each line commits on its own. A failure
// is reported as workerd's local D1 reports it, whichever line failed:
// "Error in line 1: <first line>: <the failing statement's error>".
func (d *Database) Exec(_ context.Context, script string) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	first := ""
	for _, line := range strings.Split(script, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if n == 0 {
			first = line
		}
		err := d.execLine(line)
		if err != nil {
			_ = d.db.Rollback()
			return n, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: " + first + ": " + strings.TrimPrefix(d1Error(err).Error(), "D1_ERROR: ")}
		}
		if err := d.db.Commit(); err != nil {
			return n, d1Error(err)
		}
		n++
	}
	if n == 0 {
		return 0, &Error{Msg: "D1_EXEC_ERROR: Error in line 1: : " + noStatements}
	}
	return n, nil
}

func (d *Database) execLine(line string) error {
	c, err := d.db.Exec(line)
	if err != nil {
		return err
	}
	defer c.Close()
	for {
		_, ok, err := c.Next()
		if err != nil || !ok {
			return err
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
