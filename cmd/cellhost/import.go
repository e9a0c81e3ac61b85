package main

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/spf13/cobra"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/web"
	"github.com/cellhost/cellhost/storage"
)

type importOptions struct {
	state      string
	bucket     string
	durability string
	env        string
	names      []string // Class=name or name
}

func newImportCommand(stdout, stderr io.Writer) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import [dir | dir/.wrangler/state]",
		Short: "Bring a project's wrangler dev (workerd) Durable Object state into cellhost",
		Long: `Bring a project's local Durable Object state, as wrangler dev and workerd
keep it, into cellhost, so that switching from wrangler dev keeps the data.

The argument is the project directory (its wrangler config names the classes)
or its .wrangler/state directory. Every object file workerd wrote there
(v3/do/<script>-<Class>/<id>.sqlite, or workerd/<script>-<Class>/<id>.sqlite)
is copied into the object's storage in cellhost's state: its KV values byte
for byte (both runtimes write V8's serialization format), its SQL tables,
indexes, triggers and views. Each object is written as one commit, logged
to the bucket like any other.

An id does not carry its name, and the two runtimes derive different ids
from a name: give the names your code uses with --name (Class=name, or a
name for every class) and those objects keep their names; any other object
gets the cellhost id with the same first half, and the mapping is printed.
Run it before cellhost dev on the same state (it takes the state lock).`,
		Example: `  cellhost import .                         # ./.wrangler/state into ./.cellhost
  cellhost import . --name Counter=alice --name Counter=bob
  cellhost import ../app/.wrangler/state --state /tmp/app-state`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			target := "."
			if len(args) == 1 {
				target = args[0]
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runImport(ctx, target, o, stdout, stderr)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags registers the flags import and export share.
func (o *importOptions) addFlags(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.state, "state", "", "cellhost's state directory (default <dir>/.cellhost)")
	cmd.Flags().StringVar(&o.bucket, "bucket", "", "bucket URL (default file://<state>/bucket), as for cellhost dev")
	cmd.Flags().StringVar(&o.durability, "durability", host.DurabilityLog, "as for cellhost dev")
	cmd.Flags().StringVarP(&o.env, "env", "e", "", "apply the wrangler config's env.<name> section")
	cmd.Flags().StringArrayVar(&o.names, "name", nil, "an object name the code uses: Class=name, or name for every class (repeatable)")
}

// bindingClasses lists the classes of the configuration's Durable Object
// bindings, each once, in binding order.
func bindingClasses(hc host.Config) []string {
	var classes []string
	seen := map[string]bool{}
	for _, b := range hc.Bindings {
		if !seen[b.Class] {
			seen[b.Class] = true
			classes = append(classes, b.Class)
		}
	}
	return classes
}

// namesByID reads --name values (Class=name, or name for every class) and
// maps "Class/<id>" to the name, idOf giving the id of a class's name.
func namesByID(names, classes []string, idOf func(class, name string) string) map[string]string {
	named := map[string]string{}
	for _, n := range names {
		cls, name, ok := strings.Cut(n, "=")
		for _, c := range classes {
			if ok && c != cls {
				continue
			}
			if !ok {
				name = n
			}
			named[c+"/"+idOf(c, name)] = name
		}
	}
	return named
}

// workerdObject is one object file of workerd's state.
type workerdObject struct {
	class, id, path string
	name            string // from the namespace's metadata.sqlite (objects with an alarm)
}

// resolveImportTarget returns the project directory and its wrangler state
// directory for target (either of them).
func resolveImportTarget(target string) (project, state string, err error) {
	abs, err := filepath.Abs(target)
	if err != nil {
		return "", "", err
	}
	if filepath.Base(abs) == "state" && filepath.Base(filepath.Dir(abs)) == ".wrangler" {
		return filepath.Dir(filepath.Dir(abs)), abs, nil
	}
	state = filepath.Join(abs, ".wrangler", "state")
	if _, err := os.Stat(state); err != nil {
		return "", "", fmt.Errorf("%s has no .wrangler/state (run wrangler dev there first, or name the state directory)", target)
	}
	return abs, state, nil
}

// findWorkerdObjects lists the object files of script's classes under a
// wrangler state directory, in both layouts (wrangler's v3/do and
// workerd's own).
func findWorkerdObjects(state, script string, classes []string) ([]workerdObject, error) {
	var out []workerdObject
	for _, class := range classes {
		for _, dir := range []string{filepath.Join(state, "v3", "do", script+"-"+class), filepath.Join(state, "workerd", script+"-"+class)} {
			files, err := filepath.Glob(filepath.Join(dir, "*.sqlite"))
			if err != nil {
				return nil, err
			}
			names, err := workerdAlarmNames(filepath.Join(dir, "metadata.sqlite"))
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				id := strings.TrimSuffix(filepath.Base(f), ".sqlite")
				if b, err := hex.DecodeString(id); err != nil || len(b) != 32 {
					continue // metadata.sqlite and the like
				}
				out = append(out, workerdObject{class: class, id: id, path: f, name: names[id]})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, nil
}

// workerdAlarmNames reads the names workerd keeps beside a namespace's
// alarms (metadata.sqlite, table _cf_ALARM: actor_id, scheduled_time,
// actor_name), by id. A missing file is no names.
func workerdAlarmNames(path string) (map[string]string, error) {
	names := map[string]string{}
	if _, err := os.Stat(path); err != nil {
		return names, nil
	}
	db, tmp, err := openWorkerdCopy(path)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = '_cf_ALARM'`).Scan(&n); err != nil || n == 0 {
		return names, err
	}
	rows, err := db.Query(`SELECT actor_id, coalesce(actor_name, '') FROM _cf_ALARM`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, err
		}
		if name != "" {
			names[id] = name
		}
	}
	return names, rows.Err()
}

// WorkerdIDFromName is workerd's idFromName for a namespace whose unique key
// is uniqueKey (wrangler's is "<script>-<Class>"): the first 16 bytes of
// HMAC-SHA256(SHA256(uniqueKey), name), then the first 16 of the HMAC of
// those.
func workerdIDFromName(uniqueKey, name string) string {
	k := sha256.Sum256([]byte(uniqueKey))
	mac := func(b []byte) []byte {
		m := hmac.New(sha256.New, k[:])
		m.Write(b)
		return m.Sum(nil)[:16]
	}
	first := mac([]byte(name))
	return hex.EncodeToString(append(first, mac(first)...))
}

func runImport(ctx context.Context, target string, o importOptions, stdout, stderr io.Writer) error {
	project, wstate, err := resolveImportTarget(target)
	if err != nil {
		return err
	}
	cfg, hc, err := loadProject(project, devOptions{env: o.env}, stderr)
	if err != nil {
		return err
	}
	classes := bindingClasses(hc)
	objects, err := findWorkerdObjects(wstate, cfg.Name, classes)
	if err != nil {
		return err
	}
	if len(objects) == 0 {
		fmt.Fprintf(stdout, "cellhost import: no Durable Object of %s in %s\n", cfg.Name, wstate)
		return nil
	}
	named := namesByID(o.names, classes, func(c, name string) string { return workerdIDFromName(cfg.Name+"-"+c, name) })

	h, done, err := openProjectHost(ctx, cfg.Dir, hc, o.state, o.bucket, o.durability, stderr)
	if err != nil {
		return err
	}
	defer done()

	check, err := newValueCheck()
	if err != nil {
		return err
	}
	for _, obj := range objects {
		data, err := readWorkerdObject(obj.path)
		if err != nil {
			return fmt.Errorf("%s: %w", obj.path, err)
		}
		var id, how string
		name, ok := named[obj.class+"/"+obj.id]
		if !ok && obj.name != "" && workerdIDFromName(cfg.Name+"-"+obj.class, obj.name) == obj.id {
			name, ok = obj.name, true // workerd kept it beside the alarm
		}
		if ok {
			id, how = host.IDFromName(cfg.Name, obj.class, name), fmt.Sprintf("name %q", name)
		} else {
			id, err = host.ReissueID(cfg.Name, obj.class, obj.id)
			if err != nil {
				return fmt.Errorf("%s: %w", obj.path, err)
			}
			how = "workerd id " + obj.id
		}
		for _, k := range check.unreadable(data.keys, data.values) {
			fmt.Fprintf(stderr, "warning: %s %s: the value of key %q does not read on cellhost (copied as is)\n", obj.class, id, k)
		}
		if err := h.RunOnCell(ctx, obj.class, id, data.write); err != nil {
			return fmt.Errorf("import %s (%s): %w", obj.path, how, err)
		}
		alarm := ""
		if data.alarmMs != 0 {
			alarm = ", alarm " + time.UnixMilli(data.alarmMs).UTC().Format(time.RFC3339Nano)
		}
		fmt.Fprintf(stdout, "%s %s <- %s: %d keys, %d tables%s\n", obj.class, id, how, len(data.keys), len(data.tables), alarm)
	}
	return nil
}

// openProjectHost opens a Host of the project on cellhost's state (as
// cellhost dev would, taking the state lock); done closes everything.
func openProjectHost(ctx context.Context, dir string, hc host.Config, state, bucket, durability string, stderr io.Writer) (h *host.Host, done func(), err error) {
	var closers []func()
	done = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	defer func() {
		if err != nil {
			done()
		}
	}()
	keep := host.Config{Storage: host.Storage{StateDir: state}, Logging: host.Logging{Log: stderr}}
	if keep.StateDir == "" {
		keep.StateDir = filepath.Join(dir, ".cellhost")
	}
	lock, err := host.LockState(keep.StateDir)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, func() { lock.Close() })
	keep.StateLock = lock
	fleet, err := joinBucket(ctx, &keep, bucket, durability, nil)
	if err != nil {
		return nil, nil, err
	}
	closers = append(closers, fleet.close)
	hc.StateDir, hc.Log, hc.StateLock = keep.StateDir, keep.Log, keep.StateLock
	hc.Bucket, hc.Node, hc.Durability = keep.Bucket, keep.Node, keep.Durability
	h, err = host.New(hc)
	if err != nil {
		return nil, nil, err
	}
	if err := h.Open(); err != nil {
		return nil, nil, err
	}
	closers = append(closers, func() { closeHost(h, stderr) })
	return h, done, nil
}

// openWorkerdCopy opens a copy of a SQLite file of workerd's (with its
// WAL) in a new temporary directory, which the caller removes.
func openWorkerdCopy(path string) (*sql.DB, string, error) {
	tmp, err := os.MkdirTemp("", "cellhost-import-")
	if err != nil {
		return nil, "", err
	}
	cp := filepath.Join(tmp, "copy.sqlite")
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(path + suffix)
		if err != nil {
			if suffix != "" && errors.Is(err, os.ErrNotExist) {
				continue
			}
			os.RemoveAll(tmp)
			return nil, "", err
		}
		if err := os.WriteFile(cp+suffix, b, 0o600); err != nil {
			os.RemoveAll(tmp)
			return nil, "", err
		}
	}
	db, err := sql.Open("sqlite", cp)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, "", err
	}
	return db, tmp, nil
}

// workerdData is what an object file of workerd holds that cellhost keeps.
type workerdData struct {
	alarmMs int64 // the alarm's time (Unix ms), 0 for none
	keys    []string
	values  [][]byte
	tables  []workerdTable
	schema  []string // CREATE statements after the tables: indexes, triggers, views
}

type workerdTable struct {
	name, create string
	rows         [][]any
}

// readWorkerdObject reads an object file of workerd (a copy of it, with its
// WAL: workerd may still have it open, and opening writes beside it).
func readWorkerdObject(path string) (*workerdData, error) {
	db, tmp, err := openWorkerdCopy(path)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	defer db.Close()
	d := &workerdData{}
	// the alarm: _cf_METADATA key 1, in nanoseconds
	var hasMeta int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = '_cf_METADATA'`).Scan(&hasMeta); err != nil {
		return nil, err
	}
	if hasMeta > 0 {
		var ns sql.NullInt64
		err := db.QueryRow(`SELECT value FROM _cf_METADATA WHERE key = 1`).Scan(&ns)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, err
		}
		if ns.Valid {
			d.alarmMs = ns.Int64 / 1e6
		}
	}
	rows, err := db.Query(`SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE '\_cf\_%' ESCAPE '\' AND name NOT LIKE 'sqlite\_%' ESCAPE '\' ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	var tables []workerdTable
	for rows.Next() {
		var typ, name, create string
		if err := rows.Scan(&typ, &name, &create); err != nil {
			rows.Close()
			return nil, err
		}
		if typ == "table" {
			tables = append(tables, workerdTable{name: name, create: create})
		} else {
			d.schema = append(d.schema, create)
		}
	}
	rows.Close()
	for i := range tables {
		r, err := db.Query(`SELECT * FROM "` + strings.ReplaceAll(tables[i].name, `"`, `""`) + `"`)
		if err != nil {
			return nil, err
		}
		cols, _ := r.Columns()
		for r.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for j := range vals {
				ptrs[j] = &vals[j]
			}
			if err := r.Scan(ptrs...); err != nil {
				r.Close()
				return nil, err
			}
			tables[i].rows = append(tables[i].rows, vals)
		}
		r.Close()
	}
	d.tables = tables
	var hasKV int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = '_cf_KV'`).Scan(&hasKV); err != nil {
		return nil, err
	}
	if hasKV > 0 {
		kv, err := db.Query(`SELECT key, value FROM _cf_KV ORDER BY key`)
		if err != nil {
			return nil, err
		}
		defer kv.Close()
		for kv.Next() {
			var k string
			var v []byte
			if err := kv.Scan(&k, &v); err != nil {
				return nil, err
			}
			d.keys = append(d.keys, k)
			d.values = append(d.values, v)
		}
		if err := kv.Err(); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// write puts the object's data into a cellhost cell database.
func (d *workerdData) write(db *storage.DB) error {
	const batch = 128
	for i := 0; i < len(d.keys); i += batch {
		j := min(i+batch, len(d.keys))
		if err := db.Put(d.keys[i:j], d.values[i:j]); err != nil {
			return err
		}
	}
	exec := func(q string, args ...any) error {
		c, err := db.Exec(q, args...)
		if err != nil {
			return err
		}
		defer c.Close()
		for {
			_, ok, err := c.Next()
			if err != nil || !ok {
				return err
			}
		}
	}
	for _, t := range d.tables {
		if err := exec(t.create); err != nil {
			return fmt.Errorf("table %s: %w", t.name, err)
		}
		if len(t.rows) == 0 {
			continue
		}
		q := `INSERT INTO "` + strings.ReplaceAll(t.name, `"`, `""`) + `" VALUES (?` + strings.Repeat(", ?", len(t.rows[0])-1) + `)`
		for _, row := range t.rows {
			if err := exec(q, row...); err != nil {
				return fmt.Errorf("table %s: %w", t.name, err)
			}
		}
	}
	for _, s := range d.schema {
		if err := exec(s); err != nil {
			return err
		}
	}
	if d.alarmMs != 0 {
		return db.SetAlarm(d.alarmMs)
	}
	return nil
}

// valueCheck reads stored values on a goja runtime, to warn about the ones
// cellhost cannot read (they are copied all the same).
type valueCheck struct{ rt *goja.Runtime }

func newValueCheck() (*valueCheck, error) {
	rt := goja.New()
	if err := web.Install(rt, web.Options{Console: io.Discard}); err != nil {
		return nil, err
	}
	return &valueCheck{rt: rt}, nil
}

func (c *valueCheck) unreadable(keys []string, values [][]byte) []string {
	var bad []string
	for i, v := range values {
		if _, err := clone.Deserialize(c.rt, v); err != nil {
			bad = append(bad, keys[i])
		}
	}
	return bad
}
