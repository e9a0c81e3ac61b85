package ownership_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/filestore"
	"github.com/cellhost/cellhost/plugins/memstore"
)

func TestProbe(t *testing.T) {
	ctx := context.Background()
	fs, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	for name, s := range map[string]ownership.Store{"mem": memstore.New(), "file": fs} {
		t.Run(name, func(t *testing.T) {
			steps, err := ownership.Probe(ctx, s)
			if err != nil {
				t.Fatalf("Probe = %v", err)
			}
			want := []ownership.ProbeStep{
				{"create (If-None-Match: *)", "applied", "applied", true},
				{"create again (If-None-Match: *)", "rejected (412)", "rejected (412)", true},
				{"update (If-Match: current etag)", "applied", "applied", true},
				{"update (If-Match: old etag)", "rejected (412)", "rejected (412)", true},
				{"delete", "applied", "applied", true},
			}
			if len(steps) != len(want) {
				t.Fatalf("steps = %+v", steps)
			}
			for i := range want {
				if steps[i] != want[i] {
					t.Errorf("step %d = %+v, want %+v", i, steps[i], want[i])
				}
			}
			if keys := listKeys(t, s, ""); len(keys) != 0 {
				t.Errorf("probe left %v", keys)
			}
		})
	}
}

func TestProbe_Faults(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		put      func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error)
		failStep int    // index of the failing step
		fault    bool   // a *StoreFaultError
		want     string // in the error
	}{
		{"IgnoresIfNoneMatch", func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
			return func(ctx context.Context, k string, b []byte, o plugins.PutOptions) (string, error) {
				o.IfNoneMatch = false
				return m.mem.Put(ctx, k, b, o)
			}
		}, 1, true, "the object store is at fault: it applied a conditional write it must reject (create again (If-None-Match: *) on probe/cas-"},
		{"IgnoresIfMatch", func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
			return func(ctx context.Context, k string, b []byte, o plugins.PutOptions) (string, error) {
				o.IfMatch = ""
				return m.mem.Put(ctx, k, b, o)
			}
		}, 3, true, "the object store is at fault: it applied a conditional write it must reject (update (If-Match: old etag)"},
		{"ConstantETag", func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
			return func(ctx context.Context, k string, b []byte, o plugins.PutOptions) (string, error) {
				if o.IfMatch != "" {
					o.IfMatch = "e"
				}
				if _, err := m.mem.Put(ctx, k, b, plugins.PutOptions{IfNoneMatch: o.IfNoneMatch}); err != nil {
					return "", err
				}
				return "e", nil
			}
		}, 2, true, "the object store is at fault"},
		{"RejectsCreate", func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
			return func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
				return "", plugins.ErrPreconditionFailed
			}
		}, 0, false, "the store rejected a write it must apply"},
		{"NetworkError", func(m *mockStore) func(context.Context, string, []byte, plugins.PutOptions) (string, error) {
			n := 0
			return func(ctx context.Context, k string, b []byte, o plugins.PutOptions) (string, error) {
				if n++; n == 3 {
					return "", errNetwork
				}
				return m.mem.Put(ctx, k, b, o)
			}
		}, 2, false, "update (If-Match: current etag) on probe/cas-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newMockStore()
			m.PutFunc = tt.put(m)
			steps, err := ownership.Probe(ctx, m)
			var fault *ownership.StoreFaultError
			if err == nil || errors.As(err, &fault) != tt.fault || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Probe = %v, want an error containing %q (fault %v)", err, tt.want, tt.fault)
			}
			if len(steps) != tt.failStep+2 {
				t.Fatalf("steps = %+v, want %d and the delete", steps, tt.failStep+1)
			}
			for i, st := range steps[:tt.failStep] {
				if !st.OK {
					t.Errorf("step %d failed: %+v", i, st)
				}
			}
			if steps[tt.failStep].OK {
				t.Errorf("step %d = %+v, want a failure", tt.failStep, steps[tt.failStep])
			}
			if last := steps[len(steps)-1]; last.Name != "delete" || !last.OK {
				t.Errorf("last step = %+v, want the delete", last)
			}
			if keys := listKeys(t, m.mem, ""); len(keys) != 0 {
				t.Errorf("probe left %v", keys)
			}
		})
	}
}

func TestProbe_DeleteRetried(t *testing.T) {
	// A failed unconditional delete is retried (it is idempotent).
	m := newMockStore()
	fails := 0
	m.DeleteFunc = func(ctx context.Context, key, ifMatch string) error {
		if fails++; fails == 1 {
			return errNetwork
		}
		return m.mem.Delete(ctx, key, ifMatch)
	}
	if _, err := ownership.Probe(context.Background(), m); err != nil {
		t.Fatalf("Probe = %v", err)
	}
	if keys := listKeys(t, m.mem, ""); len(keys) != 0 {
		t.Errorf("probe left %v", keys)
	}
	m.DeleteFunc = func(context.Context, string, string) error { return errNetwork }
	if _, err := ownership.Probe(context.Background(), m); !errors.Is(err, errNetwork) {
		t.Errorf("Probe with a failing delete = %v, want the delete error", err)
	}
}
