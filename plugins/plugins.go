// Package plugins is cellhost's plugin registry: plugins register a factory
// under a dotted id from init(), and are loaded by id with a strict config
// decode and the New → decode → Provision → Validate (→ Cleanup) lifecycle.
// It also defines ObjectStore, the bucket interface every store plugin
// implements, and opens stores by URL scheme.
//
// The package is a leaf: it imports nothing of the project.
package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Plugin is a registered plugin: an id and a factory.
type Plugin struct {
	// ID is the dotted lowercase id, e.g. "cellhost.store.file": two or
	// more non-empty segments of [a-z0-9_] separated by dots.
	ID string
	// New returns a new, empty instance: usually a pointer to a struct into
	// which Load decodes the JSON config. It must have no side effects; an
	// instance acquires resources in Provision and releases them in Cleanup.
	New func() any
}

// Provisioner is implemented by an instance that sets itself up after its
// config is decoded. Load calls Provision once, before Validate.
type Provisioner interface {
	Provision(ctx context.Context) error
}

// Validator is implemented by an instance that checks its provisioned
// state. Load calls Validate once, after Provision.
type Validator interface {
	Validate() error
}

// CleanerUpper is implemented by an instance that holds resources. Load
// calls Cleanup at once when Provision or Validate fails; otherwise the
// owner of a loaded instance calls it when done with it.
type CleanerUpper interface {
	Cleanup() error
}

// ErrUnknownPlugin is returned by Load for an id nobody registered.
var ErrUnknownPlugin = errors.New("unknown plugin")

var idPattern = regexp.MustCompile(`^[a-z0-9_]+(\.[a-z0-9_]+)+$`)

var (
	mu      sync.RWMutex
	plugins = map[string]Plugin{}
	stores  = map[string]StoreOpener{} // by URL scheme; guarded by mu
)

// Register adds p to the registry. It is meant to be called from init() and
// panics if the id is malformed or already registered, or New is nil.
func Register(p Plugin) {
	if !idPattern.MatchString(p.ID) {
		panic(fmt.Sprintf("plugins: register %q: malformed id (want dotted lowercase, e.g. cellhost.store.file)", p.ID))
	}
	if p.New == nil {
		panic(fmt.Sprintf("plugins: register %q: New is nil", p.ID))
	}
	mu.Lock()
	defer mu.Unlock()
	registerLocked(p)
}

func registerLocked(p Plugin) {
	if _, dup := plugins[p.ID]; dup {
		panic(fmt.Sprintf("plugins: register %q: already registered", p.ID))
	}
	plugins[p.ID] = p
}

// Lookup returns the plugin registered under id.
func Lookup(id string) (Plugin, bool) {
	mu.RLock()
	defer mu.RUnlock()
	p, ok := plugins[id]
	return p, ok
}

// List returns the plugins whose id is prefix or lies under it (prefix
// followed by a dot), sorted by id. A prefix ending in a dot matches the ids
// that start with it; an empty prefix lists every plugin.
func List(prefix string) []Plugin {
	mu.RLock()
	defer mu.RUnlock()
	var out []Plugin
	for id, p := range plugins {
		if prefix == "" || id == prefix || strings.HasPrefix(id, strings.TrimSuffix(prefix, ".")+".") {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Load creates an instance of the plugin registered under id: New, then a
// strict JSON decode of config into the instance (an unknown field is an
// error naming it; an empty or null config leaves the zero config), then
// Provision and Validate when the instance implements them. If Provision or
// Validate fails, Load calls Cleanup at once and returns the error.
//
// The caller owns the returned instance and calls Cleanup on it (when it is
// a CleanerUpper) once done.
func Load(ctx context.Context, id string, config []byte) (any, error) {
	p, ok := Lookup(id)
	if !ok {
		return nil, fmt.Errorf("load plugin %q: %w", id, ErrUnknownPlugin)
	}
	inst := p.New()
	if inst == nil {
		return nil, fmt.Errorf("load plugin %q: New returned nil", id)
	}
	if err := decodeStrict(config, inst); err != nil {
		return nil, fmt.Errorf("decode config of plugin %q: %w", id, err)
	}
	if pr, ok := inst.(Provisioner); ok {
		if err := pr.Provision(ctx); err != nil {
			return nil, errors.Join(fmt.Errorf("provision plugin %q: %w", id, err), cleanup(id, inst))
		}
	}
	if v, ok := inst.(Validator); ok {
		if err := v.Validate(); err != nil {
			return nil, errors.Join(fmt.Errorf("validate plugin %q: %w", id, err), cleanup(id, inst))
		}
	}
	return inst, nil
}

func decodeStrict(config []byte, into any) error {
	config = bytes.TrimSpace(config)
	if len(config) == 0 || string(config) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

func cleanup(id string, inst any) error {
	c, ok := inst.(CleanerUpper)
	if !ok {
		return nil
	}
	if err := c.Cleanup(); err != nil {
		return fmt.Errorf("clean up plugin %q: %w", id, err)
	}
	return nil
}
