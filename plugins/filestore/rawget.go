package filestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
	"github.com/cellhost/cellhost/plugins"
)

// getter runs Get's statement through SQLite's C API on a read connection
// of its own, past database/sql and the driver: for a small object (an
// own.json, read once per LTX upload) their allocations and bookkeeping
// cost as much CPU as SQLite's read transaction itself. A getter serves one
// Get at a time; the Store keeps a pool of them (getters).
type getter struct {
	conn *sql.Conn // holds the connection out of the database/sql pool
	tls  *libc.TLS
	db   uintptr // sqlite3*
	stmt uintptr // sqlGet, prepared
	key  uintptr // C buffer of plugins.MaxKeyLen bytes for the bound key
	// begin and commit (BEGIN, COMMIT) hold one read transaction over the
	// Gets of getMany.
	begin, commit uintptr
}

// newGetter takes a connection from rdb and prepares sqlGet on its raw
// handle.
func newGetter(rdb *sql.DB) (*getter, error) {
	ctx := context.Background()
	conn, err := rdb.Conn(ctx)
	if err != nil {
		return nil, err
	}
	g := &getter{conn: conn}
	err = conn.Raw(func(dc any) error {
		var err error
		g.tls, g.db, err = sqlitex.Handle(dc)
		return err
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	for _, p := range []struct {
		stmt *uintptr
		sql  string
	}{{&g.stmt, sqlGet}, {&g.begin, "BEGIN"}, {&g.commit, "COMMIT"}} {
		if *p.stmt, err = g.prepare(p.sql); err != nil {
			g.close()
			return nil, err
		}
	}
	g.key = libc.Xmalloc(g.tls, plugins.MaxKeyLen+1)
	if g.key == 0 {
		g.close()
		return nil, errors.New("prepare get: out of memory")
	}
	return g, nil
}

// get reads key's ETag and body (copied to Go memory). It ends the read
// transaction before returning. key must pass plugins.CheckKey.
func (g *getter) get(key string) (etag string, body []byte, err error) {
	if len(key) > plugins.MaxKeyLen {
		return "", nil, plugins.ErrInvalidKey
	}
	copy(sqlitex.CMem(g.key, len(key)), key)
	defer sqlite3.Xsqlite3_reset(g.tls, g.stmt) // ends the read transaction
	// SQLITE_STATIC (0): the key buffer outlives the step.
	if rc := sqlite3.Xsqlite3_bind_text(g.tls, g.stmt, 1, g.key, int32(len(key)), 0); rc != sqlite3.SQLITE_OK {
		return "", nil, g.errorf("bind key", rc)
	}
	switch rc := sqlite3.Xsqlite3_step(g.tls, g.stmt); rc {
	case sqlite3.SQLITE_ROW:
	case sqlite3.SQLITE_DONE:
		return "", nil, plugins.ErrNotFound
	default:
		return "", nil, g.errorf("read", rc)
	}
	// Text first, then its length: the order SQLite documents.
	p := sqlite3.Xsqlite3_column_text(g.tls, g.stmt, 0)
	etag = string(sqlitex.CMem(p, int(sqlite3.Xsqlite3_column_bytes(g.tls, g.stmt, 0))))
	p = sqlite3.Xsqlite3_column_blob(g.tls, g.stmt, 1)
	body = make([]byte, int(sqlite3.Xsqlite3_column_bytes(g.tls, g.stmt, 1)))
	copy(body, sqlitex.CMem(p, len(body)))
	return etag, body, nil
}

// prepare compiles text on the getter's connection.
func (g *getter) prepare(text string) (uintptr, error) {
	ctext, err := libc.CString(text)
	if err != nil {
		return 0, fmt.Errorf("prepare %s: %w", text, err)
	}
	defer libc.Xfree(g.tls, ctext)
	out := libc.Xmalloc(g.tls, uint64(ptrSize)) // the out-parameter *sqlite3_stmt
	if out == 0 {
		return 0, fmt.Errorf("prepare %s: out of memory", text)
	}
	defer libc.Xfree(g.tls, out)
	if rc := sqlite3.Xsqlite3_prepare_v2(g.tls, g.db, ctext, int32(len(text)), out, 0); rc != sqlite3.SQLITE_OK {
		return 0, g.errorf("prepare "+text, rc)
	}
	return sqlitex.PeekPtr(out), nil
}

// run steps a statement without results (BEGIN, COMMIT) and resets it.
func (g *getter) run(stmt uintptr, what string) error {
	defer sqlite3.Xsqlite3_reset(g.tls, stmt)
	if rc := sqlite3.Xsqlite3_step(g.tls, stmt); rc != sqlite3.SQLITE_DONE {
		return g.errorf(what, rc)
	}
	return nil
}

// getMany reads every key as get does, all in one read transaction: one
// look at the WAL index and one page cache for them all, where separate
// Gets each start a transaction and, after any write, reread every page
// they need. out[i] gets key i's answer; err is a failure of the
// transaction itself (then out holds nothing).
func (g *getter) getMany(keys []string, out []plugins.GetResult) error {
	if err := g.run(g.begin, "begin read"); err != nil {
		return err
	}
	for i, k := range keys {
		if out[i].Err != nil {
			continue // refused before (an invalid key)
		}
		out[i].ETag, out[i].Body, out[i].Err = g.get(k)
	}
	// A read transaction has nothing to commit: this only ends it.
	if err := g.run(g.commit, "end read"); err != nil {
		sqlite3.Xsqlite3_exec(g.tls, g.db, rollbackText, 0, 0, 0) // leave no transaction open
		return err
	}
	return nil
}

// rollbackText is "ROLLBACK" in C memory, for getMany's last resort.
var rollbackText = func() uintptr {
	p, err := libc.CString("ROLLBACK")
	if err != nil {
		panic(err)
	}
	return p
}()

func (g *getter) errorf(what string, rc int32) error {
	msg := libc.GoString(sqlite3.Xsqlite3_errmsg(g.tls, g.db))
	return fmt.Errorf("%s: %s (%d)", what, msg, rc)
}

// close finalizes the statement and returns the connection to rdb's pool.
func (g *getter) close() error {
	for _, p := range []*uintptr{&g.stmt, &g.begin, &g.commit} {
		if *p != 0 {
			sqlite3.Xsqlite3_finalize(g.tls, *p)
			*p = 0
		}
	}
	if g.key != 0 {
		libc.Xfree(g.tls, g.key)
		g.key = 0
	}
	return g.conn.Close()
}

const ptrSize = int(sqlitex.PtrSize)

// getters is the pool of getters: up to max, opened on demand, closed by
// Close after the Gets using them return.
type getters struct {
	rdb *sql.DB
	max int

	mu     sync.Mutex
	cond   sync.Cond
	free   []*getter
	n      int  // getters open, free or in use
	closed bool // no new getter; put closes
	broken bool // the raw handle is unavailable: use database/sql
}

func newGetters(rdb *sql.DB, max int) *getters {
	g := &getters{rdb: rdb, max: max}
	g.cond.L = &g.mu
	return g
}

// get returns a free getter, opening one if fewer than max are open, or
// waiting for one. It returns nil, nil when Get must use database/sql.
func (p *getters) get() (*getter, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		switch {
		case p.closed:
			return nil, plugins.ErrClosed
		case p.broken:
			return nil, nil
		case len(p.free) > 0:
			g := p.free[len(p.free)-1]
			p.free = p.free[:len(p.free)-1]
			return g, nil
		case p.n < p.max:
			p.n++
			p.mu.Unlock()
			g, err := newGetter(p.rdb)
			p.mu.Lock()
			if err != nil {
				p.n--
				p.cond.Signal()
				if errors.Is(err, sqlitex.ErrNoRawHandle) {
					p.broken = true
					return nil, nil
				}
				return nil, err
			}
			return g, nil
		}
		p.cond.Wait()
	}
}

// put returns g to the pool, or closes it once the pool is closed.
func (p *getters) put(g *getter) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		g.close()
		p.n--
	} else {
		p.free = append(p.free, g)
	}
	p.cond.Signal()
}

// close closes the free getters and waits for the others to be put back
// (closed then).
func (p *getters) close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	p.cond.Broadcast() // waiters get ErrClosed
	var err error
	for _, g := range p.free {
		err = errors.Join(err, g.close())
		p.n--
	}
	p.free = nil
	for p.n > 0 {
		p.cond.Wait()
	}
	return err
}
