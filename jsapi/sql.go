package jsapi

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"sync"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/internal/rtstate"
)

// SQL is the SQL side of a cell's storage (ctx.storage.sql), implemented by
// the same object as KV. Calls happen on the runtime's goroutine and run
// synchronously on the cell's database, inside the turn's implicit
// transaction.
type SQL interface {
	// Exec runs query (one or more statements; args are bound to the
	// last). Each arg is nil (NULL), float64, string or []byte. An error's
	// message is what the JS Error thrown by exec() says.
	Exec(query string, args []any) (SQLCursor, error)
	// DatabaseSize is the size of the database in bytes.
	DatabaseSize() (int64, error)
}

// SQLCursor reads the rows of an Exec. Values are nil, int64, float64,
// string or []byte.
type SQLCursor interface {
	Columns() []string
	Next() (row []any, ok bool, err error)
	RowsRead() int
	RowsWritten() int
	Close()
	// Release tells that the cursor's JS object was collected. It is
	// called from a cleanup goroutine, not the runtime's.
	Release()
}

// Transactions are explicit transactions (storage.transaction() and
// transactionSync()), implemented by the same object as KV. They nest:
// Begin returns the depth of the new transaction (1 = outermost), and
// Commit and Rollback end the transaction at that depth (and any inside
// it).
type Transactions interface {
	BeginTransaction() (depth int, err error)
	CommitTransaction(depth int) error
	RollbackTransaction(depth int) error
}

// Alarms is the alarm of a cell (getAlarm/setAlarm/deleteAlarm),
// implemented by the same object as KV. Times are Unix milliseconds.
type Alarms interface {
	GetAlarm() (ms int64, ok bool, err error)
	SetAlarm(ms int64) error
	DeleteAlarm() error
}

// Workers' messages of the SQL cursor.
const (
	msgOneNone = "Expected exactly one result from SQL query, but got no results."
	msgOneMany = "Expected exactly one result from SQL query, but got multiple results."
)

// sqlState is what installSQL leaves on a runtime: the cursor class,
// reachable from Go through a symbol-keyed global property.
type sqlState struct {
	newCursor goja.Callable // (handle) → SqlStorageCursor
}

var sqlStateKey = rtstate.NewKey[sqlState]("cellhost.sql")

var (
	sqlPreludeOnce sync.Once
	sqlPreludeProg *goja.Program
	sqlPreludeErr  error
)

// sqlPrelude defines the cursor classes around Go natives. The completion
// value is a function that receives the natives and returns the internals.
const sqlPrelude = `(function (native) {
  "use strict";
  const TOKEN = {};
  class SqlStorageCursor {
    #h;
    constructor(token, h) {
      if (token !== TOKEN) throw new TypeError("Illegal constructor");
      this.#h = h;
    }
    next() {
      const row = native.next(this.#h, false);
      return row === undefined ? { done: true, value: undefined } : { done: false, value: row };
    }
    toArray() { return native.toArray(this.#h, false); }
    one() { return native.one(this.#h); }
    raw() { return new SqlStorageRawCursor(TOKEN, this.#h); }
    get columnNames() { return native.columnNames(this.#h); }
    get rowsRead() { return native.rowsRead(this.#h); }
    get rowsWritten() { return native.rowsWritten(this.#h); }
    [Symbol.iterator]() { return this; }
  }
  class SqlStorageRawCursor {
    #h;
    constructor(token, h) {
      if (token !== TOKEN) throw new TypeError("Illegal constructor");
      this.#h = h;
    }
    next() {
      const row = native.next(this.#h, true);
      return row === undefined ? { done: true, value: undefined } : { done: false, value: row };
    }
    toArray() { return native.toArray(this.#h, true); }
    get columnNames() { return native.columnNames(this.#h); }
    get rowsRead() { return native.rowsRead(this.#h); }
    get rowsWritten() { return native.rowsWritten(this.#h); }
    [Symbol.iterator]() { return this; }
  }
  for (const [cls, name] of [[SqlStorageCursor, "SqlStorageCursor"], [SqlStorageRawCursor, "SqlStorageRawCursor"]]) {
    Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }
  return { newCursor: (h) => new SqlStorageCursor(TOKEN, h) };
})`

// sqlStateOf returns the runtime's SQL state, installing it on first use.
// On the runtime's goroutine.
func sqlStateOf(rt *goja.Runtime) (*sqlState, error) {
	if st := sqlStateKey.Get(rt); st != nil {
		return st, nil
	}
	sqlPreludeOnce.Do(func() {
		sqlPreludeProg, sqlPreludeErr = goja.Compile("cellhost:sql.js", sqlPrelude, true)
	})
	if sqlPreludeErr != nil {
		return nil, fmt.Errorf("compile sql prelude: %w", sqlPreludeErr)
	}
	fnv, err := rt.RunProgram(sqlPreludeProg)
	if err != nil {
		return nil, fmt.Errorf("run sql prelude: %w", err)
	}
	fn, ok := goja.AssertFunction(fnv)
	if !ok {
		return nil, errors.New("run sql prelude: not a function")
	}
	res, err := fn(goja.Undefined(), sqlNatives(rt))
	if err != nil {
		return nil, fmt.Errorf("run sql prelude: %w", err)
	}
	newCursor, ok := goja.AssertFunction(res.ToObject(rt).Get("newCursor"))
	if !ok {
		return nil, errors.New("run sql prelude: no newCursor")
	}
	st := &sqlState{newCursor: newCursor}
	if err := sqlStateKey.Set(rt, st); err != nil {
		return nil, err
	}
	return st, nil
}

// cursorHandle is the Go side of a SqlStorageCursor.
// releaseWhenCollected arranges for cur.Release to run once h, the handle
// the cursor's JS object holds, is collected. A variable so that a test can
// see the handles and release them without waiting for cleanups.
var releaseWhenCollected = func(h *cursorHandle, cur SQLCursor) {
	runtime.AddCleanup(h, SQLCursor.Release, cur)
}

type cursorHandle struct {
	c    SQLCursor
	cols []string
	done bool
}

// next returns the next row, or ok false at the end. A failure ends the
// cursor.
func (h *cursorHandle) next() (row []any, ok bool, err error) {
	if h.done {
		return nil, false, nil
	}
	row, ok, err = h.c.Next()
	if err != nil {
		h.done = true
		return nil, false, jserr.New("Error", err.Error())
	}
	if !ok {
		h.done = true
	}
	return row, ok, nil
}

func handleOf(v goja.Value) *cursorHandle {
	if v != nil {
		if h, ok := v.Export().(*cursorHandle); ok {
			return h
		}
	}
	panic("sql: bad cursor handle") // unreachable: handles never leave the prelude
}

func sqlNatives(rt *goja.Runtime) *goja.Object {
	n := rt.NewObject()
	set := func(name string, f func(goja.FunctionCall) (goja.Value, error)) { _ = n.Set(name, jserr.Func(rt, f)) }
	set("next", func(c goja.FunctionCall) (goja.Value, error) {
		h := handleOf(c.Argument(0))
		row, ok, err := h.next()
		if err != nil || !ok {
			return goja.Undefined(), err
		}
		return sqlRowValue(rt, h.cols, row, c.Argument(1).ToBoolean()), nil
	})
	set("toArray", func(c goja.FunctionCall) (goja.Value, error) {
		h := handleOf(c.Argument(0))
		raw := c.Argument(1).ToBoolean()
		var out []any
		size := 0
		for {
			row, ok, err := h.next()
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			size += sqlRowSize(row)
			if size > maxToArrayBytes {
				h.done = true
				h.c.Close()
				return nil, jserr.RangeError(msgToArrayTooLarge)
			}
			out = append(out, sqlRowValue(rt, h.cols, row, raw))
		}
		return rt.NewArray(out...), nil
	})
	set("one", func(c goja.FunctionCall) (goja.Value, error) {
		h := handleOf(c.Argument(0))
		row, ok, err := h.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, jserr.New("Error", msgOneNone)
		}
		_, more, err := h.next()
		if err != nil {
			return nil, err
		}
		if more {
			h.done = true
			h.c.Close()
			return nil, jserr.New("Error", msgOneMany)
		}
		return sqlRowValue(rt, h.cols, row, false), nil
	})
	set("columnNames", func(c goja.FunctionCall) (goja.Value, error) {
		h := handleOf(c.Argument(0))
		names := make([]any, len(h.cols))
		for i, s := range h.cols {
			names[i] = s
		}
		return rt.NewArray(names...), nil
	})
	set("rowsRead", func(c goja.FunctionCall) (goja.Value, error) {
		return rt.ToValue(handleOf(c.Argument(0)).c.RowsRead()), nil
	})
	set("rowsWritten", func(c goja.FunctionCall) (goja.Value, error) {
		return rt.ToValue(handleOf(c.Argument(0)).c.RowsWritten()), nil
	})
	return n
}

// maxToArrayBytes bounds the rows one toArray() call converts (an
// estimate of their memory): workerd's isolates have 128 MiB.
const maxToArrayBytes = 128 << 20

const msgToArrayTooLarge = "The SQL query result is too large for toArray() (more than 128 MiB); iterate the cursor instead."

// sqlRowSize estimates the memory of a row once converted to JS.
func sqlRowSize(row []any) int {
	n := 64
	for _, v := range row {
		n += 16
		switch x := v.(type) {
		case string:
			n += len(x)
		case []byte:
			n += len(x)
		}
	}
	return n
}

// maxSafeInt is 2^53: integers beyond it become the nearest double, as in
// workerd.
const maxSafeInt = 1 << 53

// sqlValue converts an SQLite value to JS: INTEGER and REAL → number, TEXT
// → string, BLOB → ArrayBuffer, NULL → null.
func sqlValue(rt *goja.Runtime, v any) goja.Value {
	switch x := v.(type) {
	case nil:
		return goja.Null()
	case int64:
		if x > maxSafeInt || x < -maxSafeInt {
			return rt.ToValue(float64(x))
		}
		return rt.ToValue(x)
	case float64:
		return rt.ToValue(x)
	case string:
		return rt.ToValue(x)
	case []byte:
		return rt.ToValue(rt.NewArrayBuffer(x))
	}
	return goja.Undefined()
}

// sqlRowValue builds a row: an array of values (raw), or an object keyed by
// column name (a repeated name keeps the last value).
func sqlRowValue(rt *goja.Runtime, cols []string, row []any, raw bool) goja.Value {
	if raw {
		vals := make([]any, len(row))
		for i, v := range row {
			vals[i] = sqlValue(rt, v)
		}
		return rt.NewArray(vals...)
	}
	o := rt.NewObject()
	for i, v := range row {
		if cols[i] == "__proto__" {
			_ = o.DefineDataProperty(cols[i], sqlValue(rt, v), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
			continue
		}
		_ = o.Set(cols[i], sqlValue(rt, v))
	}
	return o
}

// sqlBinding converts a JS value bound to an SQL parameter as workerd
// does: null and undefined → NULL; numbers (and booleans) → REAL (NaN →
// NULL); strings → TEXT; ArrayBuffer and views → BLOB; other objects →
// their string conversion. A BigInt or Symbol throws V8's TypeError.
func sqlBinding(rt *goja.Runtime, v goja.Value) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	if o, ok := v.(*goja.Object); ok {
		if b, ok := clone.Bytes(rt, o); ok {
			return b, nil
		}
		return o.String(), nil
	}
	if _, ok := v.(*goja.Symbol); ok {
		return nil, jserr.TypeError("Cannot convert a Symbol value to a number")
	}
	switch x := v.Export().(type) {
	case string:
		return x, nil
	case int64:
		return float64(x), nil
	case float64:
		if math.IsNaN(x) {
			return nil, nil
		}
		return x, nil
	case bool:
		if x {
			return 1.0, nil
		}
		return 0.0, nil
	case *big.Int:
		return nil, jserr.TypeError("Cannot convert a BigInt value to a number")
	}
	return v.ToFloat(), nil
}

// newSQLStorage builds ctx.storage.sql.
func (w *Worker) newSQLStorage(q SQL) *goja.Object {
	rt := w.rt
	s := rt.NewObject()
	var st *sqlState // the runtime's, from the first exec on
	_ = s.Set("exec", jserr.Func(rt, func(call goja.FunctionCall) (goja.Value, error) {
		if q == nil {
			return nil, jserr.New("Error", "SQL is not available on this storage")
		}
		if st == nil {
			var err error
			if st, err = sqlStateOf(rt); err != nil {
				return nil, jserr.New("Error", err.Error())
			}
		}
		query := call.Argument(0).String()
		args := make([]any, 0, max(len(call.Arguments)-1, 0))
		for _, a := range call.Arguments[min(1, len(call.Arguments)):] {
			b, err := sqlBinding(rt, a)
			if err != nil {
				return nil, err
			}
			args = append(args, b)
		}
		cur, err := q.Exec(query, args)
		if err != nil {
			return nil, jserr.New("Error", err.Error())
		}
		h := &cursorHandle{c: cur, cols: cur.Columns()}
		if o, ok := cur.(interface{ Open() bool }); !ok || o.Open() {
			// Only a cursor whose statement is still open holds anything
			// to release early.
			releaseWhenCollected(h, cur)
		}
		v, err := st.newCursor(goja.Undefined(), rt.ToValue(h))
		if err != nil {
			cur.Close()
		}
		return v, err
	}))
	_ = s.DefineAccessorProperty("databaseSize", rt.ToValue(jserr.Func(rt, func(goja.FunctionCall) (goja.Value, error) {
		if q == nil {
			return rt.ToValue(0), nil
		}
		n, err := q.DatabaseSize()
		if err != nil {
			return nil, jserr.New("Error", err.Error())
		}
		return rt.ToValue(n), nil
	})), nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return s
}
