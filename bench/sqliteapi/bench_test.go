// Package sqliteapi measures the CPU per statement of the two ways to
// modernc.org/sqlite's C API: the raw path storage takes (internal/sqlitex)
// and zombiezen.com/go/sqlite's public API over the same engine. It is a
// module of its own so that the main module does not depend on zombiezen:
//
//	cd bench/sqliteapi && go test -run XXX -bench . -benchtime 20000x -count 6
//
// Compare cpu-ns/op (the thread's CPU time; wall time is noise on a shared
// machine).
package sqliteapi

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"runtime"

	"golang.org/x/sys/unix"
	"testing"
	"unsafe"

	"modernc.org/libc"
	_ "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
	zz "zombiezen.com/go/sqlite"
)

func handle(dc any) (*libc.TLS, uintptr, error) {
	s := reflect.ValueOf(dc).Elem()
	return (*libc.TLS)(s.FieldByName("tls").UnsafePointer()), uintptr(s.FieldByName("db").Uint()), nil
}

func peekPtr(p uintptr) uintptr { return *(*uintptr)(*(*unsafe.Pointer)(unsafe.Pointer(&p))) }

func cmem(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}

// cpuPerOp reports the benchmark goroutine's thread CPU time per op
// (cpu-ns/op): wall time is noise on a shared machine.
func cpuPerOp(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		b.ReportMetric(float64(threadCPU()-start)/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}

func threadCPU() int64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_THREAD, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

const schema = `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score REAL)`

// raw: the path storage takes today: modernc's database/sql driver for the
// connection, then the C API through the handle read by reflection.
func openRaw(b *testing.B) (*libc.TLS, uintptr, func()) {
	db, err := sql.Open("sqlite", "file:"+filepath.Join(b.TempDir(), "r.db")+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), schema); err != nil {
		b.Fatal(err)
	}
	var tls *libc.TLS
	var h uintptr
	conn.Raw(func(dc any) error { tls, h, err = handle(dc); return err })
	if err != nil {
		b.Fatal(err)
	}
	return tls, h, func() { conn.Close(); db.Close() }
}

func rawPrep(b *testing.B, tls *libc.TLS, h uintptr, q string) uintptr {
	cq, _ := libc.CString(q)
	_ = tls
	pp := libc.Xmalloc(tls, 8)
	if rc := sqlite3.Xsqlite3_prepare_v3(tls, h, cq, -1, sqlite3.SQLITE_PREPARE_PERSISTENT, pp, 0); rc != 0 {
		b.Fatal(rc)
	}
	return peekPtr(pp)
}

func rawExec(tls *libc.TLS, stmt uintptr) {
	sqlite3.Xsqlite3_step(tls, stmt)
	sqlite3.Xsqlite3_reset(tls, stmt)
}

func openZZ(b *testing.B) *zz.Conn {
	c, err := zz.OpenConn(filepath.Join(b.TempDir(), "z.db"), zz.OpenReadWrite|zz.OpenCreate|zz.OpenWAL)
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{"PRAGMA synchronous=NORMAL", schema} {
		s, _, err := c.PrepareTransient(q)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Step(); err != nil {
			b.Fatal(err)
		}
		s.Finalize()
	}
	return c
}

func BenchmarkInsert(b *testing.B) {
	b.Run("raw", func(b *testing.B) {
		tls, h, done := openRaw(b)
		defer done()
		begin, commit := rawPrep(b, tls, h, "BEGIN"), rawPrep(b, tls, h, "COMMIT")
		ins := rawPrep(b, tls, h, "INSERT INTO items (name, score) VALUES (?, ?)")
		name, _ := libc.CString("item")
		b.ReportAllocs()
		defer cpuPerOp(b)()
		i := 0
		for b.Loop() {
			i++
			rawExec(tls, begin)
			sqlite3.Xsqlite3_bind_text(tls, ins, 1, name, 4, 0)
			sqlite3.Xsqlite3_bind_double(tls, ins, 2, float64(i))
			if rc := sqlite3.Xsqlite3_step(tls, ins); rc != sqlite3.SQLITE_DONE {
				b.Fatal(rc)
			}
			sqlite3.Xsqlite3_reset(tls, ins)
			rawExec(tls, commit)
		}
	})
	b.Run("zombiezen", func(b *testing.B) {
		c := openZZ(b)
		defer c.Close()
		b.ReportAllocs()
		defer cpuPerOp(b)()
		i := 0
		for b.Loop() {
			i++
			begin := c.Prep("BEGIN")
			begin.Step()
			begin.Reset()
			ins := c.Prep("INSERT INTO items (name, score) VALUES (?, ?)")
			ins.BindText(1, "item")
			ins.BindFloat(2, float64(i))
			if _, err := ins.Step(); err != nil {
				b.Fatal(err)
			}
			ins.Reset()
			commit := c.Prep("COMMIT")
			commit.Step()
			commit.Reset()
		}
	})
}

func BenchmarkSelect(b *testing.B) {
	const rows = 1000
	b.Run("raw", func(b *testing.B) {
		tls, h, done := openRaw(b)
		defer done()
		ins := rawPrep(b, tls, h, "INSERT INTO items (id, name, score) VALUES (?, 'item', ?)")
		for i := range rows {
			sqlite3.Xsqlite3_bind_int64(tls, ins, 1, int64(i))
			sqlite3.Xsqlite3_bind_double(tls, ins, 2, float64(i))
			rawExec(tls, ins)
		}
		begin, commit := rawPrep(b, tls, h, "BEGIN"), rawPrep(b, tls, h, "COMMIT")
		sel := rawPrep(b, tls, h, "SELECT id, name, score FROM items WHERE id = ?")
		b.ReportAllocs()
		defer cpuPerOp(b)()
		i := 0
		for b.Loop() {
			i++
			rawExec(tls, begin)
			sqlite3.Xsqlite3_bind_int64(tls, sel, 1, int64(i%rows))
			if rc := sqlite3.Xsqlite3_step(tls, sel); rc != sqlite3.SQLITE_ROW {
				b.Fatal(rc)
			}
			_ = sqlite3.Xsqlite3_column_int64(tls, sel, 0)
			p := sqlite3.Xsqlite3_column_text(tls, sel, 1)
			n := sqlite3.Xsqlite3_column_bytes(tls, sel, 1)
			_ = string(cmem(p, int(n)))
			_ = sqlite3.Xsqlite3_column_double(tls, sel, 2)
			sqlite3.Xsqlite3_reset(tls, sel)
			rawExec(tls, commit)
		}
	})
	b.Run("zombiezen", func(b *testing.B) {
		c := openZZ(b)
		defer c.Close()
		for i := range rows {
			ins := c.Prep("INSERT INTO items (id, name, score) VALUES (?, 'item', ?)")
			ins.BindInt64(1, int64(i))
			ins.BindFloat(2, float64(i))
			ins.Step()
			ins.Reset()
		}
		b.ReportAllocs()
		defer cpuPerOp(b)()
		i := 0
		for b.Loop() {
			i++
			begin := c.Prep("BEGIN")
			begin.Step()
			begin.Reset()
			sel := c.Prep("SELECT id, name, score FROM items WHERE id = ?")
			sel.BindInt64(1, int64(i%rows))
			if ok, err := sel.Step(); err != nil || !ok {
				b.Fatal(err)
			}
			_ = sel.ColumnInt64(0)
			_ = sel.ColumnText(1)
			_ = sel.ColumnFloat(2)
			sel.Reset()
			commit := c.Prep("COMMIT")
			commit.Step()
			commit.Reset()
		}
	})
}
