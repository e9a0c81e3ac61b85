package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc64"
	"io"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/pierrec/lz4/v4"
	"github.com/superfly/ltx"
)

// ErrCorruptLTX is wrapped by the errors of DecodeLTX for bytes that are
// not a valid LTX file: bad structure, truncation, trailing data or a file
// checksum mismatch.
var ErrCorruptLTX = errors.New("corrupt LTX file")

// LTXBuffer is an LTX file encoded into a pooled buffer (EncodeLTXBuffer):
// Bytes is the file; Release gives the buffer back, after which Bytes must
// not be used.
type LTXBuffer struct{ b *[]byte }

// Bytes returns the encoded file.
func (l LTXBuffer) Bytes() []byte { return *l.b }

// Release returns the buffer to the pool (a snapshot's, larger than
// maxPooledEncodeBuf, is dropped).
func (l LTXBuffer) Release() {
	if cap(*l.b) <= maxPooledEncodeBuf {
		*l.b = (*l.b)[:0]
		encodeBufPool.Put(l.b)
	}
}

// EncodeLTXBuffer encodes ps with AppendLTX into a buffer from the one
// pool of LTX buffers.
func EncodeLTXBuffer(ps *PageSet, minTXID, maxTXID uint64, ts time.Time) (LTXBuffer, error) {
	bp := encodeBufPool.Get().(*[]byte)
	b, err := AppendLTX((*bp)[:0], ps, minTXID, maxTXID, ts)
	*bp = b
	l := LTXBuffer{bp}
	if err != nil {
		l.Release()
		return LTXBuffer{}, err
	}
	return l, nil
}

// AppendLTX appends an LTX file to dst and returns the extended slice: ps
// as one file (format version 3, superfly/ltx v0.5.3) covering the
// transactions minTXID..maxTXID, stamped ts. Pages go in ascending order.
// The header carries the no-checksum flag (0x2) and zero pre- and
// post-apply checksums, as celld's compactor requires of L0 files; the
// file checksum is written. A file with minTXID 1 is a snapshot and must
// hold every page 1..ps.Commit except the lock page (WALCapture.Snapshot
// gives that). ps.Commit must be at least 1: an empty database cannot be
// logged. On error the returned slice is dst with unspecified bytes
// appended.
//
// The bytes are exactly those of superfly/ltx v0.5.3's Encoder for the
// same header and pages (TestEncodeLTX compares them): a 100-byte header;
// for each page a 6-byte page header (flag 0x1: a size follows), the 4-byte
// size of the LZ4 block and the block; an empty page header; the page
// index (uvarint pgno, offset, size of each frame, then uvarint 0) and its
// 8-byte size; the trailer. The file checksum is CRC-64/ISO over every byte
// before it, with the uncompressed page in place of each LZ4 block. It is
// written here rather than with ltx.Encoder because that encoder costs
// more than the pages for a small commit: its 136 KiB state must be fresh
// for every file, and it allocates per page.
func AppendLTX(dst []byte, ps *PageSet, minTXID, maxTXID uint64, ts time.Time) ([]byte, error) {
	if ps.Commit == 0 {
		return dst, errors.New("encode LTX: empty database (commit 0)")
	}
	hdr := ltx.Header{
		Version:   ltx.Version,
		Flags:     ltx.HeaderFlagNoChecksum,
		PageSize:  ps.PageSize,
		Commit:    ps.Commit,
		MinTXID:   ltx.TXID(minTXID),
		MaxTXID:   ltx.TXID(maxTXID),
		Timestamp: ts.UnixMilli(),
	}
	if err := hdr.Validate(); err != nil {
		return dst, fmt.Errorf("encode LTX header: %w", err)
	}
	st := encoderPool.Get().(*encoderState)
	defer encoderPool.Put(st)
	pgnos := st.pgnos[:0]
	for pgno := range ps.Pages {
		pgnos = append(pgnos, pgno)
	}
	slices.Sort(pgnos)
	st.pgnos = pgnos[:0]

	pageSize := int(ps.PageSize)
	bound := lz4.CompressBlockBound(pageSize)
	if len(pgnos) <= 64 {
		dst = slices.Grow(dst, ltx.HeaderSize+len(pgnos)*(ltx.PageHeaderSize+4+bound+3*binary.MaxVarintLen64)+64)
	}
	base := len(dst)
	// crc covers dst[crcFrom:] plus what was folded in before.
	var crc uint64
	crcFrom := base

	dst = append(dst, ltx.Magic...)
	dst = binary.BigEndian.AppendUint32(dst, hdr.Flags)
	dst = binary.BigEndian.AppendUint32(dst, hdr.PageSize)
	dst = binary.BigEndian.AppendUint32(dst, hdr.Commit)
	dst = binary.BigEndian.AppendUint64(dst, uint64(hdr.MinTXID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(hdr.MaxTXID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(hdr.Timestamp))
	dst = append(dst, make([]byte, ltx.HeaderSize-40)...) // checksums, WAL fields, node id

	lock := ltx.LockPgno(ps.PageSize)
	snapshot := hdr.IsSnapshot()
	index := st.index[:0]
	var prev uint32
	for _, pgno := range pgnos {
		page := ps.Pages[pgno]
		switch {
		case pgno > hdr.Commit:
			return dst, fmt.Errorf("encode LTX page %d: page number out of bounds for commit size %d", pgno, hdr.Commit)
		case pgno == 0:
			return dst, errors.New("encode LTX page 0: page number required")
		case len(page) != pageSize:
			return dst, fmt.Errorf("encode LTX page %d: invalid page buffer size: %d, expecting %d", pgno, len(page), pageSize)
		case pgno == lock:
			return dst, fmt.Errorf("encode LTX page %d: cannot encode lock page", pgno)
		case snapshot && prev == 0 && pgno != 1:
			return dst, errors.New("encode LTX: snapshot transaction file must start with page number 1")
		case snapshot && prev == lock-1 && pgno != prev+2,
			snapshot && prev != 0 && prev != lock-1 && pgno != prev+1:
			return dst, fmt.Errorf("encode LTX: nonsequential page numbers in snapshot transaction: %d,%d", prev, pgno)
		}
		prev = pgno
		offset := len(dst) - base
		dst = binary.BigEndian.AppendUint32(dst, pgno)
		dst = binary.BigEndian.AppendUint16(dst, ltx.PageHeaderFlagSize)
		sizeAt := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = slices.Grow(dst, bound)
		n, err := st.compressor.CompressBlock(page, dst[len(dst):len(dst)+bound])
		if err != nil {
			return dst, fmt.Errorf("encode LTX page %d: compress: %w", pgno, err)
		} else if n == 0 {
			return dst, fmt.Errorf("encode LTX page %d: lz4 block compression failed", pgno)
		}
		binary.BigEndian.PutUint32(dst[sizeAt:], uint32(n))
		// The hash covers the frame header and the uncompressed page.
		crc = crc64.Update(crc, crcTable, dst[crcFrom:sizeAt+4])
		crc = crc64.Update(crc, crcTable, page)
		dst = dst[:len(dst)+n]
		crcFrom = len(dst)
		index = append(index, ltxIndexEntry{pgno: pgno, offset: int64(offset), size: int64(len(dst) - base - offset)})
	}
	st.index = index[:0]
	if len(index) == 0 {
		return dst, errors.New("encode LTX: no pages")
	}
	dst = append(dst, make([]byte, ltx.PageHeaderSize)...) // end of pages
	indexAt := len(dst)
	for _, e := range index {
		dst = binary.AppendUvarint(dst, uint64(e.pgno))
		dst = binary.AppendUvarint(dst, uint64(e.offset))
		dst = binary.AppendUvarint(dst, uint64(e.size))
	}
	dst = binary.AppendUvarint(dst, 0)
	dst = binary.BigEndian.AppendUint64(dst, uint64(len(dst)-indexAt))
	dst = binary.BigEndian.AppendUint64(dst, 0) // post-apply checksum
	crc = crc64.Update(crc, crcTable, dst[crcFrom:])
	dst = binary.BigEndian.AppendUint64(dst, uint64(ltx.ChecksumFlag|ltx.Checksum(crc)))
	return dst, nil
}

var crcTable = crc64.MakeTable(crc64.ISO)

// maxPooledEncodeBuf is the largest LTX buffer the pool keeps for reuse: a
// small commit's file, not a snapshot's.
const maxPooledEncodeBuf = 1 << 20

var encodeBufPool = sync.Pool{New: func() any { return new([]byte) }}

type ltxIndexEntry struct {
	pgno         uint32
	offset, size int64
}

// encoderState is what AppendLTX reuses between files: the LZ4 compressor
// (its 136 KiB table marks itself stale at every block) and scratch slices.
type encoderState struct {
	compressor lz4.Compressor
	pgnos      []uint32
	index      []ltxIndexEntry
}

var encoderPool = sync.Pool{New: func() any { return new(encoderState) }}

// DecodeLTX decodes and verifies the LTX file b (either page encoding
// superfly/ltx v0.5.3 reads: legacy LZ4 frames or LZ4 blocks). It calls fn
// for each page in file order with a buffer that is reused for the next
// page, then verifies the page index, the trailer and the file checksum, and
// returns the header. Pages handed to fn before an error are not valid:
// the caller discards its work when DecodeLTX fails. An error from fn is
// returned as is; every other error wraps ErrCorruptLTX.
//
// Random or truncated bytes give an error, never a panic, and memory stays
// proportional to len(b) plus one page.
func DecodeLTX(b []byte, fn func(pgno uint32, page []byte) error) (ltx.Header, error) {
	corrupt := func(err error) (ltx.Header, error) {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return ltx.Header{}, fmt.Errorf("%w: %w", ErrCorruptLTX, err)
	}
	if err := checkLTXFrames(b); err != nil {
		return corrupt(err)
	}
	dec := ltx.NewDecoder(bytes.NewReader(b))
	dec.SetRetainPageIndex(false)
	if err := dec.DecodeHeader(); err != nil {
		return corrupt(fmt.Errorf("decode header: %w", err))
	}
	hdr := dec.Header()
	page := make([]byte, hdr.PageSize)
	var ph ltx.PageHeader
	for i := 0; ; i++ {
		// ltx v0.5.3 does not check that a block fills the page: start
		// from zeros so a short block never shows the previous page.
		clear(page)
		err := dec.DecodePage(&ph, page)
		if err == io.EOF {
			break
		} else if err != nil {
			return corrupt(fmt.Errorf("decode page frame %d: %w", i, err))
		}
		if ph.Pgno > hdr.Commit {
			return corrupt(fmt.Errorf("page %d beyond commit size %d", ph.Pgno, hdr.Commit))
		}
		if err := fn(ph.Pgno, page); err != nil {
			return ltx.Header{}, err
		}
	}
	if err := dec.Close(); err != nil {
		return corrupt(err)
	}
	return hdr, nil
}

// readLTX decodes and verifies the LTX file b into a PageSet (Commit from
// its header) and returns its header too.
func readLTX(b []byte) (*PageSet, ltx.Header, error) {
	var ps *PageSet
	hdr, err := DecodeLTX(b, func(pgno uint32, page []byte) error {
		if ps == nil {
			ps = &PageSet{PageSize: uint32(len(page)), Pages: map[uint32][]byte{}}
		}
		ps.Pages[pgno] = bytes.Clone(page)
		return nil
	})
	if err != nil {
		return nil, hdr, err
	}
	if ps == nil {
		ps = &PageSet{Pages: map[uint32][]byte{}}
	}
	ps.PageSize, ps.Commit = hdr.PageSize, hdr.Commit
	return ps, hdr, nil
}

// databaseChecksum returns the LTX database checksum (the post-apply
// checksum of a file that ends at this state) of the database file at path,
// read as a plain file: its -wal, if any, is not applied. Compare a
// restored file with PageSet.Checksum of the source's Snapshot.
func databaseChecksum(path string) (ltx.Checksum, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("checksum database: %w", err)
	}
	defer f.Close()
	var hb [100]byte
	if _, err := io.ReadFull(f, hb[:]); err != nil {
		return 0, fmt.Errorf("checksum database: read header: %w", err)
	}
	pageSize := uint32(binary.BigEndian.Uint16(hb[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if !ltx.IsValidPageSize(pageSize) {
		return 0, fmt.Errorf("checksum database: bad page size %d", pageSize)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("checksum database: %w", err)
	}
	sum, err := ltx.ChecksumReader(f, int(pageSize))
	if err != nil {
		return 0, fmt.Errorf("checksum database: %w", err)
	}
	return ltx.ChecksumFlag | sum, nil
}

// checkLTXFrames walks the page frames of the LTX file b exactly as
// ltx.Decoder will read them, and fails if a block-format frame claims more
// data than b holds. ltx v0.5.3 allocates the claimed size (up to 4 GiB)
// before reading it; this keeps a corrupt object from costing more memory
// than its own size. It returns nil, leaving the verdict to the decoder,
// wherever the decoder itself will stop with an error.
func checkLTXFrames(b []byte) error {
	hdr, _, err := ltx.DecodeHeader(bytes.NewReader(b))
	if err != nil || hdr.Validate() != nil {
		return nil
	}
	pageSize := int(hdr.PageSize)
	off := ltx.HeaderSize
	var (
		zr   *lz4.Reader
		page []byte
	)
	for {
		if len(b)-off < ltx.PageHeaderSize {
			return nil
		}
		var ph ltx.PageHeader
		_ = ph.UnmarshalBinary(b[off:])
		if ph.IsZero() || ph.Validate() != nil {
			return nil // end of pages, or the decoder's error
		}
		off += ltx.PageHeaderSize
		if ph.Flags&ltx.PageHeaderFlagSize != 0 {
			if len(b)-off < 4 {
				return nil
			}
			size := int64(binary.BigEndian.Uint32(b[off:]))
			off += 4
			if size > int64(len(b)-off) {
				return fmt.Errorf("page %d: frame claims %d bytes, %d left in the file", ph.Pgno, size, len(b)-off)
			}
			off += int(size)
			continue
		}
		// A legacy LZ4 frame: consume it with the same library calls the
		// decoder makes, counting the bytes it takes.
		if zr == nil {
			page = make([]byte, pageSize)
		}
		cr := &countingReader{r: bytes.NewReader(b[off:])}
		lr := &io.LimitedReader{R: cr, N: math.MaxInt64}
		if zr == nil {
			zr = lz4.NewReader(lr)
		} else {
			zr.Reset(lr)
		}
		if _, err := io.ReadFull(zr, page); err != nil {
			return nil
		}
		lr.N = 8 // the decoder's LZ4 frame footer limit
		if _, err := io.ReadFull(zr, page[:1]); err != io.EOF {
			return nil
		}
		off += int(cr.n)
	}
}

type countingReader struct {
	r *bytes.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
