package filestore

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cellhost/cellhost/internal/sqlitex"
	"github.com/cellhost/cellhost/plugins"
)

const (
	// lockName is flocked by New while it opens, creates or migrates the
	// database.
	lockName = ".cellhost-store.lock"
	// newDBName is the database while New builds it.
	newDBName = dbName + ".new"
	// markerName is, in format v1, the lock directory; after the
	// migration a regular file holding markerText, so that an older
	// cellhost fails to open the directory.
	markerName = ".cellhost-locks"
	markerText = "This bucket directory holds a cellhost file store in the SQLite format (.cellhost-store.db).\n" +
		"This file stops cellhost versions older than that format from opening it as an empty bucket.\n"

	// Format v1: every object a file holding "cellhost-object-v1 <etag>\n"
	// and the body; names starting with v1Reserved (the lock directory,
	// temporary files) are not objects.
	v1Reserved  = ".cellhost-"
	v1TmpPrefix = v1Reserved + "tmp-"
	v1Magic     = "cellhost-object-v1 "
	v1HeaderLen = len(v1Magic) + etagLen + 1
)

// prepare makes sure root holds the database, creating it (and migrating
// format v1 objects into it) if needed, under an exclusive flock so that
// processes opening one fresh directory do not race.
func prepare(root string) error {
	// The store holds every object's log and the fleet secret: the
	// directory is 0700 and the database (so its WAL and shared memory,
	// which SQLite creates with the database's mode) 0600, whatever the
	// umask; a store an older cellhost made 0644 is tightened here.
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	unlock, err := flock(filepath.Join(root, lockName))
	if err != nil {
		return err
	}
	defer unlock()
	path := filepath.Join(root, dbName)
	switch _, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		if err := create(root); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	finishV1(root)
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Chmod(path+suffix, 0o600); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// isV1 reports whether root was written by format v1, whose New always
// created the lock directory.
func isV1(root string) bool {
	fi, err := os.Lstat(filepath.Join(root, markerName))
	return err == nil && fi.IsDir()
}

// create builds the database under a temporary name, importing the v1
// objects of root if it is a v1 directory, makes it durable and renames it
// into place: a crash leaves either no database (and the v1 files) or the
// whole one.
func create(root string) error {
	tmp := filepath.Join(root, newDBName)
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		if err := os.Remove(tmp + suffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove the leftover of an interrupted creation: %w", err)
		}
	}
	// Created 0600 before SQLite opens it (its default is 0644).
	if f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	} else {
		f.Close()
	}
	// Durability comes from the fsync below: the build needs no journal
	// syncs.
	db, err := sql.Open("sqlite", sqlitex.DSN(tmp, "page_size("+strconv.Itoa(pageSize)+")", "synchronous(OFF)"))
	if err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	}
	if isV1(root) {
		if err := importV1(db, root); err != nil {
			return fmt.Errorf("migrate the v1 objects of %s to %s: %w", root, dbName, err)
		}
	}
	if _, err := db.Exec("PRAGMA journal_mode = WAL"); err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("create database %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, filepath.Join(root, dbName)); err != nil {
		return fmt.Errorf("create database: %w", err)
	}
	if err := syncFile(root); err != nil {
		return fmt.Errorf("create database %s: %w", filepath.Join(root, dbName), err)
	}
	return nil
}

// importV1 inserts every v1 object under root into db, in one transaction.
func importV1(db *sql.DB, root string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	ins, err := tx.Prepare(`INSERT INTO objects (key, etag, body) VALUES (?1, ?2, ?3)`)
	if err != nil {
		return err
	}
	err = walkV1(root, func(key, path string) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("object %q: %w", key, err)
		}
		body, etag, err := decodeV1(data)
		if err != nil {
			return fmt.Errorf("object %q (file %s): %w; repair the file or move it out of the bucket directory, then open the store again", key, path, err)
		}
		if _, err := ins.Exec(key, etag, body); err != nil {
			return fmt.Errorf("object %q: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

// walkV1 calls fn for the path of every v1 object file under root and its
// key. Like v1's List, it skips reserved names and what is neither a
// directory nor a regular file.
func walkV1(root string, fn func(key, path string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), v1Reserved) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if err := plugins.CheckKey(key); err != nil {
			return fmt.Errorf("file %s: %w", path, err)
		}
		return fn(key, path)
	})
}

// finishV1 removes, best effort, the v1 files the migration imported and
// the temporary files of v1 writes, then replaces the v1 lock directory by
// the marker file. It runs whenever New finds the lock directory, so it
// finishes after a crash.
func finishV1(root string) {
	marker := filepath.Join(root, markerName)
	if !isV1(root) {
		if _, err := os.Lstat(marker); errors.Is(err, fs.ErrNotExist) {
			os.WriteFile(marker, []byte(markerText), 0o600)
		}
		return
	}
	var (
		dirs   []string
		failed bool
	)
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			failed = true
			return nil
		case path == root:
		case d.IsDir() && path == marker:
			return filepath.SkipDir
		case d.IsDir():
			dirs = append(dirs, path)
		case strings.HasPrefix(d.Name(), v1TmpPrefix),
			!strings.HasPrefix(d.Name(), v1Reserved) && d.Type().IsRegular() && hasV1Header(path):
			if err := os.Remove(path); err != nil {
				failed = true
			}
		}
		return nil
	})
	// Deepest first; a directory holding anything else stays.
	slices.Reverse(dirs)
	for _, d := range dirs {
		os.Remove(d)
	}
	if failed {
		return // the next New tries again
	}
	if os.RemoveAll(marker) == nil {
		os.WriteFile(marker, []byte(markerText), 0o600)
	}
}

// hasV1Header reports whether the file at path starts with a v1 header.
func hasV1Header(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	h := make([]byte, v1HeaderLen)
	n, _ := f.Read(h)
	_, _, err = parseV1Header(h[:n])
	return err == nil
}

// parseV1Header returns the quoted ETag in a v1 object file's header, and
// the checksum prefix it holds.
func parseV1Header(h []byte) (etag string, sum []byte, err error) {
	if len(h) < v1HeaderLen || !bytes.HasPrefix(h, []byte(v1Magic)) || h[v1HeaderLen-1] != '\n' {
		return "", nil, fmt.Errorf("%w: no %q header", ErrCorrupt, strings.TrimSpace(v1Magic))
	}
	etag = `"` + string(h[len(v1Magic):v1HeaderLen-1]) + `"`
	sum16, err := parseETag(etag)
	if err != nil {
		return "", nil, err
	}
	return etag, sum16[:], nil
}

// decodeV1 returns the body and ETag of a v1 object file's contents,
// checking the body against the header's checksum.
func decodeV1(data []byte) (body []byte, etag string, err error) {
	etag, want, err := parseV1Header(data)
	if err != nil {
		return nil, "", err
	}
	body = data[v1HeaderLen:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:16], want) {
		return nil, "", fmt.Errorf("%w: body does not match the checksum %s in its header", ErrCorrupt, hex.EncodeToString(want))
	}
	return body, etag, nil
}
