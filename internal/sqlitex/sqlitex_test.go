package sqlitex_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"modernc.org/libc"
	_ "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

func TestPrefixEnd(t *testing.T) {
	for _, tt := range []struct {
		prefix, want string
		ok           bool
	}{
		{"", "", false},
		{"a", "b", true},
		{"cells/x/", "cells/x0", true},
		{"a\xff", "b", true},
		{"\xff\xff", "", false},
		{"é", "\xc3\xaa", true},
		{"\u00bf", "\xc2\xc0", true}, // invalid UTF-8, still a byte bound
	} {
		got, ok := sqlitex.PrefixEnd(tt.prefix)
		if got != tt.want || ok != tt.ok {
			t.Errorf("PrefixEnd(%q) = %q, %v; want %q, %v", tt.prefix, got, ok, tt.want, tt.ok)
		}
	}
}

func TestHandle(t *testing.T) {
	err := sqlConn(t).Raw(func(dc any) error {
		tls, h, err := sqlitex.Handle(dc)
		if err != nil {
			return err
		}
		// The handle is live: SQLite answers on it.
		if ac := sqlite3.Xsqlite3_get_autocommit(tls, h); ac != 1 {
			t.Errorf("sqlite3_get_autocommit = %d, want 1", ac)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Handle: %v: modernc.org/sqlite's conn struct no longer has the db and tls fields sqlitex reads; storage's SQL API and the file store's Get need a new way to the handle", err)
	}
	for _, bad := range []any{nil, 42, &struct{ db int }{}, &struct{}{}} {
		if _, _, err := sqlitex.Handle(bad); !errors.Is(err, sqlitex.ErrNoRawHandle) {
			t.Errorf("Handle(%T) = %v, want ErrNoRawHandle", bad, err)
		}
	}
}

// TestDSN opens a database whose path holds URI metacharacters and checks
// that the file lands at that path and the pragmas apply, in order.
func TestDSN(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a?b#c%d e.db")
	db, err := sql.Open("sqlite", sqlitex.DSN(path, "busy_timeout(1234)", "journal_mode(WAL)"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var timeout int
	if err := db.QueryRow(`PRAGMA busy_timeout`).Scan(&timeout); err != nil {
		t.Fatal(err)
	}
	if timeout != 1234 {
		t.Errorf("busy_timeout = %d, want 1234", timeout)
	}
	var mode string
	if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("database file at %q: %v", path, err)
	}
}

// rawConn opens a database and returns its C handle, for the tests below.
func rawConn(t *testing.T) (*sql.Conn, *libc.TLS, uintptr) {
	t.Helper()
	conn := sqlConn(t)
	var tls *libc.TLS
	var h uintptr
	err := conn.Raw(func(dc any) (err error) { tls, h, err = sqlitex.Handle(dc); return err })
	if err != nil {
		t.Fatalf("Handle: %v", err)
	}
	return conn, tls, h
}

// TestPeekPtrCMem: prepare_v3 writes the statement into an out-parameter
// in C memory, PeekPtr reads it back, and SQLite knows it by its SQL; CMem
// shows the bytes of C memory SQLite returned.
func TestPeekPtrCMem(t *testing.T) {
	_, tls, h := rawConn(t)
	const q = "SELECT x'00ff41', 'tail'"
	cq, err := libc.CString(q)
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(tls, cq)
	out := libc.Xmalloc(tls, uint64(2*sqlitex.PtrSize))
	defer libc.Xfree(tls, out)
	if rc := sqlite3.Xsqlite3_prepare_v3(tls, h, cq, -1, 0, out, out+sqlitex.PtrSize); rc != sqlite3.SQLITE_OK {
		t.Fatalf("prepare: %d", rc)
	}
	stmt := sqlitex.PeekPtr(out)
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	if got := libc.GoString(sqlite3.Xsqlite3_sql(tls, stmt)); got != q {
		t.Fatalf("PeekPtr gave a statement whose SQL is %q, want %q: the out-parameter layout changed", got, q)
	}
	if tail := sqlitex.PeekPtr(out + sqlitex.PtrSize); tail != cq+uintptr(len(q)) {
		t.Errorf("tail = %#x, want %#x (the end of the SQL)", tail, cq+uintptr(len(q)))
	}
	if rc := sqlite3.Xsqlite3_step(tls, stmt); rc != sqlite3.SQLITE_ROW {
		t.Fatalf("step: %d", rc)
	}
	p := sqlite3.Xsqlite3_column_blob(tls, stmt, 0)
	n := sqlite3.Xsqlite3_column_bytes(tls, stmt, 0)
	if got := string(sqlitex.CMem(p, int(n))); got != "\x00\xffA" {
		t.Errorf("CMem = %q, want %q", got, "\x00\xffA")
	}
	if sqlitex.CMem(0, 3) != nil || sqlitex.CMem(p, 0) != nil {
		t.Errorf("CMem of nothing is not nil")
	}
}

var (
	progressCalls atomic.Int64
	progressArg   atomic.Uintptr
	progressStop  atomic.Bool
)

func progress(_ *libc.TLS, arg uintptr) int32 {
	progressCalls.Add(1)
	progressArg.Store(arg)
	if progressStop.Load() {
		return 1
	}
	return 0
}

// TestCFuncPointer: a Go function handed to SQLite through CFuncPointer is
// called back by the transpiled C code with its argument, and its result
// is honoured (non-zero interrupts the statement), as storage's progress
// handler needs.
func TestCFuncPointer(t *testing.T) {
	conn, tls, h := rawConn(t)
	const arg = 0x5eed
	sqlite3.Xsqlite3_progress_handler(tls, h, 100, sqlitex.CFuncPointer(progress), arg)
	const count = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 20000) SELECT count(*) FROM c`
	var n int
	if err := conn.QueryRowContext(context.Background(), count).Scan(&n); err != nil || n != 20000 {
		t.Fatalf("count = %d, %v", n, err)
	}
	if progressCalls.Load() == 0 {
		t.Fatalf("the progress callback was never called: modernc.org/libc no longer calls a Go funcval's address as a C function pointer")
	}
	if got := progressArg.Load(); got != arg {
		t.Fatalf("the progress callback got argument %#x, want %#x: the callback ABI changed", got, arg)
	}
	progressStop.Store(true)
	err := conn.QueryRowContext(context.Background(), count).Scan(&n)
	if err == nil || !strings.Contains(err.Error(), "interrupt") {
		t.Errorf("with the callback returning 1: %v, want an interrupted statement", err)
	}
	sqlite3.Xsqlite3_progress_handler(tls, h, 0, 0, 0)
}

// TestProgramRegisterInt: Program lists what EXPLAIN lists (p1, p2, p3 of
// every instruction, OP_Count where EXPLAIN says Count), and RegisterInt
// reads the count OP_Count stored, while the statement is on its row and
// after it halted.
func TestProgramRegisterInt(t *testing.T) {
	conn, tls, h := rawConn(t)
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3)"); err != nil {
		t.Fatal(err)
	}
	const q = "SELECT count(*) FROM t"
	type op struct {
		name       string
		p1, p2, p3 int32
	}
	var want []op
	rows, err := conn.QueryContext(ctx, "EXPLAIN "+q)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var addr int
		var o op
		var p4, p5, comment any
		if err := rows.Scan(&addr, &o.name, &o.p1, &o.p2, &o.p3, &p4, &p5, &comment); err != nil {
			t.Fatal(err)
		}
		want = append(want, o)
	}
	rows.Close()
	cq, err := libc.CString(q)
	if err != nil {
		t.Fatal(err)
	}
	defer libc.Xfree(tls, cq)
	out := libc.Xmalloc(tls, uint64(2*sqlitex.PtrSize))
	defer libc.Xfree(tls, out)
	if rc := sqlite3.Xsqlite3_prepare_v3(tls, h, cq, -1, 0, out, out+sqlitex.PtrSize); rc != sqlite3.SQLITE_OK {
		t.Fatalf("prepare: %d", rc)
	}
	stmt := sqlitex.PeekPtr(out)
	defer sqlite3.Xsqlite3_finalize(tls, stmt)
	prog := sqlitex.Program(stmt)
	if len(prog) != len(want) {
		t.Fatalf("Program has %d instructions, EXPLAIN %d: the Vdbe layout changed", len(prog), len(want))
	}
	countReg := int32(-1)
	for i, o := range prog {
		if o.Fp1 != want[i].p1 || o.Fp2 != want[i].p2 || o.Fp3 != want[i].p3 {
			t.Fatalf("instruction %d: p1 p2 p3 = %d %d %d, EXPLAIN %+v", i, o.Fp1, o.Fp2, o.Fp3, want[i])
		}
		if (o.Fopcode == sqlite3.OP_Count) != (want[i].name == "Count") {
			t.Fatalf("instruction %d: opcode %d, EXPLAIN %s (OP_Count = %d)", i, o.Fopcode, want[i].name, sqlite3.OP_Count)
		}
		if o.Fopcode == sqlite3.OP_Count {
			countReg = o.Fp2
		}
	}
	if countReg < 0 {
		t.Fatal("no OP_Count in the program of " + q)
	}
	if rc := sqlite3.Xsqlite3_step(tls, stmt); rc != sqlite3.SQLITE_ROW {
		t.Fatalf("step: %d", rc)
	}
	if n, ok := sqlitex.RegisterInt(stmt, countReg); n != 3 || !ok {
		t.Errorf("on the row: RegisterInt = %d, %v, want 3, true", n, ok)
	}
	if rc := sqlite3.Xsqlite3_step(tls, stmt); rc != sqlite3.SQLITE_DONE {
		t.Fatalf("step: %d", rc)
	}
	if n, _ := sqlitex.RegisterInt(stmt, countReg); n != 3 {
		t.Errorf("halted: RegisterInt = %d, want 3", n)
	}
	if _, ok := sqlitex.RegisterInt(stmt, 1<<20); ok {
		t.Errorf("RegisterInt of a register past the statement's is ok")
	}
}
