package filestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"

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
	raw  *sqlitex.Conn
	stmt sqlitex.Stmt // sqlGet, prepared
	// begin and commit (BEGIN, COMMIT) hold one read transaction over the
	// Gets of getMany.
	begin, commit sqlitex.Stmt
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
		g.raw, err = sqlitex.OpenConn(dc)
		return err
	})
	if err != nil {
		conn.Close()
		return nil, err
	}
	for _, p := range []struct {
		stmt *sqlitex.Stmt
		sql  string
	}{{&g.stmt, sqlGet}, {&g.begin, "BEGIN"}, {&g.commit, "COMMIT"}} {
		if *p.stmt, err = g.raw.PrepareOne(p.sql); err != nil {
			g.close()
			return nil, fmt.Errorf("prepare %s: %w", p.sql, err)
		}
	}
	return g, nil
}

// get reads key's ETag and body (copied to Go memory). It ends the read
// transaction before returning. key must pass plugins.CheckKey.
func (g *getter) get(key string) (etag string, body []byte, err error) {
	if len(key) > plugins.MaxKeyLen {
		return "", nil, plugins.ErrInvalidKey
	}
	defer g.stmt.Reset() // ends the read transaction
	if rc := g.stmt.BindText(g.raw, 1, key); rc != sqlite3.SQLITE_OK {
		return "", nil, g.errorf("bind key", rc)
	}
	switch rc := g.stmt.Step(); rc {
	case sqlite3.SQLITE_ROW:
	case sqlite3.SQLITE_DONE:
		return "", nil, plugins.ErrNotFound
	default:
		return "", nil, g.errorf("read", rc)
	}
	return g.stmt.ColumnText(0), g.stmt.ColumnBlob(1), nil
}

// run steps a statement without results (BEGIN, COMMIT) and resets it.
func (g *getter) run(stmt sqlitex.Stmt, what string) error {
	defer stmt.Reset()
	if rc := stmt.Step(); rc != sqlite3.SQLITE_DONE {
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
		g.raw.Exec("ROLLBACK") // leave no transaction open
		return err
	}
	return nil
}

func (g *getter) errorf(what string, rc int32) error {
	return fmt.Errorf("%s: %w", what, g.raw.Err(rc))
}

// close finalizes the statements and returns the connection to rdb's pool.
func (g *getter) close() error {
	for _, p := range []*sqlitex.Stmt{&g.stmt, &g.begin, &g.commit} {
		p.Finalize()
		*p = sqlitex.Stmt{}
	}
	if g.raw != nil {
		g.raw.Close()
		g.raw = nil
	}
	return g.conn.Close()
}

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
