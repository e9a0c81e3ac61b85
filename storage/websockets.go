package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
)

// Hibernated WebSockets are durable: each socket accepted with
// ctx.acceptWebSocket() is one row of _cf_cellhost_websockets (its durable
// id, its tags as a JSON array and its serialized attachment), written in
// the turn that accepted it or changed its attachment and deleted in the
// turn that delivered its close or error. The table travels with the
// database in the LTX log, so a node that takes the cell over after its
// owner died re-attaches the sockets an edge node still holds (the edge
// names the id). The name is under _cf_, which the application's SQL
// cannot touch and deleteAll() keeps.
const (
	sqlCreateWebSockets = `CREATE TABLE IF NOT EXISTS _cf_cellhost_websockets (id TEXT PRIMARY KEY, tags TEXT NOT NULL, attachment BLOB)`
	sqlPutWebSocket     = `INSERT INTO _cf_cellhost_websockets (id, tags, attachment) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET tags = excluded.tags, attachment = excluded.attachment`
	sqlGetWebSocket     = `SELECT tags, attachment FROM _cf_cellhost_websockets WHERE id = ?`
	sqlDeleteWebSocket  = `DELETE FROM _cf_cellhost_websockets WHERE id = ?`
	sqlHasWebSockets    = `SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '_cf_cellhost_websockets'`
)

// PutWebSocket stores (or replaces) the hibernated WebSocket id, in the
// implicit transaction.
func (db *DB) PutWebSocket(id string, tags []string, attachment []byte) error {
	if err := db.enter(); err != nil {
		return fmt.Errorf("store websocket: %w", err)
	}
	if tags == nil {
		tags = []string{}
	}
	tj, err := json.Marshal(tags)
	if err != nil {
		return fmt.Errorf("store websocket: %w", err)
	}
	if err := db.execInternal(sqlCreateWebSockets); err != nil {
		return fmt.Errorf("store websocket: %w", db.abort(err))
	}
	s, err := db.stmt(sqlPutWebSocket)
	if err != nil {
		return fmt.Errorf("store websocket: %w", db.abort(err))
	}
	if _, err := s.ExecContext(context.Background(), id, string(tj), attachment); err != nil {
		return fmt.Errorf("store websocket: %w", db.abort(err))
	}
	return nil
}

// DeleteWebSocket deletes the hibernated WebSocket id, if stored.
func (db *DB) DeleteWebSocket(id string) error {
	if err := db.enter(); err != nil {
		return fmt.Errorf("delete websocket: %w", err)
	}
	ok, err := db.hasWebSockets()
	if err != nil || !ok {
		return err
	}
	s, err := db.stmt(sqlDeleteWebSocket)
	if err != nil {
		return fmt.Errorf("delete websocket: %w", db.abort(err))
	}
	if _, err := s.ExecContext(context.Background(), id); err != nil {
		return fmt.Errorf("delete websocket: %w", db.abort(err))
	}
	return nil
}

// GetWebSocket reads the hibernated WebSocket id: its tags and attachment
// (nil when none was serialized); ok is false when it is not stored.
func (db *DB) GetWebSocket(id string) (tags []string, attachment []byte, ok bool, err error) {
	if err := db.enter(); err != nil {
		return nil, nil, false, fmt.Errorf("read websocket: %w", err)
	}
	has, err := db.hasWebSockets()
	if err != nil || !has {
		return nil, nil, false, err
	}
	s, err := db.stmt(sqlGetWebSocket)
	if err != nil {
		return nil, nil, false, fmt.Errorf("read websocket: %w", err)
	}
	var tj string
	err = s.QueryRowContext(context.Background(), id).Scan(&tj, &attachment)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, false, nil
	}
	if err != nil {
		return nil, nil, false, fmt.Errorf("read websocket: %w", err)
	}
	if err := json.Unmarshal([]byte(tj), &tags); err != nil {
		return nil, nil, false, fmt.Errorf("read websocket %s: bad tags: %w", id, err)
	}
	return tags, attachment, true, nil
}

// WebSocketIDs returns the ids of the stored hibernated WebSockets. It
// reads outside the implicit transaction when none is open (a cell's
// housekeeping between turns), and touches nothing when there are none.
func (db *DB) WebSocketIDs() ([]string, error) {
	if db.closed {
		return nil, ErrClosed
	}
	has, err := db.hasWebSockets()
	if err != nil || !has {
		return nil, err
	}
	rows, err := db.conn.QueryContext(context.Background(), `SELECT id FROM _cf_cellhost_websockets ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list websockets: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("list websockets: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

func (db *DB) hasWebSockets() (bool, error) {
	var n int
	if err := db.conn.QueryRowContext(context.Background(), sqlHasWebSockets).Scan(&n); err != nil {
		return false, fmt.Errorf("websocket table: %w", err)
	}
	return n > 0, nil
}
