package storage_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/superfly/ltx"

	"github.com/cellhost/cellhost/plugins/memstore"
	"github.com/cellhost/cellhost/storage"
)

const fixtureDir = "testdata/celld-ltx/replica/ltx/0"

// randomPageSet returns a page set of n pages (the lock page excluded) of
// pseudo-random, partly compressible content.
func randomPageSet(seed uint64, pageSize, n uint32) *storage.PageSet {
	r := rand.New(rand.NewPCG(seed, 1))
	ps := &storage.PageSet{PageSize: pageSize, Commit: n, Pages: map[uint32][]byte{}}
	for pgno := uint32(1); pgno <= n; pgno++ {
		if pgno == ltx.LockPgno(pageSize) {
			continue
		}
		page := make([]byte, pageSize)
		for i := 0; i < int(pageSize)/4; i++ {
			page[i] = byte(r.IntN(4))
		}
		ps.Pages[pgno] = page
	}
	return ps
}

func encode(t testing.TB, ps *storage.PageSet, min, max uint64) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := storage.EncodeLTX(&buf, ps, min, max, time.UnixMilli(1700000000123)); err != nil {
		t.Fatalf("EncodeLTX: %v", err)
	}
	return buf.Bytes()
}

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(fixtureDir, "*.ltx"))
	if err != nil || len(files) != 6 {
		t.Fatalf("want the 6 LTX files of celld's golden replica in %s, found %d (%v)", fixtureDir, len(files), err)
	}
	return files // sorted by name, which is TXID order
}

func TestEncodeLTX(t *testing.T) {
	snap := randomPageSet(1, 4096, 20)
	b := encode(t, snap, 1, 1)

	// superfly/ltx's own decoder accepts it, with celld's L0 header.
	dec := ltx.NewDecoder(bytes.NewReader(b))
	if err := dec.Verify(); err != nil {
		t.Fatalf("ltx Verify: %v", err)
	}
	hdr, trailer := dec.Header(), dec.Trailer()
	want := ltx.Header{
		Version: ltx.Version, Flags: ltx.HeaderFlagNoChecksum, PageSize: 4096, Commit: 20,
		MinTXID: 1, MaxTXID: 1, Timestamp: 1700000000123,
	}
	if hdr != want {
		t.Errorf("header = %+v, want %+v", hdr, want)
	}
	if trailer.PostApplyChecksum != 0 || trailer.FileChecksum&ltx.ChecksumFlag == 0 {
		t.Errorf("trailer = %+v", trailer)
	}
	if got := binary.BigEndian.Uint32(b[4:]); got != 0x2 {
		t.Errorf("flags on disk = %#x, want 0x2", got)
	}

	// EncodeLTX recycles encoders: its output is what a new ltx.Encoder
	// writes, every time.
	var direct bytes.Buffer
	enc, _ := ltx.NewEncoder(&direct)
	if err := enc.EncodeHeader(want); err != nil {
		t.Fatal(err)
	}
	for _, pgno := range snap.Pgnos() {
		if err := enc.EncodePage(ltx.PageHeader{Pgno: pgno}, snap.Pages[pgno]); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		encode(t, randomPageSet(9, 4096, 3), 2, 2) // use the pool
		if again := encode(t, snap, 1, 1); !bytes.Equal(again, direct.Bytes()) {
			t.Fatal("EncodeLTX output differs from a new ltx.Encoder's")
		}
	}

	ps, hdr2, err := storage.ReadLTX(b)
	if err != nil {
		t.Fatalf("ReadLTX: %v", err)
	}
	if hdr2 != want {
		t.Errorf("ReadLTX header = %+v", hdr2)
	}
	assertPages(t, ps, snap)

	// An incremental file: any pages, ascending, TXIDs min..max.
	inc := &storage.PageSet{PageSize: 4096, Commit: 25, Pages: map[uint32][]byte{
		25: bytes.Repeat([]byte{1}, 4096), 3: bytes.Repeat([]byte{3}, 4096),
	}}
	ps, hdr2, err = storage.ReadLTX(encode(t, inc, 2, 7))
	if err != nil {
		t.Fatalf("ReadLTX: %v", err)
	}
	if hdr2.MinTXID != 2 || hdr2.MaxTXID != 7 || hdr2.Commit != 25 {
		t.Errorf("header = %+v", hdr2)
	}
	assertPages(t, ps, inc)

	// The database checksum of a snapshot is what superfly/ltx computes
	// for the same pages.
	var sum ltx.Checksum
	for pgno, page := range snap.Pages {
		sum ^= ltx.ChecksumPage(pgno, page)
	}
	if got := snap.Checksum(); got != ltx.ChecksumFlag|sum {
		t.Errorf("Checksum = %v, want %v", got, ltx.ChecksumFlag|sum)
	}
}

func TestEncodeLTX_Errors(t *testing.T) {
	var buf bytes.Buffer
	if err := storage.EncodeLTX(&buf, &storage.PageSet{PageSize: 4096}, 1, 1, time.Now()); err == nil {
		t.Error("empty database encoded")
	}
	snap := randomPageSet(2, 4096, 5)
	delete(snap.Pages, 3)
	if err := storage.EncodeLTX(&buf, snap, 1, 1, time.Now()); err == nil {
		t.Error("snapshot with a missing page encoded")
	}
	if err := storage.EncodeLTX(&buf, randomPageSet(3, 4096, 5), 3, 2, time.Now()); err == nil {
		t.Error("min > max encoded")
	}
	big := randomPageSet(4, 4096, 5)
	big.Pages[9] = make([]byte, 4096)
	if err := storage.EncodeLTX(&buf, big, 2, 2, time.Now()); err == nil {
		t.Error("page past commit encoded")
	}
}

func TestDecodeLTX_Fixtures(t *testing.T) {
	for i, name := range fixtureFiles(t) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ps, hdr, err := storage.ReadLTX(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !hdr.NoChecksum() || hdr.MinTXID != ltx.TXID(i+1) || hdr.MaxTXID != ltx.TXID(i+1) || hdr.PageSize != 4096 {
			t.Errorf("%s: header %+v", name, hdr)
		}
		if i == 0 && len(ps.Pages) != int(hdr.Commit) {
			t.Errorf("%s: snapshot has %d pages, commit %d", name, len(ps.Pages), hdr.Commit)
		}
		// Legacy LZ4-frame pages: no block-size flag.
		if flags := binary.BigEndian.Uint16(b[ltx.HeaderSize+4:]); flags != 0 {
			t.Errorf("%s: first page flags %#x, want the legacy encoding", name, flags)
		}
	}
}

// corruptions returns the LTX files the decode tests break: a block-format
// file and a legacy fixture.
func corruptions(t *testing.T) map[string][]byte {
	fixture, err := os.ReadFile(fixtureFiles(t)[1])
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"block":  encode(t, randomPageSet(5, 512, 6), 1, 1),
		"legacy": fixture,
	}
}

func TestDecodeLTX_Truncated(t *testing.T) {
	for name, b := range corruptions(t) {
		for n := 0; n < len(b); n++ {
			_, err := storage.DecodeLTX(b[:n], func(uint32, []byte) error { return nil })
			if !errors.Is(err, storage.ErrCorruptLTX) {
				t.Fatalf("%s truncated to %d of %d bytes: %v, want ErrCorruptLTX", name, n, len(b), err)
			}
		}
		if _, err := storage.DecodeLTX(append(bytes.Clone(b), 0), func(uint32, []byte) error { return nil }); !errors.Is(err, storage.ErrCorruptLTX) {
			t.Fatalf("%s with a trailing byte: %v", name, err)
		}
	}
}

func TestDecodeLTX_BitFlips(t *testing.T) {
	// A flip is detected, or (in LZ4 data, e.g. a shorter run of zeros
	// into a zeroed buffer) leaves the decoded content unchanged: the file
	// checksum covers the decoded pages, not the compressed bytes.
	for name, b := range corruptions(t) {
		want, wantHdr, err := storage.ReadLTX(b)
		if err != nil {
			t.Fatal(err)
		}
		undetected := 0
		for i := range b {
			m := bytes.Clone(b)
			m[i] ^= 0x10
			got, hdr, err := storage.ReadLTX(m)
			if err == nil {
				if hdr != wantHdr {
					t.Fatalf("%s with byte %d flipped: header %+v accepted", name, i, hdr)
				}
				assertPages(t, got, want)
				undetected++
				continue
			}
			if !errors.Is(err, storage.ErrCorruptLTX) {
				t.Fatalf("%s with byte %d of %d flipped: %v, want ErrCorruptLTX", name, i, len(b), err)
			}
		}
		t.Logf("%s: %d of %d flips left the content unchanged", name, undetected, len(b))
	}
}

// TestDecodeLTX_HugeFrame: a page frame claiming 4 GiB of data is refused
// without allocating it.
func TestDecodeLTX_HugeFrame(t *testing.T) {
	b := encode(t, randomPageSet(6, 512, 2), 1, 1)
	binary.BigEndian.PutUint32(b[ltx.HeaderSize+ltx.PageHeaderSize:], 0xfffffff0)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := storage.DecodeLTX(b, func(uint32, []byte) error { return nil })
	runtime.ReadMemStats(&after)
	if !errors.Is(err, storage.ErrCorruptLTX) {
		t.Fatalf("err = %v", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("allocated %d bytes", d)
	}
}

// FuzzDecodeLTX feeds random bytes to the restore decode path: DecodeLTX
// and RestoreLTX fail cleanly (an error naming the object) and write
// nothing at the destination.
func FuzzDecodeLTX(f *testing.F) {
	f.Add(encode(f, randomPageSet(7, 512, 3), 1, 1))
	f.Add(encode(f, &storage.PageSet{PageSize: 512, Commit: 9, Pages: map[uint32][]byte{4: make([]byte, 512)}}, 2, 5))
	legacy, err := os.ReadFile(fixtureFiles(f)[0])
	if err != nil {
		f.Fatal(err)
	}
	f.Add(legacy)
	f.Add(legacy[:300])
	f.Add([]byte("LTX1"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		_, err := storage.DecodeLTX(b, func(pgno uint32, page []byte) error {
			if pgno == 0 || len(page) == 0 {
				t.Fatalf("page %d of %d bytes", pgno, len(page))
			}
			return nil
		})
		if err != nil && !errors.Is(err, storage.ErrCorruptLTX) {
			t.Fatalf("DecodeLTX: %v does not wrap ErrCorruptLTX", err)
		}
		dst := filepath.Join(dir, "restored.db")
		os.Remove(dst)
		_, rerr := storage.RestoreLTX(dst, []storage.LTXReader{{Name: "fuzz.ltx", R: bytes.NewReader(b)}})
		var oerr *storage.LTXObjectError
		if rerr != nil && (!errors.As(rerr, &oerr) || oerr.Key != "fuzz.ltx") {
			t.Fatalf("RestoreLTX: %v is not an LTXObjectError naming the file", rerr)
		}
		if err != nil && rerr == nil {
			t.Fatalf("RestoreLTX accepted a file DecodeLTX refused (%v)", err)
		}
		if _, serr := os.Stat(dst); rerr != nil && serr == nil {
			t.Fatal("RestoreLTX failed but wrote the destination")
		}
	})
}

func assertPages(t *testing.T, got, want *storage.PageSet) {
	t.Helper()
	if got.PageSize != want.PageSize || got.Commit != want.Commit || len(got.Pages) != len(want.Pages) {
		t.Fatalf("page set %d/%d/%d pages, want %d/%d/%d", got.PageSize, got.Commit, len(got.Pages), want.PageSize, want.Commit, len(want.Pages))
	}
	for pgno, page := range want.Pages {
		if !bytes.Equal(got.Pages[pgno], page) {
			t.Fatalf("page %d differs", pgno)
		}
	}
}

// benchDB opens a LogPages database holding n keys of 100 bytes, with its
// capture positioned after them.
func benchDB(b *testing.B, n int) (*storage.DB, *storage.WALCapture) {
	b.Helper()
	db, err := storage.Open(filepath.Join(b.TempDir(), "bench.db"), storage.Options{Scope: "s", LogPages: true, DeferSync: true})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, n)
	values := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("key%06d", i)
		values[i] = bytes.Repeat([]byte{'v'}, 100)
	}
	if err := db.Put(keys, values); err != nil {
		b.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
	c := db.WALCapture()
	if _, err := c.Snapshot(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c.Close()
		db.Close()
	})
	return db, c
}

// BenchmarkCaptureEncode measures the cost of logging a commit that changes
// one page (one key update in a 1000-key cell, DeferSync so no fsync):
// "commit" is the commit alone, "commit+capture+encode" adds the WAL read
// and LTX encoding; the latter also reports capture-ns/op and encode-ns/op,
// timed around those calls alone. The WAL is checkpointed every 1000
// commits (CaughtUp, then Checkpoint), outside the timer.
func BenchmarkCaptureEncode(b *testing.B) {
	for _, mode := range []string{"commit", "commit+capture+encode"} {
		b.Run(mode, func(b *testing.B) {
			db, c := benchDB(b, 1000)
			var buf bytes.Buffer
			var pages, size int
			var captureTime, encodeTime time.Duration
			txid := uint64(1)
			ts := time.Now()
			for i := 0; b.Loop(); i++ {
				if err := db.Put([]string{"key000500"}, [][]byte{[]byte(fmt.Sprint(i))}); err != nil {
					b.Fatal(err)
				}
				if err := db.Commit(); err != nil {
					b.Fatal(err)
				}
				if mode != "commit" {
					t0 := time.Now()
					ps, err := c.Read()
					if err != nil || ps == nil {
						b.Fatalf("Read = %v, %v", ps, err)
					}
					t1 := time.Now()
					buf.Reset()
					txid++
					if err := storage.EncodeLTX(&buf, ps, txid, txid, ts); err != nil {
						b.Fatal(err)
					}
					encodeTime += time.Since(t1)
					captureTime += t1.Sub(t0)
					pages += len(ps.Pages)
					size += buf.Len()
				}
				if i%1000 == 999 {
					b.StopTimer()
					if mode != "commit" {
						if ok, err := c.CaughtUp(); !ok || err != nil {
							b.Fatalf("CaughtUp = %v, %v", ok, err)
						}
					}
					if err := db.Checkpoint(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
			if mode != "commit" {
				b.ReportMetric(float64(captureTime.Nanoseconds())/float64(b.N), "capture-ns/op")
				b.ReportMetric(float64(encodeTime.Nanoseconds())/float64(b.N), "encode-ns/op")
				b.ReportMetric(float64(pages)/float64(b.N), "pages/op")
				b.ReportMetric(float64(size)/float64(b.N), "ltx-bytes/op")
			}
		})
	}
}

// BenchmarkSnapshotEncode measures a snapshot (TXID 1) of a 10 000-key
// cell: Snapshot plus EncodeLTX.
func BenchmarkSnapshotEncode(b *testing.B) {
	_, c := benchDB(b, 10000)
	var buf bytes.Buffer
	for b.Loop() {
		ps, err := c.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		buf.Reset()
		if err := storage.EncodeLTX(&buf, ps, 1, 1, time.Now()); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(ps.Pages)) * int64(ps.PageSize))
	}
}

// BenchmarkRestore measures restoring a snapshot plus 100 one-commit files
// from the memory store.
func BenchmarkRestore(b *testing.B) {
	store := memstore.New()
	l := newCellLog(b, store, "B", 1)
	var kv []string
	for i := range 1000 {
		kv = append(kv, fmt.Sprintf("key%06d", i), strings.Repeat("v", 100))
	}
	l.put(kv...)
	l.snapshot()
	for i := range 100 {
		l.put(fmt.Sprintf("key%06d", i*7), fmt.Sprint(i))
		l.capture(1)
	}
	dst := filepath.Join(b.TempDir(), "r.db")
	for b.Loop() {
		if _, err := storage.Restore(context.Background(), store, "B", dst); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeLTX measures EncodeLTX of a commit of n pages (4 KiB,
// partly compressible), reporting the process's CPU time per op.
func BenchmarkEncodeLTX(b *testing.B) {
	for _, n := range []uint32{1, 16, 1000} {
		b.Run(fmt.Sprintf("pages=%d", n), func(b *testing.B) {
			ps := randomPageSet(7, 4096, n)
			if n == 1 {
				ps.Commit = 300 // one page of a larger database
			}
			var buf bytes.Buffer
			ts := time.Now()
			defer reportCPU(b)()
			for b.Loop() {
				buf.Reset()
				if err := storage.EncodeLTX(&buf, ps, 5, 5, ts); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(n) * 4096)
		})
	}
}

// reportCPU reports the process's CPU time (user + system) per op as
// cpu-ns/op, from now to the call of the function it returns.
func reportCPU(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

// ltxEncoderBytes encodes ps with a new superfly/ltx Encoder, the
// reference AppendLTX must match byte for byte.
func ltxEncoderBytes(ps *storage.PageSet, min, max uint64, ts time.Time) ([]byte, error) {
	var buf bytes.Buffer
	enc, _ := ltx.NewEncoder(&buf)
	err := enc.EncodeHeader(ltx.Header{
		Version: ltx.Version, Flags: ltx.HeaderFlagNoChecksum, PageSize: ps.PageSize, Commit: ps.Commit,
		MinTXID: ltx.TXID(min), MaxTXID: ltx.TXID(max), Timestamp: ts.UnixMilli(),
	})
	for _, pgno := range ps.Pgnos() {
		if err != nil {
			break
		}
		err = enc.EncodePage(ltx.PageHeader{Pgno: pgno}, ps.Pages[pgno])
	}
	if err == nil {
		err = enc.Close()
	}
	return buf.Bytes(), err
}

// TestAppendLTX_MatchesEncoder compares AppendLTX with superfly/ltx's
// Encoder on random page sets: snapshots and incremental files, page sizes,
// compressible and random pages, pages around the lock page, and invalid
// sets (both must refuse them).
func TestAppendLTX_MatchesEncoder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ts := time.UnixMilli(1700000000456)
	// The first 80 cases pair each of the 8 page sizes with each of the 10
	// variants (valid or an error) once; the rest draw both at random.
	// Under -race only the 80 run.
	const covering = 8 * 10
	cases := 200
	if raceEnabled {
		cases = covering
	}
	for i := range cases {
		sizeShift, variant := r.IntN(8), r.IntN(10)
		if i < covering {
			sizeShift, variant = i%8, i/8
		}
		pageSize := uint32(512) << sizeShift
		lock := ltx.LockPgno(pageSize)
		ps := &storage.PageSet{PageSize: pageSize, Pages: map[uint32][]byte{}}
		min := uint64(1 + r.IntN(3))
		n := 1 + r.IntN(100)
		page := func() []byte {
			p := make([]byte, pageSize)
			switch r.IntN(3) {
			case 0: // random: incompressible
				for j := 0; j < len(p); j += 8 {
					binary.LittleEndian.PutUint64(p[j:], r.Uint64())
				}
			case 1:
				for j := 0; j < len(p)/3; j++ {
					p[j] = byte(r.IntN(5))
				}
			}
			return p
		}
		if min == 1 {
			ps.Commit = uint32(n)
			for pgno := uint32(1); pgno <= ps.Commit; pgno++ {
				ps.Pages[pgno] = page()
			}
		} else {
			ps.Commit = uint32(n + r.IntN(1000))
			if r.IntN(4) == 0 {
				ps.Commit = lock + uint32(r.IntN(50))
			}
			for range n {
				pgno := 1 + uint32(r.IntN(int(ps.Commit)))
				if r.IntN(4) == 0 && lock+20 <= ps.Commit {
					pgno = lock - 10 + uint32(r.IntN(20))
				}
				if pgno != lock {
					ps.Pages[pgno] = page()
				}
			}
		}
		want := "valid"
		switch variant {
		case 0:
			ps.Pages[ps.Commit+1] = page()
			want = "page past commit"
		case 1:
			ps.Pages[1+uint32(r.IntN(int(ps.Commit)))] = make([]byte, pageSize/2)
			want = "short page"
		case 2:
			if min == 1 && ps.Commit > 2 {
				delete(ps.Pages, 2)
				want = "snapshot without page 2"
			}
		case 3:
			if lock <= ps.Commit {
				ps.Pages[lock] = page()
				want = "lock page"
			}
		case 4:
			max := min + uint64(r.IntN(3))
			if min > 1 {
				min, max = max+1, min
				want = "min > max"
			}
			_ = max
		}
		ref, refErr := ltxEncoderBytes(ps, min, min+uint64(i%2), ts)
		got, err := storage.AppendLTX([]byte("prefix"), ps, min, min+uint64(i%2), ts)
		if (err != nil) != (refErr != nil) {
			t.Fatalf("case %d (%s): AppendLTX error %v, ltx.Encoder error %v", i, want, err, refErr)
		}
		if err != nil {
			continue
		}
		if string(got[:6]) != "prefix" || !bytes.Equal(got[6:], ref) {
			t.Fatalf("case %d (%s, page size %d, %d pages): AppendLTX output differs from ltx.Encoder's", i, want, pageSize, len(ps.Pages))
		}
		var w bytes.Buffer
		if err := storage.EncodeLTX(&w, ps, min, min+uint64(i%2), ts); err != nil || !bytes.Equal(w.Bytes(), ref) {
			t.Fatalf("case %d: EncodeLTX = %v, or output differs", i, err)
		}
	}
}
