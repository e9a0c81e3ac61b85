package main

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/ownership"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// ignoresIfNoneMatch is a store that applies creates it must reject,
// registered for "faultydiag://" URLs.
type ignoresIfNoneMatch struct{ *memstore.Store }

func (s ignoresIfNoneMatch) Put(ctx context.Context, key string, body []byte, opts plugins.PutOptions) (string, error) {
	opts.IfNoneMatch = false
	return s.Store.Put(ctx, key, body, opts)
}

func init() {
	plugins.RegisterStore("faultydiag", func(context.Context, *url.URL) (plugins.ObjectStore, error) {
		return ignoresIfNoneMatch{memstore.New()}, nil
	})
}

func diagRecord(node string, expires time.Time, addr string) []byte {
	return ownership.NodeRecord{
		Node:                     node,
		ExpiresMS:                uint64(expires.UnixMilli()),
		Addr:                     addr,
		ProbePublicKey:           strings.Repeat("0", 64),
		PeerProtocol:             2,
		OwnershipIndexGeneration: strings.Repeat("ab", 32),
		Load:                     ownership.UnattractiveLoad(),
	}.Encode()
}

func TestRun_Diagnose(t *testing.T) {
	const (
		live = "node_11111111111111111111111111111111"
		dead = "node_22222222222222222222222222222222"
	)
	ctx := context.Background()
	s := memstore.Open("diagnose-test")
	now := time.Now()
	for key, body := range map[string][]byte{
		bucketkey.NodeKey(live): diagRecord(live, now.Add(time.Minute), "10.0.0.2:8081"),
		bucketkey.NodeKey(dead): diagRecord(dead, now.Add(-time.Hour), "10.0.0.3:8081"),
		"nodes/garbage.json":    []byte("{"),
	} {
		if _, err := s.Put(ctx, key, body, plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diagnose", "--bucket", "mem://diagnose-test"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d, stderr %s, stdout %s", code, &stderr, &stdout)
	}
	out := stdout.String()
	for _, want := range []string{
		"bucket mem://diagnose-test\n",
		"  ✓ create (If-None-Match: *): want applied, got applied\n",
		"  ✓ create again (If-None-Match: *): want rejected (412), got rejected (412)\n",
		"  ✓ update (If-Match: current etag): want applied, got applied\n",
		"  ✓ update (If-Match: old etag): want rejected (412), got rejected (412)\n",
		"  ✓ delete: want applied, got applied\n",
		"nodes/: 1 live, 1 dead, 1 undecodable\n",
		"  live " + live + " addr 10.0.0.2:8081 generation abababababab… expires in ",
		"  dead " + dead + " (expired 1h0m0s ago)\n",
		"  ? decode nodes/garbage.json: unexpected end of JSON\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if stderr.Len() != 0 {
		t.Errorf("stderr = %s", &stderr)
	}
}

func TestRun_DiagnoseFaultyStore(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"diagnose", "--bucket", "faultydiag://x"}, &stdout, &stderr); code == 0 {
		t.Fatalf("exit 0 on a faulty store:\n%s", &stdout)
	}
	if !strings.Contains(stdout.String(), "  ✗ create again (If-None-Match: *): want rejected (412), got applied\n") {
		t.Errorf("stdout:\n%s", &stdout)
	}
	errLine := stderr.String()
	if strings.Count(errLine, "\n") != 1 || !strings.HasPrefix(errLine, "cellhost: bucket faultydiag://x is refused: the object store is at fault") {
		t.Errorf("stderr = %q, want one line naming the store as the fault", errLine)
	}
}

func TestRun_DiagnoseBadInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo")
	defer func() {
		if _, err := os.Stat(missing); err == nil {
			t.Error("diagnose created the missing bucket directory")
		}
	}()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"NoBucket", []string{"diagnose"}, `required flag(s) "bucket" not set`},
		{"UnknownScheme", []string{"diagnose", "--bucket", "nope://x"}, `unknown bucket scheme "nope"`},
		{"MissingDir", []string{"diagnose", "--bucket", "file://" + missing}, "no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code == 0 {
				t.Fatal("exit 0")
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want %q", &stderr, tt.want)
			}
		})
	}
}
