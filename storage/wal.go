package storage

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/superfly/ltx"
)

// WAL file layout (https://www.sqlite.org/fileformat2.html#walformat).
const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
	walMagicLE         = 0x377f0682 // checksums over little-endian words
	walMagicBE         = 0x377f0683 // checksums over big-endian words
	walVersion         = 3007000
)

var (
	// ErrWALDiscontinuity is returned by WALCapture.Read when the WAL was
	// restarted in a way the capture cannot follow without possibly missing
	// commits: new salts that are not the single successor of the
	// generation it was reading (a checkpoint it was not told about, a
	// database closed and reopened, a page size change). The caller must
	// take a Snapshot, which resets the capture, and log it as the next
	// TXID (a full image is a valid incremental file).
	ErrWALDiscontinuity = errors.New("WAL continuity lost: take a snapshot")
	// ErrCheckpointBusy is returned by Checkpoint when SQLite could not
	// checkpoint the whole WAL (another connection reads it).
	ErrCheckpointBusy = errors.New("checkpoint incomplete: the WAL is in use")
)

// PageSet is a set of database pages: the newest version of each page
// changed by one or more commits (WALCapture.Read), or every page of the
// database (WALCapture.Snapshot).
//
// Pages maps a page number (1-based) to its content, exactly PageSize bytes.
// It never holds the lock page (the page at byte offset 1 GiB, see
// ltx.LockPgno) or a page numbered above Commit. Iterate with pgnos for
// ascending order.
type PageSet struct {
	PageSize uint32
	// Commit is the size of the database in pages after the last commit
	// the set covers.
	Commit uint32
	Pages  map[uint32][]byte
}

// pgnos returns the page numbers of the set in ascending order.
func (ps *PageSet) pgnos() []uint32 {
	pgnos := make([]uint32, 0, len(ps.Pages))
	for pgno := range ps.Pages {
		pgnos = append(pgnos, pgno)
	}
	slices.Sort(pgnos)
	return pgnos
}

// Checksum returns the LTX database checksum of the pages in the set: the
// XOR of ltx.ChecksumPage over every page except the lock page, with
// ltx.ChecksumFlag set. For a snapshot it is the post-apply checksum of the
// database (what the LTX trailer of a checksummed file would carry).
func (ps *PageSet) Checksum() ltx.Checksum {
	h := ltx.NewHasher()
	lock := ltx.LockPgno(ps.PageSize)
	var sum ltx.Checksum
	for pgno, page := range ps.Pages {
		if pgno == lock || pgno > ps.Commit {
			continue
		}
		sum ^= ltx.ChecksumPageWithHasher(h, pgno, page)
	}
	return ltx.ChecksumFlag | sum
}

// walHeader is the decoded 32-byte header of a WAL file.
type walHeader struct {
	bigEndian    bool
	pageSize     uint32
	ckptSeq      uint32
	salt1, salt2 uint32
	sum          [2]uint32 // checksum of the first 24 bytes
}

// parseWALHeader validates and decodes a WAL header: magic, version, page
// size and header checksum.
func parseWALHeader(b []byte) (walHeader, error) {
	var h walHeader
	if len(b) < walHeaderSize {
		return h, errors.New("short WAL header")
	}
	switch binary.BigEndian.Uint32(b[0:]) {
	case walMagicLE:
	case walMagicBE:
		h.bigEndian = true
	default:
		return h, errors.New("bad WAL magic")
	}
	if v := binary.BigEndian.Uint32(b[4:]); v != walVersion {
		return h, fmt.Errorf("unsupported WAL version %d", v)
	}
	h.pageSize = binary.BigEndian.Uint32(b[8:])
	if !ltx.IsValidPageSize(h.pageSize) {
		return h, fmt.Errorf("bad WAL page size %d", h.pageSize)
	}
	h.ckptSeq = binary.BigEndian.Uint32(b[12:])
	h.salt1 = binary.BigEndian.Uint32(b[16:])
	h.salt2 = binary.BigEndian.Uint32(b[20:])
	h.sum = [2]uint32{binary.BigEndian.Uint32(b[24:]), binary.BigEndian.Uint32(b[28:])}
	if walChecksum(h.bigEndian, [2]uint32{}, b[:24]) != h.sum {
		return h, errors.New("WAL header checksum mismatch")
	}
	return h, nil
}

// walChecksum continues SQLite's WAL checksum s over b (len(b) a multiple
// of 8), reading 32-bit words in the byte order the WAL magic names.
func walChecksum(bigEndian bool, s [2]uint32, b []byte) [2]uint32 {
	s1, s2 := s[0], s[1]
	if bigEndian {
		for ; len(b) >= 8; b = b[8:] {
			s1 += binary.BigEndian.Uint32(b) + s2
			s2 += binary.BigEndian.Uint32(b[4:]) + s1
		}
	} else {
		for ; len(b) >= 8; b = b[8:] {
			s1 += binary.LittleEndian.Uint32(b) + s2
			s2 += binary.LittleEndian.Uint32(b[4:]) + s1
		}
	}
	return [2]uint32{s1, s2}
}

// walScan is the result of reading committed frames from a WAL.
type walScan struct {
	pages  map[uint32][]byte // newest version of each page, complete commits only
	commit uint32            // database size after the last complete commit; 0: none
	end    int64             // offset just past the last commit frame
	sum    [2]uint32         // cumulative checksum at end
}

// scanWAL reads the frames of the WAL generation described by hdr from
// offset off (whose cumulative checksum is sum) up to limit, and returns the
// pages of the complete commits it finds. It stops at the first frame that
// is short, carries other salts, has page number 0 or fails the cumulative
// checksum: frames after the last commit frame before that point (a
// transaction being written, or left over from an older generation) are
// never returned. r reads the WAL at its file offsets.
func scanWAL(r io.ReaderAt, hdr walHeader, off, limit int64, sum [2]uint32) (walScan, error) {
	res := walScan{end: off, sum: sum}
	pageSize := int64(hdr.pageSize)
	frameSize := walFrameHeaderSize + pageSize
	if limit-off < frameSize {
		return res, nil
	}
	bp := walBufPool.Get().(*[]byte)
	defer walBufPool.Put(bp)
	buf := *bp
	lock := ltx.LockPgno(hdr.pageSize)
	var (
		pending []walPage // pages of the transaction being read
		slab    []byte    // pages are cut from it, several per allocation
		chunk   []byte    // frames read, not yet scanned
	)
	for off+frameSize <= limit {
		if int64(len(chunk)) < frameSize {
			// Read as many whole frames as fit in buf, at least one.
			n := min((limit-off)/frameSize, max(int64(len(buf))/frameSize, 1)) * frameSize
			if n > int64(len(buf)) {
				buf = make([]byte, n) // a page larger than the pooled buffer
			}
			got, err := r.ReadAt(buf[:n], off)
			if err != nil && !errors.Is(err, io.EOF) {
				return res, err
			}
			chunk = buf[:got]
			if int64(got) < frameSize {
				break // truncated meanwhile
			}
		}
		frame := chunk[:frameSize]
		chunk = chunk[frameSize:]
		pgno := binary.BigEndian.Uint32(frame[0:])
		commit := binary.BigEndian.Uint32(frame[4:])
		if pgno == 0 ||
			binary.BigEndian.Uint32(frame[8:]) != hdr.salt1 ||
			binary.BigEndian.Uint32(frame[12:]) != hdr.salt2 {
			break
		}
		sum = walChecksum(hdr.bigEndian, sum, frame[:8])
		sum = walChecksum(hdr.bigEndian, sum, frame[walFrameHeaderSize:])
		if sum[0] != binary.BigEndian.Uint32(frame[16:]) || sum[1] != binary.BigEndian.Uint32(frame[20:]) {
			break
		}
		off += frameSize
		if pgno != lock {
			if len(slab) == 0 {
				// Enough for the frames left, up to 64 pages: a commit's
				// pages share one allocation.
				frames := min(1+(limit-off)/frameSize, 64)
				slab = make([]byte, frames*pageSize)
			}
			page := slab[:pageSize:pageSize]
			slab = slab[pageSize:]
			copy(page, frame[walFrameHeaderSize:])
			pending = append(pending, walPage{pgno, page})
		}
		if commit == 0 {
			continue
		}
		if res.pages == nil {
			res.pages = make(map[uint32][]byte, len(pending))
		}
		for _, p := range pending {
			res.pages[p.pgno] = p.page
		}
		pending = pending[:0]
		res.commit, res.end, res.sum = commit, off, sum
	}
	for pgno := range res.pages {
		if pgno > res.commit {
			delete(res.pages, pgno) // the database shrank
		}
	}
	return res, nil
}

type walPage struct {
	pgno uint32
	page []byte
}

// walBufPool holds the buffers scanWAL reads frames into: 256 KiB, a
// read syscall per 63 frames of 4 KiB pages.
var walBufPool = sync.Pool{New: func() any {
	b := make([]byte, 256<<10)
	return &b
}}

// WALCapture reads the pages of a database's commits from its -wal file
// (Litestream's method), for logging them as LTX. It needs the database to
// run with Options.LogPages (no automatic checkpoints): frames then stay in
// the WAL until Checkpoint.
//
// A WALCapture keeps a position: the WAL generation (salts) and the end of
// the last commit it returned. Snapshot returns the whole database and sets
// the position to the last commit in the WAL; each Read returns the commits
// after the position and advances it. Take a Snapshot first: a Read before
// any Snapshot starts at the beginning of the current WAL.
//
// Its methods may be called from any goroutine (not only the DB's), while
// SQLite appends frames: they serialise on a mutex, read only fully written
// commits (validated by salts and cumulative checksums) and never return a
// partial transaction. They must not run concurrently with Checkpoint (see
// there). One WALCapture follows one open DB: after the DB is closed and
// reopened, make a new one and take a Snapshot.
type WALCapture struct {
	dbPath  string
	walPath string

	mu      sync.Mutex
	f       *os.File            // the -wal file; guarded by mu
	fd      int                 // f's descriptor
	started bool                // hdr, off and sum are set
	hdr     walHeader           // generation being read
	rawHdr  [walHeaderSize]byte // hdr as read, when started
	off     int64               // end of the last commit returned
	sum     [2]uint32           // cumulative checksum at off
}

// NewWALCapture returns a WALCapture of the database file at dbPath (the
// file the DB was opened with; its WAL is dbPath + "-wal"). It opens
// nothing until first used.
func NewWALCapture(dbPath string) *WALCapture {
	return &WALCapture{dbPath: dbPath, walPath: dbPath + "-wal"}
}

// WALCapture returns a new WALCapture of db's file. db must have been opened
// with Options.LogPages.
func (db *DB) WALCapture() *WALCapture { return NewWALCapture(db.abs) }

// Close releases the WAL file handle. The capture may be used again; it
// reopens the file.
func (c *WALCapture) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closeFileLocked()
}

func (c *WALCapture) closeFileLocked() error {
	if c.f == nil {
		return nil
	}
	err := c.f.Close()
	c.f = nil
	return err
}

// openWALLocked returns the open -wal file and its size, reopening it if
// it was unlinked (SQLite deletes the WAL when its last connection closes;
// a new one is another file). It returns a nil file when there is no WAL.
//
// While the WAL stays, this costs one fstat: no path lookup.
func (c *WALCapture) openWALLocked() (*os.File, int64, error) {
	var st walStat
	if c.f != nil {
		if err := fstat(c.fd, &st); err == nil && st.Nlink > 0 {
			return c.f, st.Size, nil
		}
		c.closeFileLocked()
	}
	f, err := openWAL(c.walPath)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, err
	}
	fd := int(f.Fd())
	if err := fstat(fd, &st); err != nil {
		f.Close()
		return nil, 0, &os.PathError{Op: "fstat", Path: c.walPath, Err: err}
	}
	c.f, c.fd = f, fd
	return f, st.Size, nil
}

// readHeaderLocked reads the header of the current WAL. ok is false when
// the WAL is absent, shorter than a header or has an invalid header
// (being created, or truncated by a checkpoint): SQLite treats such a WAL
// as empty too. raw is the header's bytes.
func (c *WALCapture) readHeaderLocked() (f *os.File, size int64, hdr walHeader, raw [walHeaderSize]byte, ok bool, err error) {
	f, size, err = c.openWALLocked()
	if err != nil || f == nil || size < walHeaderSize {
		return nil, 0, hdr, raw, false, err
	}
	if _, err := f.ReadAt(raw[:], 0); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, hdr, raw, false, nil
		}
		return nil, 0, hdr, raw, false, err
	}
	if c.started && raw == c.rawHdr {
		return f, size, c.hdr, raw, true, nil // parsed and checked before
	}
	hdr, err = parseWALHeader(raw[:])
	if err != nil {
		return nil, 0, hdr, raw, false, nil
	}
	return f, size, hdr, raw, true, nil
}

func (c *WALCapture) scanLocked(f *os.File, hdr walHeader, off, limit int64, sum [2]uint32) (walScan, error) {
	return scanWAL(f, hdr, off, limit, sum)
}

// Read returns the pages of the commits completed in the WAL since the
// position, and advances the position past them. It returns nil (and no
// error) when there is no new complete commit. The PageSet holds the
// newest version of each page changed by those commits and the database
// size after the last one; the caller owns it.
//
// After a checkpoint restarted the WAL (Checkpoint, while the capture was
// caught up), Read continues in the new generation. A restart it cannot
// follow gives ErrWALDiscontinuity and leaves the position unchanged.
func (c *WALCapture) Read() (*PageSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, size, hdr, raw, ok, err := c.readHeaderLocked()
	if err != nil {
		return nil, fmt.Errorf("read WAL: %w", err)
	}
	if !ok {
		return nil, nil
	}
	off, sum := c.off, c.sum
	switch {
	case !c.started:
		off, sum = walHeaderSize, hdr.sum
	case hdr.salt1 == c.hdr.salt1 && hdr.salt2 == c.hdr.salt2:
		if hdr.pageSize != c.hdr.pageSize || hdr.bigEndian != c.hdr.bigEndian || hdr.sum != c.hdr.sum {
			return nil, fmt.Errorf("read WAL: %w (header changed under the same salts)", ErrWALDiscontinuity)
		}
	case hdr.ckptSeq == c.hdr.ckptSeq+1 && hdr.salt1 == c.hdr.salt1+1 && hdr.pageSize == c.hdr.pageSize:
		// The single restart that follows a checkpoint of this
		// generation: continue from the start of the new one.
		off, sum = walHeaderSize, hdr.sum
	default:
		return nil, fmt.Errorf("read WAL: %w (checkpoint sequence %d -> %d, salt-1 %08x -> %08x)",
			ErrWALDiscontinuity, c.hdr.ckptSeq, hdr.ckptSeq, c.hdr.salt1, hdr.salt1)
	}
	res, err := c.scanLocked(f, hdr, off, size, sum)
	if err != nil {
		return nil, fmt.Errorf("read WAL: %w", err)
	}
	c.started, c.hdr, c.rawHdr, c.off, c.sum = true, hdr, raw, res.end, res.sum
	if res.commit == 0 {
		return nil, nil
	}
	return &PageSet{PageSize: hdr.pageSize, Commit: res.commit, Pages: res.pages}, nil
}

// caughtUp reports whether the WAL holds no complete commit that Read has
// not returned yet. Called on the DB's goroutine with no transaction open,
// its answer stays true until the next Commit: that is the moment
// Checkpoint may run.
func (c *WALCapture) caughtUp() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, size, hdr, _, ok, err := c.readHeaderLocked()
	if err != nil {
		return false, fmt.Errorf("read WAL: %w", err)
	}
	if !ok {
		return true, nil
	}
	off, sum := c.off, c.sum
	if !c.started || hdr.salt1 != c.hdr.salt1 || hdr.salt2 != c.hdr.salt2 {
		off, sum = walHeaderSize, hdr.sum
	}
	res, err := c.scanLocked(f, hdr, off, size, sum)
	if err != nil {
		return false, fmt.Errorf("read WAL: %w", err)
	}
	return res.commit == 0, nil
}

// Snapshot returns every page of the committed database: the main file
// overlaid with the WAL frames of complete commits, truncated to the
// database size of the last commit, the lock page excluded. It sets the
// position to the end of that last commit, so the next Read returns only
// later commits. It returns a PageSet with Commit 0 and no pages for an
// empty database.
//
// It reads the WAL before the main file, and must not run concurrently
// with Checkpoint (which writes the main file).
func (c *WALCapture) Snapshot() (*PageSet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, size, hdr, raw, ok, err := c.readHeaderLocked()
	if err != nil {
		return nil, fmt.Errorf("snapshot database: %w", err)
	}
	var res walScan
	if ok {
		res, err = c.scanLocked(f, hdr, walHeaderSize, size, hdr.sum)
		if err != nil {
			return nil, fmt.Errorf("snapshot database: %w", err)
		}
	}
	ps, err := readMainFile(c.dbPath, res.pages, res.commit, hdr.pageSize)
	if err != nil {
		return nil, fmt.Errorf("snapshot database: %w", err)
	}
	if ok {
		c.started, c.hdr, c.rawHdr, c.off, c.sum = true, hdr, raw, res.end, res.sum
	} else {
		c.started = false // the next WAL generation is new to us
	}
	return ps, nil
}

// readMainFile completes the WAL pages walPages (commit pages, page size
// walPageSize; commit 0 when the WAL holds no commit) with the pages of the
// main database file at path.
func readMainFile(path string, walPages map[uint32][]byte, commit, walPageSize uint32) (*PageSet, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) && commit != 0 {
		f = nil // everything is in the WAL
	} else if errors.Is(err, os.ErrNotExist) {
		return &PageSet{PageSize: 4096, Pages: map[uint32][]byte{}}, nil
	} else if err != nil {
		return nil, err
	}
	var fileSize int64
	pageSize := walPageSize
	if f != nil {
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, err
		}
		fileSize = fi.Size()
		if fileSize >= 100 {
			var hb [100]byte
			if _, err := f.ReadAt(hb[:], 0); err != nil {
				return nil, err
			}
			if string(hb[:16]) != "SQLite format 3\x00" {
				return nil, errors.New("main file is not an SQLite database")
			}
			ps := uint32(binary.BigEndian.Uint16(hb[16:]))
			if ps == 1 {
				ps = 65536
			}
			if !ltx.IsValidPageSize(ps) {
				return nil, fmt.Errorf("main file has bad page size %d", ps)
			}
			if commit != 0 && ps != walPageSize {
				return nil, fmt.Errorf("main file page size %d differs from WAL page size %d", ps, walPageSize)
			}
			pageSize = ps
			if commit == 0 {
				commit = uint32(fileSize / int64(ps))
			}
		} else if commit == 0 && fileSize > 0 {
			return nil, fmt.Errorf("main file is %d bytes, too short for an SQLite database", fileSize)
		}
	}
	if pageSize == 0 {
		pageSize = 4096
	}
	ps := &PageSet{PageSize: pageSize, Commit: commit, Pages: make(map[uint32][]byte, commit)}
	lock := ltx.LockPgno(pageSize)
	const slabPages = 256
	var slab []byte
	for pgno := uint32(1); pgno <= commit; pgno++ {
		if pgno == lock {
			continue
		}
		if page, ok := walPages[pgno]; ok {
			ps.Pages[pgno] = page
			continue
		}
		if len(slab) == 0 {
			slab = make([]byte, slabPages*int(pageSize))
		}
		page := slab[:pageSize:pageSize]
		slab = slab[pageSize:]
		offset := int64(pgno-1) * int64(pageSize)
		if f != nil && offset < fileSize {
			if _, err := f.ReadAt(page, offset); err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
		}
		// A page past the end of the main file that no commit in the
		// WAL wrote reads as zeros, as SQLite reads it.
		ps.Pages[pgno] = page
	}
	return ps, nil
}

// Checkpoint copies every frame of the WAL into the main database file and
// truncates the WAL to zero bytes (PRAGMA wal_checkpoint(TRUNCATE)); the
// next commit starts a new WAL generation, which a caught-up WALCapture
// follows. It does nothing when the WAL is already empty.
//
// Contract: call it on the DB's goroutine with no transaction open, and only
// when every commit has been returned by the WALCapture (caughtUp reports
// true, or a Read began after the last Commit and has returned), and while
// no Read, caughtUp or Snapshot is running. Commits the capture has not read
// when the WAL is truncated are lost to the log, and the capture cannot
// detect it. Without a capture (Options.LogPages unset) it may run any time
// no transaction is open.
//
// It returns ErrCheckpointBusy if another connection kept SQLite from
// checkpointing the whole WAL.
func (db *DB) Checkpoint() error {
	if db.closed {
		return fmt.Errorf("checkpoint: %w", ErrClosed)
	}
	if db.InTx() {
		return errors.New("checkpoint: a transaction is open")
	}
	if fi, err := os.Stat(db.abs + "-wal"); errors.Is(err, os.ErrNotExist) || (err == nil && fi.Size() == 0) {
		// Nothing to copy. A TRUNCATE checkpoint of an empty WAL would
		// still restart it, and a capture would see two restarts.
		return nil
	}
	var busy, logFrames, ckptFrames int
	err := db.conn.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &ckptFrames)
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("checkpoint: %w (%d of %d frames copied)", ErrCheckpointBusy, ckptFrames, logFrames)
	}
	return nil
}

// withLogPages adds wal_autocheckpoint(0) to the data source name dsn when
// on (Options.LogPages).
func withLogPages(dsn string, on bool) string {
	if !on {
		return dsn
	}
	return dsn + "&_pragma=wal_autocheckpoint%280%29"
}
