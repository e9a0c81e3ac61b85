package storage_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

const testScope = "Counter:1182fbf2bee1753c4ffbfddea36c7eff522bfe47006c0f9f7e6035db0fc0b40d"

// cellLog is a cell database with LogPages whose commits are captured and
// uploaded as LTX files, as the host will do.
type cellLog struct {
	t     testing.TB
	db    *storage.DB
	c     *storage.WALCapture
	store plugins.ObjectStore
	scope string
	epoch uint64
	txid  uint64
	keys  []string // uploaded keys, in order
}

func newCellLog(t testing.TB, store plugins.ObjectStore, scope string, epoch uint64) *cellLog {
	t.Helper()
	db, err := storage.Open(filepath.Join(t.TempDir(), "src.db"), storage.Options{Scope: "s", LogPages: true})
	if err != nil {
		t.Fatal(err)
	}
	c := db.WALCapture()
	t.Cleanup(func() {
		c.Close()
		db.Close()
	})
	return &cellLog{t: t, db: db, c: c, store: store, scope: scope, epoch: epoch}
}

func (l *cellLog) put(kv ...string) {
	l.t.Helper()
	var keys []string
	var values [][]byte
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i])
		values = append(values, []byte(kv[i+1]))
	}
	if err := l.db.Put(keys, values); err != nil {
		l.t.Fatal(err)
	}
	l.commit()
}

func (l *cellLog) commit() {
	l.t.Helper()
	if err := l.db.Commit(); err != nil {
		l.t.Fatal(err)
	}
}

// snapshot uploads the whole database as TXID 1.
func (l *cellLog) snapshot() {
	l.t.Helper()
	ps, err := l.c.Snapshot()
	if err != nil {
		l.t.Fatal(err)
	}
	l.txid = 0
	l.upload(0, ps, 1)
}

// capture uploads the commits since the last capture as one file covering
// n TXIDs.
func (l *cellLog) capture(n uint64) {
	l.t.Helper()
	ps, err := l.c.Read()
	if err != nil || ps == nil {
		l.t.Fatalf("Read = %v, %v", ps, err)
	}
	l.upload(0, ps, n)
}

func (l *cellLog) upload(level int, ps *storage.PageSet, n uint64) string {
	l.t.Helper()
	key := l.uploadRange(level, ps, l.txid+1, l.txid+n)
	l.txid += n
	l.keys = append(l.keys, key)
	return key
}

// uploadRange uploads ps as the file of TXIDs min..max at level.
func (l *cellLog) uploadRange(level int, ps *storage.PageSet, min, max uint64) string {
	l.t.Helper()
	var buf bytes.Buffer
	if err := storage.EncodeLTX(&buf, ps, min, max, time.Now()); err != nil {
		l.t.Fatal(err)
	}
	key := bucketkey.LTXKey(l.scope, l.epoch, level, min, max)
	if _, err := l.store.Put(context.Background(), key, buf.Bytes(), plugins.PutOptions{}); err != nil {
		l.t.Fatal(err)
	}
	return key
}

// entries returns every key-value pair of db's scope and ends the read.
func entries(t testing.TB, db *storage.DB) []storage.Entry {
	t.Helper()
	e, err := db.List(storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Rollback(); err != nil {
		t.Fatal(err)
	}
	return e
}

// checkRestored compares the database restored at path with the source:
// the post-apply checksum of the whole image, SQLite's integrity check and
// every row.
func (l *cellLog) checkRestored(path string) {
	l.t.Helper()
	want, err := storage.NewWALCapture(l.db.Path()).Snapshot()
	if err != nil {
		l.t.Fatal(err)
	}
	got, err := storage.DatabaseChecksum(path)
	if err != nil {
		l.t.Fatal(err)
	}
	if got != want.Checksum() {
		l.t.Fatalf("TXID %d: restored checksum %v, source %v", l.txid, got, want.Checksum())
	}
	integrityCheck(l.t, path)
	restored, err := storage.Open(path, storage.Options{Scope: "s"})
	if err != nil {
		l.t.Fatal(err)
	}
	defer restored.Close()
	if g, w := entries(l.t, restored), entries(l.t, l.db); !reflect.DeepEqual(g, w) {
		l.t.Fatalf("TXID %d: restored %d entries, source %d", l.txid, len(g), len(w))
	}
}

func integrityCheck(t testing.TB, path string) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of %s = %q, %v", path, check, err)
	}
}

func restore(t testing.TB, store plugins.ObjectStore, scope string) (string, storage.RestoreResult, error) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "restored.db")
	res, err := storage.Restore(context.Background(), store, scope, dst)
	return dst, res, err
}

func TestRestore_RoundTrip(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, testScope, 3)
	var kv []string
	for i := range 10 {
		kv = append(kv, fmt.Sprint("k", i), fmt.Sprint("v", i))
	}
	l.put(kv...)
	l.snapshot()

	steps := []struct {
		name string
		do   func()
	}{
		{"insert", func() { l.put("a", "1", "b", "2", "c", "3") }},
		{"update", func() { l.put("a", "one", "k3", strings.Repeat("x", 3000)) }},
		{"delete", func() {
			if _, err := l.db.Delete([]string{"b", "k5", "k6"}); err != nil {
				t.Fatal(err)
			}
			l.commit()
		}},
		{"1 MiB value", func() { l.put("big", strings.Repeat("0123456789abcdef", 1<<16)) }},
		{"checkpoint, then update", func() {
			if ok, err := l.c.CaughtUp(); !ok || err != nil {
				t.Fatalf("CaughtUp = %v, %v", ok, err)
			}
			if err := l.db.Checkpoint(); err != nil {
				t.Fatal(err)
			}
			l.put("big", "small now", "d", "4")
		}},
		{"deleteAll", func() {
			if err := l.db.DeleteAll(); err != nil {
				t.Fatal(err)
			}
			l.commit()
		}},
		{"insert after deleteAll", func() { l.put("z", "26") }},
	}
	for _, s := range steps {
		s.do()
		l.capture(1)
		dst, res, err := restore(t, store, testScope)
		if err != nil {
			t.Fatalf("%s: Restore: %v", s.name, err)
		}
		if want := (storage.RestoreResult{Epoch: 3, TXID: l.txid, Found: true}); res != want {
			t.Fatalf("%s: Restore = %+v, want %+v", s.name, res, want)
		}
		l.checkRestored(dst)
	}
	if l.txid != uint64(len(steps)+1) {
		t.Fatalf("txid %d", l.txid)
	}
}

// TestRestore_RangeFile: one file may batch several commits (min < max).
func TestRestore_RangeFile(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, "R", 1)
	l.put("a", "1")
	l.snapshot()
	l.put("b", "2")
	l.put("a", "3")
	l.put("c", strings.Repeat("c", 5000))
	l.capture(3) // TXIDs 2-4
	l.put("d", "4")
	l.capture(1)
	dst, res, err := restore(t, store, "R")
	if err != nil {
		t.Fatal(err)
	}
	if res.TXID != 5 || !strings.HasSuffix(l.keys[1], "0000000000000002-0000000000000004.ltx") {
		t.Fatalf("res %+v, keys %v", res, l.keys)
	}
	l.checkRestored(dst)
}

// TestRestore_Levels: a chain across levels that takes, at each step, the
// file extending it furthest: L9 1-4, then L1 2-6. The L0 files 1..5 it
// must skip are corrupt.
func TestRestore_Levels(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, "L", 2)
	l.put("a", "0")
	// Two captures at the same position: l.c logs L0 files, c2 one L1
	// range file.
	c2 := l.db.WALCapture()
	defer c2.Close()
	l.snapshot()
	if _, err := c2.Snapshot(); err != nil {
		t.Fatal(err)
	}
	for i := 2; i <= 6; i++ {
		l.put(fmt.Sprint("k", i), strings.Repeat("v", 100*i))
		l.capture(1)
		if i == 4 { // a full snapshot of TXID 4 as the L9 file 1-4
			snap, err := storage.NewWALCapture(l.db.Path()).Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			l.uploadRange(9, snap, 1, 4)
		}
	}
	ps, err := c2.Read() // commits 2..6
	if err != nil || ps == nil {
		t.Fatalf("Read = %v, %v", ps, err)
	}
	l.uploadRange(1, ps, 2, 6)
	for _, k := range l.keys[:5] {
		if _, err := store.Put(context.Background(), k, []byte("LTX1 garbage"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dst, res, err := restore(t, store, "L")
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if res.TXID != 6 || res.Epoch != 2 {
		t.Fatalf("Restore = %+v", res)
	}
	l.checkRestored(dst)
}

func TestRestore_Epochs(t *testing.T) {
	store := memstore.New()
	old := newCellLog(t, store, "E", 9)
	old.put("epoch", "9")
	old.snapshot()
	old.put("more", "x")
	old.capture(1)

	cur := newCellLog(t, store, "E", 10)
	cur.put("epoch", "10")
	cur.snapshot()

	// Ignored: other keys under the prefix, levels above 0009, other cells.
	for _, k := range []string{
		"cells/E/ltx/e11/notes.txt",
		bucketkey.LTXKey("E", 12, 10, 1, 1),
		bucketkey.LTXKey("E2", 13, 0, 1, 1),
		bucketkey.LTXKey("E.", 14, 0, 1, 1),
	} {
		if _, err := store.Put(context.Background(), k, []byte("x"), plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dst, res, err := restore(t, store, "E")
	if err != nil {
		t.Fatal(err)
	}
	if want := (storage.RestoreResult{Epoch: 10, TXID: 1, Found: true}); res != want {
		t.Fatalf("Restore = %+v, want %+v (e10 > e9)", res, want)
	}
	cur.checkRestored(dst)
}

func TestRestore_NotFound(t *testing.T) {
	store := memstore.New()
	if _, err := store.Put(context.Background(), "cells/N/own.json", []byte(`{}`), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dst, res, err := restore(t, store, "N")
	if err != nil || res != (storage.RestoreResult{}) {
		t.Fatalf("Restore = %+v, %v", res, err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("destination written: %v", err)
	}
	if _, err := storage.Restore(context.Background(), store, "a/b", dst); err == nil {
		t.Fatal("invalid scope accepted")
	}
}

// prepareDst puts an "old" database file at a fresh path and returns the
// path and the old bytes.
func prepareDst(t *testing.T) (string, []byte) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "cell.db")
	old := []byte("old database")
	if err := os.WriteFile(dst, old, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst, old
}

// assertUntouched checks that dst still holds old and that no temporary
// file was left beside it.
func assertUntouched(t *testing.T, dst string, old []byte) {
	t.Helper()
	got, err := os.ReadFile(dst)
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("destination changed: %q, %v", got, err)
	}
	names, _ := os.ReadDir(filepath.Dir(dst))
	if len(names) != 1 {
		t.Fatalf("files beside the destination: %v", names)
	}
}

func TestRestore_Gap(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, "G", 1)
	l.put("a", "1")
	l.snapshot()
	for i := range 3 {
		l.put("a", fmt.Sprint(i))
		l.capture(1)
	}
	// TXIDs 1..4; remove 3.
	if err := store.Delete(context.Background(), l.keys[2], ""); err != nil {
		t.Fatal(err)
	}
	dst, old := prepareDst(t)
	_, err := storage.Restore(context.Background(), store, "G", dst)
	if !errors.Is(err, storage.ErrLTXGap) || !strings.Contains(err.Error(), "TXID 0000000000000003 is missing") ||
		!strings.Contains(err.Error(), l.keys[3]) {
		t.Fatalf("Restore: %v, want a gap naming TXID 3 and the next key", err)
	}
	assertUntouched(t, dst, old)

	// Without TXID 1.
	if err := store.Delete(context.Background(), l.keys[0], ""); err != nil {
		t.Fatal(err)
	}
	_, err = storage.Restore(context.Background(), store, "G", dst)
	if !errors.Is(err, storage.ErrLTXGap) || !strings.Contains(err.Error(), "TXID 0000000000000001 is missing") {
		t.Fatalf("Restore: %v, want a gap naming TXID 1", err)
	}
	assertUntouched(t, dst, old)
	t.Logf("error: %v", err)
}

func TestRestore_CorruptObject(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, "C", 1)
	l.put("a", "1")
	l.snapshot()
	for i := range 3 {
		l.put("a", fmt.Sprint(i), fmt.Sprint("b", i), strings.Repeat("x", 2000))
		l.capture(1)
	}
	good, _, err := store.Get(context.Background(), l.keys[2])
	if err != nil {
		t.Fatal(err)
	}
	wrong, _, err := store.Get(context.Background(), l.keys[3])
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(good)
	flipped[len(flipped)/2] ^= 0xff
	for _, tc := range []struct {
		name string
		body []byte
		want error
	}{
		{"flipped byte", flipped, storage.ErrCorruptLTX},
		{"truncated", good[:len(good)-20], storage.ErrCorruptLTX},
		{"header only", good[:100], storage.ErrCorruptLTX},
		{"empty", []byte{}, storage.ErrCorruptLTX},
		{"not LTX", []byte("<Error>AccessDenied</Error>"), storage.ErrCorruptLTX},
		{"TXIDs other than the key's", wrong, storage.ErrCorruptLTX},
	} {
		if _, err := store.Put(context.Background(), l.keys[2], tc.body, plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
		dst, old := prepareDst(t)
		_, err := storage.Restore(context.Background(), store, "C", dst)
		var oerr *storage.LTXObjectError
		if !errors.As(err, &oerr) || oerr.Key != l.keys[2] || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), l.keys[2]) {
			t.Fatalf("%s: Restore: %v, want an error naming %s", tc.name, err, l.keys[2])
		}
		assertUntouched(t, dst, old)
		if tc.name == "flipped byte" {
			t.Logf("error: %v", err)
		}
	}
}

// TestRestore_GetFails: an object that cannot be read is named too.
func TestRestore_GetFails(t *testing.T) {
	mem := memstore.New()
	l := newCellLog(t, mem, "F", 1)
	l.put("a", "1")
	l.snapshot()
	l.put("a", "2")
	l.capture(1)
	store := failingGet{ObjectStore: mem, key: l.keys[1]}
	dst, old := prepareDst(t)
	_, err := storage.Restore(context.Background(), store, "F", dst)
	var oerr *storage.LTXObjectError
	if !errors.As(err, &oerr) || oerr.Key != l.keys[1] || !errors.Is(err, errBoom) {
		t.Fatalf("Restore: %v", err)
	}
	assertUntouched(t, dst, old)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := storage.Restore(ctx, mem, "F", dst); !errors.Is(err, context.Canceled) {
		t.Fatalf("Restore with a cancelled context: %v", err)
	}
	assertUntouched(t, dst, old)
}

var errBoom = errors.New("boom")

type failingGet struct {
	plugins.ObjectStore
	key string
}

func (s failingGet) Get(ctx context.Context, key string) ([]byte, string, error) {
	if key == s.key {
		return nil, "", errBoom
	}
	return s.ObjectStore.Get(ctx, key)
}

// TestRestore_ReplacesFile: the restored file replaces the old one, and
// the old one's WAL and shared memory do not survive to be applied to it.
func TestRestore_ReplacesFile(t *testing.T) {
	store := memstore.New()
	l := newCellLog(t, store, "W", 1)
	l.put("a", "1")
	l.snapshot()
	l.put("a", "2")
	l.capture(1)

	// An old database with committed data in its WAL, as a crash leaves it.
	dir := t.TempDir()
	dst := filepath.Join(dir, "cell.db")
	stale, err := storage.Open(dst, storage.Options{Scope: "s", LogPages: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := stale.Put([]string{"stale"}, [][]byte{[]byte(strings.Repeat("s", 9000))}); err != nil {
		t.Fatal(err)
	}
	if err := stale.Commit(); err != nil {
		t.Fatal(err)
	}
	walBytes, _ := os.ReadFile(dst + "-wal")
	shmBytes, _ := os.ReadFile(dst + "-shm")
	stale.Close() // deletes the WAL: put copies back
	os.WriteFile(dst+"-wal", walBytes, 0o644)
	os.WriteFile(dst+"-shm", shmBytes, 0o644)
	os.WriteFile(dst+"-journal", []byte("junk"), 0o644)

	res, err := storage.Restore(context.Background(), store, "W", dst)
	if err != nil || res.TXID != 2 {
		t.Fatalf("Restore = %+v, %v", res, err)
	}
	for _, s := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(dst + s); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s survived: %v", s, err)
		}
	}
	l.checkRestored(dst)
}

func fixtureReaders(t *testing.T) []storage.LTXReader {
	var rs []storage.LTXReader
	for _, name := range fixtureFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, storage.LTXReader{Name: name, R: bytes.NewReader(b)})
	}
	return rs
}

// checkFixtureDB checks the content the fixture README documents, through
// a plain SQLite connection.
func checkFixtureDB(t *testing.T, path string) {
	t.Helper()
	integrityCheck(t, path)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var mode string
	if err := raw.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	rows, err := raw.Query(`SELECT k, v FROM kv ORDER BY k`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			t.Fatal(err)
		}
		got = append(got, k+"="+v)
	}
	want := []string{"a=upd5", "b=2", "c=3", "k1=v1", "k2=v2", "k3=v3", "k4=v4", "k5=v5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("kv = %v, want %v", got, want)
	}
}

func TestRestoreLTX_Fixture(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "celld.db")
	// A valid WAL of another database beside the destination: applied to
	// the restored file, it would corrupt it.
	sample, err := os.ReadFile(sampleWALPath)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(dst+"-wal", sample, 0o644)
	txid, err := storage.RestoreLTX(dst, fixtureReaders(t))
	if err != nil || txid != 6 {
		t.Fatalf("RestoreLTX = %d, %v", txid, err)
	}
	checkFixtureDB(t, dst)

	// Out of order, or missing TXID 1: an error naming the file.
	rs := fixtureReaders(t)
	rs[2], rs[3] = rs[3], rs[2]
	dst2 := filepath.Join(t.TempDir(), "x.db")
	var oerr *storage.LTXObjectError
	if _, err := storage.RestoreLTX(dst2, rs); !errors.As(err, &oerr) || oerr.Key != rs[2].Name || !errors.Is(err, storage.ErrLTXGap) {
		t.Fatalf("out of order: %v", err)
	}
	if _, err := storage.RestoreLTX(dst2, fixtureReaders(t)[1:]); !errors.Is(err, storage.ErrLTXGap) {
		t.Fatalf("without TXID 1: %v", err)
	}
	if _, err := os.Stat(dst2); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("destination written: %v", err)
	}
}

// TestRestore_Fixture: the same files in the bucket, under cellhost's key
// layout.
func TestRestore_Fixture(t *testing.T) {
	store := memstore.New()
	for i, r := range fixtureReaders(t) {
		b, _ := r.R.(*bytes.Reader)
		body := make([]byte, b.Len())
		b.Read(body)
		key := bucketkey.LTXKey("celld", 4, 0, uint64(i+1), uint64(i+1))
		if _, err := store.Put(context.Background(), key, body, plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	dst, res, err := restore(t, store, "celld")
	if err != nil || res != (storage.RestoreResult{Epoch: 4, TXID: 6, Found: true}) {
		t.Fatalf("Restore = %+v, %v", res, err)
	}
	checkFixtureDB(t, dst)
}

const sampleWALPath = "testdata/celld-ltx/sample.wal"
