// Package kv is the KV namespace binding (wrangler's kv_namespaces) as
// `wrangler dev` simulates it locally: env.<BINDING> is a KvNamespace object
// (get, getWithMetadata, put, delete, list). A namespace lives in the
// host's bucket, one object per entry (OpenStore, store.go), so that a fleet
// shares it; or in one SQLite database of key, value, expiration and
// metadata (Open).
// cmd/cellhost opens one Namespace per namespace id and binds it with Bind.
package kv

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/cellhost/cellhost/plugins"
)

// Limits of Workers KV.
const (
	MaxKeyBytes      = 512
	MaxMetadataBytes = 1024
	MaxListLimit     = 1000
	MinExpirationTTL = 60 // seconds
)

// Namespace is one KV namespace. Its methods are safe for concurrent use.
type Namespace struct {
	Path string // the SQLite file

	// Now is the clock expirations are checked against (default time.Now).
	Now func() time.Time

	mu sync.Mutex
	db *sql.DB
	// store and ns: the namespace lives in the bucket instead (store.go).
	store plugins.ObjectStore
	ns    string
}

// Open opens (creating) the namespace stored at path.
func Open(path string) (*Namespace, error) {
	n := &Namespace{Path: path}
	if err := n.open(context.Background()); err != nil {
		return nil, err
	}
	return n, nil
}

func (n *Namespace) open(ctx context.Context) error {
	if n.Path == "" {
		return errors.New("kv: no path")
	}
	if err := os.MkdirAll(filepath.Dir(n.Path), 0o700); err != nil {
		return fmt.Errorf("open kv namespace: %w", err)
	}
	// Created 0600 before SQLite opens it (SQLite's default is 0644, and
	// its WAL and shared memory files copy the database's mode).
	if f, err := os.OpenFile(n.Path, os.O_RDWR|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	db, err := sql.Open("sqlite", "file:"+n.Path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return fmt.Errorf("open kv namespace: %w", err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS kv (
		key TEXT PRIMARY KEY, value BLOB NOT NULL, expiration INTEGER, metadata TEXT) WITHOUT ROWID`); err != nil {
		db.Close()
		return fmt.Errorf("open kv namespace %s: %w", n.Path, err)
	}
	n.db = db
	return nil
}

// Close closes the database.
func (n *Namespace) Close() error {
	if n.store != nil {
		return nil // the bucket is the host's
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.db == nil {
		return nil
	}
	err := n.db.Close()
	n.db = nil
	return err
}

func (n *Namespace) now() int64 {
	if n.Now != nil {
		return n.Now().Unix()
	}
	return time.Now().Unix()
}

// Entry is a stored value.
type Entry struct {
	Value      []byte
	Expiration int64  // Unix seconds, 0 for none
	Metadata   string // JSON, "" for none
}

// Get returns the live entry under key, or ok false.
func (n *Namespace) Get(key string) (e Entry, ok bool, err error) {
	if n.store != nil {
		return n.storeGet(key)
	}
	var exp sql.NullInt64
	var meta sql.NullString
	err = n.db.QueryRow(`SELECT value, expiration, metadata FROM kv WHERE key = ? AND (expiration IS NULL OR expiration > ?)`, key, n.now()).
		Scan(&e.Value, &exp, &meta)
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("kv get: %w", err)
	}
	e.Expiration, e.Metadata = exp.Int64, meta.String
	return e, true, nil
}

// Put stores e under key.
func (n *Namespace) Put(key string, e Entry) error {
	if n.store != nil {
		return n.storePut(key, e)
	}
	var exp, meta any
	if e.Expiration != 0 {
		exp = e.Expiration
	}
	if e.Metadata != "" {
		meta = e.Metadata
	}
	if e.Value == nil {
		e.Value = []byte{}
	}
	_, err := n.db.Exec(`INSERT INTO kv (key, value, expiration, metadata) VALUES (?, ?, ?, ?)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value, expiration = excluded.expiration, metadata = excluded.metadata`,
		key, e.Value, exp, meta)
	if err != nil {
		return fmt.Errorf("kv put: %w", err)
	}
	return nil
}

// Delete removes key (no error when absent).
func (n *Namespace) Delete(key string) error {
	if n.store != nil {
		return n.storeDelete(key)
	}
	if _, err := n.db.Exec(`DELETE FROM kv WHERE key = ?`, key); err != nil {
		return fmt.Errorf("kv delete: %w", err)
	}
	return nil
}

// Key is one key of a listing.
type Key struct {
	Name       string
	Expiration int64
	Metadata   string
}

// List returns up to limit live keys starting with prefix, in byte order,
// after cursor (from a previous List; "" from the start), and the cursor
// of the next page ("" when the listing is complete).
func (n *Namespace) List(prefix, cursor string, limit int) ([]Key, string, error) {
	if limit <= 0 || limit > MaxListLimit {
		limit = MaxListLimit
	}
	after := ""
	if cursor != "" {
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err != nil {
			return nil, "", fmt.Errorf("kv list: invalid cursor")
		}
		after = string(b)
	}
	if n.store != nil {
		return n.storeList(prefix, after, limit)
	}
	rows, err := n.db.Query(`SELECT key, expiration, metadata FROM kv
		WHERE key > ? AND substr(key, 1, length(?)) = ? AND (expiration IS NULL OR expiration > ?)
		ORDER BY key LIMIT ?`, after, prefix, prefix, n.now(), limit+1)
	if err != nil {
		return nil, "", fmt.Errorf("kv list: %w", err)
	}
	defer rows.Close()
	var keys []Key
	for rows.Next() {
		var k Key
		var exp sql.NullInt64
		var meta sql.NullString
		if err := rows.Scan(&k.Name, &exp, &meta); err != nil {
			return nil, "", fmt.Errorf("kv list: %w", err)
		}
		k.Expiration, k.Metadata = exp.Int64, meta.String
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("kv list: %w", err)
	}
	next := ""
	if len(keys) > limit {
		keys = keys[:limit]
		next = base64.RawURLEncoding.EncodeToString([]byte(keys[limit-1].Name))
	}
	return keys, next, nil
}
