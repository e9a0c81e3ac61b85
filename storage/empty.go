package storage

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// emptyImage is the bytes of an empty database already in WAL mode, made
// once per process by SQLite itself (see CreateEmpty).
var emptyImage = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "cellhost-empty-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "empty.sqlite")
	db, err := sql.Open("sqlite", dsn(path, syncNormal))
	if err != nil {
		return nil, err
	}
	// The connection's pragmas switch the new file to WAL mode, which
	// writes its header; closing checkpoints and removes the WAL.
	if _, err := db.Exec("SELECT 1"); err != nil {
		db.Close()
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 100 || b[18] != 2 || b[19] != 2 {
		return nil, fmt.Errorf("empty database image is not in WAL mode (%d bytes)", len(b))
	}
	return b, nil
})

// CreateEmpty writes an empty database in WAL mode at path, without fsync,
// for a cell whose durable state lives elsewhere (the log mode: the bucket
// is the source of truth and every activation restores from it). Open then
// finds it in WAL mode already, so a new object skips the rollback-journal
// transaction (four fsyncs) that switching a fresh file to WAL costs. path
// must not exist.
func CreateEmpty(path string) error {
	img, err := emptyImage()
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := f.Write(img); err != nil {
		f.Close()
		return fmt.Errorf("create %s: %w", path, err)
	}
	return f.Close()
}
