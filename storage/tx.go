package storage

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Explicit transactions (storage.transaction() and transactionSync()) are
// savepoints inside the implicit transaction: committing one releases its
// savepoint, so its writes join the turn's commit; rolling one back undoes
// only its own writes. They nest.

// ErrNoTransaction is returned when no explicit transaction is open.
var ErrNoTransaction = errors.New("no explicit transaction is open")

// savepointName is the name of the savepoint of the explicit transaction at
// depth d (1 = outermost).
func savepointName(d int) string { return "_cf_txn_" + strconv.Itoa(d) }

// TransactionDepth returns the number of open explicit transactions.
func (db *DB) TransactionDepth() int { return len(db.sp) }

// BeginTransaction opens an explicit transaction nested in the open ones
// (or in the implicit transaction) and returns its depth (1 = outermost).
// While one is open, Commit leaves the implicit transaction open.
func (db *DB) BeginTransaction() (int, error) {
	if err := db.enter(); err != nil {
		return 0, fmt.Errorf("begin transaction: %w", err)
	}
	d := len(db.sp) + 1
	if err := db.execInternal(`SAVEPOINT ` + savepointName(d)); err != nil {
		return 0, fmt.Errorf("begin transaction: %w", db.abort(err))
	}
	db.sp = append(db.sp, d)
	return d, nil
}

// CommitTransaction ends the explicit transaction at depth (and any still
// open inside it), keeping its writes in the enclosing one.
func (db *DB) CommitTransaction(depth int) error {
	if err := db.usable(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	if err := db.flushKV(); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	if depth < 1 || depth > len(db.sp) {
		return fmt.Errorf("commit transaction: %w", ErrNoTransaction)
	}
	db.settleWriters()
	if err := db.execInternal(`RELEASE ` + savepointName(depth)); err != nil {
		return fmt.Errorf("commit transaction: %w", db.abort(err))
	}
	db.sp = db.sp[:depth-1]
	return nil
}

// RollbackTransaction undoes the writes of the explicit transaction at
// depth (and of any still open inside it) and ends it.
func (db *DB) RollbackTransaction(depth int) error {
	if err := db.usable(); err != nil {
		return fmt.Errorf("roll back transaction: %w", err)
	}
	if err := db.flushKV(); err != nil {
		return fmt.Errorf("roll back transaction: %w", err)
	}
	if depth < 1 || depth > len(db.sp) {
		return fmt.Errorf("roll back transaction: %w", ErrNoTransaction)
	}
	db.settleWriters()
	name := savepointName(depth)
	if err := db.execInternal(`ROLLBACK TO ` + name); err != nil {
		return fmt.Errorf("roll back transaction: %w", db.abort(err))
	}
	if err := db.execInternal(`RELEASE ` + name); err != nil {
		return fmt.Errorf("roll back transaction: %w", db.abort(err))
	}
	db.sp = db.sp[:depth-1]
	db.refreshSchema()
	db.alarmDirty = true // compared with the committed alarm at Commit
	return nil
}

// usable reports why the DB cannot run a statement now, if it cannot.
func (db *DB) usable() error {
	if db.closed {
		return ErrClosed
	}
	return db.aborted
}

// execInternal runs one of cellhost's own statements (never authorized
// against the application's rules).
func (db *DB) execInternal(query string) error {
	s, err := db.stmt(query)
	if err != nil {
		return err
	}
	_, err = s.ExecContext(context.Background())
	return err
}

// settleWriters reads to their end the open cursors of statements that
// write: SQLite cannot release or roll back a savepoint while they run.
func (db *DB) settleWriters() {
	for c := range db.cursors {
		if !c.readOnly {
			c.readAhead(-1)
		}
	}
}
