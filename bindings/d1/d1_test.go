package d1_test

import (
	"bytes"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/storage"
)

// serve runs req on db as the host does (Serve in a turn, then the turn's
// commit) and decodes the answer.
func serve(t *testing.T, db *storage.DB, req *d1.Request) *d1.Response {
	t.Helper()
	b, err := d1.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := d1.Serve(db, b)
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	res, err := d1.DecodeResponse(out)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	return res
}

func openDB(t *testing.T) *storage.DB {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "db.sqlite"), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func script(s string) *d1.Request { return &d1.Request{Exec: &s} }

func TestServe_BatchIsAtomic(t *testing.T) {
	db := openDB(t)
	if r := serve(t, db, script("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)\n\nINSERT INTO t VALUES ('a', 1)")); r.Err() != nil || *r.Count != 2 {
		t.Fatalf("exec = %+v", r)
	}
	r := serve(t, db, &d1.Request{Batch: []d1.Statement{{SQL: "INSERT INTO t VALUES ('b', 2)"}, {SQL: "INSERT INTO t VALUES ('a', 3)"}}})
	if err := r.Err(); err == nil || err.Error() != "D1_ERROR: UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)" {
		t.Errorf("batch error = %v", err)
	}
	r = serve(t, db, &d1.Request{Batch: []d1.Statement{{SQL: "SELECT k, v FROM t WHERE v >= ? ORDER BY k", Params: []any{1}}}})
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got := r.Results[0]; len(got.Rows) != 1 || got.Rows[0][0] != "a" || got.Rows[0][1] != int64(1) || got.Columns[1] != "v" {
		t.Errorf("after a failed batch: %v %v, want only a=1", got.Columns, got.Rows)
	}
	r = serve(t, db, &d1.Request{Batch: []d1.Statement{{SQL: "UPDATE t SET v = v + 1"}}})
	if w := r.Results[0]; r.Err() != nil || w.Changes != 1 || !w.ChangedDB {
		t.Errorf("UPDATE: %+v, %v", w, r.Err())
	}
}

// TestServe_ExecKeepsLinesBeforeAFailure: exec applies line by line; the
// lines before a failing one stay, as on workerd's local D1.
func TestServe_ExecKeepsLinesBeforeAFailure(t *testing.T) {
	db := openDB(t)
	r := serve(t, db, script("CREATE TABLE t (k TEXT PRIMARY KEY)\nINSERT INTO t VALUES ('a')\nINSERT INTO t VALUES ('a')"))
	if err := r.Err(); err == nil || err.Error() != "D1_EXEC_ERROR: Error in line 1: CREATE TABLE t (k TEXT PRIMARY KEY): UNIQUE constraint failed: t.k: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_PRIMARYKEY)" {
		t.Errorf("exec error = %v", err)
	}
	r = serve(t, db, &d1.Request{Batch: []d1.Statement{{SQL: "SELECT count(*) FROM t"}}})
	if r.Err() != nil || r.Results[0].Rows[0][0] != int64(1) {
		t.Errorf("rows after the failed exec: %+v %v, want 1", r.Results, r.Err())
	}
}

// TestServe_Wrote: a read-only request does not ask for a durable commit.
func TestServe_Wrote(t *testing.T) {
	db := openDB(t)
	for _, c := range []struct {
		req  *d1.Request
		want bool
	}{
		{script("CREATE TABLE t (v)"), true},
		{&d1.Request{Batch: []d1.Statement{{SQL: "SELECT * FROM t"}}}, false},
		{&d1.Request{Batch: []d1.Statement{{SQL: "SELECT 1"}, {SQL: "INSERT INTO t VALUES (1)"}}}, true},
		{script("SELECT 1\nSELECT 2"), false},
	} {
		b, _ := d1.EncodeRequest(c.req)
		if _, wrote := d1.Serve(db, b); wrote != c.want {
			t.Errorf("%+v: wrote = %v, want %v", c.req, wrote, c.want)
		}
		if err := db.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWire_RoundTrip(t *testing.T) {
	req := &d1.Request{Batch: []d1.Statement{{SQL: "SELECT ?, ?, ?, ?, ?", Params: []any{nil, int64(-1 << 62), 1.5, "x\u00e9", []byte{0, 255}}}}}
	b, err := d1.EncodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d1.DecodeRequest(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, req) {
		t.Errorf("request round trip: %#v, want %#v", got, req)
	}
	res := &d1.Response{Results: []*d1.Result{{Columns: []string{"a", "b"}, Rows: [][]any{{math.Inf(-1), []byte{}}, {nil, "s"}}, Changes: 2, LastRowID: 7, RowsRead: 3, RowsWritten: 4, ChangedDB: true, SizeAfter: 8192}}, Duration: 0.25}
	b, err = d1.EncodeResponse(res)
	if err != nil {
		t.Fatal(err)
	}
	back, err := d1.DecodeResponse(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, res) {
		t.Errorf("response round trip: %#v, want %#v", back.Results[0], res.Results[0])
	}
	for _, bad := range []string{
		`{}`, `{"batch":[]}`, `{"exec":"x","batch":[{"sql":"","params":[]}]}`, `{"exec":"x","more":1}`,
		`{"batch":[{"sql":"?","params":[{"i":"1","s":"x"}]}]}`, `{"batch":[{"sql":"?","params":[{"f":"NaN"}]}]}`,
		`{"batch":[{"sql":"?","params":[{"b":"!"}]}]}`, `{"exec":"x"} {}`,
	} {
		if _, err := d1.DecodeRequest([]byte(bad)); err == nil {
			t.Errorf("DecodeRequest(%s) accepted it", bad)
		}
	}
	for _, bad := range []string{
		`{"duration":0}`, `{"error":"e","count":1,"duration":0}`, `{"results":[{"columns":["a"],"rows":[[]],"changes":0,"last_row_id":0,"rows_read":0,"rows_written":0,"changed_db":false,"size_after":0}],"duration":0}`,
		`{"count":1,"duration":-1}`,
	} {
		if _, err := d1.DecodeResponse([]byte(bad)); err == nil {
			t.Errorf("DecodeResponse(%s) accepted it", bad)
		}
	}
}

// FuzzDecode: the decoders of the bytes between nodes never panic, and
// what they accept encodes back to bytes they decode to the same value.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`{"batch":[{"sql":"SELECT ?","params":[null,{"i":"1"},{"f":"-Inf"},{"s":""},{"b":"AAE="}]}]}`,
		`{"exec":"SELECT 1\nSELECT 2"}`,
		`{"results":[{"columns":["a"],"rows":[[{"i":"9"}]],"changes":0,"last_row_id":0,"rows_read":1,"rows_written":0,"changed_db":false,"size_after":4096}],"duration":0.1}`,
		`{"count":2,"duration":0}`, `{"error":"D1_ERROR: x","duration":0}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if req, err := d1.DecodeRequest(b); err == nil {
			out, err := d1.EncodeRequest(req)
			if err != nil {
				t.Fatalf("re-encode %#v: %v", req, err)
			}
			again, err := d1.DecodeRequest(out)
			if err != nil || !reflect.DeepEqual(again, req) {
				t.Fatalf("round trip of %s: %#v, %v", out, again, err)
			}
		}
		if res, err := d1.DecodeResponse(b); err == nil {
			out, err := d1.EncodeResponse(res)
			if err != nil {
				t.Fatalf("re-encode %#v: %v", res, err)
			}
			again, err := d1.DecodeResponse(out)
			if err != nil || !bytes.Equal(mustEncode(t, again), out) {
				t.Fatalf("round trip of %s: %v", out, err)
			}
		}
	})
}

func mustEncode(t *testing.T, r *d1.Response) []byte {
	b, err := d1.EncodeResponse(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
