// Package filestore is a plugins.ObjectStore on a local directory, registered
// for "file://" bucket URLs. Its writes are durable when they return, and its
// conditional writes are atomic across processes sharing the directory.
//
// # On-disk format
//
// The directory holds one SQLite database, <root>/.cellhost-store.db (with
// its WAL, .cellhost-store.db-wal and -shm, while it is open), of one table:
//
//	CREATE TABLE objects (
//		key  TEXT NOT NULL UNIQUE, -- BINARY collation: byte order
//		etag TEXT NOT NULL,        -- "<hex sha256(body)[:16]>-<hex nonce[:8]>", quoted
//		body BLOB NOT NULL
//	)
//
// with page_size 16384, journal_mode WAL (checkpointed by the writer every
// 1000 pages, SQLite's default) and, on the writing connection, synchronous
// NORMAL: COMMIT writes the round's WAL frames, and the writer fsyncs the
// WAL file itself once COMMIT has released SQLite's write lock; a write
// returns only after that fsync (see "A paused process").
// The ETag embeds a checksum of the body, which Get verifies (ErrCorrupt).
// Two more names are reserved: <root>/.cellhost-store.lock, which New
// flocks while it opens (or creates, or migrates) the database, and
// <root>/.cellhost-locks, a regular file explaining the format, which makes
// an older cellhost (whose store needs a directory there) refuse the
// directory instead of finding it empty.
//
// Keys are rows, not paths: every key plugins.CheckKey accepts can be
// stored, including "x" next to "x/child" and segments of any length.
// Except node leases: a key "nodes/<name>" (no further slash) is a file of
// its own with a lock of its own under <root>/.cellhost-leases/ (see
// leases.go), so that a process stopped while it holds the database's
// write lock cannot hold up another node's lease renewal.
//
// # Group commit
//
// Group commit is adaptive: a Put or Delete that arrives while the writer
// is idle (no round running, nothing queued, and the last round served only
// one writer) commits at once on its caller's goroutine, so a lone writer
// neither waits nor hands off to another goroutine. The ones that arrive
// while a round runs, or while several writers are at work, are queued to
// one writer goroutine and gathered into its next round. A round is one transaction
// (BEGIN IMMEDIATE ... COMMIT), so the 64 concurrent LTX uploads of 64 cells
// cost one fsync of the WAL, not 64. Each operation is one statement whose
// precondition (If-None-Match, If-Match) is part of it, checked against
// everything before it in the round, and gets its own result: a rejected
// precondition does not affect the other operations of its round. Results
// are delivered after the COMMIT: if it fails, every operation of the round
// fails with that (ambiguous) error. Get, Head and List run on a separate
// pool of read connections and never wait for a round (WAL readers see the
// last commit). Get, the ownership check of every LTX upload, runs its
// prepared statement through SQLite's C API (getter), which halves its CPU
// (BenchmarkGet: ~5.5 to ~3 µs); it ignores ctx once started.
//
// # Processes
//
// Several Stores, in one process or several, may share a directory: each
// round holds SQLite's write lock (BEGIN IMMEDIATE, waiting up to 10 s for
// another process's round), so two processes cannot both win a create, and
// a commit is visible to the readers of every process.
//
// # A paused process
//
// A process stopped (SIGSTOP, a VM pause) while it holds SQLite's write
// lock holds up every other writer of the directory until it resumes; no
// setting can take the lock from it. So the lock is held for as short a
// time as a round allows: its statements and COMMIT's writes of WAL
// frames to the page cache (tens to hundreds of microseconds), never the
// fsync that makes the round durable (milliseconds, much more on a busy
// disk), which runs after COMMIT (writer.syncWAL) and before any result
// of the round is delivered. A process stopped between its COMMIT and its
// fsync holds nothing (TestWriter_PausedAfterCommit); one stopped inside
// the short locked part still stalls the others. Group commit keeps its
// shared fsync: BenchmarkPut64, 9 pairs of runs before/after alternated at
// load 14-40 (noisy): median 141 -> 113 us per put, the same 54-61
// operations per round and 20-27 us of CPU per put; BenchmarkPut1 (a lone
// writer) on par once syncWAL used fdatasync, as SQLite does.
//
// # Why SQLite
//
// The previous format (format v1 below) stored each object as a file: a
// temporary file, a rename and a syncfs per round. On ext4, creating a file
// costs 150-300 µs of kernel CPU, which capped a host at ~1700 LTX uploads
// a second. Here a put appends a frame or two to the WAL and shares one
// fsync with its round: BenchmarkPut64 (64 writers of 4200-byte LTX files)
// measured ~18 µs of system and ~16 µs of user CPU per put, checkpoints
// included, against ~145 µs and ~15 µs for the file per object.
//
// # Format v1
//
// Directories written by the previous version (each object "a/b" a file
// <root>/a/b holding "cellhost-object-v1 <etag>\n" and the body, plus the
// lock directory <root>/.cellhost-locks/) are migrated by New when the
// database does not exist yet: it builds the database under a temporary
// name, imports every v1 object with its ETag (verifying its checksum: a
// corrupt file stops the migration with an error naming its key), fsyncs
// it, renames it into place and then removes the v1 files. No older
// cellhost may run on the directory during the migration.
package filestore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	_ "modernc.org/sqlite" // the "sqlite" driver

	"github.com/cellhost/cellhost/internal/sqlitex"
	"github.com/cellhost/cellhost/plugins"
)

func init() {
	plugins.RegisterStore("file", openURL)
}

const (
	dbName = ".cellhost-store.db"
	// pageSize is the database page size, set when the database is
	// created. Measured with BenchmarkPut64: with 16 KiB pages a 4-5 KB
	// LTX file fits in its leaf (3 a page) instead of spilling into an
	// overflow page, and a round writes fewer, larger WAL frames (one
	// pwrite each); 4 and 8 KiB pages cost ~30% more CPU per put, 32 and
	// 64 KiB about the same but write more bytes per small CAS update.
	pageSize = 16384
	// busyTimeout is how long a round or a read waits for a lock held by
	// another process (in ms).
	busyTimeout = 10000
	// maxBodyLen is the largest body a Put accepts (SQLite's limit on a
	// row is 10^9 bytes).
	maxBodyLen = 512 << 20

	// DefaultListLimit is the page size of List when limit <= 0.
	DefaultListLimit = 1000
)

// ErrCorrupt means a stored object does not match the checksum in its
// ETag, or a v1 object file is not in the v1 format.
var ErrCorrupt = errors.New("corrupt object")

// schema is a rowid table: new bodies are appended (LTX keys arrive in no
// order), and only the UNIQUE index on key takes random inserts. Measured
// with BenchmarkPut64, this costs about half the CPU per put of a WITHOUT
// ROWID table keyed by key, whose random leaves do not stay in the cache.
const schema = `CREATE TABLE IF NOT EXISTS objects (
	key  TEXT NOT NULL UNIQUE,
	etag TEXT NOT NULL,
	body BLOB NOT NULL
)`

// Statements of the writer: each is one whole operation, so that a failed
// precondition changes nothing.
const (
	sqlPut = `INSERT INTO objects (key, etag, body) VALUES (?1, ?2, ?3)
		ON CONFLICT (key) DO UPDATE SET etag = excluded.etag, body = excluded.body`
	sqlCreate  = `INSERT INTO objects (key, etag, body) VALUES (?1, ?2, ?3) ON CONFLICT (key) DO NOTHING`
	sqlReplace = `UPDATE objects SET etag = ?2, body = ?3 WHERE key = ?1 AND etag = ?4`
	sqlDelete  = `DELETE FROM objects WHERE key = ?1`
	sqlDelIf   = `DELETE FROM objects WHERE key = ?1 AND etag = ?2`
	sqlExists  = `SELECT 1 FROM objects WHERE key = ?1`
)

// Statements of the readers. List bounds the key below inclusively (so
// that "after startAfter" is >= startAfter+"\x00", keys having no NUL) and,
// when the prefix has one, above: both bounds are index seeks.
const (
	sqlGet       = `SELECT etag, body FROM objects WHERE key = ?1`
	sqlHead      = `SELECT etag FROM objects WHERE key = ?1`
	sqlList      = `SELECT key, etag, length(body) FROM objects WHERE key >= ?1 AND key < ?2 ORDER BY key LIMIT ?3`
	sqlListNoEnd = `SELECT key, etag, length(body) FROM objects WHERE key >= ?1 ORDER BY key LIMIT ?2`
)

// Store is an object store on a directory. Its methods are safe for
// concurrent use, also by several Stores and processes on one directory.
type Store struct {
	root   string
	closed atomic.Bool

	rdb                        *sql.DB // read connections
	get, head, list, listNoEnd *sql.Stmt
	getters                    *getters // Get's raw statements, on connections of rdb
	w                          *writer
	leases                     *leaseDir // node leases, a file and a lock each (leases.go)
	closeOnce                  sync.Once
	closeErr                   error
}

// New opens the store rooted at dir, creating dir and the database if
// needed and migrating a directory of the previous format (see the package
// doc).
func New(dir string) (*Store, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open file store %q: %w", dir, err)
	}
	s, err := open(root)
	if err != nil {
		return nil, fmt.Errorf("open file store %s: %w", root, err)
	}
	return s, nil
}

func open(root string) (*Store, error) {
	path := filepath.Join(root, dbName)
	if err := prepare(root); err != nil {
		return nil, err
	}
	w, err := newWriter(path)
	if err != nil {
		return nil, err
	}
	leases, err := openLeaseDir(root)
	if err == nil {
		err = leases.adoptRows(context.Background(), w, root)
	}
	if err != nil {
		w.close()
		return nil, err
	}
	s := &Store{root: root, w: w, leases: leases}
	if err := s.openReaders(path); err != nil {
		w.close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openReaders(path string) error {
	rdb, err := sql.Open("sqlite", sqlitex.DSN(path, "busy_timeout("+strconv.Itoa(busyTimeout)+")", "query_only(1)"))
	if err != nil {
		return fmt.Errorf("open database %s: %w", path, err)
	}
	// Keep the connections of concurrent readers: opening one reads the
	// schema and maps the WAL index.
	n := 4 * runtime.GOMAXPROCS(0)
	// Get's getters hold up to n connections of their own.
	rdb.SetMaxOpenConns(2 * n)
	rdb.SetMaxIdleConns(2 * n)
	s.rdb = rdb
	s.getters = newGetters(rdb, n)
	for _, st := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&s.get, sqlGet}, {&s.head, sqlHead}, {&s.list, sqlList}, {&s.listNoEnd, sqlListNoEnd},
	} {
		stmt, err := rdb.Prepare(st.sql)
		if err != nil {
			rdb.Close()
			return fmt.Errorf("prepare read statement of %s: %w", path, err)
		}
		*st.stmt = stmt
	}
	return nil
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

func (s *Store) check(ctx context.Context, key string) error {
	if s.closed.Load() {
		return plugins.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return plugins.CheckKey(key)
}

// Get implements plugins.ObjectStore.
func (s *Store) Get(ctx context.Context, key string) ([]byte, string, error) {
	if err := s.check(ctx, key); err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	if name, ok := leaseFile(key); ok {
		body, etag, err := s.leases.read(key, name)
		if err != nil {
			return nil, "", fmt.Errorf("get object %q: %w", key, err)
		}
		return body, etag, nil
	}
	var (
		etag string
		body []byte // copied: the caller owns it
	)
	g, err := s.getters.get()
	switch {
	case err != nil:
	case g != nil:
		etag, body, err = g.get(key)
		s.getters.put(g)
	default: // no raw handle
		err = s.get.QueryRowContext(ctx, key).Scan(&etag, &body)
		if errors.Is(err, sql.ErrNoRows) {
			err = plugins.ErrNotFound
		}
	}
	if err == nil {
		err = checkBody(etag, body)
	}
	if err != nil {
		return nil, "", fmt.Errorf("get object %q: %w", key, err)
	}
	if body == nil {
		body = []byte{}
	}
	return body, etag, nil
}

// GetMany implements plugins.MultiGetter: the keys are read in one read
// transaction (every answer from the same commit), which costs much less
// than a Get each when the store was written in between, as it is between
// two upload rounds: a Get starts its own transaction, and a reader's
// first transaction after a write rereads every page it needs.
func (s *Store) GetMany(ctx context.Context, keys []string) []plugins.GetResult {
	var (
		rest  []string
		which []int // rest[j] is keys[which[j]]
		out   []plugins.GetResult
	)
	for i, k := range keys {
		if _, ok := leaseFile(k); ok {
			if out == nil {
				out = make([]plugins.GetResult, len(keys))
			}
			out[i].Body, out[i].ETag, out[i].Err = s.Get(ctx, k)
			continue
		}
		rest = append(rest, k)
		which = append(which, i)
	}
	if out == nil {
		return s.getManyDB(ctx, keys)
	}
	if len(rest) > 0 {
		for j, r := range s.getManyDB(ctx, rest) {
			out[which[j]] = r
		}
	}
	return out
}

// getManyDB is GetMany for keys of the database.
func (s *Store) getManyDB(ctx context.Context, keys []string) []plugins.GetResult {
	out := make([]plugins.GetResult, len(keys))
	fail := func(err error) []plugins.GetResult {
		for i, k := range keys {
			if out[i].Err == nil {
				out[i] = plugins.GetResult{Err: fmt.Errorf("get object %q: %w", k, err)}
			}
		}
		return out
	}
	if s.closed.Load() {
		return fail(plugins.ErrClosed)
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	for i, k := range keys {
		if err := plugins.CheckKey(k); err != nil {
			out[i].Err = err // wrapped below
		}
	}
	g, err := s.getters.get()
	switch {
	case err != nil:
		return fail(err)
	case g == nil: // no raw handle
		for i, k := range keys {
			if out[i].Err == nil {
				out[i].Body, out[i].ETag, out[i].Err = s.Get(ctx, k)
			} else {
				out[i].Err = fmt.Errorf("get object %q: %w", k, out[i].Err)
			}
		}
		return out
	}
	err = g.getMany(keys, out)
	s.getters.put(g)
	if err != nil {
		clear(out)
		return fail(err)
	}
	for i, k := range keys {
		r := &out[i]
		if r.Err == nil {
			r.Err = checkBody(r.ETag, r.Body)
		}
		if r.Err != nil {
			*r = plugins.GetResult{Err: fmt.Errorf("get object %q: %w", k, r.Err)}
			continue
		}
		if r.Body == nil {
			r.Body = []byte{}
		}
	}
	return out
}

var _ plugins.MultiGetter = (*Store)(nil)

// Head implements plugins.ObjectStore.
func (s *Store) Head(ctx context.Context, key string) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	if name, ok := leaseFile(key); ok {
		etag, _, err := s.leases.head(name)
		if err != nil {
			return "", fmt.Errorf("head object %q: %w", key, err)
		}
		return etag, nil
	}
	var etag string
	err := s.head.QueryRowContext(ctx, key).Scan(&etag)
	if errors.Is(err, sql.ErrNoRows) {
		err = plugins.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("head object %q: %w", key, err)
	}
	return etag, nil
}

// Put implements plugins.ObjectStore. It returns once the write is durable.
func (s *Store) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	if err := s.check(ctx, key); err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	if opts.IfNoneMatch && opts.IfMatch != "" {
		return "", fmt.Errorf("put object %q: IfNoneMatch and IfMatch are mutually exclusive", key)
	}
	if len(body) > maxBodyLen {
		return "", fmt.Errorf("put object %q: body of %d bytes, more than the file store's limit of %d", key, len(body), maxBodyLen)
	}
	if body == nil {
		body = []byte{} // a zero-length BLOB, not NULL
	}
	etag, err := newETag(body)
	if err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	if name, ok := leaseFile(key); ok {
		if err := s.leases.put(ctx, key, name, body, etag, opts); err != nil {
			return "", fmt.Errorf("put object %q: %w", key, err)
		}
		return etag, nil
	}
	o := &op{key: key, body: body, etag: etag, ifNoneMatch: opts.IfNoneMatch, ifMatch: opts.IfMatch}
	if err := s.w.do(o); err != nil {
		return "", fmt.Errorf("put object %q: %w", key, err)
	}
	return etag, nil
}

// Delete implements plugins.ObjectStore. It returns once the delete is
// durable.
func (s *Store) Delete(ctx context.Context, key string, ifMatch string) error {
	if err := s.check(ctx, key); err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	if name, ok := leaseFile(key); ok {
		if err := s.leases.del(ctx, key, name, ifMatch); err != nil {
			return fmt.Errorf("delete object %q: %w", key, err)
		}
		return nil
	}
	if err := s.w.do(&op{del: true, key: key, ifMatch: ifMatch}); err != nil {
		return fmt.Errorf("delete object %q: %w", key, err)
	}
	return nil
}

// List implements plugins.ObjectStore. A page of database keys is one
// read transaction: a consistent snapshot; node leases (leases.go) are
// merged in from their files, each read whole.
func (s *Store) List(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	if s.closed.Load() {
		return plugins.ListPage{}, fmt.Errorf("list objects: %w", plugins.ErrClosed)
	}
	if limit <= 0 {
		limit = DefaultListLimit
	}
	if !leasesOverlap(prefix) {
		return s.listDB(ctx, prefix, startAfter, limit)
	}
	files, err := s.leases.list(prefix, startAfter)
	if err != nil {
		return plugins.ListPage{}, fmt.Errorf("list objects with prefix %q after %q: %w", prefix, startAfter, err)
	}
	// The database's keys, without rows under lease keys (an older
	// cellhost's), until one more than limit or the end.
	var rows []plugins.Object
	after, more := startAfter, true
	for more && len(rows) <= limit {
		page, err := s.listDB(ctx, prefix, after, limit+1-len(rows))
		if err != nil {
			return plugins.ListPage{}, err
		}
		for _, o := range page.Objects {
			if _, ok := leaseFile(o.Key); !ok {
				rows = append(rows, o)
			}
		}
		after, more = page.NextStartAfter, page.NextStartAfter != ""
	}
	all := make([]plugins.Object, 0, len(rows)+len(files))
	i, j := 0, 0
	for i < len(rows) || j < len(files) {
		if j == len(files) || i < len(rows) && rows[i].Key < files[j].Key {
			all = append(all, rows[i])
			i++
		} else {
			all = append(all, files[j])
			j++
		}
	}
	var page plugins.ListPage
	if len(all) > limit {
		all = all[:limit]
		page.NextStartAfter = all[limit-1].Key
	}
	page.Objects = all
	return page, nil
}

// listDB is List over the database's rows.
func (s *Store) listDB(ctx context.Context, prefix, startAfter string, limit int) (plugins.ListPage, error) {
	lower := prefix
	if startAfter >= prefix {
		lower = startAfter + "\x00" // the least key after startAfter
	}
	// One more than limit tells whether the listing goes on.
	var (
		rows *sql.Rows
		err  error
	)
	if end, ok := sqlitex.PrefixEnd(prefix); ok {
		rows, err = s.list.QueryContext(ctx, lower, end, limit+1)
	} else {
		rows, err = s.listNoEnd.QueryContext(ctx, lower, limit+1)
	}
	if err != nil {
		return plugins.ListPage{}, fmt.Errorf("list objects with prefix %q after %q: %w", prefix, startAfter, err)
	}
	defer rows.Close()
	var page plugins.ListPage
	for rows.Next() {
		var o plugins.Object
		if err := rows.Scan(&o.Key, &o.ETag, &o.Size); err != nil {
			return plugins.ListPage{}, fmt.Errorf("list objects with prefix %q after %q: %w", prefix, startAfter, err)
		}
		page.Objects = append(page.Objects, o)
	}
	if err := rows.Err(); err != nil {
		return plugins.ListPage{}, fmt.Errorf("list objects with prefix %q after %q: %w", prefix, startAfter, err)
	}
	if len(page.Objects) > limit {
		page.Objects = page.Objects[:limit]
		page.NextStartAfter = page.Objects[limit-1].Key
	}
	return page, nil
}

// Close implements plugins.ObjectStore. It waits for the writes in
// progress; later calls fail with plugins.ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.closed.Store(true)
		werr := s.w.close()
		gerr := s.getters.close()                // after the Gets in progress
		rerr := errors.Join(gerr, s.rdb.Close()) // closes the statements
		if err := errors.Join(werr, rerr); err != nil {
			s.closeErr = fmt.Errorf("close file store %s: %w", s.root, err)
		}
	})
	return s.closeErr
}

// etagLen is the length of an unquoted ETag: hex sha256[:16] "-" hex
// nonce[:8], the format v1 used too.
const etagLen = 32 + 1 + 16

// newETag returns a new ETag for body: its checksum and a random nonce, so
// that every write gets a new one.
func newETag(body []byte) (string, error) {
	sum := sha256.Sum256(body)
	var nonce [8]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return "", fmt.Errorf("make etag: %w", err)
	}
	return `"` + hex.EncodeToString(sum[:16]) + "-" + hex.EncodeToString(nonce[:]) + `"`, nil
}

// parseETag returns the checksum prefix a quoted ETag holds.
func parseETag(etag string) (sum [16]byte, err error) {
	if len(etag) != etagLen+2 || etag[0] != '"' || etag[len(etag)-1] != '"' {
		return sum, fmt.Errorf("%w: malformed etag %.80q", ErrCorrupt, etag)
	}
	raw := etag[1 : len(etag)-1]
	var nonce [8]byte
	if !hexDecode(sum[:], raw[:32]) || raw[32] != '-' || !hexDecode(nonce[:], raw[33:]) {
		return sum, fmt.Errorf("%w: malformed etag %q", ErrCorrupt, etag)
	}
	return sum, nil
}

// hexDecode decodes the hex digits s (either case, as encoding/hex
// accepts) into dst, len(s) == 2*len(dst).
func hexDecode(dst []byte, s string) bool {
	if len(s) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := fromHex(s[2*i])
		lo, ok2 := fromHex(s[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func fromHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// checkBody verifies body against the checksum in its ETag.
func checkBody(etag string, body []byte) error {
	want, err := parseETag(etag)
	if err != nil {
		return err
	}
	if got := sha256.Sum256(body); [16]byte(got[:16]) != want {
		return fmt.Errorf("%w: body does not match the checksum in etag %s", ErrCorrupt, etag)
	}
	return nil
}

var _ plugins.ObjectStore = (*Store)(nil)
