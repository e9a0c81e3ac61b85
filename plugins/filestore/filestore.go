// Package filestore is a plugins.ObjectStore on a local directory, registered
// for "file://" bucket URLs. Its conditional writes are atomic across
// processes sharing the directory.
//
// On-disk format: the object "a/b/c" is the file <root>/a/b/c. Each file
// starts with a one-line header holding the object's ETag
// ("cellhost-object-v1 <etag>\n"), then the body. Writes go to a temporary
// file in the target's directory, which is fsynced, renamed over the target
// and followed by an fsync of the directory. Every write (conditional or
// not) and every delete holds an exclusive flock(2) on one of 32 lock files
// in <root>/.cellhost-locks/, chosen by FNV-1a of the key; reads take no
// lock. Names starting with ".cellhost-" are reserved: temporary files
// (".cellhost-tmp-*", left behind only by a crash) and the lock directory
// are never listed, and keys with such a segment are rejected.
//
// A directory cannot hold both "x" and "x/child": the second write fails
// with ErrKeyConflict.
package filestore

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/cellhost/cellhost/plugins"
)

func init() {
	plugins.RegisterStore("file", openURL)
}

const (
	reservedPrefix = ".cellhost-"
	locksDir       = reservedPrefix + "locks"
	tmpPrefix      = reservedPrefix + "tmp-"
	lockStripes    = 32 // part of the on-disk format: every process must agree

	headerMagic = "cellhost-object-v1 "
	etagLen     = 32 + 1 + 16 // hex sha256[:16] "-" hex nonce[:8]
	headerLen   = len(headerMagic) + etagLen + 1

	// DefaultListLimit is the page size of List when limit <= 0.
	DefaultListLimit = 1000
	// maxSegmentLen is the longest path segment (NAME_MAX).
	maxSegmentLen = 255
	mkdirAttempts = 10
)

var (
	// ErrKeyConflict means a key cannot be stored because the directory
	// already holds a key that is its parent or its child ("x" and "x/y").
	ErrKeyConflict = errors.New("key conflicts with an existing key: a file store cannot hold both x and x/child")
	// ErrCorrupt means an object file is not in the store's format or its
	// body does not match its checksum.
	ErrCorrupt = errors.New("corrupt object file")
)

// Store is an object store on a directory. Its methods are safe for
// concurrent use, also by several Stores and processes on one directory.
type Store struct {
	root    string
	closed  atomic.Bool
	stripes [lockStripes]stripe
	group   *groupSync // durability of unconditional writes (group commit)
}

// stripe serializes the goroutines of this Store (mu) and then the
// processes (flock on f) writing the keys that hash to it.
type stripe struct {
	mu sync.Mutex
	f  *os.File // guarded by mu; opened on first use
}

// New opens the store rooted at dir, creating dir if needed.
func New(dir string) (*Store, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(root, locksDir), 0o777); err != nil {
		return nil, fmt.Errorf("open file store: %w", err)
	}
	return &Store{root: root, group: newGroupSync(root)}, nil
}

// Root returns the store's absolute root directory.
func (s *Store) Root() string { return s.root }

// DirFromURL returns the directory a file bucket URL names:
// "file:///abs/path" (or "file://localhost/abs/path") is absolute,
// "file://rel/path" and "file:rel/path" are relative to the working
// directory.
func DirFromURL(u *url.URL) (string, error) {
	if u.Scheme != "file" {
		return "", fmt.Errorf("parse file url: scheme %q, want file", u.Scheme)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("parse file url: user info, query and fragment are not supported")
	}
	var dir string
	switch {
	case u.Opaque != "":
		d, err := url.PathUnescape(u.Opaque)
		if err != nil {
			return "", fmt.Errorf("parse file url: %w", err)
		}
		dir = d
	case u.Host == "" || u.Host == "localhost":
		dir = u.Path
	default:
		dir = u.Host + u.Path
	}
	if dir == "" {
		return "", fmt.Errorf("parse file url: no directory (want file:///abs/path or file://rel/path)")
	}
	return filepath.Clean(dir), nil
}

func openURL(_ context.Context, u *url.URL) (plugins.ObjectStore, error) {
	dir, err := DirFromURL(u)
	if err != nil {
		return nil, err
	}
	return New(dir)
}

// checkKey is plugins.CheckKey plus the file system's limits.
func checkKey(key string) error {
	if err := plugins.CheckKey(key); err != nil {
		return err
	}
	for _, seg := range strings.Split(key, "/") {
		if strings.HasPrefix(seg, reservedPrefix) {
			return fmt.Errorf("%w: segment %q uses the reserved prefix %q", plugins.ErrInvalidKey, seg, reservedPrefix)
		}
		if len(seg) > maxSegmentLen {
			return fmt.Errorf("%w: segment of %d bytes, more than %d", plugins.ErrInvalidKey, len(seg), maxSegmentLen)
		}
	}
	return nil
}

func (s *Store) check(ctx context.Context, key string) error {
	if s.closed.Load() {
		return plugins.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return checkKey(key)
}

func (s *Store) path(key string) string {
	return filepath.Join(s.root, filepath.FromSlash(key))
}

// Get implements plugins.ObjectStore.
func (s *Store) Get(ctx context.Context, key string) ([]byte, string, error) {
	if err := s.check(ctx, key); err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	body, etag, err := readObject(s.path(key))
	if err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	return body, etag, nil
}

// Head implements plugins.ObjectStore.
func (s *Store) Head(ctx context.Context, key string) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	etag, _, err := readHeader(s.path(key))
	if err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	return etag, nil
}

// Put implements plugins.ObjectStore.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	if opts.IfNoneMatch && opts.IfMatch != "" {
		return "", fmt.Errorf("put object %q: IfNoneMatch and IfMatch are mutually exclusive", key)
	}
	etag, err := s.put(key, body, opts)
	if err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	return etag, nil
}

func (s *Store) put(key string, body []byte, opts plugins.PutOptions) (string, error) {
	path := s.path(key)
	dir := filepath.Dir(path)
	etag, header, err := newHeader(body)
	if err != nil {
		return "", err
	}
	// Unconditional writes (LTX files: many cells at once) share one
	// syncfs per round instead of two fsyncs each; conditional writes (the
	// leases, rare) keep fsyncs under their lock, so that no other process
	// can read a record that a crash could still undo.
	grouped := !opts.IfNoneMatch && opts.IfMatch == ""
	// Write the body outside the lock: only the check and rename are in it.
	tmp, err := s.writeTemp(dir, header, body, !grouped)
	if err != nil {
		return "", err
	}
	if grouped {
		if err := s.group.wait(); err != nil { // the body, before its name
			return "", err
		}
	}
	defer func() {
		if tmp != "" {
			os.Remove(tmp)
		}
	}()

	unlock, err := s.lock(key)
	if err != nil {
		return "", err
	}
	defer func() { unlock() }() // put may release it early
	if opts.IfNoneMatch || opts.IfMatch != "" {
		cur, _, err := readHeader(path)
		switch {
		case err != nil && !errors.Is(err, plugins.ErrNotFound):
			return "", err
		case opts.IfNoneMatch && err == nil:
			return "", plugins.ErrPreconditionFailed
		case opts.IfMatch != "" && err != nil:
			return "", err // ErrNotFound
		case opts.IfMatch != "" && cur != opts.IfMatch:
			return "", plugins.ErrPreconditionFailed
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		if isConflict(err) {
			return "", ErrKeyConflict
		}
		return "", err
	}
	tmp = ""
	if grouped {
		unlock()
		unlock = func() {}
		if err := s.group.wait(); err != nil { // the name
			return "", err
		}
		return etag, nil
	}
	if err := syncDir(dir); err != nil {
		return "", err
	}
	return etag, nil
}

// writeTemp writes header and body to a new temporary file in dir (fsynced
// if sync), creating dir if needed, and returns its path. A concurrent Delete may
// remove an empty dir between the mkdir and the create: that is retried.
func (s *Store) writeTemp(dir string, header, body []byte, sync bool) (string, error) {
	var (
		f   *os.File
		err error
	)
	for range mkdirAttempts {
		if err = s.mkdirAll(dir); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return "", err
		}
		var nonce [8]byte
		rand.Read(nonce[:])
		f, err = os.OpenFile(filepath.Join(dir, tmpPrefix+hex.EncodeToString(nonce[:])), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return "", err
	}
	name := f.Name()
	_, err = f.Write(header)
	if err == nil {
		_, err = f.Write(body)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

// mkdirAll creates dir and its missing parents below the root, fsyncing the
// parent of each directory it creates.
func (s *Store) mkdirAll(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	rel, err := filepath.Rel(s.root, dir)
	if err != nil {
		return err
	}
	cur := s.root
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		parent := cur
		cur = filepath.Join(cur, seg)
		err := os.Mkdir(cur, 0o777)
		switch {
		case err == nil:
			if err := syncDir(parent); err != nil {
				return err
			}
		case errors.Is(err, fs.ErrExist):
			if fi, err := os.Lstat(cur); err != nil {
				return err
			} else if !fi.IsDir() {
				return ErrKeyConflict
			}
		case errors.Is(err, unix.ENOTDIR):
			return ErrKeyConflict
		default:
			return err
		}
	}
	return nil
}

// Delete implements plugins.ObjectStore.
func (s *Store) Delete(ctx context.Context, key string, ifMatch string) error {
	if err := s.check(ctx, key); err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	if err := s.delete(key, ifMatch); err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	return nil
}

func (s *Store) delete(key, ifMatch string) error {
	path := s.path(key)
	dir := filepath.Dir(path)
	unlock, err := s.lock(key)
	if err != nil {
		return err
	}
	defer unlock()
	if ifMatch != "" {
		cur, _, err := readHeader(path)
		if err != nil {
			return err // ErrNotFound included
		}
		if cur != ifMatch {
			return plugins.ErrPreconditionFailed
		}
	}
	// unlink(2), unlike os.Remove, never removes a directory: "x" is absent
	// while only "x/child" exists.
	if err := unix.Unlink(path); err != nil {
		if notExist(err) || isDir(path, err) {
			return nil
		}
		return &fs.PathError{Op: "unlink", Path: path, Err: err}
	}
	// A concurrent delete of a sibling may have removed the emptied
	// directory already: the unlink applied, so that is success.
	if err := syncDir(dir); err != nil && !notExist(err) {
		return err
	}
	// Remove the directories the delete left empty (rmdir fails on a
	// directory holding anything, including a concurrent write's temp file).
	for d := dir; d != s.root && strings.HasPrefix(d, s.root); {
		if unix.Rmdir(d) != nil {
			break
		}
		d = filepath.Dir(d)
		if err := syncDir(d); err != nil && !notExist(err) {
			return err
		}
	}
	return nil
}

// List implements plugins.ObjectStore.
func (s *Store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	if s.closed.Load() {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", plugins.ErrClosed)
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	l := lister{ctx: ctx, s: s, prefix: prefix, startAfter: startAfter, max: limit + 1}
	// Every key with the prefix lies under the prefix's directory part.
	dir := prefix[:strings.LastIndexByte(prefix, '/')+1]
	if dir == "" || checkKey(strings.TrimSuffix(dir, "/")) == nil {
		if err := l.walk(dir); err != nil {
			return plugins.ListPage{}, fmt.Errorf("list objects: %w", err)
		}
	}
	var page plugins.ListPage
	if len(l.objs) > limit {
		l.objs = l.objs[:limit]
		page.NextStartAfter = l.objs[limit-1].Key
	}
	page.Objects = l.objs
	return page, nil
}

type lister struct {
	ctx                context.Context
	s                  *Store
	prefix, startAfter string
	max                int
	objs               []plugins.Object
}

// walk visits the objects under rel ("" or "a/b/") in byte order of their
// keys, until it has l.max of them.
func (l *lister) walk(rel string) error {
	if err := l.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(l.s.root, filepath.FromSlash(rel)))
	if err != nil {
		if notExist(err) {
			return nil
		}
		return err
	}
	type entry struct {
		key string // for a directory, with a trailing "/": keys below it sort as it does
		dir bool
	}
	var ents []entry
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), reservedPrefix):
		case e.IsDir():
			ents = append(ents, entry{rel + e.Name() + "/", true})
		case e.Type().IsRegular():
			ents = append(ents, entry{rel + e.Name(), false})
		}
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].key < ents[j].key })
	for _, e := range ents {
		if len(l.objs) >= l.max {
			return nil
		}
		if e.dir {
			if !strings.HasPrefix(e.key, l.prefix) && !strings.HasPrefix(l.prefix, e.key) {
				continue
			}
			if e.key < l.startAfter && !strings.HasPrefix(l.startAfter, e.key) {
				continue // every key below sorts before startAfter
			}
			if err := l.walk(e.key); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(e.key, l.prefix) || e.key <= l.startAfter {
			continue
		}
		etag, size, err := readHeader(filepath.Join(l.s.root, filepath.FromSlash(e.key)))
		if errors.Is(err, plugins.ErrNotFound) {
			continue // deleted since ReadDir
		}
		if err != nil {
			return fmt.Errorf("read %q: %w", e.key, err)
		}
		l.objs = append(l.objs, plugins.Object{Key: e.key, ETag: etag, Size: size})
	}
	return nil
}

// Close implements plugins.ObjectStore. It waits for writes in progress.
func (s *Store) Close() error {
	s.closed.Store(true)
	var errs []error
	for i := range s.stripes {
		st := &s.stripes[i]
		st.mu.Lock()
		if st.f != nil {
			errs = append(errs, st.f.Close())
			st.f = nil
		}
		st.mu.Unlock()
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("close file store: %w", err)
	}
	return nil
}

// lock takes the key's stripe lock: the in-process mutex, then the flock
// that excludes other processes (and other Stores on the root).
func (s *Store) lock(key string) (unlock func(), err error) {
	h := fnv.New32a()
	h.Write([]byte(key))
	i := h.Sum32() % lockStripes
	st := &s.stripes[i]
	st.mu.Lock()
	if s.closed.Load() {
		st.mu.Unlock()
		return nil, plugins.ErrClosed
	}
	if st.f == nil {
		f, err := os.OpenFile(filepath.Join(s.root, locksDir, fmt.Sprintf("%02d", i)), os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			st.mu.Unlock()
			return nil, fmt.Errorf("open lock file: %w", err)
		}
		st.f = f
	}
	fd := int(st.f.Fd())
	for {
		err = unix.Flock(fd, unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		st.mu.Unlock()
		return nil, fmt.Errorf("lock %s: %w", st.f.Name(), err)
	}
	return func() {
		unix.Flock(fd, unix.LOCK_UN)
		st.mu.Unlock()
	}, nil
}

// newHeader returns a new ETag for body and the file header holding it.
func newHeader(body []byte) (etag string, header []byte, err error) {
	sum := sha256.Sum256(body)
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", nil, fmt.Errorf("make etag: %w", err)
	}
	raw := hex.EncodeToString(sum[:16]) + "-" + hex.EncodeToString(nonce[:])
	return `"` + raw + `"`, []byte(headerMagic + raw + "\n"), nil
}

// parseHeader returns the quoted ETag in an object file's header, and the
// checksum prefix it holds.
func parseHeader(h []byte) (etag string, sum []byte, err error) {
	if len(h) < headerLen || !bytes.HasPrefix(h, []byte(headerMagic)) || h[headerLen-1] != '\n' {
		return "", nil, ErrCorrupt
	}
	raw := h[len(headerMagic) : headerLen-1]
	sum = make([]byte, 16)
	if _, err := hex.Decode(sum, raw[:32]); err != nil || raw[32] != '-' {
		return "", nil, ErrCorrupt
	}
	if _, err := hex.Decode(make([]byte, 8), raw[33:]); err != nil {
		return "", nil, ErrCorrupt
	}
	return `"` + string(raw) + `"`, sum, nil
}

// openObject opens an object file; a missing file, a directory, or a path
// through a file is ErrNotFound.
func openObject(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if notExist(err) {
			return nil, 0, plugins.ErrNotFound
		}
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, 0, plugins.ErrNotFound
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s: %w: not a regular file", path, ErrCorrupt)
	}
	return f, fi.Size(), nil
}

// readHeader returns an object's ETag and body size.
func readHeader(path string) (string, int64, error) {
	f, size, err := openObject(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := make([]byte, headerLen)
	if _, err := io.ReadFull(f, h); err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return "", 0, err
	}
	etag, _, err := parseHeader(h)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	return etag, size - int64(headerLen), nil
}

// readObject returns an object's body and ETag, checking the body against
// the header's checksum. Files are replaced, never modified, so the open
// file holds one consistent version.
func readObject(path string) ([]byte, string, error) {
	f, size, err := openObject(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, "", err
	}
	etag, want, err := parseHeader(data)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	body := data[headerLen:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:16], want) {
		return nil, "", fmt.Errorf("%s: %w: checksum mismatch", path, ErrCorrupt)
	}
	return body, etag, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return nil // the file system cannot sync directories
	}
	return err
}

// notExist reports whether err means the path does not exist, including
// because a parent is a file.
func notExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR)
}

// isDir reports whether unlink(2) failed with err because path is a
// directory (EISDIR on Linux, EPERM elsewhere).
func isDir(path string, err error) bool {
	if errors.Is(err, unix.EISDIR) {
		return true
	}
	fi, serr := os.Lstat(path)
	return errors.Is(err, unix.EPERM) && serr == nil && fi.IsDir()
}

// isConflict reports whether a rename failed because of a file/directory
// clash.
func isConflict(err error) bool {
	return errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTDIR) ||
		errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST)
}

var _ plugins.ObjectStore = (*Store)(nil)
