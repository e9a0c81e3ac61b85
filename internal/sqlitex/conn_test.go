package sqlitex_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// sqlConn opens a new database file in the test's directory and returns
// one database/sql connection to it; both are closed when the test ends.
func sqlConn(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "x.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// openConn opens a database and returns its sqlitex.Conn (closed at the
// end of the test) and the database/sql connection under it.
func openConn(t *testing.T) (*sqlitex.Conn, *sql.Conn) {
	t.Helper()
	conn := sqlConn(t)
	var c *sqlitex.Conn
	if err := conn.Raw(func(dc any) (err error) { c, err = sqlitex.OpenConn(dc); return err }); err != nil {
		t.Fatalf("OpenConn: %v", err)
	}
	t.Cleanup(c.Close)
	return c, conn
}

func mustPrepare(t *testing.T, c *sqlitex.Conn, q string) sqlitex.Stmt {
	t.Helper()
	s, err := c.PrepareOne(q)
	if err != nil {
		t.Fatalf("prepare %q: %v", q, err)
	}
	t.Cleanup(func() { s.Finalize() })
	return s
}

func run(t *testing.T, s sqlitex.Stmt, want int32) {
	t.Helper()
	if rc := s.Step(); rc != want {
		t.Fatalf("step = %d, want %d", rc, want)
	}
}

func TestOpenConn_NotADriverConn(t *testing.T) {
	for _, bad := range []any{nil, 42, &struct{ db int }{}} {
		if _, err := sqlitex.OpenConn(bad); !errors.Is(err, sqlitex.ErrNoRawHandle) {
			t.Errorf("OpenConn(%T) = %v, want ErrNoRawHandle", bad, err)
		}
	}
}

// TestConn_PrepareWalksStatements: Prepare returns each statement of a
// text with the offset after it, a zero Stmt for a tail of comments, and
// the same text prepared from another string (same bytes, other memory),
// or a text larger than the kept buffer, gives the same statements.
func TestConn_PrepareWalksStatements(t *testing.T) {
	c, _ := openConn(t)
	long := "SELECT '" + strings.Repeat("x", 40<<10) + "'"
	for _, text := range []string{
		"SELECT 1; SELECT 'two' ;\n-- done",
		strings.Clone("SELECT 1; SELECT 'two' ;\n-- done"),
		long + "; SELECT 2",
	} {
		var stmts []string
		off := 0
		for {
			s, next, rc := c.Prepare(text, off, 0)
			if rc != sqlite3.SQLITE_OK {
				t.Fatalf("prepare at %d: %d %s", off, rc, c.ErrMsg())
			}
			if s.IsZero() {
				if strings.TrimSpace(text[off:]) != "-- done" && off != len(text) {
					t.Fatalf("zero Stmt at %d before %q", off, text[off:])
				}
				break
			}
			stmts = append(stmts, strings.TrimSpace(text[off:next]))
			run(t, s, sqlite3.SQLITE_ROW)
			s.Finalize()
			off = next
		}
		c.DropText()
		want := []string{"SELECT 1;", "SELECT 'two' ;"}
		if strings.HasPrefix(text, long) {
			want = []string{long + ";", "SELECT 2"}
		}
		if len(stmts) != len(want) || stmts[0] != want[0] || stmts[1] != want[1] {
			t.Errorf("statements %.40q, want %.40q", stmts, want)
		}
	}
	if _, _, rc := c.Prepare("SELECT", 7, 0); rc != sqlite3.SQLITE_RANGE {
		t.Errorf("Prepare past the end: %d, want SQLITE_RANGE", rc)
	}
	if _, err := c.PrepareOne("-- nothing"); !errors.Is(err, sqlitex.ErrNoStatement) {
		t.Errorf("PrepareOne of a comment: %v, want ErrNoStatement", err)
	}
}

// TestStmt_BindAndColumns round-trips every storage class through the
// Bind and Column methods, with values larger than the kept buffer.
func TestStmt_BindAndColumns(t *testing.T) {
	c, _ := openConn(t)
	if rc := c.Exec("CREATE TABLE t (i, f, s, b, n)"); rc != sqlite3.SQLITE_OK {
		t.Fatalf("exec: %d", rc)
	}
	ins := mustPrepare(t, c, "INSERT INTO t VALUES (?, ?, ?, ?, ?)")
	if n := ins.BindParameterCount(); n != 5 {
		t.Fatalf("BindParameterCount = %d", n)
	}
	if ins.ReadOnly() {
		t.Fatal("an INSERT is ReadOnly")
	}
	big := strings.Repeat("é", 20<<10)
	rows := []struct {
		i    int64
		f    float64
		s    string
		b    []byte
		null bool
	}{
		{1, 1.5, "a\x00b", []byte{0, 1, 2}, true},
		{-1 << 62, -0.25, big, []byte(big), true},
		{0, 0, "", []byte{}, true},
	}
	for _, r := range rows {
		for _, rc := range []int32{ins.BindInt64(1, r.i), ins.BindFloat(2, r.f), ins.BindText(c, 3, r.s), ins.BindBlob(c, 4, r.b), ins.BindNull(5)} {
			if rc != sqlite3.SQLITE_OK {
				t.Fatalf("bind: %d", rc)
			}
		}
		run(t, ins, sqlite3.SQLITE_DONE)
		ins.Reset()
	}
	if n := c.TotalChanges(); n != 3 {
		t.Errorf("TotalChanges = %d, want 3", n)
	}
	if rc := c.Exec("UPDATE t SET n = 1 WHERE i <= 0"); rc != sqlite3.SQLITE_OK {
		t.Fatalf("update: %d", rc)
	}
	if n := c.Changes(); n != 2 {
		t.Errorf("Changes after an UPDATE of 2 rows = %d", n)
	}
	c.Exec("UPDATE t SET n = NULL")
	c.Exec("DELETE FROM t WHERE i = 42")
	if n := c.Changes(); n != 0 {
		t.Errorf("Changes after a DELETE of no row = %d", n)
	}
	sel := mustPrepare(t, c, "SELECT i, f, s, b, n AS empty FROM t ORDER BY rowid")
	if !sel.ReadOnly() {
		t.Error("a SELECT is not ReadOnly")
	}
	if n := sel.ColumnCount(); n != 5 {
		t.Fatalf("ColumnCount = %d", n)
	}
	if name := sel.ColumnName(4); name != "empty" {
		t.Errorf("ColumnName(4) = %q", name)
	}
	for _, r := range rows {
		run(t, sel, sqlite3.SQLITE_ROW)
		types := [5]int32{sqlite3.SQLITE_INTEGER, sqlite3.SQLITE_FLOAT, sqlite3.SQLITE_TEXT, sqlite3.SQLITE_BLOB, sqlite3.SQLITE_NULL}
		for i, want := range types {
			if got := sel.ColumnType(i); got != want {
				t.Errorf("ColumnType(%d) = %d, want %d", i, got, want)
			}
		}
		if v := sel.ColumnInt64(0); v != r.i {
			t.Errorf("ColumnInt64 = %d, want %d", v, r.i)
		}
		if v := sel.ColumnFloat(1); v != r.f {
			t.Errorf("ColumnFloat = %v, want %v", v, r.f)
		}
		if v := sel.ColumnText(2); v != r.s {
			t.Errorf("ColumnText = %.20q (%d bytes), want %.20q", v, len(v), r.s)
		}
		if v := sel.ColumnBlob(3); !bytes.Equal(v, r.b) || v == nil {
			t.Errorf("ColumnBlob = %.20q (nil %v), want %.20q", v, v == nil, r.b)
		}
	}
	run(t, sel, sqlite3.SQLITE_DONE)
	sel.Reset()

	// ClearBindings: the parameters are NULL again.
	one := mustPrepare(t, c, "SELECT ?1 IS NULL")
	one.BindInt64(1, 7)
	one.ClearBindings()
	run(t, one, sqlite3.SQLITE_ROW)
	if v := one.ColumnInt64(0); v != 1 {
		t.Errorf("after ClearBindings the parameter is not NULL")
	}
	if rc := (sqlitex.Stmt{}).Finalize(); rc != sqlite3.SQLITE_OK {
		t.Errorf("Finalize of the zero Stmt = %d", rc)
	}
}

// TestConn_Errors: a failed prepare leaves the message, offset, primary
// and extended codes workerd's error text is made of; Err wraps them.
func TestConn_Errors(t *testing.T) {
	c, _ := openConn(t)
	const bad = "SELECT 1 FROM )"
	_, _, rc := c.Prepare(bad, 0, 0)
	if rc != sqlite3.SQLITE_ERROR {
		t.Fatalf("prepare of a syntax error: %d", rc)
	}
	if m := c.ErrMsg(); m != `near ")": syntax error` {
		t.Errorf("ErrMsg = %q", m)
	}
	if off := c.ErrorOffset(); off != int32(strings.Index(bad, ")")) {
		t.Errorf("ErrorOffset = %d, want %d", off, strings.Index(bad, ")"))
	}
	if code := c.ErrCode(); code != sqlite3.SQLITE_ERROR {
		t.Errorf("ErrCode = %d", code)
	}
	var e *sqlitex.Error
	if err := c.Err(rc); !errors.As(err, &e) || e.Code != rc || err.Error() != `near ")": syntax error (1)` {
		t.Errorf("Err = %v", err)
	}
	if s := c.ErrStr(sqlite3.SQLITE_BUSY); s != "database is locked" {
		t.Errorf("ErrStr(BUSY) = %q", s)
	}
	c.Exec("CREATE TABLE u (k PRIMARY KEY)")
	c.Exec("INSERT INTO u VALUES (1)")
	if rc := c.Exec("INSERT INTO u VALUES (1)"); rc&0xff != sqlite3.SQLITE_CONSTRAINT {
		t.Fatalf("duplicate key: %d", rc)
	}
	if ext := c.ExtendedErrCode(); ext != sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY {
		t.Errorf("ExtendedErrCode = %d, want SQLITE_CONSTRAINT_PRIMARYKEY", ext)
	}
}

// TestConn_LimitAutocommitStatus covers Limit, Autocommit, DBStatus and
// Stmt.Status, Program and RegisterInt against what SQLite reports.
func TestConn_LimitAutocommitStatus(t *testing.T) {
	c, _ := openConn(t)
	c.Limit(sqlite3.SQLITE_LIMIT_LENGTH, 100)
	if old := c.Limit(sqlite3.SQLITE_LIMIT_LENGTH, -1); old != 100 {
		t.Errorf("Limit read back %d, want 100", old)
	}
	s := mustPrepare(t, c, "SELECT length(?)")
	if rc := s.BindText(c, 1, strings.Repeat("x", 101)); rc != sqlite3.SQLITE_TOOBIG {
		t.Errorf("binding past the length limit: %d, want SQLITE_TOOBIG", rc)
	}
	c.Limit(sqlite3.SQLITE_LIMIT_LENGTH, 1<<20)
	if !c.Autocommit() {
		t.Fatal("Autocommit is false outside a transaction")
	}
	if rc := c.Exec("BEGIN; CREATE TABLE t (a); INSERT INTO t VALUES (1), (2), (3)"); rc != sqlite3.SQLITE_OK {
		t.Fatalf("exec: %d %s", rc, c.ErrMsg())
	}
	if c.Autocommit() {
		t.Fatal("Autocommit is true inside BEGIN")
	}
	c.Exec("COMMIT")
	if _, _, rc := c.DBStatus(sqlite3.SQLITE_DBSTATUS_CACHE_USED, false); rc != sqlite3.SQLITE_OK {
		t.Errorf("DBStatus: %d", rc)
	}
	if cur, _, _ := c.DBStatus(sqlite3.SQLITE_DBSTATUS_CACHE_USED, false); cur <= 0 {
		t.Errorf("DBStatus(CACHE_USED) = %d, want the cache's bytes", cur)
	}
	scan := mustPrepare(t, c, "SELECT count(*) FROM t WHERE a > 0")
	for scan.Step() == sqlite3.SQLITE_ROW {
	}
	if n := scan.Status(sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, true); n != 2 {
		t.Errorf("FULLSCAN_STEP = %d, want 2 (3 rows)", n)
	}
	if n := scan.Status(sqlite3.SQLITE_STMTSTATUS_FULLSCAN_STEP, false); n != 0 {
		t.Errorf("FULLSCAN_STEP after reset = %d", n)
	}
	cnt := mustPrepare(t, c, "SELECT count(*) FROM t")
	reg := int32(-1)
	for _, op := range cnt.Program() {
		if op.Fopcode == sqlite3.OP_Count {
			reg = op.Fp2
		}
	}
	run(t, cnt, sqlite3.SQLITE_ROW)
	if n, ok := cnt.RegisterInt(reg); reg < 0 || n != 3 || !ok {
		t.Errorf("RegisterInt(OP_Count's register %d) = %d, %v", reg, n, ok)
	}
}

// TestConn_OnProgress: the function runs during a long statement, true
// interrupts it, and nil removes it.
func TestConn_OnProgress(t *testing.T) {
	c, _ := openConn(t)
	const count = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 20000) SELECT count(*) FROM c`
	s := mustPrepare(t, c, count)
	calls, stop := 0, false
	c.OnProgress(100, func() bool { calls++; return stop })
	run(t, s, sqlite3.SQLITE_ROW)
	s.Reset()
	if calls == 0 {
		t.Fatal("the progress function was never called")
	}
	stop = true
	if rc := s.Step(); rc != sqlite3.SQLITE_INTERRUPT {
		t.Fatalf("with the function returning true: %d, want SQLITE_INTERRUPT", rc)
	}
	s.Reset()
	c.OnProgress(0, nil)
	calls = 0
	run(t, s, sqlite3.SQLITE_ROW)
	if calls != 0 {
		t.Errorf("the removed function was called %d times", calls)
	}
}
