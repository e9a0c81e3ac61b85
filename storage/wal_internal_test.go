package storage

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/superfly/ltx"
)

const sampleWAL = "testdata/celld-ltx/sample.wal"

// ltOpen opens a cell database with LogPages in dir and closes it at the
// end of the test.
func ltOpen(t testing.TB, path string) *DB {
	t.Helper()
	db, err := Open(path, Options{Scope: "s", LogPages: true})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// ltPut puts key/value pairs and commits them.
func ltPut(t testing.TB, db *DB, kv ...string) {
	t.Helper()
	var keys []string
	var values [][]byte
	for i := 0; i < len(kv); i += 2 {
		keys = append(keys, kv[i])
		values = append(values, []byte(kv[i+1]))
	}
	if err := db.Put(keys, values); err != nil {
		t.Fatalf("Put: %v", err)
	}
	ltCommit(t, db)
}

func ltCommit(t testing.TB, db *DB) {
	t.Helper()
	if err := db.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// applyPages applies ps to the database image img, as a restore does.
func applyPages(img, ps *PageSet) {
	if img.Pages == nil {
		img.Pages = map[uint32][]byte{}
	}
	img.PageSize = ps.PageSize
	for pgno, page := range ps.Pages {
		img.Pages[pgno] = bytes.Clone(page)
	}
	img.Commit = ps.Commit
	for pgno := range img.Pages {
		if pgno > img.Commit {
			delete(img.Pages, pgno)
		}
	}
}

// writeImage writes img as a database file at path.
func writeImage(t testing.TB, img *PageSet, path string) {
	t.Helper()
	b := make([]byte, int(img.Commit)*int(img.PageSize))
	for pgno, page := range img.Pages {
		copy(b[int(pgno-1)*int(img.PageSize):], page)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func equalPageSets(a, b *PageSet) error {
	if a.PageSize != b.PageSize || a.Commit != b.Commit {
		return fmt.Errorf("page size/commit %d/%d, want %d/%d", a.PageSize, a.Commit, b.PageSize, b.Commit)
	}
	for pgno, page := range b.Pages {
		if !bytes.Equal(a.Pages[pgno], page) {
			return fmt.Errorf("page %d differs", pgno)
		}
	}
	for pgno := range a.Pages {
		if _, ok := b.Pages[pgno]; !ok {
			return fmt.Errorf("extra page %d", pgno)
		}
	}
	return nil
}

// walFrame is one frame for buildWAL.
type walFrame struct {
	pgno, commit uint32
	data         []byte
}

// buildWAL writes a WAL file as SQLite does, checksumming words in the byte
// order bigEndian names.
func buildWAL(bigEndian bool, pageSize, ckpt, salt1, salt2 uint32, frames []walFrame) []byte {
	b := make([]byte, walHeaderSize)
	magic := uint32(walMagicLE)
	if bigEndian {
		magic = walMagicBE
	}
	binary.BigEndian.PutUint32(b[0:], magic)
	binary.BigEndian.PutUint32(b[4:], walVersion)
	binary.BigEndian.PutUint32(b[8:], pageSize)
	binary.BigEndian.PutUint32(b[12:], ckpt)
	binary.BigEndian.PutUint32(b[16:], salt1)
	binary.BigEndian.PutUint32(b[20:], salt2)
	sum := walChecksum(bigEndian, [2]uint32{}, b[:24])
	binary.BigEndian.PutUint32(b[24:], sum[0])
	binary.BigEndian.PutUint32(b[28:], sum[1])
	for _, f := range frames {
		fh := make([]byte, walFrameHeaderSize)
		binary.BigEndian.PutUint32(fh[0:], f.pgno)
		binary.BigEndian.PutUint32(fh[4:], f.commit)
		binary.BigEndian.PutUint32(fh[8:], salt1)
		binary.BigEndian.PutUint32(fh[12:], salt2)
		data := make([]byte, pageSize)
		copy(data, f.data)
		sum = walChecksum(bigEndian, sum, fh[:8])
		sum = walChecksum(bigEndian, sum, data)
		binary.BigEndian.PutUint32(fh[16:], sum[0])
		binary.BigEndian.PutUint32(fh[20:], sum[1])
		b = append(b, fh...)
		b = append(b, data...)
	}
	return b
}

// refScan is a deliberately naive reader of the committed pages of a WAL
// image, to check scanWAL against: it finds the longest prefix of valid
// frames, then the last commit frame in it, then replays those frames.
func refScan(b []byte) (pages map[uint32][]byte, commit uint32, end int64) {
	end = walHeaderSize
	if len(b) < walHeaderSize {
		return nil, 0, 0
	}
	magic := binary.BigEndian.Uint32(b)
	if magic != walMagicLE && magic != walMagicBE {
		return nil, 0, 0
	}
	be := magic == walMagicBE
	word := func(p []byte) uint32 {
		if be {
			return binary.BigEndian.Uint32(p)
		}
		return binary.LittleEndian.Uint32(p)
	}
	sum := func(s [2]uint32, p []byte) [2]uint32 {
		for i := 0; i < len(p); i += 8 {
			s[0] += word(p[i:]) + s[1]
			s[1] += word(p[i+4:]) + s[0]
		}
		return s
	}
	ps := binary.BigEndian.Uint32(b[8:])
	if binary.BigEndian.Uint32(b[4:]) != walVersion || ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return nil, 0, 0
	}
	s := sum([2]uint32{}, b[:24])
	if s[0] != binary.BigEndian.Uint32(b[24:]) || s[1] != binary.BigEndian.Uint32(b[28:]) {
		return nil, 0, 0
	}
	fs := walFrameHeaderSize + int(ps)
	valid := 0
	for n := 0; walHeaderSize+(n+1)*fs <= len(b); n++ {
		f := b[walHeaderSize+n*fs : walHeaderSize+(n+1)*fs]
		if !bytes.Equal(f[8:16], b[16:24]) || binary.BigEndian.Uint32(f) == 0 {
			break
		}
		s = sum(s, f[:8])
		s = sum(s, f[24:])
		if s[0] != binary.BigEndian.Uint32(f[16:]) || s[1] != binary.BigEndian.Uint32(f[20:]) {
			break
		}
		valid++
	}
	last := -1
	for n := 0; n < valid; n++ {
		if binary.BigEndian.Uint32(b[walHeaderSize+n*fs+4:]) != 0 {
			last = n
		}
	}
	if last < 0 {
		return nil, 0, walHeaderSize
	}
	pages = map[uint32][]byte{}
	for n := 0; n <= last; n++ {
		f := b[walHeaderSize+n*fs : walHeaderSize+(n+1)*fs]
		pages[binary.BigEndian.Uint32(f)] = f[24:]
	}
	commit = binary.BigEndian.Uint32(b[walHeaderSize+last*fs+4:])
	for pgno := range pages {
		if pgno > commit || pgno == ltx.LockPgno(ps) {
			delete(pages, pgno)
		}
	}
	return pages, commit, int64(walHeaderSize + (last+1)*fs)
}

func scanBytes(t testing.TB, b []byte) walScan {
	t.Helper()
	hdr, err := parseWALHeader(b)
	if err != nil {
		return walScan{}
	}
	res, err := scanWAL(bytes.NewReader(b), hdr, walHeaderSize, int64(len(b)), hdr.sum)
	if err != nil {
		t.Fatalf("scanWAL: %v", err)
	}
	return res
}

func TestOpen_LogPages(t *testing.T) {
	for _, tc := range []struct {
		logPages bool
		want     int
	}{{false, 1000}, {true, 0}} {
		db, err := Open(filepath.Join(t.TempDir(), "c.db"), Options{LogPages: tc.logPages})
		if err != nil {
			t.Fatal(err)
		}
		var got int
		if err := db.conn.QueryRowContext(context.Background(), `PRAGMA wal_autocheckpoint`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != tc.want {
			t.Errorf("LogPages %v: wal_autocheckpoint = %d, want %d", tc.logPages, got, tc.want)
		}
	}
}

func TestScanWAL_Fixture(t *testing.T) {
	b, err := os.ReadFile(sampleWAL)
	if err != nil {
		t.Fatal(err)
	}
	hdr, err := parseWALHeader(b)
	if err != nil {
		t.Fatalf("parseWALHeader: %v", err)
	}
	if hdr.pageSize != 4096 || hdr.bigEndian {
		t.Fatalf("header %+v", hdr)
	}
	res := scanBytes(t, b)
	if res.commit != 2 || res.end != int64(len(b)) || len(res.pages) != 2 {
		t.Fatalf("scan: commit %d end %d pages %d, want 2 %d 2", res.commit, res.end, len(res.pages), len(b))
	}
	// buildWAL, given the fixture's frames, writes the fixture byte for
	// byte: it implements SQLite's checksum, so the big-endian tests that
	// use it check the reader against the format, not against itself.
	var frames []walFrame
	fs := walFrameHeaderSize + 4096
	for off := walHeaderSize; off+fs <= len(b); off += fs {
		frames = append(frames, walFrame{binary.BigEndian.Uint32(b[off:]), binary.BigEndian.Uint32(b[off+4:]), b[off+24 : off+fs]})
	}
	if got := buildWAL(false, 4096, hdr.ckptSeq, hdr.salt1, hdr.salt2, frames); !bytes.Equal(got, b) {
		t.Fatal("buildWAL does not reproduce sample.wal")
	}
}

func TestScanWAL_ByteOrder(t *testing.T) {
	page := func(c byte) []byte { return bytes.Repeat([]byte{c, 1, 2, 3, 4, 5, 6, 7}, 64) }
	frames := []walFrame{
		{1, 0, page('a')}, {2, 2, page('b')}, // commit 1
		{2, 3, page('c')}, // commit 2
		{3, 0, page('d')}, // unfinished
	}
	for _, be := range []bool{false, true} {
		b := buildWAL(be, 512, 7, 0x11223344, 0x55667788, frames)
		hdr, err := parseWALHeader(b)
		if err != nil || hdr.bigEndian != be {
			t.Fatalf("bigEndian %v: %+v %v", be, hdr, err)
		}
		res := scanBytes(t, b)
		if res.commit != 3 || len(res.pages) != 2 || res.pages[2][0] != 'c' || res.end != int64(walHeaderSize+3*(24+512)) {
			t.Errorf("bigEndian %v: commit %d pages %d end %d", be, res.commit, len(res.pages), res.end)
		}
		// The same bytes under the other magic fail the checksums.
		other := bytes.Clone(b)
		if be {
			binary.BigEndian.PutUint32(other, walMagicLE)
		} else {
			binary.BigEndian.PutUint32(other, walMagicBE)
		}
		if _, err := parseWALHeader(other); err == nil {
			t.Errorf("bigEndian %v: header with the other magic accepted", be)
		}
	}
}

// realWAL returns the WAL of a database after several commits of various
// sizes, and the database's pages after each commit (from Snapshot).
func realWAL(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.db")
	db := ltOpen(t, path)
	ltPut(t, db, "a", "1")
	ltPut(t, db, "b", strings.Repeat("x", 10000), "c", "3")
	ltPut(t, db, "a", "2")
	if _, err := db.Delete([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	ltCommit(t, db)
	ltPut(t, db, "d", strings.Repeat("y", 3000))
	b, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestScanWAL_Truncated(t *testing.T) {
	b := realWAL(t)
	prevEnd := int64(0)
	commits := 0
	// Every length around a frame boundary, and a stride in between.
	fs := walFrameHeaderSize + 4096
	var lengths []int
	for n := 0; n <= len(b); n++ {
		if d := (n - walHeaderSize) % fs; n < walHeaderSize+3 || d <= 2 || d >= fs-2 || n%97 == 0 || n == len(b) {
			lengths = append(lengths, n)
		}
	}
	for _, n := range lengths {
		res := scanBytes(t, b[:n])
		pages, commit, end := refScan(b[:n])
		if n < walHeaderSize {
			if res.commit != 0 || res.pages != nil {
				t.Fatalf("len %d: commit %d", n, res.commit)
			}
			continue
		}
		if res.commit != commit || res.end != end || !maps.EqualFunc(res.pages, pages, bytes.Equal) {
			t.Fatalf("len %d: scan commit %d end %d pages %d; reference %d %d %d", n, res.commit, res.end, len(res.pages), commit, end, len(pages))
		}
		if res.end > int64(n) {
			t.Fatalf("len %d: end %d past the data", n, res.end)
		}
		if res.end != prevEnd {
			commits++
			prevEnd = res.end
		}
	}
	if commits < 5 {
		t.Fatalf("saw %d commit boundaries, want at least 5", commits)
	}
}

func TestScanWAL_BadFrames(t *testing.T) {
	b := realWAL(t)
	full := scanBytes(t, b)
	_ = full
	fs := walFrameHeaderSize + 4096
	nFrames := (len(b) - walHeaderSize) / fs
	for _, tc := range []struct {
		name string
		mut  func(b []byte, frame int)
	}{
		{"data", func(b []byte, i int) { b[walHeaderSize+i*fs+100] ^= 1 }},
		{"salt", func(b []byte, i int) { b[walHeaderSize+i*fs+9] ^= 1 }},
		{"pgno0", func(b []byte, i int) { binary.BigEndian.PutUint32(b[walHeaderSize+i*fs:], 0) }},
		{"checksum", func(b []byte, i int) { b[walHeaderSize+i*fs+23] ^= 1 }},
	} {
		for i := 0; i < nFrames; i++ {
			m := bytes.Clone(b)
			tc.mut(m, i)
			res := scanBytes(t, m)
			// The result must be the commits that end before frame i.
			pages, commit, end := refScan(b[:walHeaderSize+i*fs])
			if res.end != end || res.commit != commit || !maps.EqualFunc(res.pages, pages, bytes.Equal) {
				t.Fatalf("%s in frame %d: end %d commit %d, want end %d commit %d", tc.name, i, res.end, res.commit, end, commit)
			}
		}
	}
	if _, err := parseWALHeader(append([]byte{0}, b[1:]...)); err == nil {
		t.Error("bad magic accepted")
	}
	h := bytes.Clone(b)
	h[20] ^= 1 // salt-2, covered by the header checksum
	if _, err := parseWALHeader(h); err == nil {
		t.Error("bad header checksum accepted")
	}
}

func TestWALCapture_Read(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	db := ltOpen(t, path)
	ltPut(t, db, "a", "1")
	c := db.WALCapture()
	defer c.Close()
	img, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if img.Commit == 0 || len(img.Pages) != int(img.Commit) {
		t.Fatalf("snapshot: commit %d, %d pages", img.Commit, len(img.Pages))
	}
	if ps, err := c.Read(); ps != nil || err != nil {
		t.Fatalf("Read with nothing new = %v, %v", ps, err)
	}
	check := func(what string) {
		t.Helper()
		ps, err := c.Read()
		if err != nil || ps == nil {
			t.Fatalf("%s: Read = %v, %v", what, ps, err)
		}
		applyPages(img, ps)
		snap, err := NewWALCapture(path).Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		if err := equalPageSets(img, snap); err != nil {
			t.Fatalf("%s: snapshot + reads != snapshot: %v", what, err)
		}
	}
	ltPut(t, db, "b", "2")
	check("one commit")
	ltPut(t, db, "c", "3")
	ltPut(t, db, "big", strings.Repeat("z", 1<<20))
	ltPut(t, db, "a", "4")
	check("three commits")
	if ok, err := c.CaughtUp(); !ok || err != nil {
		t.Fatalf("CaughtUp = %v, %v", ok, err)
	}

	// A checkpoint while caught up: the WAL restarts and Read follows.
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("WAL after Checkpoint: %v, %v", fi, err)
	}
	if err := db.Checkpoint(); err != nil { // nothing to do
		t.Fatal(err)
	}
	if ps, err := c.Read(); ps != nil || err != nil {
		t.Fatalf("Read of an empty WAL = %v, %v", ps, err)
	}
	if _, err := db.Delete([]string{"big"}); err != nil {
		t.Fatal(err)
	}
	ltCommit(t, db)
	if ok, err := c.CaughtUp(); ok || err != nil {
		t.Fatalf("CaughtUp after a commit = %v, %v", ok, err)
	}
	check("after checkpoint")
	ltPut(t, db, "e", strings.Repeat("e", 20000)) // overflow pages "f" leaves alone
	if err := db.Checkpoint(); err != nil {       // behind: documented as lost
		t.Fatal(err)
	}
	ltPut(t, db, "f", "6")
	ps, err := c.Read()
	if err != nil || ps == nil {
		t.Fatalf("Read = %v, %v", ps, err)
	}
	applyPages(img, ps)
	snap, _ := NewWALCapture(path).Snapshot()
	if equalPageSets(img, snap) == nil {
		t.Fatal("a checkpoint while behind lost nothing? (the test is wrong)")
	}

}

// TestWALCapture_Shrink follows a database that shrinks at commit
// (auto_vacuum): pages past the new size are dropped.
func TestWALCapture_Shrink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=auto_vacuum(FULL)&_pragma=journal_mode(WAL)&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := raw.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(`CREATE TABLE t (k TEXT PRIMARY KEY, v BLOB)`)
	exec(`INSERT INTO t VALUES ('small', 'x'), ('big', zeroblob(200000))`)
	c := NewWALCapture(path)
	defer c.Close()
	img, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	exec(`DELETE FROM t WHERE k = 'big'`)
	ps, err := c.Read()
	if err != nil || ps == nil {
		t.Fatalf("Read = %v, %v", ps, err)
	}
	if ps.Commit >= img.Commit/2 {
		t.Fatalf("commit %d after deleting most of %d pages", ps.Commit, img.Commit)
	}
	for pgno := range ps.Pages {
		if pgno > ps.Commit {
			t.Fatalf("page %d past commit %d", pgno, ps.Commit)
		}
	}
	applyPages(img, ps)
	snap, err := NewWALCapture(path).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := equalPageSets(img, snap); err != nil {
		t.Fatal(err)
	}
}

func TestWALCapture_Discontinuity(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	db, err := Open(path, Options{LogPages: true})
	if err != nil {
		t.Fatal(err)
	}
	ltPut(t, db, "a", "1")
	c := NewWALCapture(path)
	defer c.Close()
	if _, err := c.Snapshot(); err != nil {
		t.Fatal(err)
	}
	ltPut(t, db, "b", "2")
	db.Close() // checkpoints and deletes the WAL
	if ps, err := c.Read(); ps != nil || err != nil {
		t.Fatalf("Read without a WAL = %v, %v", ps, err)
	}
	db = ltOpen(t, path)
	ltPut(t, db, "c", "3")
	if _, err := c.Read(); !errors.Is(err, ErrWALDiscontinuity) {
		t.Fatalf("Read after reopen: %v, want ErrWALDiscontinuity", err)
	}
	img, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	ltPut(t, db, "d", "4")
	ps, err := c.Read()
	if err != nil || ps == nil {
		t.Fatalf("Read after Snapshot = %v, %v", ps, err)
	}
	applyPages(img, ps)
	snap, _ := NewWALCapture(path).Snapshot()
	if err := equalPageSets(img, snap); err != nil {
		t.Fatal(err)
	}
}

func TestWALCapture_Snapshot(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	if ps, err := NewWALCapture(path).Snapshot(); err != nil || ps.Commit != 0 || len(ps.Pages) != 0 {
		t.Fatalf("Snapshot of no database = %+v, %v", ps, err)
	}
	db := ltOpen(t, path)
	for i := range 50 {
		ltPut(t, db, fmt.Sprint("k", i), strings.Repeat("v", i*100))
	}
	before, err := db.WALCapture().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	writeImage(t, before, filepath.Join(dir, "img.db"))
	raw, err := sql.Open("sqlite", filepath.Join(dir, "img.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var check string
	var n int
	if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	if err := raw.QueryRow(`SELECT count(*) FROM _cf_KV`).Scan(&n); err != nil || n != 50 {
		t.Fatalf("rows = %d, %v", n, err)
	}
	// After a checkpoint the same database comes from the main file alone.
	if err := db.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	after, err := db.WALCapture().Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := equalPageSets(after, before); err != nil {
		t.Fatalf("snapshot from the main file: %v", err)
	}
	if before.Checksum() != after.Checksum() {
		t.Fatal("checksums differ")
	}
}

// TestWALCapture_Concurrent captures while the DB commits on another
// goroutine: every page set read must leave the image at a committed state
// (all keys of a transaction written together carry the same value).
func TestWALCapture_Concurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.db")
	db := ltOpen(t, path)
	const nKeys, nCommits = 16, 300
	keys := make([]string, nKeys)
	for i := range keys {
		keys[i] = fmt.Sprint("key", i)
	}
	write := func(v int) {
		values := make([][]byte, nKeys)
		for i := range values {
			// ~1.5 KB each: one transaction spans several pages.
			values[i] = []byte(fmt.Sprintf("%06d%s", v, strings.Repeat("p", 1500)))
		}
		if err := db.Put(keys, values); err != nil {
			t.Error(err)
			return
		}
		if err := db.Commit(); err != nil {
			t.Error(err)
		}
	}
	write(0)
	c := db.WALCapture()
	defer c.Close()
	img, err := c.Snapshot()
	if err != nil {
		t.Fatal(err)
	}

	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(done)
		for v := 1; v <= nCommits; v++ {
			write(v)
		}
	})
	verify := func(img *PageSet, n int) {
		p := filepath.Join(dir, fmt.Sprintf("img%d.db", n))
		writeImage(t, img, p)
		raw, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer raw.Close()
		var distinct int
		var check string
		if err := raw.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("read %d: integrity_check %q, %v", n, check, err)
		}
		if err := raw.QueryRow(`SELECT count(DISTINCT substr(v, 1, 6)) FROM _cf_KV`).Scan(&distinct); err != nil || distinct != 1 {
			t.Fatalf("read %d: %d distinct values (a partial transaction), %v", n, distinct, err)
		}
	}
	reads := 0
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		ps, err := c.Read()
		if err != nil {
			t.Fatal(err)
		}
		if ps == nil {
			continue
		}
		applyPages(img, ps)
		if reads%10 == 0 {
			verify(img, reads)
		}
		reads++
	}
	wg.Wait()
	if ps, err := c.Read(); err != nil {
		t.Fatal(err)
	} else if ps != nil {
		applyPages(img, ps)
	}
	verify(img, reads)
	snap, err := NewWALCapture(path).Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if err := equalPageSets(img, snap); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d commits captured in %d reads", nCommits, reads)
}

func FuzzWALCapture(f *testing.F) {
	sample, err := os.ReadFile(sampleWAL)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(sample)
	f.Add(sample[:len(sample)-1])
	f.Add(sample[:walHeaderSize+100])
	page := bytes.Repeat([]byte{9}, 512)
	f.Add(buildWAL(true, 512, 1, 2, 3, []walFrame{{1, 0, page}, {2, 2, page}, {2, 0, page}}))
	f.Add(buildWAL(false, 512, 1, 2, 3, []walFrame{{1, 1, page}, {ltx.LockPgno(512), 0, page}, {3, 2, page}}))
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0x37}, 700))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "fuzz.db")
		if err := os.WriteFile(path+"-wal", b, 0o644); err != nil {
			t.Fatal(err)
		}
		c := NewWALCapture(path)
		defer c.Close()
		ps, err := c.Read()
		if err != nil {
			t.Fatalf("Read: %v", err) // a bad WAL is an empty WAL, never an error
		}
		pages, commit, end := refScan(b)
		if ps == nil {
			if commit != 0 {
				t.Fatalf("Read = nil, reference has commit %d", commit)
			}
			return
		}
		if ps.Commit != commit || !maps.EqualFunc(ps.Pages, pages, bytes.Equal) || c.off != end {
			t.Fatalf("Read commit %d pages %d end %d; reference %d %d %d", ps.Commit, len(ps.Pages), c.off, commit, len(pages), end)
		}
		// Never a partial transaction: without the last byte of the last
		// commit frame, that commit is not returned.
		short := scanBytes(t, b[:end-1])
		if short.end >= end {
			t.Fatalf("commit ending at %d returned from %d bytes", end, end-1)
		}
	})
}

// cpuNow returns the CPU time (user + system) the process has used.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the process's CPU time per op as cpu-ns/op from now
// to the call of the function it returns: on a shared machine it is
// steadier than wall time.
func reportCPU(b *testing.B) func() {
	start := cpuNow()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkWALCaptureRead measures WALCapture.Read of one commit that
// changed pages pages of a 1000-key cell: the capture is rewound to before
// that commit for every Read.
func BenchmarkWALCaptureRead(b *testing.B) {
	for _, pages := range []int{1, 16} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) {
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"), Options{Scope: "s", LogPages: true, DeferSync: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			var keys []string
			var values [][]byte
			for i := range 1000 {
				keys = append(keys, fmt.Sprintf("key%06d", i))
				values = append(values, bytes.Repeat([]byte{'v'}, 100))
			}
			if err := db.Put(keys, values); err != nil {
				b.Fatal(err)
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
			c := db.WALCapture()
			defer c.Close()
			if _, err := c.Snapshot(); err != nil {
				b.Fatal(err)
			}
			// Keys 60 apart sit in different leaves (~35 keys a page).
			for i := range pages {
				if err := db.Put([]string{keys[(i*60)%1000]}, [][]byte{[]byte("new")}); err != nil {
					b.Fatal(err)
				}
			}
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
			pos := c.benchPosition()
			var got int
			defer reportCPU(b)()
			for b.Loop() {
				c.benchRewind(pos)
				ps, err := c.Read()
				if err != nil || ps == nil {
					b.Fatalf("Read = %v, %v", ps, err)
				}
				got = len(ps.Pages)
			}
			b.ReportMetric(float64(got), "pages")
		})
	}
}

// walPosition is a saved WALCapture position (benchmarks).
type walPosition struct {
	hdr walHeader
	off int64
	sum [2]uint32
}

func (c *WALCapture) benchPosition() walPosition {
	c.mu.Lock()
	defer c.mu.Unlock()
	return walPosition{c.hdr, c.off, c.sum}
}

func (c *WALCapture) benchRewind(p walPosition) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hdr, c.off, c.sum = p.hdr, p.off, p.sum
}
