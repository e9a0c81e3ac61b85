package storage

import (
	"context"
	crand "crypto/rand"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
)

// The alarm of a cell is one row of _cf_ALARM (celld's table), keyed by the
// scope. The table and _cf_METADATA are created with the first alarm, which
// is when workerd's own metadata table appears too.

// Alarm is the stored alarm of a cell.
type Alarm struct {
	AtMs         int64 // due time, Unix milliseconds
	Retry        int64 // failed attempts so far
	CountedRetry int64 // failed attempts that count toward the limit
	Generation   int64 // random tag given by SetAlarm
}

const (
	sqlCreateMetadata = `CREATE TABLE IF NOT EXISTS _cf_METADATA (scope TEXT PRIMARY KEY, actor_name TEXT)`
	sqlCreateAlarm    = `CREATE TABLE IF NOT EXISTS _cf_ALARM (scope TEXT PRIMARY KEY, at_ms INTEGER, retry INTEGER DEFAULT 0, counted_retry INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0)`
	sqlGetAlarm       = `SELECT at_ms, coalesce(retry, 0), counted_retry, generation FROM _cf_ALARM WHERE scope = ? AND at_ms IS NOT NULL`
	sqlSetAlarm       = `INSERT INTO _cf_ALARM (scope, at_ms, retry, counted_retry, generation) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (scope) DO UPDATE SET at_ms = excluded.at_ms, retry = excluded.retry, counted_retry = excluded.counted_retry, generation = excluded.generation`
	sqlDeleteAlarm    = `DELETE FROM _cf_ALARM WHERE scope = ?`
	sqlDeleteAlarmGen = `DELETE FROM _cf_ALARM WHERE scope = ? AND generation = ?`
	sqlSetActor       = `INSERT OR IGNORE INTO _cf_METADATA (scope, actor_name) VALUES (?, ?)`
)

// GetAlarm returns the cell's alarm; ok is false when none is set.
func (db *DB) GetAlarm() (a Alarm, ok bool, err error) {
	if err := db.enter(); err != nil {
		return Alarm{}, false, fmt.Errorf("get alarm: %w", err)
	}
	a, ok, err = db.readAlarm()
	if err != nil {
		return Alarm{}, false, fmt.Errorf("get alarm: %w", db.abort(err))
	}
	return a, ok, nil
}

func (db *DB) readAlarm() (a Alarm, ok bool, err error) {
	if !db.alarmExists() {
		return Alarm{}, false, nil
	}
	s, err := db.stmt(sqlGetAlarm)
	if err != nil {
		return Alarm{}, false, err
	}
	err = s.QueryRowContext(context.Background(), db.scope).Scan(&a.AtMs, &a.Retry, &a.CountedRetry, &a.Generation)
	if errors.Is(err, sql.ErrNoRows) {
		return Alarm{}, false, nil
	}
	if err != nil {
		return Alarm{}, false, err
	}
	return a, true, nil
}

// SetAlarm sets the cell's alarm to atMs (Unix milliseconds), replacing any
// alarm: the retry counters restart and the alarm gets a new random
// generation. It creates _cf_ALARM and _cf_METADATA (with the actor name of
// Options) if needed.
func (db *DB) SetAlarm(atMs int64) error {
	if err := db.enter(); err != nil {
		return fmt.Errorf("set alarm: %w", err)
	}
	if err := db.ensureAlarmTables(); err != nil {
		return fmt.Errorf("set alarm: %w", db.abort(err))
	}
	if err := db.writeAlarm(Alarm{AtMs: atMs, Generation: randomGeneration()}); err != nil {
		return fmt.Errorf("set alarm: %w", db.abort(err))
	}
	return nil
}

// UpdateAlarm replaces the alarm with a (retry counters and generation as
// given) if the stored alarm still has generation gen; it reports whether
// it did. The scheduler uses it to reschedule a failed attempt without
// overwriting an alarm the handler set meanwhile.
func (db *DB) UpdateAlarm(gen int64, a Alarm) (bool, error) {
	if err := db.enter(); err != nil {
		return false, fmt.Errorf("update alarm: %w", err)
	}
	cur, ok, err := db.readAlarm()
	if err != nil {
		return false, fmt.Errorf("update alarm: %w", db.abort(err))
	}
	if !ok || cur.Generation != gen {
		return false, nil
	}
	if err := db.writeAlarm(a); err != nil {
		return false, fmt.Errorf("update alarm: %w", db.abort(err))
	}
	return true, nil
}

func (db *DB) writeAlarm(a Alarm) error {
	s, err := db.stmt(sqlSetAlarm)
	if err != nil {
		return err
	}
	if _, err := s.ExecContext(context.Background(), db.scope, a.AtMs, a.Retry, a.CountedRetry, a.Generation); err != nil {
		return err
	}
	db.alarmDirty = true
	return nil
}

// DeleteAlarm deletes the cell's alarm, if any.
func (db *DB) DeleteAlarm() error {
	if err := db.enter(); err != nil {
		return fmt.Errorf("delete alarm: %w", err)
	}
	if !db.alarmExists() {
		return nil
	}
	s, err := db.stmt(sqlDeleteAlarm)
	if err != nil {
		return fmt.Errorf("delete alarm: %w", db.abort(err))
	}
	if _, err := s.ExecContext(context.Background(), db.scope); err != nil {
		return fmt.Errorf("delete alarm: %w", db.abort(err))
	}
	db.alarmDirty = true
	return nil
}

// DeleteAlarmIf deletes the alarm if it still has generation gen (the alarm
// that fired; a handler's own re-arm wins) and reports whether it did.
func (db *DB) DeleteAlarmIf(gen int64) (bool, error) {
	if err := db.enter(); err != nil {
		return false, fmt.Errorf("delete alarm: %w", err)
	}
	if !db.alarmExists() {
		return false, nil
	}
	s, err := db.stmt(sqlDeleteAlarmGen)
	if err != nil {
		return false, fmt.Errorf("delete alarm: %w", db.abort(err))
	}
	res, err := s.ExecContext(context.Background(), db.scope, gen)
	if err != nil {
		return false, fmt.Errorf("delete alarm: %w", db.abort(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("delete alarm: %w", db.abort(err))
	}
	if n > 0 {
		db.alarmDirty = true
	}
	return n > 0, nil
}

// ensureAlarmTables creates _cf_METADATA (with the actor's row) and
// _cf_ALARM in the open transaction.
func (db *DB) ensureAlarmTables() error {
	if db.hasAlarm && db.hasMeta {
		return nil
	}
	if err := db.execInternal(sqlCreateMetadata); err != nil {
		return err
	}
	if db.actorName != "" {
		s, err := db.stmt(sqlSetActor)
		if err != nil {
			return err
		}
		if _, err := s.ExecContext(context.Background(), db.scope, db.actorName); err != nil {
			return err
		}
	}
	if err := db.execInternal(sqlCreateAlarm); err != nil {
		return err
	}
	db.hasMeta, db.hasAlarm = true, true
	return nil
}

// alarmPending reports whether any alarm row is stored.
func (db *DB) alarmPending() (bool, error) {
	if !db.alarmExists() {
		return false, nil
	}
	var n int
	err := db.conn.QueryRowContext(context.Background(), `SELECT count(*) FROM _cf_ALARM WHERE at_ms IS NOT NULL`).Scan(&n)
	return n > 0, err
}

// randomGeneration returns a random positive 63-bit generation tag.
func randomGeneration() int64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	g := int64(binary.LittleEndian.Uint64(b[:]) >> 1)
	if g == 0 {
		g = 1
	}
	return g
}
