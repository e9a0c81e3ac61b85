package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cellhost/cellhost/bindings/binding"
	"github.com/cellhost/cellhost/bindings/d1"
	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/storage"
)

// legacyD1Path is where cellhost kept a D1 database before databases
// became cells: <state>/d1/<id>.sqlite.
func legacyD1Path(stateDir, id string) string {
	return filepath.Join(stateDir, "d1", safeFileName(id)+".sqlite")
}

// moveLegacyD1 brings each D1 database an older cellhost kept in
// <state>/d1 into its cell, as one commit logged to the bucket, and renames
// the file <id>.sqlite.moved. A cell that has tables already is left as it
// is, and the file too, with a warning.
func moveLegacyD1(ctx context.Context, h *host.Host, stateDir string, dbs []binding.Entry, w io.Writer) error {
	for _, e := range dbs {
		x := struct{ Name, ID string }{e.Name, e.Config.(d1.Config).ID}
		path := legacyD1Path(stateDir, x.ID)
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			continue
		}
		data, err := readWorkerdObject(path)
		if err != nil {
			return fmt.Errorf("d1_databases %s: read %s: %w", x.Name, path, err)
		}
		errHasTables := errors.New("the database has tables")
		err = h.RunOnCell(ctx, d1.Class, host.InternalID(d1.Class, x.ID), func(db *storage.DB) error {
			c, err := db.Exec("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
			if err != nil {
				return err
			}
			row, _, err := c.Next()
			c.Close()
			if err != nil {
				return err
			}
			if n, _ := row[0].(int64); n > 0 {
				return errHasTables
			}
			return data.write(db)
		})
		if errors.Is(err, errHasTables) {
			fmt.Fprintf(w, "%s d1_databases %s: %s is from an older cellhost, but the database has tables already; it was not moved in\n", markWarn, x.Name, path)
			continue
		}
		if err != nil {
			return fmt.Errorf("d1_databases %s: move %s in: %w", x.Name, path, err)
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			_ = os.Remove(path + suffix)
		}
		if err := os.Rename(path, path+".moved"); err != nil {
			return fmt.Errorf("d1_databases %s: %w", x.Name, err)
		}
		fmt.Fprintf(w, "d1_databases %s: moved %s into the database's cell (logged to the bucket); the old file is %s.moved\n", x.Name, path, filepath.Base(path))
	}
	return nil
}
