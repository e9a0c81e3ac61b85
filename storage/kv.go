package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/cellhost/cellhost/internal/sqlitex"
)

// Entry is one key-value pair returned by List.
type Entry struct {
	Key   string
	Value []byte
}

// ListOptions selects and orders the keys List returns. Keys compare in
// UTF-8 byte order. Each bound applies only when its Has flag is set.
type ListOptions struct {
	Start      string // first key, inclusive
	StartAfter string // keys strictly after this one
	End        string // keys strictly before this one
	Prefix     string // keys starting with this prefix

	HasStart, HasStartAfter, HasEnd, HasPrefix bool

	// Reverse returns the selected keys in descending order; it flips the
	// order, not the bounds.
	Reverse bool
	// Limit caps the number of entries, counted in the chosen order;
	// 0 (or less) means no limit.
	Limit int
}

// Bounds of the KV cache of one DB (Options.CacheKV): values larger than
// kvCacheMaxValue are not kept, and the cache starts over when it would hold
// more than kvCacheMaxBytes. workerd keeps a similar per-object cache in
// front of its storage; these bounds keep a host with thousands of resident
// objects within a few hundred MB.
const (
	kvCacheMaxValue = 16 << 10
	kvCacheMaxBytes = 256 << 10
)

// kvCached is a cached key: its value, or ok false when the key is absent.
type kvCached struct {
	v  []byte
	ok bool
}

// cacheKVValue records that key holds v (ok) or is absent (!ok) in the open
// transaction. The cache keeps its own copy of v.
func (db *DB) cacheKVValue(key string, v []byte, ok bool) {
	if !db.cacheKV {
		return
	}
	if ok && len(v) <= kvCacheMaxValue {
		v = append([]byte{}, v...) // non-nil, also when empty
	}
	db.cacheKVOwned(key, v, ok)
}

// cacheKVOwned is cacheKVValue for a v that nobody else will change (the
// cache keeps v itself).
func (db *DB) cacheKVOwned(key string, v []byte, ok bool) {
	if !db.cacheKV {
		return
	}
	if old, had := db.kvCache[key]; had {
		db.kvCacheBytes -= len(key) + len(old.v)
		delete(db.kvCache, key)
	}
	if len(v) > kvCacheMaxValue {
		return
	}
	if db.kvCache == nil {
		db.kvCache = make(map[string]kvCached)
	}
	size := len(key) + len(v)
	if db.kvCacheBytes+size > kvCacheMaxBytes {
		db.dropKVCache()
	}
	c := kvCached{ok: ok}
	if ok {
		c.v = v
	}
	db.kvCache[key] = c
	db.kvCacheBytes += size
}

// The write-back buffer (Options.CacheKV): a put of small values is not
// written to SQLite at once but kept in pendingKV, and written when anything
// else needs the table as the transaction sees it: a commit, a list, a
// delete, SQL, an explicit transaction, the database size. Until then a get
// answers from the buffer. Turns that write the same keys again and again
// (a counter) then cost one INSERT per key per commit instead of one per
// put, which matters once the host carries one transaction over several
// turns (host's endTurn). A rollback or a failed statement drops the buffer
// with the rest of the transaction. Only values of at most kvCacheMaxValue
// bytes are buffered, so no buffered write can fail for the application's
// reasons (SQLITE_TOOBIG); a failed flush is an I/O failure that aborts the
// transaction, like any failed statement of cellhost's own.

// bufferKV buffers the puts of keys; it reports false, buffering nothing,
// when one of the values is too large to buffer.
func (db *DB) bufferKV(keys []string, values [][]byte) bool {
	for i, v := range values {
		if len(keys[i])+len(v) > kvCacheMaxValue {
			return false
		}
	}
	if db.pendingKV == nil {
		db.pendingKV = make(map[string][]byte)
	}
	for i, k := range keys {
		v := append([]byte{}, values[i]...) // non-nil, also when empty
		if old, had := db.pendingKV[k]; had {
			db.pendingBytes -= len(k) + len(old)
		}
		db.pendingKV[k] = v
		db.pendingBytes += len(k) + len(v)
		db.cacheKVOwned(k, v, true) // v is never changed: the buffer and the cache share it
	}
	return true
}

// flushKV writes the buffered puts into the transaction. A failure aborts
// the transaction (and drops the buffer).
func (db *DB) flushKV() error {
	if len(db.pendingKV) == 0 {
		return nil
	}
	put, err := db.stmt(sqlPut)
	if err != nil {
		return db.abort(err)
	}
	defer db.raiseLength()()
	for k, v := range db.pendingKV {
		if _, err := put.Exec(db.scope, k, v); err != nil {
			return db.abort(fmt.Errorf("write buffered keys: %w", err))
		}
	}
	db.dropPendingKV()
	return nil
}

// dropPendingKV forgets the buffered puts (the transaction ended).
func (db *DB) dropPendingKV() {
	clear(db.pendingKV)
	db.pendingBytes = 0
}

// dropKVCache forgets every cached key.
func (db *DB) dropKVCache() {
	clear(db.kvCache)
	db.kvCacheBytes = 0
}

// Get returns the values of keys: result[i] is the value of keys[i], or nil
// when keys[i] is absent. A present empty value is a non-nil empty slice.
func (db *DB) Get(keys []string) ([][]byte, error) {
	// A get runs no SQL on a buffered key, and the SQL it runs for other
	// keys reads only those: the buffer need not be flushed first.
	if err := db.enterTx(); err != nil {
		return nil, fmt.Errorf("get keys: %w", err)
	}
	values := make([][]byte, len(keys))
	var hit []bool // hit[i]: keys[i] was answered from the buffer or the cache
	if len(db.kvCache) > 0 || len(db.pendingKV) > 0 {
		hit = make([]bool, len(keys))
		missing := len(keys)
		for i, k := range keys {
			if v, ok := db.pendingKV[k]; ok {
				values[i] = append([]byte{}, v...)
				hit[i] = true
				missing--
			} else if c, ok := db.kvCache[k]; ok {
				if c.ok {
					values[i] = append([]byte{}, c.v...)
				}
				hit[i] = true
				missing--
			}
		}
		if missing == 0 {
			return values, nil
		}
	}
	if !db.kvExists() {
		return values, nil
	}
	get, err := db.stmt(sqlGet)
	if err != nil {
		return nil, fmt.Errorf("get keys: %w", db.abort(err))
	}
	for i, k := range keys {
		if hit != nil && hit[i] {
			continue
		}
		var v []byte
		err := get.QueryRow(db.scope, k).Scan(&v)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			db.cacheKVValue(k, nil, false)
			continue
		case err != nil:
			return nil, db.kvFailed("get keys", err)
		}
		if v == nil {
			v = []byte{} // the driver reads an empty BLOB as NULL
		}
		values[i] = v
		db.cacheKVValue(k, v, true)
	}
	return values, nil
}

// Put stores values[i] under keys[i], replacing existing values. A nil value
// is stored as an empty one. A key given twice keeps its last value.
func (db *DB) Put(keys []string, values [][]byte) error {
	if len(keys) != len(values) {
		return fmt.Errorf("put keys: %d keys but %d values", len(keys), len(values))
	}
	if err := db.enterTx(); err != nil {
		return fmt.Errorf("put keys: %w", err)
	}
	if len(keys) == 0 {
		return nil
	}
	for i, k := range keys {
		if kvRowSize(len(k), len(values[i])) > maxSQLiteLength {
			return tooBig() // as workerd's row would be: nothing written, the transaction goes on
		}
	}
	if !db.hasKV {
		if err := db.execInternal(sqlCreateKV); err != nil {
			return fmt.Errorf("put keys: %w", db.abort(err))
		}
		db.hasKV = true
	}
	if db.cacheKV {
		if db.pendingBytes > kvCacheMaxBytes {
			if err := db.flushKV(); err != nil {
				return fmt.Errorf("put keys: %w", err)
			}
		}
		if db.bufferKV(keys, values) {
			return nil
		}
	}
	if err := db.flushKV(); err != nil {
		return fmt.Errorf("put keys: %w", err)
	}
	put, err := db.stmt(sqlPut)
	if err != nil {
		return fmt.Errorf("put keys: %w", db.abort(err))
	}
	// A batch is atomic: a failing key undoes the ones before it.
	batch := len(keys) > 1
	if batch {
		if err := db.execInternal(`SAVEPOINT _cf_put`); err != nil {
			return fmt.Errorf("put keys: %w", db.abort(err))
		}
	}
	defer db.raiseLength()()
	for i, k := range keys {
		if _, err := put.Exec(db.scope, k, values[i]); err != nil {
			if batch && db.txAlive() {
				if e := db.execInternal(`ROLLBACK TO _cf_put`); e != nil {
					return fmt.Errorf("put keys: %w", db.abort(e))
				}
				if e := db.execInternal(`RELEASE _cf_put`); e != nil {
					return fmt.Errorf("put keys: %w", db.abort(e))
				}
			}
			return db.kvFailed("put keys", err)
		}
	}
	if batch {
		if err := db.execInternal(`RELEASE _cf_put`); err != nil {
			return fmt.Errorf("put keys: %w", db.abort(err))
		}
	}
	for i, k := range keys {
		db.cacheKVValue(k, values[i], true)
	}
	return nil
}

// Delete deletes keys and returns how many of them existed. A key given
// twice counts once.
func (db *DB) Delete(keys []string) (deleted int, err error) {
	if err := db.enter(); err != nil {
		return 0, fmt.Errorf("delete keys: %w", err)
	}
	if !db.kvExists() {
		return 0, nil
	}
	del, err := db.stmt(sqlDelete)
	if err != nil {
		return 0, fmt.Errorf("delete keys: %w", db.abort(err))
	}
	for _, k := range keys {
		res, err := del.Exec(db.scope, k)
		if err != nil {
			return 0, db.kvFailed("delete keys", err)
		}
		db.cacheKVValue(k, nil, false)
		n, err := res.RowsAffected()
		if err != nil {
			return 0, fmt.Errorf("delete keys: %w", db.abort(err))
		}
		deleted += int(n)
	}
	return deleted, nil
}

// kvFailed handles the failure err of a KV statement. A failure that left
// the transaction open (the statement's input was refused, e.g. a value
// over SQLite's length limit) is the application's: it is returned as the
// *SQLError workerd reports ("string or blob too big: SQLITE_TOOBIG") and
// the transaction goes on. Any other failure aborts the transaction.
func (db *DB) kvFailed(op string, err error) error {
	var se interface{ Code() int }
	if errors.As(err, &se) && db.txAlive() {
		switch se.Code() & 0xff {
		case 18, 19, 20, 25: // TOOBIG, CONSTRAINT, MISMATCH, RANGE
			return db.sqlError(int32(se.Code()))
		}
	}
	return fmt.Errorf("%s: %w", op, db.abort(err))
}

// List returns the entries selected by o, in ascending key order (descending
// if o.Reverse). When both Start and StartAfter are set, the greater bound
// applies (StartAfter when they are equal).
func (db *DB) List(o ListOptions) ([]Entry, error) {
	if err := db.enter(); err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	if !db.kvExists() {
		return nil, nil
	}
	query, args := listQuery(db.scope, o)
	stmt, err := db.stmt(query)
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", db.abort(err))
	}
	entries, err := scanEntries(stmt, args)
	if err != nil {
		return nil, db.kvFailed("list keys", err)
	}
	return entries, nil
}

func scanEntries(stmt *sql.Stmt, args []any) ([]Entry, error) {
	rows, err := stmt.Query(args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var entries []Entry
	for rows.Next() {
		var (
			k string
			v sql.RawBytes
		)
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		entries = append(entries, Entry{Key: k, Value: append([]byte{}, v...)})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return entries, rows.Close()
}

// listQuery returns the SQL and arguments of the List query for o. Every
// bound is a range condition on k, so the (scope, k) primary key index
// serves all of them; the SQL depends only on which options are set, which
// keeps the statement cache small.
func listQuery(scope string, o ListOptions) (string, []any) {
	var b strings.Builder
	args := []any{scope}
	b.WriteString(`SELECT k, v FROM _cf_KV WHERE scope = ?`)
	if o.HasStart {
		b.WriteString(` AND k >= ?`)
		args = append(args, o.Start)
	}
	if o.HasStartAfter {
		b.WriteString(` AND k > ?`)
		args = append(args, o.StartAfter)
	}
	if o.HasEnd {
		b.WriteString(` AND k < ?`)
		args = append(args, o.End)
	}
	if o.HasPrefix && o.Prefix != "" {
		b.WriteString(` AND k >= ?`)
		args = append(args, o.Prefix)
		if end, ok := sqlitex.PrefixEnd(o.Prefix); ok {
			b.WriteString(` AND k < ?`)
			args = append(args, end)
		}
	}
	if o.Reverse {
		b.WriteString(` ORDER BY k DESC`)
	} else {
		b.WriteString(` ORDER BY k`)
	}
	if o.Limit > 0 {
		b.WriteString(` LIMIT ?`)
		args = append(args, o.Limit)
	}
	return b.String(), args
}

// DeleteAll deletes every key of every scope and drops the application's
// tables, views, indexes and triggers, in the implicit transaction, as
// workerd's deleteAll() does: _cf_KV goes too, and so do _cf_ALARM and
// _cf_METADATA unless an alarm is pending (a pending alarm and its
// metadata stay). Open cursors end.
func (db *DB) DeleteAll() error {
	if err := db.enter(); err != nil {
		return fmt.Errorf("delete all: %w", err)
	}
	if err := db.deleteAll(); err != nil {
		return fmt.Errorf("delete all: %w", db.abort(err))
	}
	return nil
}

type schemaObject struct {
	typ, name string
	virtual   bool
}

func (db *DB) deleteAll() error {
	db.dropKVCache()
	ctx := context.Background()
	db.stopCursors()
	// Dropping a table deletes its rows first; deferring foreign key
	// checks to the commit lets tables that reference each other go in
	// any order. The pragma resets when the transaction ends.
	if _, err := db.conn.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return err
	}
	rows, err := db.conn.QueryContext(ctx, `
SELECT type, name, coalesce(sql, '') LIKE 'CREATE VIRTUAL TABLE%'
FROM sqlite_schema
WHERE type IN ('table', 'view')
  AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
  AND name NOT LIKE '\_cf\_%' ESCAPE '\'`)
	if err != nil {
		return err
	}
	var objs []schemaObject
	for rows.Next() {
		var o schemaObject
		if err := rows.Scan(&o.typ, &o.name, &o.virtual); err != nil {
			rows.Close()
			return err
		}
		objs = append(objs, o)
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return err
	}
	if err := rows.Close(); err != nil {
		return err
	}

	// Views first (they may name tables), then virtual tables (which
	// drop their shadow tables), then the remaining tables.
	for _, pass := range []func(schemaObject) bool{
		func(o schemaObject) bool { return o.typ == "view" },
		func(o schemaObject) bool { return o.typ == "table" && o.virtual },
		func(o schemaObject) bool { return o.typ == "table" && !o.virtual },
	} {
		for _, o := range objs {
			if !pass(o) {
				continue
			}
			stmt := `DROP TABLE IF EXISTS ` + quoteIdent(o.name)
			if o.typ == "view" {
				stmt = `DROP VIEW IF EXISTS ` + quoteIdent(o.name)
			}
			if _, err := db.conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("drop %s %s: %w", o.typ, o.name, err)
			}
		}
	}
	drop := []string{"_cf_KV"}
	pending, err := db.alarmPending()
	if err != nil {
		return err
	}
	if !pending {
		drop = append(drop, "_cf_ALARM", "_cf_METADATA")
	}
	for _, t := range drop {
		if _, err := db.conn.ExecContext(ctx, `DROP TABLE IF EXISTS `+t); err != nil {
			return fmt.Errorf("drop table %s: %w", t, err)
		}
	}
	db.hasKV = false
	if !pending {
		db.hasAlarm, db.hasMeta = false, false
	}
	return nil
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// kvRowSize is the size of the SQLite record of one entry as workerd stores
// it, a row (key TEXT, value BLOB) of its _cf_KV table: the row SQLite
// refuses above SQLITE_LIMIT_LENGTH. cellhost's own rows are longer by the
// scope column, so workerd's limit is checked on this size before the write
// and the connection's limit is raised for the write itself (raiseLength).
func kvRowSize(key, value int) int {
	keyType := varintLen(uint64(2*key + 13))
	valueType := varintLen(uint64(2*value + 12))
	header := keyType + valueType
	header += varintLen(uint64(header + 1))
	return header + key + value
}

// varintLen is the length of SQLite's varint of v.
func varintLen(v uint64) int {
	n := 1
	for v > 0x7f && n < 9 {
		v >>= 7
		n++
	}
	return n
}

// tooBig is SQLite's SQLITE_TOOBIG as workerd reports it.
func tooBig() error {
	return &SQLError{Msg: "string or blob too big: SQLITE_TOOBIG", Code: sqlite3.SQLITE_TOOBIG}
}

// raiseLength lets cellhost's own KV rows, which carry the scope beside
// workerd's key and value, be up to the scope longer than workerd's limit
// (kvRowSize checked the entry); the returned function puts the limit back.
// On the DB's goroutine, around its own statements only.
func (db *DB) raiseLength() (restore func()) {
	r := db.raw
	r.Limit(sqlite3.SQLITE_LIMIT_LENGTH, int32(maxSQLiteLength+len(db.scope)+16))
	return func() { r.Limit(sqlite3.SQLITE_LIMIT_LENGTH, maxSQLiteLength) }
}
