package storage_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

// The benchmarks below measure one cell's storage per operation, each next
// to a baseline: plain SQLite (modernc.org/sqlite through database/sql,
// prepared statements, the same pragmas and no fsync, like the cell with
// DeferSync) doing the same work in the same run. Each operation is one
// turn: it commits, as the host commits at the end of every turn. Compare
// ns/op of .../cell with .../sqlite:
//
//	go test -run XXX -bench 'BenchmarkCell' -benchtime 2s ./storage

// openBaseline opens a plain SQLite database with the cell's pragmas.
func openBaseline(b *testing.B) (*sql.Conn, func()) {
	b.Helper()
	path := filepath.Join(b.TempDir(), "raw.sqlite")
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_pragma=cache_size(-512)&_pragma=busy_timeout(5000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return conn, func() { conn.Close(); db.Close() }
}

// baselineTx runs f in BEGIN/COMMIT, as one turn.
type baselineTx struct{ begin, commit *sql.Stmt }

func newBaselineTx(b *testing.B, conn *sql.Conn) baselineTx {
	ctx := context.Background()
	begin, err := conn.PrepareContext(ctx, "BEGIN")
	if err != nil {
		b.Fatal(err)
	}
	commit, err := conn.PrepareContext(ctx, "COMMIT")
	if err != nil {
		b.Fatal(err)
	}
	return baselineTx{begin, commit}
}

func (tx baselineTx) run(b *testing.B, f func() error) {
	if _, err := tx.begin.Exec(); err != nil {
		b.Fatal(err)
	}
	if err := f(); err != nil {
		b.Fatal(err)
	}
	if _, err := tx.commit.Exec(); err != nil {
		b.Fatal(err)
	}
}

func openBenchCell(b *testing.B) *storage.DB {
	return openDB(b, storage.Options{Scope: "Bench:1", DeferSync: true})
}

func BenchmarkCell_KVPut(b *testing.B) {
	value := make([]byte, 100)
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		keys := []string{""}
		values := [][]byte{value}
		i := 0
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			keys[0] = "key" + strconv.Itoa(i%1000)
			i++
			if err := db.Put(keys, values); err != nil {
				b.Fatal(err)
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		ctx := context.Background()
		if _, err := conn.ExecContext(ctx, `CREATE TABLE kv (scope TEXT, k TEXT, v TEXT, PRIMARY KEY (scope, k))`); err != nil {
			b.Fatal(err)
		}
		put, err := conn.PrepareContext(ctx, `INSERT INTO kv (scope, k, v) VALUES (?1, ?2, ?3) ON CONFLICT (scope, k) DO UPDATE SET v = excluded.v`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			k := "key" + strconv.Itoa(i%1000)
			i++
			tx.run(b, func() error { _, err := put.Exec("Bench:1", k, value); return err })
		}
	})
}

func BenchmarkCell_KVGet(b *testing.B) {
	value := make([]byte, 100)
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		for i := range 1000 {
			mustPutB(b, db, "key"+strconv.Itoa(i), value)
		}
		keys := []string{""}
		i := 0
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			keys[0] = "key" + strconv.Itoa(i%1000)
			i++
			got, err := db.Get(keys)
			if err != nil || len(got[0]) != 100 {
				b.Fatal(err)
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		ctx := context.Background()
		if _, err := conn.ExecContext(ctx, `CREATE TABLE kv (scope TEXT, k TEXT, v TEXT, PRIMARY KEY (scope, k))`); err != nil {
			b.Fatal(err)
		}
		for i := range 1000 {
			if _, err := conn.ExecContext(ctx, `INSERT INTO kv VALUES ('Bench:1', ?, ?)`, "key"+strconv.Itoa(i), value); err != nil {
				b.Fatal(err)
			}
		}
		get, err := conn.PrepareContext(ctx, `SELECT v FROM kv WHERE scope = ? AND k = ?`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			k := "key" + strconv.Itoa(i%1000)
			i++
			tx.run(b, func() error {
				var v []byte
				if err := get.QueryRow("Bench:1", k).Scan(&v); err != nil {
					return err
				}
				if len(v) != 100 {
					return fmt.Errorf("len %d", len(v))
				}
				return nil
			})
		}
	})
}

func mustPutB(b *testing.B, db *storage.DB, k string, v []byte) {
	if err := db.Put([]string{k}, [][]byte{v}); err != nil {
		b.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
}

const benchSchema = `CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score REAL)`

func BenchmarkCell_SQLInsert(b *testing.B) {
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		query(b, db, benchSchema)
		b.ReportAllocs()
		defer threadCPU(b)()
		i := 0
		for b.Loop() {
			i++
			c, err := db.Exec(`INSERT INTO items (name, score) VALUES (?, ?)`, "item", float64(i))
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		ctx := context.Background()
		if _, err := conn.ExecContext(ctx, benchSchema); err != nil {
			b.Fatal(err)
		}
		ins, err := conn.PrepareContext(ctx, `INSERT INTO items (name, score) VALUES (?, ?)`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			tx.run(b, func() error { _, err := ins.Exec("item", float64(i)); return err })
		}
	})
}

// BenchmarkCell_SQLSelect reads one row by primary key (3 columns).
func BenchmarkCell_SQLSelect(b *testing.B) {
	const rows = 1000
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		query(b, db, benchSchema)
		for i := range rows {
			query(b, db, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, int64(i), "item"+strconv.Itoa(i), float64(i))
		}
		if err := db.Commit(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		defer threadCPU(b)()
		i := 0
		for b.Loop() {
			i++
			c, err := db.Exec(`SELECT id, name, score FROM items WHERE id = ?`, float64(i%rows))
			if err != nil {
				b.Fatal(err)
			}
			row, ok, err := c.Next()
			if err != nil || !ok || len(row) != 3 {
				b.Fatal(err)
			}
			if _, ok, _ := c.Next(); ok {
				b.Fatal("two rows")
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		ctx := context.Background()
		if _, err := conn.ExecContext(ctx, benchSchema); err != nil {
			b.Fatal(err)
		}
		for i := range rows {
			if _, err := conn.ExecContext(ctx, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, i, "item"+strconv.Itoa(i), float64(i)); err != nil {
				b.Fatal(err)
			}
		}
		sel, err := conn.PrepareContext(ctx, `SELECT id, name, score FROM items WHERE id = ?`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			tx.run(b, func() error {
				var (
					id    int64
					name  string
					score float64
				)
				return sel.QueryRow(float64(i%rows)).Scan(&id, &name, &score)
			})
		}
	})
}

// BenchmarkCell_SQLScan reads 100 rows of a range.
func BenchmarkCell_SQLScan(b *testing.B) {
	const rows = 1000
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		query(b, db, benchSchema)
		for i := range rows {
			query(b, db, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, int64(i), "item"+strconv.Itoa(i), float64(i))
		}
		if err := db.Commit(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			if n := len(query(b, db, `SELECT id, name, score FROM items WHERE id >= ? ORDER BY id LIMIT 100`, 500.0)); n != 100 {
				b.Fatalf("rows = %d", n)
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		ctx := context.Background()
		if _, err := conn.ExecContext(ctx, benchSchema); err != nil {
			b.Fatal(err)
		}
		for i := range rows {
			if _, err := conn.ExecContext(ctx, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, i, "item"+strconv.Itoa(i), float64(i)); err != nil {
				b.Fatal(err)
			}
		}
		sel, err := conn.PrepareContext(ctx, `SELECT id, name, score FROM items WHERE id >= ? ORDER BY id LIMIT 100`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		b.ReportAllocs()
		for b.Loop() {
			tx.run(b, func() error {
				rs, err := sel.Query(500.0)
				if err != nil {
					return err
				}
				defer rs.Close()
				n := 0
				for rs.Next() {
					var (
						id    int64
						name  string
						score float64
					)
					if err := rs.Scan(&id, &name, &score); err != nil {
						return err
					}
					n++
				}
				if n != 100 {
					return fmt.Errorf("rows = %d", n)
				}
				return rs.Err()
			})
		}
	})
}

// fillItems inserts rows rows into benchSchema's table of a cell.
func fillItems(b *testing.B, db *storage.DB, rows int) {
	query(b, db, benchSchema)
	for i := range rows {
		query(b, db, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, int64(i), "item"+strconv.Itoa(i), float64(i))
	}
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
}

// fillBaseline does the same on a plain SQLite connection.
func fillBaseline(b *testing.B, conn *sql.Conn, rows int) {
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, benchSchema); err != nil {
		b.Fatal(err)
	}
	for i := range rows {
		if _, err := conn.ExecContext(ctx, `INSERT INTO items (id, name, score) VALUES (?, ?, ?)`, i, "item"+strconv.Itoa(i), float64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCell_SQLCount counts the rows of a 1000-row table (SQLite
// answers count(*) from the b-tree: a walk over its pages).
func BenchmarkCell_SQLCount(b *testing.B) {
	const rows = 1000
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		fillItems(b, db, rows)
		b.ReportAllocs()
		defer threadCPU(b)()
		for b.Loop() {
			c, err := db.Exec(`SELECT count(*) FROM items`)
			if err != nil {
				b.Fatal(err)
			}
			row, ok, err := c.Next()
			if err != nil || !ok || row[0] != int64(rows) {
				b.Fatal(row, err)
			}
			if _, ok, _ := c.Next(); ok {
				b.Fatal("two rows")
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		fillBaseline(b, conn, rows)
		sel, err := conn.PrepareContext(context.Background(), `SELECT count(*) FROM items`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		b.ReportAllocs()
		for b.Loop() {
			tx.run(b, func() error {
				var n int64
				if err := sel.QueryRow().Scan(&n); err != nil {
					return err
				}
				if n != rows {
					return fmt.Errorf("count %d", n)
				}
				return nil
			})
		}
	})
}

// BenchmarkCell_SQLUpdate updates one row by primary key.
func BenchmarkCell_SQLUpdate(b *testing.B) {
	const rows = 1000
	b.Run("cell", func(b *testing.B) {
		db := openBenchCell(b)
		fillItems(b, db, rows)
		b.ReportAllocs()
		defer threadCPU(b)()
		i := 0
		for b.Loop() {
			i++
			c, err := db.Exec(`UPDATE items SET score = ? WHERE id = ?`, float64(i), float64(i%rows))
			if err != nil {
				b.Fatal(err)
			}
			c.Close()
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sqlite", func(b *testing.B) {
		conn, done := openBaseline(b)
		defer done()
		fillBaseline(b, conn, rows)
		upd, err := conn.PrepareContext(context.Background(), `UPDATE items SET score = ? WHERE id = ?`)
		if err != nil {
			b.Fatal(err)
		}
		tx := newBaselineTx(b, conn)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			tx.run(b, func() error { _, err := upd.Exec(float64(i), float64(i%rows)); return err })
		}
	})
}
