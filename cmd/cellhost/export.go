package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/storage"
)

type exportOptions struct {
	importOptions
	to string
}

func newExportCommand(stdout, stderr io.Writer) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [dir]",
		Short: "Write a project's cellhost Durable Object state out as wrangler dev (workerd) keeps it",
		Long: `Write the Durable Objects cellhost keeps for a project out in the layout
wrangler dev and workerd read: .wrangler/state/v3/do/<script>-<Class>/<id>.sqlite
(or workerd/<script>-<Class>/ when that folder is already there), the reverse
of cellhost import. Each object's KV values are copied byte for byte (both
runtimes write V8's serialization format), with its SQL tables, indexes,
triggers and views. Objects are those of the state directory's cells; each is
read as it is in the bucket. An existing object file is never overwritten.

Names: --name Class=name (or name) gives an object workerd's id for that
name; any other object gets workerd's id with the same first half.`,
		Example: `  cellhost export . --name Counter=alice     # ./.cellhost into ./.wrangler/state`,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := "."
			if len(args) == 1 {
				target = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runExport(ctx, target, o, stdout, stderr)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().StringVar(&o.to, "to", "", "the wrangler state directory to write (default <dir>/.wrangler/state)")
	return cmd
}

// workerdReissue is the workerd id (namespace unique key uniqueKey) with the
// first half of id.
func workerdReissue(uniqueKey, id string) (string, error) {
	b, err := hex.DecodeString(id)
	if err != nil || len(b) != 32 {
		return "", host.ErrIDFormat
	}
	k := sha256.Sum256([]byte(uniqueKey))
	m := hmac.New(sha256.New, k[:])
	m.Write(b[:16])
	return hex.EncodeToString(append(b[:16:16], m.Sum(nil)[:16]...)), nil
}

func runExport(ctx context.Context, target string, o exportOptions, stdout, stderr io.Writer) error {
	project, err := filepath.Abs(target)
	if err != nil {
		return err
	}
	cfg, hc, err := loadProject(project, devOptions{env: o.env}, stderr)
	if err != nil {
		return err
	}
	to := o.to
	if to == "" {
		to = filepath.Join(cfg.Dir, ".wrangler", "state")
	}
	state := o.state
	if state == "" {
		state = filepath.Join(cfg.Dir, ".cellhost")
	}
	classes := bindingClasses(hc)
	named := namesByID(o.names, classes, func(c, name string) string { return host.IDFromName(cfg.Name, c, name) })
	h, done, err := openProjectHost(ctx, cfg.Dir, hc, o.state, o.bucket, o.durability, stderr)
	if err != nil {
		return err
	}
	defer done()
	n := 0
	for _, class := range classes {
		files, err := filepath.Glob(filepath.Join(state, "cells", class, "*.sqlite"))
		if err != nil {
			return err
		}
		uniqueKey := cfg.Name + "-" + class
		dir := filepath.Join(to, "v3", "do", uniqueKey)
		if _, err := os.Stat(filepath.Join(to, "workerd", uniqueKey)); err == nil {
			dir = filepath.Join(to, "workerd", uniqueKey)
		}
		for _, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".sqlite")
			wid, how := "", ""
			if name, ok := named[class+"/"+id]; ok {
				wid, how = workerdIDFromName(uniqueKey, name), fmt.Sprintf("name %q", name)
			} else if wid, err = workerdReissue(uniqueKey, id); err != nil {
				continue // not a cell file
			} else {
				how = "cellhost id " + id
			}
			data := &workerdData{}
			if err := h.RunOnCell(ctx, class, id, data.read); err != nil {
				return fmt.Errorf("export %s %s: %w", class, id, err)
			}
			path := filepath.Join(dir, wid+".sqlite")
			if err := writeWorkerdObject(path, data); err != nil {
				return fmt.Errorf("export %s %s: %w", class, id, err)
			}
			if data.alarmMs != 0 {
				if err := writeWorkerdAlarm(dir, wid, named[class+"/"+id], data.alarmMs); err != nil {
					return fmt.Errorf("export %s %s: alarm: %w", class, id, err)
				}
			}
			fmt.Fprintf(stdout, "%s %s -> %s (%s): %d keys, %d tables\n", class, wid, relOrAbs(path), how, len(data.keys), len(data.tables))
			n++
		}
	}
	if n == 0 {
		fmt.Fprintf(stdout, "cellhost export: no Durable Object of %s in %s\n", cfg.Name, state)
	}
	return nil
}

// read takes a cell's KV entries, SQL tables and the rest of its schema.
func (d *workerdData) read(db *storage.DB) error {
	entries, err := db.List(storage.ListOptions{})
	if err != nil {
		return err
	}
	for _, e := range entries {
		d.keys = append(d.keys, e.Key)
		d.values = append(d.values, e.Value)
	}
	if a, ok, err := db.GetAlarm(); err != nil {
		return err
	} else if ok {
		d.alarmMs = a.AtMs
	}
	query := func(q string) ([][]any, error) {
		c, err := db.Exec(q)
		if err != nil {
			return nil, err
		}
		defer c.Close()
		var rows [][]any
		for {
			row, ok, err := c.Next()
			if err != nil || !ok {
				return rows, err
			}
			rows = append(rows, row)
		}
	}
	schema, err := query(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '\_cf\_%' ESCAPE '\' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return err
	}
	for _, r := range schema {
		typ, name, create := fmt.Sprint(r[0]), fmt.Sprint(r[1]), fmt.Sprint(r[2])
		if typ != "table" {
			d.schema = append(d.schema, create)
			continue
		}
		rows, err := query(`SELECT * FROM "` + strings.ReplaceAll(name, `"`, `""`) + `"`)
		if err != nil {
			return err
		}
		d.tables = append(d.tables, workerdTable{name: name, create: create, rows: rows})
	}
	return nil
}

// writeWorkerdObject writes a new object file as workerd keeps one: the KV
// in _cf_KV (workerd's schema), then the tables and the rest of the schema.
func writeWorkerdObject(path string, d *workerdData) (err error) {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists; not overwritten", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer func() {
		if e := db.Close(); err == nil {
			err = e
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if len(d.keys) > 0 {
		if _, err := tx.Exec("CREATE TABLE _cf_KV (\n        key TEXT PRIMARY KEY,\n        value BLOB\n      ) WITHOUT ROWID"); err != nil {
			return err
		}
		for i, k := range d.keys {
			if _, err := tx.Exec(`INSERT INTO _cf_KV (key, value) VALUES (?, ?)`, k, d.values[i]); err != nil {
				return err
			}
		}
	}
	for _, t := range d.tables {
		if _, err := tx.Exec(t.create); err != nil {
			return fmt.Errorf("table %s: %w", t.name, err)
		}
		for _, row := range t.rows {
			q := `INSERT INTO "` + strings.ReplaceAll(t.name, `"`, `""`) + `" VALUES (?` + strings.Repeat(", ?", len(row)-1) + `)`
			if _, err := tx.Exec(q, row...); err != nil {
				return fmt.Errorf("table %s: %w", t.name, err)
			}
		}
	}
	for _, s := range d.schema {
		if _, err := tx.Exec(s); err != nil {
			return err
		}
	}
	if d.alarmMs != 0 { // workerd's alarm row: _cf_METADATA key 1, in nanoseconds
		if _, err := tx.Exec("CREATE TABLE _cf_METADATA (\n        key INTEGER PRIMARY KEY,\n        value BLOB\n      )"); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO _cf_METADATA (key, value) VALUES (1, ?)`, d.alarmMs*1e6); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// writeWorkerdAlarm adds an object's alarm to its namespace's
// metadata.sqlite, the index workerd reads at start (with the name, when
// known).
func writeWorkerdAlarm(dir, id, name string, alarmMs int64) error {
	db, err := sql.Open("sqlite", filepath.Join(dir, "metadata.sqlite"))
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS _cf_ALARM (\n      actor_id TEXT PRIMARY KEY,\n      scheduled_time INTEGER,\n      actor_name TEXT\n    ) WITHOUT ROWID"); err != nil {
		return err
	}
	var n any
	if name != "" {
		n = name
	}
	_, err = db.Exec(`INSERT OR REPLACE INTO _cf_ALARM (actor_id, scheduled_time, actor_name) VALUES (?, ?, ?)`, id, alarmMs*1e6, n)
	return err
}
