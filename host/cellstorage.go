package host

import (
	"errors"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/storage"
)

// The rest of the cell's storage as jsapi sees it (cellKV's KV methods are
// in cell.go): SQL, explicit transactions and the alarm. Every call joins
// the turn's implicit transaction (touch); calls that may write set wrote,
// so the reply waits for the commit to be durable. All on the loop.

var (
	_ jsapi.KV           = cellKV{}
	_ jsapi.SQL          = cellKV{}
	_ jsapi.Transactions = cellKV{}
	_ jsapi.Alarms       = cellKV{}
)

// Exec runs the application's SQL.
func (k cellKV) Exec(query string, args []any) (jsapi.SQLCursor, error) {
	k.c.touch()
	cur, err := k.c.db.Exec(query, args...)
	if err != nil {
		// Statements before the failing one may have written.
		k.c.wrote = true
		return nil, k.c.sqlErr(err)
	}
	if !cur.ReadOnly() {
		k.c.wrote = true
	}
	return cellCursor{cur, k.c}, nil
}

// cellCursor reads a cursor's rows as part of the current turn, which may
// be a later one than the exec's.
type cellCursor struct {
	*storage.Cursor
	c *cell
}

func (cc cellCursor) Next() ([]any, bool, error) {
	cc.c.touch()
	row, ok, err := cc.Cursor.Next()
	if err != nil {
		err = cc.c.sqlErr(err)
	}
	return row, ok, err
}

// sqlErr passes on the error of the application's SQL. A statement the
// turn's SQL deadline stopped (SQLITE_INTERRUPT; the deadline is the CPU
// limit) means the turn ran past the CPU limit: the object is interrupted
// and reset as the watchdog would, rather than left to catch an
// "interrupted" error and go on (or commit after it).
func (c *cell) sqlErr(err error) error {
	var se *storage.SQLError
	if errors.As(err, &se) && se.Code&0xff == sqliteInterrupt && c.db.SQLDeadlinePassed() {
		c.s.interruptCPU()
	}
	return err
}

// SQLite's primary result codes cellhost tells apart.
const (
	sqliteInterrupt  = 9
	sqliteConstraint = 19
)

// DatabaseSize is sql.databaseSize.
func (k cellKV) DatabaseSize() (int64, error) {
	k.c.touch()
	return k.c.db.DatabaseSize()
}

func (k cellKV) BeginTransaction() (int, error) {
	k.c.touch()
	return k.c.db.BeginTransaction()
}

func (k cellKV) CommitTransaction(depth int) error {
	k.c.touch()
	// The transaction may have spanned turns whose commits it held back.
	k.c.wrote = true
	return k.c.db.CommitTransaction(depth)
}

func (k cellKV) RollbackTransaction(depth int) error {
	k.c.touch()
	return k.c.db.RollbackTransaction(depth)
}

func (k cellKV) GetAlarm() (int64, bool, error) {
	k.c.touch()
	a, ok, err := k.c.db.GetAlarm()
	if ok && k.c.alarmRunning && a.Generation == k.c.firingGen {
		// While alarm() runs, the alarm that fired reads as null.
		return 0, false, err
	}
	return a.AtMs, ok, err
}

func (k cellKV) SetAlarm(ms int64) error {
	k.c.touch()
	k.c.wrote = true
	// The scheduler arms the committed alarm (storage.Options.OnAlarm).
	return k.c.db.SetAlarm(ms)
}

func (k cellKV) DeleteAlarm() error {
	k.c.touch()
	k.c.wrote = true
	return k.c.db.DeleteAlarm()
}
