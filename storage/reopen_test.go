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
// (no sync at all).
func BenchmarkDB_Reopen(b *testing.B) {
	for _, mode := range []struct {
		name string
		opts storage.Options
	}{
		{"local", storage.Options{DeferSync: true, CacheKV: true}},
		{"log", storage.Options{DeferSync: true, CacheKV: true, LogPages: true, NoSync: true}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "cell.sqlite")
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
