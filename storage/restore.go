package storage

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/superfly/ltx"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
)

// MaxLTXLevel is the highest compaction level a restore reads (0009, the
// snapshot level of Litestream and celld).
const MaxLTXLevel = 9

// ErrLTXGap is wrapped by restore errors when the log has no contiguous
// chain of files from TXID 1 to its newest TXID.
var ErrLTXGap = errors.New("gap in LTX chain")

// LTXObjectError is a restore failure caused by one LTX object or file: it
// could not be read, is corrupt (wraps ErrCorruptLTX), or does not fit the
// chain. Key is the bucket key (or the name given to restoreLTX).
type LTXObjectError struct {
	Key string
	Err error
}

func (e *LTXObjectError) Error() string { return "LTX object " + e.Key + ": " + e.Err.Error() }
func (e *LTXObjectError) Unwrap() error { return e.Err }

// RestoreResult describes what Restore wrote.
type RestoreResult struct {
	// Epoch is the generation restored (the e<N> of the keys).
	Epoch uint64
	// TXID is the last transaction of the restored chain: the next file
	// of this generation would be TXID+1.
	TXID uint64
	// Found is false when the bucket holds no LTX file for the cell at
	// levels 0000..0009; Restore then wrote nothing.
	Found bool
}

// restoreFetchers bounds the objects Restore downloads ahead of the one
// it applies (and so the bodies it holds in memory).
const restoreFetchers = 8

// Restore rebuilds the database of the cell scope at dstPath from its LTX
// log in store (bucket protocol, section 7): it lists bucketkey.LTXPrefix(scope),
// takes the numerically highest epoch holding files at levels 0000..0009,
// and applies the contiguous chain from TXID 1 to the newest TXID of that
// epoch, choosing at each step the file (of any level) that extends the
// chain furthest; the newest version of each page wins. The result is
// truncated to the last file's commit size, its lock page zeroed, written
// to a temporary file beside dstPath, fsync'd, then renamed over dstPath
// (after removing any dstPath-wal, -shm and -journal, which belong to the
// replaced file), and the directory is fsync'd.
//
// No connection may have dstPath open. On any error (a gap, an object that
// cannot be read, is corrupt or truncated, ctx done) nothing at dstPath is
// touched and the temporary file is removed; errors about one object are
// *LTXObjectError naming its key, a gap wraps ErrLTXGap and names the
// missing TXID. With nothing in the bucket it returns Found false and
// writes nothing: the caller decides whether the cell starts empty.
//
// Keys under the prefix that are not LTX keys, and levels above 0009, are
// ignored. Restore may be called from any goroutine; it downloads up to
// restoreFetchers objects concurrently and returns only after they stop.
func Restore(ctx context.Context, store plugins.ObjectStore, scope, dstPath string) (RestoreResult, error) {
	if err := bucketkey.CheckScope(scope); err != nil {
		return RestoreResult{}, fmt.Errorf("restore %s: %w", scope, err)
	}
	files, err := ListLTX(ctx, store, scope)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("restore %s: %w", scope, err)
	}
	if len(files) == 0 {
		return RestoreResult{}, nil
	}
	epoch := files[0].Epoch
	for _, f := range files {
		epoch = max(epoch, f.Epoch)
	}
	files = slices.DeleteFunc(files, func(f bucketkey.LTXFile) bool { return f.Epoch != epoch })
	chain, err := planChain(files)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("restore %s: %w", bucketkey.LTXEpochPrefix(scope, epoch), err)
	}
	txid, err := applyChain(ctx, store, chain, dstPath)
	if err != nil {
		return RestoreResult{}, fmt.Errorf("restore %s: %w", bucketkey.LTXEpochPrefix(scope, epoch), err)
	}
	return RestoreResult{Epoch: epoch, TXID: txid, Found: true}, nil
}

// ListLTX returns the LTX keys of scope at levels 0..MaxLTXLevel, in key
// order.
func ListLTX(ctx context.Context, store plugins.ObjectStore, scope string) ([]bucketkey.LTXFile, error) {
	prefix := bucketkey.LTXPrefix(scope)
	var files []bucketkey.LTXFile
	after := ""
	for {
		page, err := store.List(ctx, prefix, after, 0)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", prefix, err)
		}
		for _, o := range page.Objects {
			k, err := bucketkey.ParseLTXKey(o.Key)
			if err != nil || k.Scope != scope || k.Level > MaxLTXLevel {
				continue
			}
			files = append(files, k)
		}
		if page.NextStartAfter == "" {
			return files, nil
		}
		if page.NextStartAfter <= after {
			return nil, fmt.Errorf("list %s: listing does not advance past %q", prefix, after)
		}
		after = page.NextStartAfter
	}
}

// planChain picks from files (one epoch) a chain covering TXID 1 to the
// highest TXID of any file: at each step, among the files that start at
// or before the next TXID and end after the current one, the one that ends
// furthest (on a tie, the higher level). A TXID that no file covers is a
// gap.
func planChain(files []bucketkey.LTXFile) ([]bucketkey.LTXFile, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b bucketkey.LTXFile) int {
		return cmp.Or(cmp.Compare(a.MinTXID, b.MinTXID), cmp.Compare(b.MaxTXID, a.MaxTXID), cmp.Compare(b.Level, a.Level))
	})
	var chain []bucketkey.LTXFile
	var pos uint64
	i := 0
	for {
		best := -1
		for ; i < len(files) && files[i].MinTXID <= pos+1; i++ {
			f := files[i]
			if f.MaxTXID <= pos {
				continue
			}
			if best < 0 || f.MaxTXID > files[best].MaxTXID ||
				(f.MaxTXID == files[best].MaxTXID && f.Level > files[best].Level) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		chain = append(chain, files[best])
		pos = files[best].MaxTXID
	}
	switch {
	case i < len(files) && pos == 0:
		return nil, fmt.Errorf("%w: TXID %016x is missing (no file starts the chain; the first file is %s)",
			ErrLTXGap, pos+1, files[i])
	case i < len(files):
		return nil, fmt.Errorf("%w: TXID %016x is missing (the chain from TXID 1 ends at %016x; the next file is %s)",
			ErrLTXGap, pos+1, pos, files[i])
	}
	return chain, nil
}

// applyChain downloads the chain's objects (restoreFetchers ahead) and
// applies them in order to a new file that replaces dstPath.
func applyChain(ctx context.Context, store plugins.ObjectStore, chain []bucketkey.LTXFile, dstPath string) (uint64, error) {
	ctx, cancel := context.WithCancel(ctx)

	type result struct {
		body []byte
		err  error
	}
	results := make([]chan result, len(chain))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	sem := make(chan struct{}, restoreFetchers)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		for i, k := range chain {
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			wg.Go(func() {
				body, _, err := store.Get(ctx, k.String())
				results[i] <- result{body, err}
			})
		}
	})

	t, err := newRestoreTarget(dstPath)
	if err != nil {
		return 0, err
	}
	defer t.abort()
	for i, k := range chain {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		<-sem
		if r.err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, &LTXObjectError{Key: k.String(), Err: fmt.Errorf("get: %w", r.err)}
		}
		if err := t.apply(k.String(), r.body, k.MinTXID, k.MaxTXID); err != nil {
			return 0, err
		}
	}
	if err := t.finish(); err != nil {
		return 0, err
	}
	return t.txid, nil
}

// ltxReader is one LTX file given to restoreLTX. Name identifies it in
// errors (a path, or a key).
type ltxReader struct {
	Name string
	R    io.Reader
}

// restoreLTX rebuilds a database at dstPath from LTX files given in the
// order to apply them (any key layout, e.g. Litestream's ltx/0/<min>-<max>.ltx
// files sorted by name): the first must start at TXID 1 and each later one
// must extend the chain (start at or before the next TXID and end after the
// current one). Pages, truncation, the lock page, the temporary file and the
// replacement of dstPath work as in Restore, and so do errors: nothing is
// written at dstPath unless every file applies. It returns the last TXID.
func restoreLTX(dstPath string, files []ltxReader) (txid uint64, err error) {
	if len(files) == 0 {
		return 0, errors.New("restore: no LTX files")
	}
	t, err := newRestoreTarget(dstPath)
	if err != nil {
		return 0, err
	}
	defer t.abort()
	for _, f := range files {
		b, err := io.ReadAll(f.R)
		if err != nil {
			return 0, &LTXObjectError{Key: f.Name, Err: fmt.Errorf("read: %w", err)}
		}
		if err := t.apply(f.Name, b, 0, 0); err != nil {
			return 0, err
		}
	}
	if err := t.finish(); err != nil {
		return 0, err
	}
	return t.txid, nil
}

// restoreTarget builds a restored database in a temporary file beside its
// destination.
type restoreTarget struct {
	dst      string
	f        *os.File // nil after finish or abort
	pageSize uint32
	commit   uint32
	txid     uint64

	run      []byte // pages pgno runStart.. not yet written
	runStart uint32
}

// maxRun is the most bytes of consecutive pages written in one call.
const maxRun = 1 << 20

func newRestoreTarget(dst string) (*restoreTarget, error) {
	abs, err := filepath.Abs(dst)
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".restore-*")
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	return &restoreTarget{dst: abs, f: f}, nil
}

// apply decodes and writes one LTX file. wantMin and wantMax, unless 0, are
// the TXIDs its key names.
func (t *restoreTarget) apply(name string, b []byte, wantMin, wantMax uint64) error {
	fail := func(err error) error { return &LTXObjectError{Key: name, Err: err} }
	hdr, _, err := ltx.DecodeHeader(bytes.NewReader(b))
	if err == nil {
		err = hdr.Validate()
	}
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return fail(fmt.Errorf("%w: header: %w", ErrCorruptLTX, err))
	}
	minTXID, maxTXID := uint64(hdr.MinTXID), uint64(hdr.MaxTXID)
	switch {
	case wantMin != 0 && (minTXID != wantMin || maxTXID != wantMax):
		return fail(fmt.Errorf("%w: header covers TXIDs %016x-%016x, the key %016x-%016x", ErrCorruptLTX, minTXID, maxTXID, wantMin, wantMax))
	case t.txid == 0 && minTXID != 1:
		return fail(fmt.Errorf("%w: the chain must start at TXID 1, this file starts at %016x", ErrLTXGap, minTXID))
	case minTXID > t.txid+1:
		return fail(fmt.Errorf("%w: TXID %016x is missing before this file (%016x-%016x)", ErrLTXGap, t.txid+1, minTXID, maxTXID))
	case maxTXID <= t.txid:
		return fail(fmt.Errorf("file (%016x-%016x) does not extend the chain past TXID %016x", minTXID, maxTXID, t.txid))
	case t.pageSize != 0 && hdr.PageSize != t.pageSize:
		return fail(fmt.Errorf("%w: page size %d, earlier files %d", ErrCorruptLTX, hdr.PageSize, t.pageSize))
	}
	t.pageSize = hdr.PageSize
	lock := ltx.LockPgno(hdr.PageSize)
	_, err = DecodeLTX(b, func(pgno uint32, page []byte) error {
		if pgno == lock {
			return nil
		}
		return t.writePage(pgno, page)
	})
	if err == nil {
		err = t.flush()
	}
	if err != nil {
		return fail(err)
	}
	t.commit, t.txid = hdr.Commit, maxTXID
	return nil
}

func (t *restoreTarget) writePage(pgno uint32, page []byte) error {
	if len(t.run) > 0 && (pgno != t.runStart+uint32(len(t.run))/t.pageSize || len(t.run) >= maxRun) {
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(t.run) == 0 {
		t.runStart = pgno
	}
	t.run = append(t.run, page...)
	return nil
}

func (t *restoreTarget) flush() error {
	if len(t.run) == 0 {
		return nil
	}
	_, err := t.f.WriteAt(t.run, int64(t.runStart-1)*int64(t.pageSize))
	t.run = t.run[:0]
	if err != nil {
		return fmt.Errorf("write restored database: %w", err)
	}
	return nil
}

// finish truncates the file to the commit size, zeroes the lock page,
// syncs it and moves it over the destination.
func (t *restoreTarget) finish() error {
	fail := func(err error) error { return fmt.Errorf("write restored database: %w", err) }
	size := int64(t.commit) * int64(t.pageSize)
	if err := t.f.Truncate(size); err != nil {
		return fail(err)
	}
	if lock := ltx.LockPgno(t.pageSize); t.commit >= lock {
		if _, err := t.f.WriteAt(make([]byte, t.pageSize), int64(lock-1)*int64(t.pageSize)); err != nil {
			return fail(err)
		}
	}
	if err := t.f.Sync(); err != nil {
		return fail(err)
	}
	tmp := t.f.Name()
	err := t.f.Close()
	t.f = nil
	if err != nil {
		os.Remove(tmp)
		return fail(err)
	}
	// The old file's WAL, shared memory and journal would be applied to
	// the new file: remove them first (the old file is being replaced).
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if err := os.Remove(t.dst + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			os.Remove(tmp)
			return fail(err)
		}
	}
	if err := os.Rename(tmp, t.dst); err != nil {
		os.Remove(tmp)
		return fail(err)
	}
	if err := syncDir(filepath.Dir(t.dst)); err != nil {
		return fail(err)
	}
	return nil
}

// abort removes the temporary file unless finish moved it into place.
func (t *restoreTarget) abort() {
	if t.f == nil {
		return
	}
	name := t.f.Name()
	t.f.Close()
	t.f = nil
	os.Remove(name)
}
