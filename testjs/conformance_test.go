package testjs

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cellhost/cellhost/host"
	"github.com/cellhost/cellhost/internal/apptest"
	"github.com/cellhost/cellhost/internal/project"
	"github.com/cellhost/cellhost/internal/wrangler"
)

// casesDir is the repository's own corpus of cases recorded on workerd
// (copied from the team's shared corpus; see testdata/README.md).
var casesDir = filepath.Join("testdata", "cases")

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
	// A case may import modules from its corpus' _shared directory
	// (../_shared/...): copy it beside the case, as it sits in the corpus.
	if shared := filepath.Join(caseDir, "..", "_shared"); dirExists(shared) {
		if err := os.CopyFS(filepath.Join(dir, "_shared"), os.DirFS(shared)); err != nil {
			t.Fatalf("copy _shared: %v", err)
		}
		dir = filepath.Join(dir, filepath.Base(filepath.Clean(caseDir)))
	}
	if err := os.CopyFS(dir, os.DirFS(caseDir)); err != nil {
		t.Fatalf("copy case: %v", err)
	}
	return startHostIn(t, dir)
}

// startHostIn serves the worker in dir, in place, from a fresh state.
func startHostIn(t *testing.T, dir string) string {
	t.Helper()
	return startHostClock(t, dir, nil)
}

// testShards is the shard count of the hosts the corpus runs on: 2, so that
// an object and the worker's request often land on different runtimes, or
// $CELLHOST_TEST_SHARDS (e.g. 1, or 8 for objects spread over many).
func testShards(t *testing.T) int {
	v := os.Getenv("CELLHOST_TEST_SHARDS")
	if v == "" {
		return 2
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("CELLHOST_TEST_SHARDS=%q: want a positive number", v)
	}
	return n
}

// startHostClock is startHostIn with the host's clock (nil: the real one).
func startHostClock(t *testing.T, dir string, clock host.Clock) string {
	t.Helper()
	cfg, err := wrangler.Resolve(dir)
	if err != nil {
		t.Fatalf("load case: %v", err)
	}
	hc, err := project.HostConfig(cfg)
	if err != nil {
		t.Fatalf("load case: %v", err)
	}
	log := &syncBuffer{}
	hc.StateDir = filepath.Join(t.TempDir(), ".cellhost")
	hc.Log = log
	apptest.BindPlugins(t, cfg, &hc, t.TempDir())
	hc.Shards = testShards(t)
	hc.Clock = clock
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

func caseNames(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read cases: %v", err)
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

// TestConformance replays every case of the repository's corpus against a
// real Host and compares the transcripts with workerd's.
func TestConformance(t *testing.T) {
	t.Parallel() // beside TestPeer (see there)
	names := caseNames(t, casesDir)
	for name := range skipped {
		if !contains(names, name) {
			t.Errorf("skip list names case %q, which does not exist", name)
		}
	}
	runConformance(t, casesDir, names)
}

// TestConformance_shared replays the cases of the shared corpus (beside the
// repository, or $CELLHOST_CASES) that the repository's corpus does not hold
// byte for byte.
func TestConformance_shared(t *testing.T) {
	root := sharedCases(t)
	var names []string
	for _, name := range caseNames(t, root) {
		if !sameCase(filepath.Join(root, name), filepath.Join(casesDir, name)) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		t.Logf("the shared corpus at %s holds no case beyond testdata/cases", root)
	}
	runConformance(t, root, names)
}

// sameCase reports whether two case directories hold the same files.
func sameCase(a, b string) bool {
	fa, errA := os.ReadDir(a)
	fb, errB := os.ReadDir(b)
	if errA != nil || errB != nil || len(fa) != len(fb) {
		return false
	}
	for _, e := range fa {
		x, err1 := os.ReadFile(filepath.Join(a, e.Name()))
		y, err2 := os.ReadFile(filepath.Join(b, e.Name()))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

func runConformance(t *testing.T, casesDir string, names []string) {
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

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
