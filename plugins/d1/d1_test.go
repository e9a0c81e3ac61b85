package d1_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cellhost/cellhost/plugins/d1"
)

func TestDatabase_BatchIsAtomic(t *testing.T) {
	ctx := context.Background()
	db, err := d1.Open(filepath.Join(t.TempDir(), "db.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.Exec(ctx, "CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)\n\nINSERT INTO t VALUES ('a', 1)"); err != nil || n != 2 {
		t.Fatalf("Exec = %d, %v", n, err)
	}
	_, err = db.Batch(ctx, []d1.Statement{{SQL: "INSERT INTO t VALUES ('b', 2)"}, {SQL: "INSERT INTO t VALUES ('a', 3)"}})
	if err == nil || err.Error() != "D1_ERROR: UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)" {
		t.Errorf("Batch error = %v", err)
	}
	r, err := db.Query(ctx, d1.Statement{SQL: "SELECT k, v FROM t WHERE v >= ? ORDER BY k", Params: []any{int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) != 1 || r.Rows[0][0] != "a" || r.Rows[0][1] != int64(1) || r.Columns[1] != "v" {
		t.Errorf("after a failed batch: %v %v, want only a=1", r.Columns, r.Rows)
	}
	w, err := db.Query(ctx, d1.Statement{SQL: "UPDATE t SET v = v + 1"})
	if err != nil || w.Changes != 1 || !w.ChangedDB {
		t.Errorf("UPDATE: %+v, %v", w, err)
	}
}
