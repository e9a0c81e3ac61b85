package vitest

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestSplitSQL pins the statement splitter readD1Migrations uses.
func TestSplitSQL(t *testing.T) {
	got := SplitSQL("-- a comment; not a statement\nCREATE TABLE t (a TEXT DEFAULT ';'); /* x; y */ INSERT INTO \"we;ird\" VALUES ('it''s;'), ([a;b]);\n\n;  ")
	want := []string{"CREATE TABLE t (a TEXT DEFAULT ';')", "INSERT INTO \"we;ird\" VALUES ('it''s;'), ([a;b])"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestLoadConfig_Function evaluates a config whose default export is an
// async function calling readD1Migrations with node:path, as the pool's
// d1 example does, and reads poolOptions.workers from it.
func TestLoadConfig_Function(t *testing.T) {
	c, err := LoadConfig(filepath.Join(examplesDir(t), "d1"), "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Environment != "production" || !c.IsolatedStorage || !c.SingleWorker || len(c.SetupFiles) != 1 {
		t.Fatalf("config: %+v", c)
	}
	m := string(c.Bindings["TEST_MIGRATIONS"])
	want := `[{"name":"0000_initial.sql","queries":["CREATE TABLE users (\n\tusername TEXT PRIMARY KEY,\n\tname TEXT NOT NULL,\n\temail TEXT NOT NULL\n)","CREATE TABLE posts (\n\tslug TEXT PRIMARY KEY,\n\tauthor TEXT NOT NULL,\n\tbody TEXT NOT NULL,\n\tFOREIGN KEY (author) REFERENCES users(username)\n)"]},{"name":"0001_admin.sql","queries":["INSERT INTO users (username, name, email) VALUES ('admin', 'Ada Min', 'admin@example.com')"]}]`
	if m != want || len(c.Bindings) != 1 {
		t.Fatalf("bindings: %v\nwant TEST_MIGRATIONS %s", c.Bindings, want)
	}
}

// FuzzSplitSQL: any script splits without a panic into trimmed, non-empty
// statements.
func FuzzSplitSQL(f *testing.F) {
	for _, s := range []string{"SELECT 1; SELECT 2", "'a;b' -- c\n; /* d; */ [e;f]", "\"unterminated", "/*", "--", "`x``y`;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, st := range SplitSQL(s) {
			if st == "" || strings.TrimSpace(st) != st {
				t.Fatalf("statement %q of %q", st, s)
			}
		}
	})
}
