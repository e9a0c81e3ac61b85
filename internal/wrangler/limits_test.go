package wrangler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/wrangler"
)

func loadConfig(t *testing.T, body string) (*wrangler.Config, error) {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "wrangler.jsonc")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return wrangler.Load(p)
}

// TestLoad_LimitsCPUMs: limits.cpu_ms becomes the host's CPU limit, as on
// Cloudflare (1 ms to 5 minutes); subrequests is accepted.
func TestLoad_LimitsCPUMs(t *testing.T) {
	cfg, err := loadConfig(t, `{"name": "w", "main": "i.js", "limits": {"cpu_ms": 50, "subrequests": 10}}`)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.CPULimit != 50*time.Millisecond {
		t.Fatalf("CPULimit = %v, want 50ms", cfg.CPULimit)
	}
	cfg, err = loadConfig(t, `{"name": "w", "main": "i.js"}`)
	if err != nil || cfg.CPULimit != 0 {
		t.Fatalf("without limits: %v, %v; want 0 (the host default)", cfg.CPULimit, err)
	}
	for _, bad := range []string{`{"cpu_ms": 0}`, `{"cpu_ms": 300001}`, `{"cpu_ms": "50"}`, `{"memory_mb": 1}`} {
		_, err := loadConfig(t, `{"name": "w", "main": "i.js", "limits": `+bad+`}`)
		if err == nil || !strings.Contains(err.Error(), "limits") && !strings.Contains(err.Error(), "memory_mb") {
			t.Errorf("limits %s: err = %v, want an error naming it", bad, err)
		}
	}
}
