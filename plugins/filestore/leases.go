package filestore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cellhost/cellhost/plugins"
)

// Node leases live outside the database, one file per key, each with its
// own lock (issue 31). A round of the database holds SQLite's write lock
// for the whole directory: a process stopped (SIGSTOP, a long GC pause, a
// swapped-out page) inside a round holds it for as long as it is stopped,
// and every other process's writes wait for it. For the data that is a
// stall; for a node lease it is a fence: the chaos suite saw healthy
// nodes' renewals wait 7.3-7.7 s behind a paused node and fence
// themselves (10 in 4 minutes at a 2 s TTL). With a lock per lease key,
// the only process that can hold up a node's renewal is one writing that
// same node's lease: the node itself, a restarted process with its id, or
// dead-node GC deleting it; never another live node.
//
// A lease key is "nodes/<name>" with no further slash and a name of at
// most maxLeaseName bytes (bucketkey.NodeKey's keys); other keys under
// nodes/ stay in the database. The file of a lease key is
// <root>/.cellhost-leases/<hex of the key>.lease, in the v1 object format
// ("cellhost-object-v1 <etag>\n" then the body, read by decodeV1, which
// FuzzDecodeV1 covers); its lock is <hex>.lock in the same directory
// (flock(2), LockFileEx on Windows), taken without blocking and polled
// until the caller's context ends (at most busyTimeout), so a stopped
// holder costs a waiting writer its context, never a hang. A write goes to
// a temporary file (<hex>.tmp-<random>; one a killed writer left is
// removed by the key's next write or delete; the key-less ".tmp-<random>"
// of an older cellhost by New and deletes, once older than oldTmpAge),
// is renamed over the old one and the
// directory is fsynced: readers take no lock and see the old or the new
// file, whole. A delete removes the lease file and then, still holding the
// lock, its lock file (on Unix; Windows cannot remove a file another
// handle has open, and keeps one empty lock file per node id ever leased),
// so that no file is left behind by nodes that are gone (dead-node GC or
// a node's Close deletes its lease). A locker that opened the removed lock
// file's inode before the removal and gets its lock afterwards finds that
// the name no longer leads to that inode (lockedCurrent) and opens the
// name again: two processes never hold locks on two inodes of one name.
//
// Rows under lease keys that an older cellhost left in the database are
// ignored (List skips them): node leases live TTLs, and an older cellhost
// must not run on the directory at the same time as this one.
const (
	leaseDirName  = ".cellhost-leases"
	leaseExt      = ".lease"
	lockExt       = ".lock"
	leaseTmp      = ".tmp-"
	leasePrefix   = "nodes/"
	maxLeaseName  = 200
	maxLeaseBody  = 1 << 20
	leasePollMin  = 200 * time.Microsecond
	leasePollMax  = 5 * time.Millisecond
	leaseLockWait = busyTimeout * time.Millisecond
	// oldTmpAge is how old a temporary file of the format before keyed
	// temporary names (".tmp-<16 hex>", no key: no lock tells whether its
	// writer lives) must be before it is removed: a live writer renames
	// its file within one write and fsync of at most maxLeaseBody, and
	// takes the key's lock for at most leaseLockWait before it.
	oldTmpAge = 10 * leaseLockWait
)

// leaseFile returns the file name (without extension) of a lease key, and
// false when key is not one.
func leaseFile(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, leasePrefix)
	if !ok || rest == "" || len(rest) > maxLeaseName || strings.Contains(rest, "/") {
		return "", false
	}
	return hex.EncodeToString([]byte(key)), true
}

// leasesOverlap reports whether a listing of prefix can hold lease keys.
func leasesOverlap(prefix string) bool {
	return strings.HasPrefix(prefix, leasePrefix) || strings.HasPrefix(leasePrefix, prefix)
}

// leaseDir is the directory of lease files.
type leaseDir struct {
	dir string
	// hookContended, when set (by tests), runs when a writer finds the
	// key's lock held, before it polls again.
	hookContended func(key string)
}

func openLeaseDir(root string) (*leaseDir, error) {
	dir := filepath.Join(root, leaseDirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return nil, err
	}
	l := &leaseDir{dir: dir}
	l.removeOldTmp(time.Now())
	return l, nil
}

// removeOldTmp removes the temporary files an older cellhost (before
// temporary files were named after their key) left in the directory,
// killed between writing one and renaming it: ".tmp-" and 16 hex digits,
// last modified more than oldTmpAge before now. Such a file has no key and
// so no lock to tell whether its writer lives; its age does (see
// oldTmpAge). New and the dead-node GC's deletes (del) run it. Best
// effort: a file that cannot be removed is tried again next time.
func (l *leaseDir) removeOldTmp(now time.Time) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), leaseTmp)
		if !ok || len(rest) != 16 || !e.Type().IsRegular() {
			continue
		}
		if _, err := hex.DecodeString(rest); err != nil {
			continue
		}
		if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) > oldTmpAge {
			_ = os.Remove(filepath.Join(l.dir, e.Name()))
		}
	}
}

func (l *leaseDir) path(name, ext string) string { return filepath.Join(l.dir, name+ext) }

// lock takes key's lock, polling while another process holds it, until
// ctx ends or leaseLockWait passed. Closing the file releases it.
func (l *leaseDir) lock(ctx context.Context, key, name string) (*os.File, error) {
	f, err := os.OpenFile(l.path(name, lockExt), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock of %s: %w", key, err)
	}
	giveUp := time.Now().Add(leaseLockWait)
	wait := leasePollMin
	for {
		ok, err := tryFlock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", key, err)
		}
		if ok {
			current, err := lockedCurrent(f, l.path(name, lockExt))
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", key, err)
			}
			if current {
				return f, nil
			}
			// A delete removed the lock file after this process opened
			// it: lock the file now at that name (a new one).
			f.Close()
			if f, err = os.OpenFile(l.path(name, lockExt), os.O_RDWR|os.O_CREATE, 0o600); err != nil {
				return nil, fmt.Errorf("open lock of %s: %w", key, err)
			}
			continue
		}
		if l.hookContended != nil {
			l.hookContended(key)
		}
		if err := ctx.Err(); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: another process holds it: %w", key, err)
		}
		if time.Now().After(giveUp) {
			f.Close()
			return nil, fmt.Errorf("lock %s: another process has held it for %v", key, leaseLockWait)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		wait = min(2*wait, leasePollMax)
	}
}

// read returns the body and ETag of key's file.
func (l *leaseDir) read(key, name string) ([]byte, string, error) {
	data, err := os.ReadFile(l.path(name, leaseExt))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", plugins.ErrNotFound
	}
	if err != nil {
		return nil, "", err
	}
	body, etag, err := decodeV1(data)
	if err != nil {
		return nil, "", err
	}
	return body, etag, nil
}

// head returns the ETag and body size of key's file (the header only is read).
func (l *leaseDir) head(name string) (string, int64, error) {
	f, err := os.Open(l.path(name, leaseExt))
	if errors.Is(err, fs.ErrNotExist) {
		return "", 0, plugins.ErrNotFound
	}
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := make([]byte, v1HeaderLen)
	if _, err := io.ReadFull(f, h); err != nil {
		return "", 0, fmt.Errorf("%w: short lease file: %v", ErrCorrupt, err)
	}
	etag, _, err := parseV1Header(h)
	if err != nil {
		return "", 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	return etag, fi.Size() - int64(v1HeaderLen), nil
}

// put writes key under its lock, checking opts against the current file.
func (l *leaseDir) put(ctx context.Context, key, name string, body []byte, etag string, opts plugins.PutOptions) error {
	if len(body) > maxLeaseBody {
		return fmt.Errorf("body of %d bytes, more than a node lease's limit of %d", len(body), maxLeaseBody)
	}
	lk, err := l.lock(ctx, key, name)
	if err != nil {
		return err
	}
	defer lk.Close()
	if err := l.precondition(name, opts.IfNoneMatch, opts.IfMatch); err != nil {
		return err
	}
	var suffix [8]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return err
	}
	l.removeStaleTmp(name)
	tmp := filepath.Join(l.dir, name+leaseTmp+hex.EncodeToString(suffix[:]))
	data := append([]byte(v1Magic+strings.Trim(etag, `"`)+"\n"), body...)
	if err := writeSynced(tmp, data); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, l.path(name, leaseExt)); err != nil {
		os.Remove(tmp)
		return err
	}
	return syncFile(l.dir)
}

// del deletes key under its lock (ifMatch: only that version).
func (l *leaseDir) del(ctx context.Context, key, name, ifMatch string) error {
	lk, err := l.lock(ctx, key, name)
	if err != nil {
		return err
	}
	defer lk.Close()
	if ifMatch != "" {
		if err := l.precondition(name, false, ifMatch); err != nil {
			return err
		}
	}
	switch err := os.Remove(l.path(name, leaseExt)); {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	}
	l.removeStaleTmp(name)
	l.removeOldTmp(time.Now())
	// The lock file goes too, while it is held (see the top of the file;
	// a locker waiting on it opens the name again).
	if removeLockFiles {
		if err := os.Remove(l.path(name, lockExt)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return syncFile(l.dir)
}

// removeStaleTmp removes the temporary files of key name's earlier writes:
// called with the key's lock held, and only a holder of the lock writes a
// temporary file of the key, so any there is left by a process killed
// between writing it and renaming it (the chaos suite's kill -9 left one).
func (l *leaseDir) removeStaleTmp(name string) {
	stale, _ := filepath.Glob(filepath.Join(l.dir, name+leaseTmp+"*"))
	for _, p := range stale {
		_ = os.Remove(p) // best effort: the next write or delete tries again
	}
}

// lockedCurrent reports whether the lock file f (locked) is still the file
// at path: false once a delete removed it (and maybe another was created).
func lockedCurrent(f *os.File, path string) (bool, error) {
	if !removeLockFiles {
		return true, nil
	}
	held, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(held, now), nil
}

// precondition checks If-None-Match / If-Match against key's current file,
// with the database's answers: ErrPreconditionFailed, or ErrNotFound for
// If-Match on a missing key.
func (l *leaseDir) precondition(name string, ifNoneMatch bool, ifMatch string) error {
	if !ifNoneMatch && ifMatch == "" {
		return nil
	}
	cur, _, err := l.head(name)
	exists := err == nil || errors.Is(err, ErrCorrupt)
	if err != nil && !errors.Is(err, plugins.ErrNotFound) && !errors.Is(err, ErrCorrupt) {
		return err
	}
	switch {
	case ifNoneMatch && exists:
		return plugins.ErrPreconditionFailed
	case ifMatch != "" && !exists:
		return plugins.ErrNotFound
	case ifMatch != "" && cur != ifMatch:
		return plugins.ErrPreconditionFailed
	}
	return nil
}

// list returns the lease keys with prefix after startAfter, sorted.
func (l *leaseDir) list(prefix, startAfter string) ([]plugins.Object, error) {
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, err
	}
	var out []plugins.Object
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), leaseExt)
		if !ok {
			continue
		}
		raw, err := hex.DecodeString(name)
		key := string(raw)
		if err != nil || !strings.HasPrefix(key, prefix) || key <= startAfter {
			continue
		}
		if n, ok := leaseFile(key); !ok || n != name {
			continue // not a name this store writes
		}
		etag, size, err := l.head(name)
		if errors.Is(err, plugins.ErrNotFound) {
			continue // deleted since the directory was read
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", key, err)
		}
		out = append(out, plugins.Object{Key: key, ETag: etag, Size: size})
	}
	slices.SortFunc(out, func(a, b plugins.Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// writeSynced creates path (0600) holding data, fsynced.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// adoptRows moves the rows under lease keys that the database holds (an
// older cellhost's, or imported from format v1) into lease files, with
// their ETags, under the store's open lock. A lease file that exists
// already wins (written by this format, so newer).
func (l *leaseDir) adoptRows(ctx context.Context, w *writer, root string) error {
	unlock, err := flock(filepath.Join(root, lockName))
	if err != nil {
		return err
	}
	defer unlock()
	rows, err := w.conn.QueryContext(ctx, `SELECT key, etag, body FROM objects WHERE key >= ?1 AND key < ?2`, leasePrefix, "nodes0")
	if err != nil {
		return err
	}
	type row struct {
		key, etag string
		body      []byte
	}
	var found []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.etag, &r.body); err != nil {
			rows.Close()
			return err
		}
		if _, ok := leaseFile(r.key); ok {
			found = append(found, r)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, r := range found {
		name, _ := leaseFile(r.key)
		if err := checkBody(r.etag, r.body); err != nil {
			return fmt.Errorf("move %s to its lease file: %w", r.key, err)
		}
		if err := l.put(ctx, r.key, name, r.body, r.etag, plugins.PutOptions{IfNoneMatch: true}); err != nil && !errors.Is(err, plugins.ErrPreconditionFailed) {
			return fmt.Errorf("move %s to its lease file: %w", r.key, err)
		}
		if _, err := w.conn.ExecContext(ctx, `DELETE FROM objects WHERE key = ?1 AND etag = ?2`, r.key, r.etag); err != nil {
			return fmt.Errorf("move %s to its lease file: %w", r.key, err)
		}
	}
	return nil
}
