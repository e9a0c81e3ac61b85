package testjs

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/wrangler"
)

// casesDir holds the recorded workerd cases (../shared beside the repo).
var casesDir = filepath.Join("..", "..", "shared", "conformance", "cases")

// skipped lists the cases cellhost does not pass yet, each with the reason.
// It shrinks as features land; an expected.json is never edited.
var skipped = map[string]string{}

// syncBuffer is a log sink shared by the host's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startHost serves a copy of the case directory from a fresh state on a free
// loopback port, as `cellhost dev` would, and returns its base URL.
func startHost(t *testing.T, caseDir string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(caseDir)); err != nil {
		t.Fatalf("copy case: %v", err)
	}
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		t.Fatalf("load case: %v", err)
	}
	hc, err := cfg.HostConfig()
	if err != nil {
		t.Fatalf("load case: %v", err)
	}
	log := &syncBuffer{}
	hc.StateDir = filepath.Join(dir, ".cellhost")
	hc.Log = log
	hc.Shards = 2
	h, err := host.New(hc)
	if err != nil {
		t.Fatalf("new host: %v", err)
	}
	if err := h.Open(); err != nil {
		t.Fatalf("open host: %v", err)
	}
	srv := httptest.NewServer(h.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := h.Close(context.Background()); err != nil {
			t.Errorf("close host: %v", err)
		}
		if t.Failed() {
			t.Logf("host log:\n%s", log.String())
		}
	})
	return srv.URL
}

func caseNames(t *testing.T) []string {
	entries, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatalf("read cases (../shared must be beside the repository): %v", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// TestConformance replays every recorded workerd case against a real Host
// and compares the transcripts.
func TestConformance(t *testing.T) {
	names := caseNames(t)
	for name := range skipped {
		if !contains(names, name) {
			t.Errorf("skip list names case %q, which does not exist", name)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			if reason, ok := skipped[name]; ok && os.Getenv("CELLHOST_CONFORMANCE_ALL") == "" {
				t.Skip(reason)
			}
			c, err := LoadCase(filepath.Join(casesDir, name))
			if err != nil {
				t.Fatal(err)
			}
			base := startHost(t, c.Dir)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			got, err := Replay(ctx, base, c)
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if diffs := Compare(c.Expected, got); len(diffs) > 0 {
				t.Errorf("%d differences from workerd's transcript:\n%s", len(diffs), strings.Join(diffs, "\n"))
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
