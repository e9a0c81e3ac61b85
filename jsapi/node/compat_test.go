package node

import (
	"reflect"
	"testing"
)

// TestCompatFor: what workerd's compatibility dates and flags enable.
func TestCompatFor(t *testing.T) {
	for _, c := range []struct {
		date  string
		flags []string
		want  Compat
	}{
		{"2026-01-01", nil, Compat{}},
		{"2026-01-01", []string{"nodejs_als"}, Compat{ALS: true}},
		{"2024-09-22", []string{"nodejs_compat"}, Compat{Modules: true, ALS: true}},
		{"2024-09-23", []string{"nodejs_compat"}, Compat{Modules: true, V2: true, ALS: true}},
		{"2025-04-01", []string{"nodejs_compat"}, Compat{Modules: true, V2: true, ALS: true, PopulateEnv: true}},
		{"2026-01-01", []string{"nodejs_compat", "no_nodejs_compat_v2"}, Compat{Modules: true, ALS: true, PopulateEnv: true}},
		{"2026-01-01", []string{"nodejs_compat", "nodejs_compat_do_not_populate_process_env"}, Compat{Modules: true, V2: true, ALS: true}},
		{"2024-01-01", []string{"nodejs_compat_v2"}, Compat{Modules: true, V2: true, ALS: true}},
		{"2024-01-01", []string{"nodejs_compat", "nodejs_compat_populate_process_env"}, Compat{Modules: true, ALS: true, PopulateEnv: true}},
		{"2024-01-01", []string{"nodejs_compat", "enable_nodejs_child_process_module"}, Compat{Modules: true, ALS: true, Flagged: map[string]bool{"child_process": true}}},
		{"2024-01-01", []string{"enable_nodejs_child_process_module"}, Compat{}},
	} {
		if got := CompatFor(c.date, c.flags); !reflect.DeepEqual(got, c.want) {
			t.Errorf("CompatFor(%s, %v) = %+v, want %+v", c.date, c.flags, got, c.want)
		}
	}
	als := Compat{ALS: true}
	if !als.Enabled("async_hooks") || als.Enabled("buffer") {
		t.Error("nodejs_als enables node:async_hooks only")
	}
	if (Compat{Modules: true}).Enabled("child_process") || !NodeName("child_process") || NodeName("hono") {
		t.Error("child_process is Node's but not cellhost's; hono is neither")
	}
}
