package plugins_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cellhost/cellhost/plugins"
	_ "github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// fake records its lifecycle calls and fails where told.
type fake struct {
	Name  string `json:"name"`
	Count int    `json:"count"`

	failProvision, failValidate bool
	calls                       *[]string
}

func (f *fake) Provision(context.Context) error {
	*f.calls = append(*f.calls, "Provision")
	if f.failProvision {
		return errors.New("boom")
	}
	return nil
}

func (f *fake) Validate() error {
	*f.calls = append(*f.calls, "Validate")
	if f.failValidate {
		return errors.New("bad")
	}
	return nil
}

func (f *fake) Cleanup() error {
	*f.calls = append(*f.calls, "Cleanup")
	return nil
}

// registerFake registers a plugin making copies of proto under a fresh id
// ending in name, and returns the id and the log of lifecycle calls.
func registerFake(t *testing.T, name string, proto fake) (string, *[]string) {
	t.Helper()
	id := ns() + "." + name
	calls := new([]string)
	plugins.Register(plugins.Plugin{ID: id, New: func() any {
		f := proto
		f.calls = calls
		return &f
	}})
	return id, calls
}

var runs atomic.Int64

// ns returns an id namespace unique to this test run, so that the tests
// can run again in one process (-count) without duplicate registrations.
func ns() string { return fmt.Sprintf("test%d", runs.Add(1)) }

func wantPanic(t *testing.T, name string, fn func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	fn()
}

func TestRegister(t *testing.T) {
	newNil := func() any { return nil }
	id := ns() + ".register.ok_1"
	plugins.Register(plugins.Plugin{ID: id, New: newNil})
	if _, ok := plugins.Lookup(id); !ok {
		t.Errorf("Lookup(%s) = false after Register", id)
	}
	wantPanic(t, "duplicate Register", func() {
		plugins.Register(plugins.Plugin{ID: id, New: newNil})
	})
	for _, id := range []string{"", "nodots", "Upper.case", "a..b", ".a.b", "a.b.", "a.b-c", "a.b c"} {
		wantPanic(t, fmt.Sprintf("Register(%q)", id), func() {
			plugins.Register(plugins.Plugin{ID: id, New: newNil})
		})
	}
	wantPanic(t, "Register with nil New", func() {
		plugins.Register(plugins.Plugin{ID: ns() + ".register.nil_new"})
	})
}

func TestList(t *testing.T) {
	newNil := func() any { return nil }
	n := ns()
	for _, id := range []string{"test.list.a", "test.list.b.c", "test.listx.d"} {
		plugins.Register(plugins.Plugin{ID: strings.Replace(id, "test", n, 1), New: newNil})
	}
	tests := []struct {
		prefix string
		want   string
	}{
		{"test.list", "test.list.a test.list.b.c"},
		{"test.list.", "test.list.a test.list.b.c"},
		{"test.list.b", "test.list.b.c"},
		{"test.list.a", "test.list.a"},
		{"test.nothing", ""},
		{"cellhost.store", "cellhost.store.file cellhost.store.mem"},
	}
	for _, tt := range tests {
		tt.prefix = strings.Replace(tt.prefix, "test", n, 1)
		tt.want = strings.ReplaceAll(tt.want, "test", n)
		var ids []string
		for _, p := range plugins.List(tt.prefix) {
			ids = append(ids, p.ID)
		}
		if got := strings.Join(ids, " "); got != tt.want {
			t.Errorf("List(%q) = %q, want %q", tt.prefix, got, tt.want)
		}
	}
	if got := len(plugins.List("")); got < 5 {
		t.Errorf("len(List(\"\")) = %d, want at least 5", got)
	}
}

func TestLoad(t *testing.T) {
	ctx := context.Background()

	t.Run("Decode", func(t *testing.T) {
		id, calls := registerFake(t, "decode", fake{Count: 7})
		inst, err := plugins.Load(ctx, id, []byte(`{"name":"x"}`))
		if err != nil {
			t.Fatalf("Load() = %v", err)
		}
		f := inst.(*fake)
		if f.Name != "x" || f.Count != 7 {
			t.Errorf("Load() config = {%q %d}, want {\"x\" 7}", f.Name, f.Count)
		}
		if got, want := strings.Join(*calls, ","), "Provision,Validate"; got != want {
			t.Errorf("lifecycle calls = %s, want %s", got, want)
		}
	})

	t.Run("EmptyConfig", func(t *testing.T) {
		id, _ := registerFake(t, "empty", fake{})
		for _, cfg := range []string{"", "null", "  "} {
			if _, err := plugins.Load(ctx, id, []byte(cfg)); err != nil {
				t.Errorf("Load(%q) = %v", cfg, err)
			}
		}
	})

	t.Run("UnknownField", func(t *testing.T) {
		id, calls := registerFake(t, "unknown_field", fake{})
		_, err := plugins.Load(ctx, id, []byte(`{"name":"x","colour":"red"}`))
		if err == nil || !strings.Contains(err.Error(), `"colour"`) {
			t.Errorf("Load() error = %v, want one naming the field \"colour\"", err)
		}
		if len(*calls) != 0 {
			t.Errorf("lifecycle calls = %v, want none after a failed decode", *calls)
		}
	})

	t.Run("TrailingData", func(t *testing.T) {
		id, _ := registerFake(t, "trailing", fake{})
		if _, err := plugins.Load(ctx, id, []byte(`{"name":"x"} {}`)); err == nil {
			t.Errorf("Load() with trailing data = nil, want an error")
		}
	})

	t.Run("ProvisionFails", func(t *testing.T) {
		id, calls := registerFake(t, "provision_fails", fake{failProvision: true})
		_, err := plugins.Load(ctx, id, nil)
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Errorf("Load() error = %v, want the Provision error", err)
		}
		if got, want := strings.Join(*calls, ","), "Provision,Cleanup"; got != want {
			t.Errorf("lifecycle calls = %s, want %s", got, want)
		}
	})

	t.Run("ValidateFails", func(t *testing.T) {
		id, calls := registerFake(t, "validate_fails", fake{failValidate: true})
		_, err := plugins.Load(ctx, id, nil)
		if err == nil || !strings.Contains(err.Error(), "bad") {
			t.Errorf("Load() error = %v, want the Validate error", err)
		}
		if got, want := strings.Join(*calls, ","), "Provision,Validate,Cleanup"; got != want {
			t.Errorf("lifecycle calls = %s, want %s", got, want)
		}
	})

	t.Run("ErrUnknownPlugin", func(t *testing.T) {
		if _, err := plugins.Load(ctx, "test.load.nobody", nil); !errors.Is(err, plugins.ErrUnknownPlugin) {
			t.Errorf("Load() error = %v, want ErrUnknownPlugin", err)
		}
	})

	t.Run("Store", func(t *testing.T) {
		inst, err := plugins.Load(ctx, "cellhost.store.mem", []byte(`{"url":"mem://`+t.Name()+`"}`))
		if err != nil {
			t.Fatalf("Load() = %v", err)
		}
		sp := inst.(*plugins.StorePlugin)
		if _, err := sp.Store().Put(ctx, "k", nil, plugins.PutOptions{}); err != nil {
			t.Errorf("Put() = %v", err)
		}
		if err := sp.Cleanup(); err != nil {
			t.Errorf("Cleanup() = %v", err)
		}
		_, err = plugins.Load(ctx, "cellhost.store.mem", []byte(`{"url":"file:///tmp/x"}`))
		if err == nil {
			t.Errorf("Load(cellhost.store.mem) with a file url = nil, want an error")
		}
	})
}

func TestRegisterStore(t *testing.T) {
	open := func(context.Context, *url.URL) (plugins.ObjectStore, error) { return memstore.New(), nil }
	wantPanic(t, "duplicate RegisterStore", func() { plugins.RegisterStore("mem", open) })
	for _, scheme := range []string{"", "S3", "3s", "a.b", "a-b"} {
		wantPanic(t, fmt.Sprintf("RegisterStore(%q)", scheme), func() { plugins.RegisterStore(scheme, open) })
	}
}

func TestOpenStore(t *testing.T) {
	ctx := context.Background()
	s, err := plugins.OpenStore(ctx, "mem://open-store-test")
	if err != nil {
		t.Fatalf("OpenStore(mem://...) = %v", err)
	}
	s.Close()

	tests := []struct {
		url, want string
	}{
		{"x://bucket/prefix", `unknown bucket scheme "x" in "x://bucket/prefix": known schemes are file, mem`},
		{"X://bucket", `unknown bucket scheme "x" in "x://bucket": known schemes are file, mem`},
		{"/just/a/path", `missing bucket scheme in "/just/a/path": known schemes are file, mem`},
		{"s3://key:secret@bucket", `unknown bucket scheme "s3" in "s3://key:xxxxx@bucket": known schemes are file, mem`},
	}
	for _, tt := range tests {
		_, err := plugins.OpenStore(ctx, tt.url)
		var use *plugins.UnknownSchemeError
		if !errors.As(err, &use) {
			t.Errorf("OpenStore(%q) error = %v, want an UnknownSchemeError", tt.url, err)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("OpenStore(%q) error = %q, want %q", tt.url, got, tt.want)
		}
	}
	if _, err := plugins.OpenStore(ctx, "file://"); err == nil {
		t.Errorf("OpenStore(file://) = nil, want an error")
	}
}

func TestCheckKey(t *testing.T) {
	for _, key := range []string{"a", "a/b", "cells/Counter:00ff/own.json", "node-cells/n/g/C:1", ".hidden/x", "a/...", "ünï/😀"} {
		if err := plugins.CheckKey(key); err != nil {
			t.Errorf("CheckKey(%q) = %v, want nil", key, err)
		}
	}
	for _, key := range []string{"", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "a\x00b", "\xff", strings.Repeat("k", plugins.MaxKeyLen+1)} {
		if err := plugins.CheckKey(key); !errors.Is(err, plugins.ErrInvalidKey) {
			t.Errorf("CheckKey(%.20q) = %v, want ErrInvalidKey", key, err)
		}
	}
}
