// Package binding is the registry of binding plugins: each kind of
// binding a wrangler configuration can name (kv_namespaces, d1_databases,
// queues, ...) is a Plugin, registered from its package's init() with
// Register, as the object stores register their URL schemes (plugins.
// RegisterStore) and as Caddy's modules register themselves.
// bindings/standard blank-imports the default set; a custom binary adds a
// kind by importing one more package (examples/custombinding).
//
// A plugin's life:
//
//  1. Decode: internal/wrangler hands it the raw JSON of its key; it
//     validates the entries and returns one Entry per env name (errors say
//     which entry; the loader prefixes the file and the key).
//  2. Prepare: once per host configuration (a reload, a deployment), it
//     opens what its entries need from Resources (the bucket, things kept
//     across reloads) and returns a Bind.
//  3. Bind: on each shard's loop, whenever the shard builds a runtime, it
//     sets env.<name> for each entry. Internal cells (Go code run as a
//     cell, stored and logged like an object: a D1 database) are reached
//     through the CellCaller.
//  4. Classes: the internal cell classes the plugin runs, known to every
//     host whether or not the project binds the plugin, so that a fleet
//     node serves a peer's forwarded call.
package binding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/storage"
)

// Plugin is one kind of binding.
type Plugin struct {
	// Key is the wrangler configuration key the plugin reads
	// ("kv_namespaces").
	Key string
	// Kind names one binding of the kind in messages and in the dev
	// bindings table ("KV namespace").
	Kind string
	// Decode validates the key's value and returns its entries. Its
	// errors name the entry (kv_namespaces[1] needs a "binding"); the
	// loader prefixes the file. d.Warn adds a warning.
	Decode func(d *Decoder, raw json.RawMessage) ([]Entry, error)
	// Classes are the internal cell classes the plugin runs.
	Classes []Class
	// Prepare opens what entries need and returns their Bind. Nil: the
	// plugin only declares classes (or its entries bind nothing).
	Prepare func(r *Resources, entries []Entry) (Bind, error)
}

// Bind sets the env bindings of one plugin's entries in a runtime. Called
// on the runtime's goroutine (a shard loop) whenever the shard builds one.
type Bind func(rt *goja.Runtime, env *goja.Object, cells CellCaller) error

// Entry is one configured binding.
type Entry struct {
	// Name is the env name (env.<Name>); "" when the entry binds nothing
	// on env (assets without "binding").
	Name string
	// Show is the dev bindings table's description ("abc (local)").
	Show string
	// Kind, if set, replaces the plugin's Kind in the bindings table.
	Kind string
	// Throws is set when the binding is an object whose use throws: the
	// error it throws. The dev table says so.
	Throws string
	// Config is the plugin's own decoded configuration of the entry.
	Config any
}

// Class is a class of internal cells (host.InternalClass): its cells run
// Go, on their own SQLite database, in turns of the cell.
type Class struct {
	// Name is the class part of the cells' scopes; it must contain a '.'
	// ("cellhost.D1") so that no JavaScript class can have it.
	Name string
	// Serve answers one request in a turn of the cell (host.InternalClass.
	// Serve).
	Serve func(db *storage.DB, req []byte) (resp []byte, wrote bool)
	// Alarm, if set, runs in a turn of the cell when its stored alarm
	// comes due (host.InternalAlarm): a queue delivers its messages, a
	// workflow runs its next step. after runs off the loop once the turn
	// is durable.
	Alarm func(db *storage.DB, now time.Time) (after func(ctx context.Context, w Worker))
	// Start, if set, runs once a host is open, on a goroutine of its own.
	Start func(ctx context.Context, w Worker)
}

// Worker is what an internal cell's alarm work reaches
// (host.InternalWorker): the worker's code and other internal cells.
type Worker interface {
	RunWorker(ctx context.Context, fn func(w *jsapi.Worker, ectx *goja.Object) (goja.Value, error)) error
	CallCell(ctx context.Context, class, key string, req []byte) ([]byte, error)
}

// CellCaller reaches internal cells (host.CellCaller).
type CellCaller interface {
	CallCell(class, key string, req []byte, done func([]byte, error))
}

// Decoder is what Decode is given about the configuration being read.
type Decoder struct {
	Path   string // the configuration file
	Dir    string // paths in the configuration are relative to it
	Worker string // the worker's name (the "name" key)
	// CompatibilityDate and CompatibilityFlags are the worker's.
	CompatibilityDate  string
	CompatibilityFlags []string
	// Warn adds a warning shown when the configuration loads.
	Warn func(msg string)
}

// List decodes raw, a JSON list of objects, strictly into out (a pointer
// to a slice of structs): an unknown field is an error naming the key.
func (d *Decoder) List(key string, raw json.RawMessage, out any) error {
	return d.Object(key, raw, out)
}

// Object decodes raw strictly into out.
func (d *Decoder) Object(key string, raw json.RawMessage, out any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%q: %w", key, err)
	}
	return nil
}

var (
	mu       sync.RWMutex
	registry = map[string]*Plugin{} // by Key; guarded by mu
)

// Register adds p. It panics on a duplicate or malformed plugin, as
// plugins.RegisterStore does: both are programming errors of a binary's
// imports. Call it from init().
func Register(p *Plugin) {
	if p == nil || p.Key == "" || p.Kind == "" || p.Decode == nil {
		panic("binding: Register needs a Key, a Kind and a Decode")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[p.Key]; dup {
		panic("binding: the key " + p.Key + " is registered twice")
	}
	names := map[string]bool{}
	for _, q := range registry {
		for _, c := range q.Classes {
			names[c.Name] = true
		}
	}
	for _, c := range p.Classes {
		if names[c.Name] || c.Serve == nil {
			panic("binding: class " + c.Name + " of " + p.Key + " is registered twice or has no Serve")
		}
	}
	registry[p.Key] = p
}

// Lookup returns the plugin of a configuration key, or nil.
func Lookup(key string) *Plugin {
	mu.RLock()
	defer mu.RUnlock()
	return registry[key]
}

// All returns the registered plugins in the order of their keys.
func All() []*Plugin {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Plugin, 0, len(registry))
	for _, p := range registry {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Keys returns the registered configuration keys, sorted.
func Keys() []string {
	var out []string
	for _, p := range All() {
		out = append(out, p.Key)
	}
	return out
}

// Classes returns the internal cell classes of every registered plugin.
func Classes() []Class {
	var out []Class
	for _, p := range All() {
		out = append(out, p.Classes...)
	}
	return out
}

// Use is one plugin's entries in a configuration.
type Use struct {
	Plugin  *Plugin
	Entries []Entry
}

// Prepare runs Prepare of every use and returns one Bind for them all
// (nil when nothing binds).
func Prepare(r *Resources, uses []Use) (Bind, error) {
	var binds []Bind
	for _, u := range uses {
		if u.Plugin.Prepare == nil || len(u.Entries) == 0 {
			continue
		}
		b, err := u.Plugin.Prepare(r, u.Entries)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", u.Plugin.Key, err)
		}
		if b != nil {
			binds = append(binds, b)
		}
	}
	if len(binds) == 0 {
		return nil, nil
	}
	return func(rt *goja.Runtime, env *goja.Object, cells CellCaller) error {
		for _, b := range binds {
			if err := b(rt, env, cells); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

// Resources are what plugins share across the host configurations of one
// process (reloads, deployments): the bucket and values opened once.
type Resources struct {
	// StateDir is the host's state directory.
	StateDir string
	// OpenBucket opens the bucket used when Bucket is nil (a local dev
	// without one); it is closed by Close.
	OpenBucket func() (plugins.ObjectStore, error)

	mu      sync.Mutex
	bucket  plugins.ObjectStore
	own     bool
	shared  map[string]io.Closer
	closers []string // shared keys in opening order
}

// NewResources returns Resources over bucket (nil: opened on first use by
// OpenBucket).
func NewResources(stateDir string, bucket plugins.ObjectStore, open func() (plugins.ObjectStore, error)) *Resources {
	return &Resources{StateDir: stateDir, bucket: bucket, OpenBucket: open}
}

// Bucket returns the host's bucket: where plugins keep what a fleet
// shares (KV namespaces, R2 objects).
func (r *Resources) Bucket() (plugins.ObjectStore, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bucketLocked()
}

func (r *Resources) bucketLocked() (plugins.ObjectStore, error) {
	if r.bucket == nil {
		if r.OpenBucket == nil {
			return nil, errors.New("no bucket")
		}
		st, err := r.OpenBucket()
		if err != nil {
			return nil, err
		}
		r.bucket, r.own = st, true
	}
	return r.bucket, nil
}

// Shared returns the value kept under key, opening it with open the first
// time (with the bucket); Close closes it.
func (r *Resources) Shared(key string, open func(bucket plugins.ObjectStore) (io.Closer, error)) (io.Closer, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if v, ok := r.shared[key]; ok {
		return v, nil
	}
	st, err := r.bucketLocked()
	if err != nil {
		return nil, err
	}
	v, err := open(st)
	if err != nil {
		return nil, err
	}
	if r.shared == nil {
		r.shared = map[string]io.Closer{}
	}
	r.shared[key] = v
	r.closers = append(r.closers, key)
	return v, nil
}

// Close closes the shared values and the bucket it opened.
func (r *Resources) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := len(r.closers) - 1; i >= 0; i-- {
		_ = r.shared[r.closers[i]].Close()
	}
	r.shared, r.closers = nil, nil
	if r.own {
		_ = r.bucket.Close()
		r.bucket, r.own = nil, false
	}
}
