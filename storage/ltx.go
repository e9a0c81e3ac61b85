package storage

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"time"

	"github.com/pierrec/lz4/v4"
	"github.com/superfly/ltx"
)

// ErrCorruptLTX is wrapped by the errors of DecodeLTX for bytes that are
// not a valid LTX file: bad structure, truncation, trailing data or a file
// checksum mismatch.
var ErrCorruptLTX = errors.New("corrupt LTX file")

// EncodeLTX writes ps as one LTX file (format version 3, superfly/ltx
// v0.5.3) covering the transactions minTXID..maxTXID, stamped ts. Pages go
// in ascending order. The header carries the no-checksum flag (0x2) and
// zero pre- and post-apply checksums, as celld's compactor requires of L0
// files; the file checksum is written.
//
// A file with minTXID 1 is a snapshot and must hold every page
// 1..ps.Commit except the lock page (WALCapture.Snapshot gives that).
// ps.Commit must be at least 1: an empty database cannot be logged.
func EncodeLTX(w io.Writer, ps *PageSet, minTXID, maxTXID uint64, ts time.Time) error {
	if ps.Commit == 0 {
		return errors.New("encode LTX: empty database (commit 0)")
	}
	slot := encoderPool.Get().(*encoderSlot)
	defer encoderPool.Put(slot)
	enc := slot.reset(w)
	defer enc.Cleanup()
	defer slot.w.Reset(nil)
	hdr := ltx.Header{
		Version:   ltx.Version,
		Flags:     ltx.HeaderFlagNoChecksum,
		PageSize:  ps.PageSize,
		Commit:    ps.Commit,
		MinTXID:   ltx.TXID(minTXID),
		MaxTXID:   ltx.TXID(maxTXID),
		Timestamp: ts.UnixMilli(),
	}
	if err := enc.EncodeHeader(hdr); err != nil {
		return fmt.Errorf("encode LTX header: %w", err)
	}
	for _, pgno := range ps.Pgnos() {
		if err := enc.EncodePage(ltx.PageHeader{Pgno: pgno}, ps.Pages[pgno]); err != nil {
			return fmt.Errorf("encode LTX page %d: %w", pgno, err)
		}
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("encode LTX: %w", err)
	}
	return nil
}

// encoderSlot recycles an ltx.Encoder: a new one allocates a 128 KiB LZ4
// hash table, which costs more than encoding a small file. ltx v0.5.3 has
// no Reset, so a slot keeps the state of a freshly made encoder (fresh) and
// copies it over the used one (enc); the LZ4 compressor marks its table
// stale by itself at every block, so a copied table is as good as a zero
// one. The writer is a switchable indirection set for each use.
type encoderSlot struct {
	w     switchWriter
	fresh ltx.Encoder
	enc   ltx.Encoder
}

var encoderPool = sync.Pool{New: func() any {
	s := new(encoderSlot)
	enc, _ := ltx.NewEncoder(&s.w)
	s.fresh = *enc
	return s
}}

func (s *encoderSlot) reset(w io.Writer) *ltx.Encoder {
	s.w.Reset(w)
	s.enc = s.fresh
	return &s.enc
}

type switchWriter struct{ w io.Writer }

func (s *switchWriter) Reset(w io.Writer)           { s.w = w }
func (s *switchWriter) Write(p []byte) (int, error) { return s.w.Write(p) }

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

// ReadLTX decodes and verifies the LTX file b into a PageSet (Commit from
// its header) and returns its header too.
func ReadLTX(b []byte) (*PageSet, ltx.Header, error) {
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

// DatabaseChecksum returns the LTX database checksum (the post-apply
// checksum of a file that ends at this state) of the database file at path,
// read as a plain file: its -wal, if any, is not applied. Compare a
// restored file with PageSet.Checksum of the source's Snapshot.
func DatabaseChecksum(path string) (ltx.Checksum, error) {
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
