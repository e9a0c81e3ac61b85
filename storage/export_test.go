package storage

import (
	"io"
	"time"

	"github.com/superfly/ltx"
)

// Test-only exports.

// EncodeLTX writes ps as one LTX file (see AppendLTX).
func EncodeLTX(w io.Writer, ps *PageSet, minTXID, maxTXID uint64, ts time.Time) error {
	l, err := EncodeLTXBuffer(ps, minTXID, maxTXID, ts)
	if err != nil {
		return err
	}
	defer l.Release()
	_, err = w.Write(l.Bytes())
	return err
}

// ReadLTX decodes and verifies an LTX file into a PageSet.
func ReadLTX(b []byte) (*PageSet, ltx.Header, error) { return readLTX(b) }

// DatabaseChecksum is the LTX checksum of the database file at path.
func DatabaseChecksum(path string) (ltx.Checksum, error) { return databaseChecksum(path) }

// LTXReader is one LTX file given to RestoreLTX.
type LTXReader = ltxReader

// RestoreLTX rebuilds a database at dstPath from LTX files.
func RestoreLTX(dstPath string, files []LTXReader) (uint64, error) { return restoreLTX(dstPath, files) }

// Pgnos returns the page numbers of the set in ascending order.
func (ps *PageSet) Pgnos() []uint32 { return ps.pgnos() }

// CaughtUp reports whether the WAL holds no commit Read has not returned.
func (c *WALCapture) CaughtUp() (bool, error) { return c.caughtUp() }
