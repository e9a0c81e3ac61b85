package storage_test

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

// BenchmarkDB_Reopen is what a parked cell's next event pays before it
// runs (host/park.go): open a small cell database again, read a key, write
// one, commit, close (the close checkpoints the WAL, as a park does). The
// options are the host's: the local mode's (deferred sync), the log mode's
// (no sync at all). "log-open1000" keeps 1000 other cell databases open
// meanwhile, as a host with 1000 resident objects does: SQLite's unix VFS
// walks its list of open files on every open (findReusableFd). It reports
// the thread's CPU per reopen (cpu-ns/op) besides wall time.
func BenchmarkDB_Reopen(b *testing.B) {
	logOpts := storage.Options{DeferSync: true, CacheKV: true, LogPages: true, NoSync: true}
	for _, mode := range []struct {
		name   string
		opts   storage.Options
		others int
	}{
		{"local", storage.Options{DeferSync: true, CacheKV: true}, 0},
		{"log", logOpts, 0},
		{"log-open1000", logOpts, 1000},
	} {
		b.Run(mode.name, func(b *testing.B) {
			dir := b.TempDir()
			for i := range mode.others {
				o, err := storage.Open(filepath.Join(dir, "other"+strconv.Itoa(i)+".sqlite"), mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				defer o.Close()
			}
			path := filepath.Join(dir, "cell.sqlite")
			db, err := storage.Open(path, mode.opts)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 100 {
				if err := db.Put([]string{"k" + strconv.Itoa(i)}, [][]byte{make([]byte, 100)}); err != nil {
					b.Fatal(err)
				}
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
			if err := db.Close(); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer threadCPU(b)()
			for b.Loop() {
				db, err := storage.Open(path, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				got, err := db.Get([]string{"k1"})
				if err != nil || len(got[0]) != 100 {
					b.Fatalf("get: %v", err)
				}
				if err := db.Put([]string{"n"}, [][]byte{[]byte("1")}); err != nil {
					b.Fatal(err)
				}
				if err := db.Commit(); err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDB_OpenNew is a new object's database in the log mode: the
// empty image written (CreateEmpty), opened, one put committed, closed.
func BenchmarkDB_OpenNew(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts storage.Options
	}{
		{"log", storage.Options{DeferSync: true, CacheKV: true, LogPages: true, NoSync: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			dir := b.TempDir()
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				path := filepath.Join(dir, strconv.Itoa(i)+".sqlite")
				if err := storage.CreateEmpty(path); err != nil {
					b.Fatal(err)
				}
				db, err := storage.Open(path, mode.opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := db.Put([]string{"n"}, [][]byte{[]byte("1")}); err != nil {
					b.Fatal(err)
				}
				if err := db.Commit(); err != nil {
					b.Fatal(err)
				}
				if err := db.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
