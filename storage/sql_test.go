package storage_test

import (
	"errors"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/storage"
)

// query runs q and returns all its rows.
func query(t testing.TB, db *storage.DB, q string, args ...any) [][]any {
	t.Helper()
	c, err := db.Exec(q, args...)
	if err != nil {
		t.Fatalf("Exec(%q): %v", q, err)
	}
	return readAll(t, c)
}

func readAll(t testing.TB, c *storage.Cursor) [][]any {
	t.Helper()
	var rows [][]any
	for {
		row, ok, err := c.Next()
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		if !ok {
			return rows
		}
		rows = append(rows, row)
	}
}

// execErr runs q and returns the message of its error ("" if none).
func execErr(db *storage.DB, q string, args ...any) string {
	c, err := db.Exec(q, args...)
	if err != nil {
		return err.Error()
	}
	for {
		_, ok, err := c.Next()
		if err != nil {
			return err.Error()
		}
		if !ok {
			return ""
		}
	}
}

const msgTxn = "To execute a transaction, please use the state.storage.transaction() or state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or SAVEPOINT statements. The JavaScript API is safer because it will automatically roll back on exceptions, and because it interacts correctly with Durable Objects' automatic atomic write coalescing."

func TestDB_Exec_Errors(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
	for _, tc := range []struct {
		name, q string
		args    []any
		want    string
	}{
		{"NoSuchTable", "SELECT * FROM nope", nil, "no such table: nope: SQLITE_ERROR"},
		{"NotNull", "INSERT INTO people (name) VALUES (NULL)", nil, "NOT NULL constraint failed: people.name: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_NOTNULL)"},
		{"Syntax", "SELEC 1", nil, `near "SELEC": syntax error at offset 0: SQLITE_ERROR`},
		{"Unterminated", "SELECT 'abc", nil, `unrecognized token: "'abc" at offset 7: SQLITE_ERROR`},
		{"BadColumn", "SELECT nope FROM (SELECT 1 AS x)", nil, "no such column: nope at offset 7: SQLITE_ERROR"},
		{"Empty", "", nil, "SQL code did not contain a statement."},
		{"OnlyComment", "-- nothing here", nil, "SQL code did not contain a statement."},
		{"OnlySpaces", " \n\t ", nil, "SQL code did not contain a statement."},
		{"TooFewBindings", "SELECT ? + ?", []any{1.0}, "Wrong number of parameter bindings for SQL query."},
		{"TooManyBindings", "SELECT ?", []any{1.0, 2.0}, "Wrong number of parameter bindings for SQL query."},
		{"MultiBindings", "SELECT ?; SELECT ?", []any{1.0}, "When executing multiple SQL statements in a single call, only the last statement can have parameters."},
		{"Unique", "INSERT INTO people (id, name) VALUES (1, 'a'), (1, 'b')", nil, "UNIQUE constraint failed: people.id: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)"},
		{"UnsupportedBinding", "SELECT ?", []any{struct{}{}}, "exec: unsupported binding of type struct {}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := execErr(db, tc.q, tc.args...); got != tc.want {
				t.Errorf("error = %q, want %q", got, tc.want)
			}
			var se *storage.SQLError
			c, err := db.Exec(tc.q, tc.args...)
			if err == nil {
				c.Close()
			} else if tc.name != "UnsupportedBinding" && !errors.As(err, &se) {
				t.Errorf("error %T is not a *SQLError", err)
			}
		})
	}
	// None of these broke the transaction.
	query(t, db, "INSERT INTO people (name) VALUES ('ok')")
	mustCommit(t, db)
	if got := query(t, db, "SELECT count(*) FROM people"); got[0][0] != int64(1) {
		t.Errorf("count = %v, want 1", got[0][0])
	}
}

func TestDB_Exec_Guards(t *testing.T) {
	db := openDB(t, storage.Options{})
	mustPut(t, db, "k", "v")
	query(t, db, "CREATE TABLE things (id INTEGER PRIMARY KEY, label TEXT)")
	for _, tc := range []struct{ q, want string }{
		{"BEGIN TRANSACTION", msgTxn},
		{"BEGIN IMMEDIATE", msgTxn},
		{"COMMIT", msgTxn},
		{"ROLLBACK", msgTxn},
		{"SAVEPOINT sp1", msgTxn},
		{"RELEASE sp1", msgTxn},
		{"SELECT * FROM _cf_KV", "access to _cf_KV.key is prohibited: SQLITE_AUTH"},
		{"SELECT v FROM _cf_KV", "access to _cf_KV.value is prohibited: SQLITE_AUTH"},
		{"INSERT INTO _cf_KV VALUES ('x', 'y', 'z')", "not authorized: SQLITE_AUTH"},
		{"DELETE FROM _cf_KV", "not authorized: SQLITE_AUTH"},
		{"DROP TABLE _cf_KV", "not authorized: SQLITE_AUTH"},
		{"CREATE TABLE _cf_mine (x)", "not authorized: SQLITE_AUTH"},
		{"CREATE TABLE _CF_Mine (x)", "not authorized: SQLITE_AUTH"},
		{"CREATE INDEX _cf_i ON things (label)", "not authorized: SQLITE_AUTH"},
		{"CREATE VIEW v AS SELECT * FROM _cf_KV", ""}, // checked when used, as in workerd
		{"SELECT * FROM v", "access to _cf_KV.key is prohibited: SQLITE_AUTH"},
		{"ALTER TABLE _cf_KV ADD COLUMN z", "not authorized: SQLITE_AUTH"},
		{"PRAGMA journal_mode", "not authorized: SQLITE_AUTH"},
		{"PRAGMA journal_mode = DELETE", "not authorized: SQLITE_AUTH"},
		{"PRAGMA user_version", "not authorized: SQLITE_AUTH"},
		{"PRAGMA writable_schema = ON", "not authorized: SQLITE_AUTH"},
		{"PRAGMA table_info(_cf_KV)", "not authorized: SQLITE_AUTH"},
		{"PRAGMA foreign_keys = maybe", "not authorized: SQLITE_AUTH"},
		{"ATTACH DATABASE 'other.db' AS other", "not authorized: SQLITE_AUTH"},
		{"VACUUM", "cannot VACUUM from within a transaction: SQLITE_ERROR"},
		{"VACUUM INTO '/tmp/x.db'", "cannot VACUUM from within a transaction: SQLITE_ERROR"},
		{"SELECT sqlite_version() AS v", "not authorized to use function: sqlite_version at offset 7: SQLITE_ERROR"},
		{"SELECT load_extension('x')", "not authorized to use function: load_extension at offset 7: SQLITE_ERROR"},
		{"CREATE TEMP TABLE t (x)", "not authorized: SQLITE_AUTH"},
		{"CREATE TEMP VIEW tv AS SELECT 1", "not authorized: SQLITE_AUTH"},
		{"SELECT * FROM sqlite_dbpage", "access to sqlite_dbpage.pgno is prohibited: SQLITE_AUTH"},
		{"SELECT * FROM dbstat", "access to dbstat.name is prohibited: SQLITE_AUTH"},
		{"CREATE VIRTUAL TABLE r USING rtree (id, a, b)", "not authorized: SQLITE_AUTH"},
	} {
		if got := execErr(db, tc.q); got != tc.want {
			t.Errorf("%s: error = %q, want %q", tc.q, got, tc.want)
		}
	}
	for _, q := range []string{
		"PRAGMA table_list",
		"PRAGMA table_info(things)",
		"PRAGMA foreign_keys",
		"PRAGMA foreign_keys = ON",
		"PRAGMA defer_foreign_keys = 'true'",
		"PRAGMA index_list(things)",
		"PRAGMA data_version",
		"PRAGMA quick_check",
		"SELECT name FROM sqlite_master",
		"CREATE VIRTUAL TABLE docs USING fts5 (body)",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT x FROM c",
		"SELECT json_extract('{\"a\":1}', '$.a'), abs(-1), upper('x'), datetime(0, 'unixepoch')",
		"CREATE TRIGGER t_ins AFTER INSERT ON things BEGIN SELECT 1; END",
		"ANALYZE",
	} {
		if got := execErr(db, q); got != "" {
			t.Errorf("%s: %s, want no error", q, got)
		}
	}
	if got := query(t, db, "PRAGMA foreign_keys"); !reflect.DeepEqual(got, [][]any{{int64(1)}}) {
		t.Errorf("PRAGMA foreign_keys = %v, want [[1]]", got)
	}
	// The KV data is intact and still cellhost's own statements work.
	if got := string(mustGet(t, db, "k")); got != "v" {
		t.Errorf("k = %q, want v", got)
	}
	mustCommit(t, db)
}

func TestDB_Exec_Values(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n)")
	query(t, db, "INSERT INTO t VALUES (?, ?, ?, ?, ?)", int64(7), 1.5, "héllo", []byte{0, 1, 255}, nil)
	got := query(t, db, "SELECT i, r, s, b, n, typeof(i), typeof(b) FROM t")
	want := [][]any{{int64(7), 1.5, "héllo", []byte{0, 1, 255}, nil, "integer", "blob"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("row = %#v, want %#v", got, want)
	}

	t.Run("NumbersBindAsReal", func(t *testing.T) {
		// A float64 binding is REAL: 12 into a TEXT column reads "12.0".
		query(t, db, "CREATE TABLE s (x TEXT)")
		query(t, db, "INSERT INTO s VALUES (?)", 12.0)
		if got := query(t, db, "SELECT x, typeof(x) FROM s"); !reflect.DeepEqual(got, [][]any{{"12.0", "text"}}) {
			t.Errorf("got %v, want [[12.0 text]]", got)
		}
	})
	t.Run("NaNIsNull", func(t *testing.T) {
		if got := query(t, db, "SELECT ? IS NULL", math.NaN()); got[0][0] != int64(1) {
			t.Errorf("NaN IS NULL = %v, want 1", got[0][0])
		}
	})
	t.Run("EmptyBlob", func(t *testing.T) {
		got := query(t, db, "SELECT ?, typeof(?1), length(?1)", []byte{})
		if b, ok := got[0][0].([]byte); !ok || len(b) != 0 || got[0][1] != "blob" || got[0][2] != int64(0) {
			t.Errorf("got %#v, want an empty blob", got)
		}
	})
	t.Run("TextWithNUL", func(t *testing.T) {
		if got := query(t, db, "SELECT ?, length(?1)", "a\x00b"); got[0][0] != "a\x00b" {
			t.Errorf("got %q, want %q", got[0][0], "a\x00b")
		}
	})
	t.Run("BigIntegers", func(t *testing.T) {
		got := query(t, db, "SELECT 9223372036854775807, -9223372036854775808")
		if got[0][0] != int64(math.MaxInt64) || got[0][1] != int64(math.MinInt64) {
			t.Errorf("got %v", got)
		}
	})
	t.Run("DuplicateColumns", func(t *testing.T) {
		c, err := db.Exec("SELECT 1 AS x, 2 AS x")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Columns(); !reflect.DeepEqual(got, []string{"x", "x"}) {
			t.Errorf("Columns = %q", got)
		}
		c.Close()
	})
}

func TestDB_Exec_RowCounts(t *testing.T) {
	db := openDB(t, storage.Options{})
	counts := func(q string, args ...any) (cols []string, rows, read, written int) {
		t.Helper()
		c, err := db.Exec(q, args...)
		if err != nil {
			t.Fatalf("Exec(%q): %v", q, err)
		}
		cols = c.Columns()
		rows = len(readAll(t, c))
		return cols, rows, c.RowsRead(), c.RowsWritten()
	}
	type result struct {
		cols                []string
		rows, read, written int
	}
	check := func(name string, want result, q string, args ...any) {
		t.Helper()
		cols, rows, read, written := counts(q, args...)
		if cols == nil {
			cols = []string{}
		}
		got := result{cols, rows, read, written}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	// The figures workerd reports in the sql-basic case.
	check("Create", result{[]string{}, 0, 1, 2}, "CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER, score REAL)")
	check("Insert", result{[]string{}, 0, 0, 2}, "INSERT INTO people (name, age, score) VALUES (?, ?, ?), (?, ?, ?)", "ann", 31.0, 1.5, "bob", nil, 2.0)
	check("Returning", result{[]string{"id", "name"}, 1, 1, 1}, "INSERT INTO people (name, age) VALUES (?, ?) RETURNING id, name", "cy", 7.0)
	check("Select", result{[]string{"id", "name"}, 3, 3, 0}, "SELECT id, name FROM people ORDER BY id")
	check("Update", result{[]string{}, 0, 3, 2}, "UPDATE people SET score = score * 2 WHERE score IS NOT NULL")
	check("Delete", result{[]string{}, 0, 3, 1}, "DELETE FROM people WHERE name = ?", "cy")
	check("CreateIfNotExists", result{[]string{}, 0, 0, 0}, "CREATE TABLE IF NOT EXISTS people (x)")
	// Only the last statement of an exec counts (testjs/cases/sql-rows-written).
	check("Multi", result{[]string{"x"}, 1, 1, 0}, "CREATE TABLE t2 (x); INSERT INTO t2 VALUES (1); SELECT x FROM t2")
	// rowsWritten counts index entries, the AUTOINCREMENT sequence row and
	// schema rows as workerd's VDBE counter does; deletes of index entries
	// and schema rows do not (the rules testjs/cases/sql-rows-written
	// recorded on workerd).
	for _, tc := range []struct {
		name, q string
		want    int
	}{
		{"CreateAuto", "CREATE TABLE a (id INTEGER PRIMARY KEY AUTOINCREMENT, k TEXT UNIQUE)", 2 + 1 + 2},
		{"InsertIndexed", "INSERT INTO a (k) VALUES ('x'), ('y')", 2 + 2 + 1},
		{"UpdateIndexed", "UPDATE a SET k = k || '!'", 2 + 2},
		{"UpdateNotIndexed", "UPDATE people SET age = 1", 2},
		{"DeleteIndexed", "DELETE FROM a WHERE id > 0", 2},
		{"CreateIndex", "CREATE INDEX pn ON people (name)", 1 + 2},
		{"DropIndex", "DROP INDEX pn", 0},
	} {
		if _, _, _, written := counts(tc.q); written != tc.want {
			t.Errorf("%s: rowsWritten %d, want %d", tc.name, written, tc.want)
		}
	}
}

// The index entries counted in rowsWritten follow the schema for a cached
// statement too: an index created, dropped, or rolled back between two
// executions of the same text.
func TestDB_Exec_RowsWrittenFollowsSchema(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT, c TEXT)")
	written := func(q string, args ...any) int {
		t.Helper()
		c, err := db.Exec(q, args...)
		if err != nil {
			t.Fatalf("Exec(%q): %v", q, err)
		}
		readAll(t, c)
		return c.RowsWritten()
	}
	const ins = "INSERT INTO t (b, c) VALUES (?, ?)"
	const upd = "UPDATE t SET b = ? WHERE a = 1"
	step := func(name string, wantIns, wantUpd int) {
		t.Helper()
		if got := written(ins, "x", "y"); got != wantIns {
			t.Errorf("%s: INSERT rowsWritten %d, want %d", name, got, wantIns)
		}
		if got := written(upd, "z"); got != wantUpd {
			t.Errorf("%s: UPDATE rowsWritten %d, want %d", name, got, wantUpd)
		}
	}
	step("no index", 1, 1)
	step("no index, cached", 1, 1)
	query(t, db, "CREATE INDEX tb ON t (b)")
	step("index on b", 2, 2)
	query(t, db, "CREATE INDEX tc ON t (c)")
	step("indexes on b and c", 3, 2)
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	depth, err := db.BeginTransaction()
	if err != nil {
		t.Fatal(err)
	}
	query(t, db, "DROP INDEX tb")
	step("tb dropped", 2, 1)
	if err := db.RollbackTransaction(depth); err != nil {
		t.Fatal(err)
	}
	step("drop rolled back", 3, 2)
	query(t, db, "DROP INDEX tc")
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	step("turn rolled back", 3, 2)
}

// A cached SELECT * names the columns the table has now.
func TestDB_Exec_ColumnsFollowSchema(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE t (a, b)")
	cols := func() []string {
		t.Helper()
		c, err := db.Exec("SELECT * FROM t")
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.Columns()
	}
	if got := cols(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Fatalf("columns %q, want a, b", got)
	}
	query(t, db, "ALTER TABLE t ADD COLUMN c")
	if got := cols(); !reflect.DeepEqual(got, []string{"a", "b", "c"}) {
		t.Errorf("after ADD COLUMN: columns %q, want a, b, c", got)
	}
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	query(t, db, "CREATE TABLE t (x)")
	if got := cols(); !reflect.DeepEqual(got, []string{"x"}) {
		t.Errorf("after the rollback and a new table: columns %q, want x", got)
	}
}

func TestDB_Exec_MultiStatement(t *testing.T) {
	db := openDB(t, storage.Options{})
	got := query(t, db, "CREATE TABLE t (x); INSERT INTO t VALUES (1); INSERT INTO t VALUES (2); SELECT sum(x) FROM t WHERE x > ?", 0.0)
	if !reflect.DeepEqual(got, [][]any{{int64(3)}}) {
		t.Errorf("got %v, want [[3]]", got)
	}
	// Trailing C whitespace ends the list (\v too, which SQLite does not
	// take as whitespace); a comment inside the statement is its own.
	for _, q := range []string{"SELECT 1;", "SELECT 1; ", "SELECT 1;\v\f\r\n\t ", "SELECT 1 /* c */ ;"} {
		if got := query(t, db, q); !reflect.DeepEqual(got, [][]any{{int64(1)}}) {
			t.Errorf("%q: got %v", q, got)
		}
	}
	// A trailing comment or semicolon is one more statement, which has none.
	for _, q := range []string{"SELECT 1; -- done", "SELECT 1;\n/* done */\n", "SELECT 1;;", "SELECT 1; SELECT 2; -- x\n"} {
		if msg := execErr(db, q); msg != "SQL code did not contain a statement." {
			t.Errorf("%q: error = %q", q, msg)
		}
	}
	// An intermediate SELECT runs (one step) and its rows are dropped.
	if got := query(t, db, "SELECT x FROM t; SELECT 'last'"); !reflect.DeepEqual(got, [][]any{{"last"}}) {
		t.Errorf("got %v", got)
	}
	// A failing statement stops the list; the earlier ones stay done.
	if msg := execErr(db, "INSERT INTO t VALUES (3); SELECT * FROM nope; INSERT INTO t VALUES (4)"); msg != "no such table: nope: SQLITE_ERROR" {
		t.Errorf("error = %q", msg)
	}
	if got := query(t, db, "SELECT count(*) FROM t"); got[0][0] != int64(3) {
		t.Errorf("count = %v, want 3", got[0][0])
	}
}

func TestDB_Exec_Cursors(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE t (x INTEGER)")
	for i := 0; i < 2500; i++ {
		query(t, db, "INSERT INTO t VALUES (?)", float64(i))
	}
	mustCommit(t, db)

	t.Run("StatementCache", func(t *testing.T) {
		// The same text with different bindings, while an earlier cursor
		// of it is still open.
		a, err := db.Exec("SELECT x FROM t WHERE x >= ? ORDER BY x", 2490.0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.Exec("SELECT x FROM t WHERE x >= ? ORDER BY x", 2495.0)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(readAll(t, b)); n != 5 {
			t.Errorf("b rows = %d, want 5", n)
		}
		if n := len(readAll(t, a)); n != 10 {
			t.Errorf("a rows = %d, want 10", n)
		}
		if n := len(query(t, db, "SELECT x FROM t WHERE x >= ? ORDER BY x", 0.0)); n != 2500 {
			t.Errorf("rows = %d, want 2500", n)
		}
	})

	t.Run("AcrossCommit", func(t *testing.T) {
		small, err := db.Exec("SELECT x FROM t WHERE x < 10 ORDER BY x")
		if err != nil {
			t.Fatal(err)
		}
		big, err := db.Exec("SELECT x FROM t ORDER BY x")
		if err != nil {
			t.Fatal(err)
		}
		ret, err := db.Exec("INSERT INTO t VALUES (-1), (-2) RETURNING x")
		if err != nil {
			t.Fatal(err)
		}
		// A writer is read to its end at the commit, readers ahead.
		mustCommit(t, db)
		if got := readAll(t, ret); len(got) != 2 {
			t.Errorf("RETURNING rows after commit = %v", got)
		}
		if got := readAll(t, small); len(got) != 10 {
			t.Errorf("small rows after commit = %d, want 10", len(got))
		}
		got := readAll(t, big)
		if len(got) != 2500 || got[0][0] != int64(0) || got[2499][0] != int64(2499) {
			t.Errorf("big rows after commit = %d", len(got))
		}
		mustCommit(t, db)
	})

	t.Run("DeleteAllEndsCursors", func(t *testing.T) {
		c, err := db.Exec("SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteAll(); err != nil {
			t.Fatalf("DeleteAll with an open cursor: %v", err)
		}
		if _, ok, err := c.Next(); ok || err != nil {
			t.Errorf("Next after DeleteAll = %v, %v; want the end", ok, err)
		}
		if err := db.Rollback(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("RollbackEndsCursors", func(t *testing.T) {
		c, err := db.Exec("SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Rollback(); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := c.Next(); ok {
			t.Errorf("Next after Rollback returned a row")
		}
	})

	t.Run("Released", func(t *testing.T) {
		kept, err := db.Exec("SELECT x FROM t ORDER BY x")
		if err != nil {
			t.Fatal(err)
		}
		dropped, err := db.Exec("SELECT x FROM t ORDER BY x")
		if err != nil {
			t.Fatal(err)
		}
		dropped.Release()
		mustCommit(t, db)
		if n := db.OpenCursors(); n != 1 {
			t.Errorf("OpenCursors after commit = %d, want 1 (the kept one)", n)
		}
		if got := len(readAll(t, kept)); got != 2502 {
			t.Errorf("kept rows = %d", got)
		}
		if n := db.OpenCursors(); n != 0 {
			t.Errorf("OpenCursors = %d, want 0", n)
		}
		mustCommit(t, db)
	})

	t.Run("Close", func(t *testing.T) {
		c, err := db.Exec("SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if _, ok, err := c.Next(); ok || err != nil {
			t.Errorf("Next after Close = %v, %v", ok, err)
		}
		mustCommit(t, db)
	})
}

func TestDB_Exec_Limits(t *testing.T) {
	db := openDB(t, storage.Options{})
	long := "SELECT '" + strings.Repeat("x", 100_001) + "'"
	if got := execErr(db, long); got != "statement too long: SQLITE_TOOBIG" {
		t.Errorf("long statement: %q", got)
	}
	params := "SELECT " + strings.Repeat("?, ", 100) + "?"
	args := make([]any, 101)
	if got := execErr(db, params, args...); !strings.HasPrefix(got, "too many SQL variables") {
		t.Errorf("101 parameters: %q", got)
	}
	deep := "SELECT " + strings.Repeat("1 + ", 150) + "1"
	if got := execErr(db, deep); !strings.Contains(got, "Expression tree is too large (maximum depth 100)") {
		t.Errorf("deep expression: %q", got)
	}
	cols := "SELECT " + strings.TrimSuffix(strings.Repeat("1, ", 101), ", ")
	if got := execErr(db, cols); !strings.HasPrefix(got, "too many columns in result set") {
		t.Errorf("101 columns: %q", got)
	}
	if got := execErr(db, "SELECT 'a' LIKE ?", strings.Repeat("a", 51)); !strings.HasPrefix(got, "LIKE or GLOB pattern too complex") {
		t.Errorf("long LIKE pattern: %q", got)
	}
	if got := execErr(db, "SELECT ?", strings.Repeat("x", 8_388_643)); !strings.HasPrefix(got, "string or blob too big") {
		t.Errorf("big string: %q", got)
	}
}

func TestDB_Exec_Timeout(t *testing.T) {
	db := openDB(t, storage.Options{SQLTimeout: 100 * time.Millisecond})
	mustPut(t, db, "k", "v")
	start := time.Now()
	got := execErr(db, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c")
	if got != "interrupted: SQLITE_INTERRUPT" {
		t.Errorf("endless query: %q", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("interrupted after %v", d)
	}
	// cellhost's own statements still run; the next turn gets a new budget.
	if got := string(mustGet(t, db, "k")); got != "v" {
		t.Errorf("k = %q", got)
	}
	mustCommit(t, db)
	if got := query(t, db, "SELECT 1"); len(got) != 1 {
		t.Errorf("SELECT 1 in the next turn: %v", got)
	}
	mustCommit(t, db)
}

func TestDB_Exec_RollbackConflict(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE t (x PRIMARY KEY)")
	mustCommit(t, db)
	query(t, db, "INSERT INTO t VALUES (1)")
	// ON CONFLICT ROLLBACK ends SQLite's transaction: the turn's writes are
	// lost and the transaction reports it.
	if got := execErr(db, "INSERT OR ROLLBACK INTO t VALUES (1)"); !strings.HasPrefix(got, "UNIQUE constraint failed") {
		t.Errorf("error = %q", got)
	}
	if err := db.Commit(); !errors.Is(err, storage.ErrTxAborted) {
		t.Errorf("Commit = %v, want ErrTxAborted", err)
	}
	if got := query(t, db, "SELECT count(*) FROM t"); got[0][0] != int64(0) {
		t.Errorf("count = %v, want 0", got[0][0])
	}
	mustCommit(t, db)
}

func TestDB_Exec_DeferredForeignKey(t *testing.T) {
	db := openDB(t, storage.Options{})
	mustPut(t, db, "k", "v")
	mustCommit(t, db)
	query(t, db, "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (pid REFERENCES p (id)); PRAGMA defer_foreign_keys = ON")
	query(t, db, "INSERT INTO c VALUES (1)")
	mustPut(t, db, "lost", "1")
	err := db.Commit()
	if err == nil || !strings.Contains(err.Error(), "FOREIGN KEY constraint failed") {
		t.Fatalf("Commit = %v, want a foreign key failure", err)
	}
	if db.InTx() {
		t.Errorf("InTx after the failed Commit")
	}
	if got := mustGet(t, db, "lost"); got != nil {
		t.Errorf("lost = %q, want nothing", got)
	}
	if got := string(mustGet(t, db, "k")); got != "v" {
		t.Errorf("k = %q", got)
	}
	if got := execErr(db, "SELECT * FROM c"); got != "no such table: c: SQLITE_ERROR" {
		t.Errorf("table of the failed transaction: %q", got)
	}
	mustCommit(t, db)
}

func TestDB_Exec_HidesInternalTables(t *testing.T) {
	db := openDB(t, storage.Options{ActorName: "x"})
	names := func(q string) []string {
		t.Helper()
		var out []string
		for _, r := range query(t, db, q) {
			out = append(out, r[0].(string))
		}
		sort.Strings(out)
		return out
	}
	if got := names("SELECT name FROM sqlite_master"); len(got) != 0 {
		t.Errorf("fresh database lists %q", got)
	}
	mustPut(t, db, "k", "v")
	if err := db.SetAlarm(1); err != nil {
		t.Fatal(err)
	}
	query(t, db, "CREATE TABLE things (x)")
	want := []string{"_cf_KV", "_cf_METADATA", "things"}
	for _, q := range []string{
		"SELECT name FROM sqlite_master",
		"SELECT name FROM SQLITE_SCHEMA",
		"select name from sqlite_master where type = 'table'",
		"WITH x AS (SELECT 1) SELECT name FROM sqlite_master, x",
		"WITH RECURSIVE x(n) AS (SELECT 1) SELECT name FROM sqlite_schema, x",
		"/* c */ SELECT name FROM sqlite_master",
	} {
		if got := names(q); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", q, got, want)
		}
	}
	var tables []string
	for _, r := range query(t, db, "PRAGMA table_list") {
		tables = append(tables, r[0].(string)+"."+r[1].(string))
	}
	sort.Strings(tables)
	if want := []string{"main._cf_KV", "main._cf_METADATA", "main.sqlite_schema", "main.things", "temp.sqlite_temp_schema"}; !reflect.DeepEqual(tables, want) {
		t.Errorf("table_list = %q, want %q", tables, want)
	}
	// The cached statement follows the tables as they come and go.
	if err := db.DeleteAlarm(); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if got := names("SELECT name FROM sqlite_master"); len(got) != 0 {
		t.Errorf("after DeleteAll: %q", got)
	}
	mustCommit(t, db)
}

func TestDB_Transactions(t *testing.T) {
	db := openDB(t, storage.Options{})
	query(t, db, "CREATE TABLE log (what TEXT)")
	log := func(s string) { query(t, db, "INSERT INTO log VALUES (?)", s) }
	logged := func() []string {
		var out []string
		for _, r := range query(t, db, "SELECT what FROM log ORDER BY rowid") {
			out = append(out, r[0].(string))
		}
		return out
	}
	log("before")
	d1, err := db.BeginTransaction()
	if err != nil || d1 != 1 {
		t.Fatalf("BeginTransaction = %d, %v", d1, err)
	}
	log("outer")
	d2, err := db.BeginTransaction()
	if err != nil || d2 != 2 {
		t.Fatalf("BeginTransaction = %d, %v", d2, err)
	}
	log("inner")
	mustPut(t, db, "inner", "1")
	if err := db.RollbackTransaction(d2); err != nil {
		t.Fatal(err)
	}
	if got := mustGet(t, db, "inner"); got != nil {
		t.Errorf("inner key after rollback = %q", got)
	}
	// Commit leaves the implicit transaction open while d1 is.
	mustCommit(t, db)
	if !db.InTx() || db.TransactionDepth() != 1 {
		t.Errorf("InTx = %v, depth = %d after Commit inside a transaction", db.InTx(), db.TransactionDepth())
	}
	log("outer-after")
	if err := db.CommitTransaction(d1); err != nil {
		t.Fatal(err)
	}
	if err := db.CommitTransaction(d1); !errors.Is(err, storage.ErrNoTransaction) {
		t.Errorf("second CommitTransaction = %v, want ErrNoTransaction", err)
	}
	mustCommit(t, db)
	if got, want := logged(), []string{"before", "outer", "outer-after"}; !reflect.DeepEqual(got, want) {
		t.Errorf("log = %q, want %q", got, want)
	}
	// Rolling back an outer transaction ends the inner ones too.
	d1, _ = db.BeginTransaction()
	db.BeginTransaction()
	log("gone")
	if err := db.RollbackTransaction(d1); err != nil {
		t.Fatal(err)
	}
	if db.TransactionDepth() != 0 {
		t.Errorf("depth = %d after rolling back the outermost", db.TransactionDepth())
	}
	mustCommit(t, db)
	if got := logged(); len(got) != 3 {
		t.Errorf("log = %q", got)
	}
	// Rollback of the implicit transaction ends them all.
	db.BeginTransaction()
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	if db.TransactionDepth() != 0 {
		t.Errorf("depth = %d after Rollback", db.TransactionDepth())
	}
	// A table created in a rolled-back transaction is gone for KV too.
	db2 := openDB(t, storage.Options{})
	d, _ := db2.BeginTransaction()
	mustPut(t, db2, "a", "1")
	db2.RollbackTransaction(d)
	mustPut(t, db2, "b", "2")
	mustCommit(t, db2)
	if got := string(mustGet(t, db2, "b")); got != "2" {
		t.Errorf("b = %q", got)
	}
}

func TestDB_Alarm(t *testing.T) {
	type note struct {
		a  storage.Alarm
		ok bool
	}
	var notes []note
	db := openDB(t, storage.Options{OnAlarm: func(a storage.Alarm, ok bool) { notes = append(notes, note{a, ok}) }})
	if _, ok, err := db.GetAlarm(); ok || err != nil {
		t.Fatalf("GetAlarm on a fresh database = %v, %v", ok, err)
	}
	mustCommit(t, db)
	if len(notes) != 0 {
		t.Errorf("OnAlarm without a change: %v", notes)
	}
	if err := db.SetAlarm(1000); err != nil {
		t.Fatal(err)
	}
	a, ok, err := db.GetAlarm()
	if err != nil || !ok || a.AtMs != 1000 || a.Retry != 0 || a.CountedRetry != 0 || a.Generation == 0 {
		t.Fatalf("GetAlarm = %+v, %v, %v", a, ok, err)
	}
	mustCommit(t, db)
	if len(notes) != 1 || !notes[0].ok || notes[0].a != a {
		t.Errorf("OnAlarm after SetAlarm: %+v", notes)
	}
	// A failed attempt is rescheduled, unless the alarm changed meanwhile.
	if ok, err := db.UpdateAlarm(a.Generation, storage.Alarm{AtMs: 3000, Retry: 1, CountedRetry: 1, Generation: a.Generation}); !ok || err != nil {
		t.Errorf("UpdateAlarm = %v, %v", ok, err)
	}
	if ok, _ := db.UpdateAlarm(a.Generation+1, storage.Alarm{AtMs: 9}); ok {
		t.Errorf("UpdateAlarm with another generation succeeded")
	}
	b, _, _ := db.GetAlarm()
	if b.AtMs != 3000 || b.Retry != 1 || b.CountedRetry != 1 {
		t.Errorf("after UpdateAlarm: %+v", b)
	}
	// SetAlarm resets the counters and changes the generation.
	if err := db.SetAlarm(2000); err != nil {
		t.Fatal(err)
	}
	c, _, _ := db.GetAlarm()
	if c.Retry != 0 || c.CountedRetry != 0 || c.Generation == a.Generation {
		t.Errorf("after SetAlarm: %+v (first generation %d)", c, a.Generation)
	}
	if ok, _ := db.DeleteAlarmIf(a.Generation); ok {
		t.Errorf("DeleteAlarmIf with the old generation deleted the new alarm")
	}
	if ok, _ := db.DeleteAlarmIf(c.Generation); !ok {
		t.Errorf("DeleteAlarmIf with the current generation did not delete")
	}
	mustCommit(t, db)
	if last := notes[len(notes)-1]; last.ok {
		t.Errorf("OnAlarm after delete: %+v", last)
	}
	// A rolled-back change is not reported as the alarm.
	notes = nil
	if err := db.SetAlarm(5); err != nil {
		t.Fatal(err)
	}
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db)
	if _, ok, _ := db.GetAlarm(); ok {
		t.Errorf("alarm after rollback")
	}
	if len(notes) != 0 {
		t.Errorf("OnAlarm after a rollback: %+v", notes)
	}
	mustCommit(t, db)
}

// FuzzExec runs arbitrary SQL as the application: it never panics or hangs,
// never reaches cellhost's own tables, and leaves the database usable.
func FuzzExec(f *testing.F) {
	for _, q := range []string{
		"SELECT 1",
		"CREATE TABLE t (x); INSERT INTO t VALUES (?)",
		"SELECT * FROM _cf_KV",
		"DELETE FROM _cf_KV",
		"UPDATE _cf_KV SET v = 'x'",
		"DROP TABLE _cf_KV",
		"ALTER TABLE _cf_KV RENAME TO kv",
		"CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM _cf_KV; END",
		"CREATE VIEW v AS SELECT * FROM _cf_KV; SELECT * FROM v",
		"BEGIN; DELETE FROM _cf_KV; COMMIT",
		"ATTACH 'x.db' AS x",
		"PRAGMA writable_schema = 1",
		"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
		"INSERT OR ROLLBACK INTO t VALUES (1)",
		"SELECT name FROM sqlite_master",
		"VACUUM INTO 'x'",
		"SELECT ?1, ?2, :a, @b, $c",
		"-- comment\n/* c */ SELECT 1;;",
		"SELECT 'unterminated",
	} {
		f.Add(q, "arg")
	}
	f.Fuzz(func(t *testing.T, q, arg string) {
		db := openDB(t, storage.Options{SQLTimeout: 20 * time.Millisecond})
		mustPut(t, db, "k", "v")
		mustCommit(t, db)
		for _, args := range [][]any{nil, {arg}, {1.5, []byte(arg), nil}} {
			c, err := db.Exec(q, args...)
			if err == nil {
				for i := 0; i < 100; i++ {
					if _, ok, err := c.Next(); !ok || err != nil {
						break
					}
				}
				c.Close()
			}
			// A commit may fail (a deferred foreign key violation, a
			// transaction SQLite rolled back): the host resets the object.
			// The database stays usable either way.
			_ = db.Commit()
		}
		got, err := db.Get([]string{"k"})
		if err != nil {
			t.Fatalf("Get after %q: %v", q, err)
		}
		if string(got[0]) != "v" {
			t.Fatalf("after %q: k = %q, want v", q, got[0])
		}
		entries, err := db.List(storage.ListOptions{})
		if err != nil || len(entries) != 1 {
			t.Fatalf("after %q: List = %v, %v", q, entries, err)
		}
		mustCommit(t, db)
	})
}

// FuzzSQLValues checks the value mapping both ways: what is bound reads
// back the same, directly and through a table.
func FuzzSQLValues(f *testing.F) {
	f.Add(byte(0), int64(0), 0.0, "", []byte(nil))
	f.Add(byte(1), int64(math.MaxInt64), math.Inf(-1), "héllo\x00", []byte{0, 255})
	f.Add(byte(2), int64(-1), math.NaN(), "\xff\xfe", []byte{})
	f.Add(byte(3), int64(1<<53+1), 1.5, "12", []byte("x"))
	f.Add(byte(2), int64(0), math.Copysign(0, -1), "", []byte(nil)) // -0.0 is +0 in Go
	f.Fuzz(func(t *testing.T, kind byte, i int64, fl float64, s string, b []byte) {
		db := openDB(t, storage.Options{})
		var v, want any
		switch kind % 5 {
		case 0:
			v, want = nil, nil
		case 1:
			v, want = i, i
		case 2:
			v, want = fl, fl
			if math.IsNaN(fl) {
				want = nil
			}
		case 3:
			v, want = s, s
		case 4:
			if b == nil {
				b = []byte{}
			}
			v, want = b, b
		}
		same := func(got any) bool {
			if g, ok := got.(float64); ok {
				w, ok := want.(float64)
				return ok && (g == w && math.Signbit(g) == math.Signbit(w) || math.IsNaN(g) && math.IsNaN(w))
			}
			return reflect.DeepEqual(got, want)
		}
		if len(s) > 2_000_000 || len(b) > 2_000_000 {
			t.Skip()
		}
		got := query(t, db, "SELECT ?", v)
		if !same(got[0][0]) {
			t.Fatalf("SELECT ? with %#v = %#v, want %#v", v, got[0][0], want)
		}
		query(t, db, "CREATE TABLE IF NOT EXISTS t (a)")
		query(t, db, "INSERT INTO t VALUES (?)", v)
		got = query(t, db, "SELECT a FROM t")
		if !same(got[0][0]) {
			t.Fatalf("stored %#v reads %#v, want %#v", v, got[0][0], want)
		}
		mustCommit(t, db)
	})
}

func TestDB_KV_TooBig(t *testing.T) {
	db := openDB(t, storage.Options{})
	mustPut(t, db, "before", "1")
	big := make([]byte, 8_388_643)
	const want = "string or blob too big: SQLITE_TOOBIG"
	// workerd's row (key, value) may be 8 388 642 bytes: with a one-byte
	// key the record's header takes 6 (testjs/cases/storage-value-size).
	if err := db.Put([]string{"k"}, [][]byte{big[:8_388_635]}); err != nil {
		t.Errorf("Put of the largest value: %v", err)
	}
	if err := db.Put([]string{"k"}, [][]byte{big[:8_388_636]}); err == nil || err.Error() != want {
		t.Errorf("Put of one byte more: %v, want %q", err, want)
	}
	if _, err := db.Delete([]string{"k"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Put([]string{"big"}, [][]byte{big}); err == nil || err.Error() != want {
		t.Errorf("Put of a big value: %v, want %q", err, want)
	}
	// A batch with one big value writes none of its keys.
	if err := db.Put([]string{"a", "big", "c"}, [][]byte{{1}, big, {3}}); err == nil || err.Error() != want {
		t.Errorf("batch Put: %v, want %q", err, want)
	}
	if _, err := db.Get([]string{string(big)}); err == nil || err.Error() != want {
		t.Errorf("Get of a big key: %v, want %q", err, want)
	}
	if _, err := db.Delete([]string{string(big)}); err == nil || err.Error() != want {
		t.Errorf("Delete of a big key: %v, want %q", err, want)
	}
	// The transaction goes on.
	mustPut(t, db, "after", "2")
	mustCommit(t, db)
	entries, err := db.List(storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	if want := []string{"after", "before"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
	mustCommit(t, db)
}
