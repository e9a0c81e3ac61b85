package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cellhost/cellhost/internal/bucketkey"
	"github.com/cellhost/cellhost/plugins"
	"github.com/cellhost/cellhost/plugins/memstore"
)

// TestBucketCopy moves a bucket from memory to a file:// directory and back:
// every object arrives byte for byte; probe keys stay behind; a key that
// exists in the destination is an error without --overwrite; a bucket with
// a live node is refused.
func TestBucketCopy(t *testing.T) {
	ctx := context.Background()
	src := memstore.Open("copy-src")
	now := time.Now()
	objects := map[string][]byte{
		bucketkey.NodeKey("node-1234"):                 diagRecord("node-1234", now.Add(-time.Hour), "a:1"),
		bucketkey.OwnKey("C:1"):                        []byte(`{"node":"","epoch":3}`),
		bucketkey.LTXKey("C:1", 3, 0, 1, 1):            {0, 1, 2, 255},
		bucketkey.MarkerKey("node-1234", "g", "C:1"):   nil,
		bucketkey.WakeEntryKey(now.UnixMilli(), "C:1"): []byte(`{"cell":"C:1","due_ms":1,"epoch":3}`),
		bucketkey.R2Key("photos", "a/b.jpg"):           []byte("jpeg"),
	}
	for k, v := range objects {
		if _, err := src.Put(ctx, k, v, plugins.PutOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := src.Put(ctx, bucketkey.ProbeKey("x"), []byte("p"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := "file://" + filepath.Join(t.TempDir(), "b")
	var out bytes.Buffer
	if code := run([]string{"bucket", "copy", "mem://copy-src", dir}, &out, &out); code != 0 {
		t.Fatalf("copy to file: exit %d: %s", code, &out)
	}
	if !strings.Contains(out.String(), "copied 6 objects") {
		t.Errorf("output %q", &out)
	}
	if _, err := copyBucket(ctx, dir, "mem://copy-back", false, now); err != nil {
		t.Fatal(err)
	}
	back := memstore.Open("copy-back")
	for k, v := range objects {
		got, _, err := back.Get(ctx, k)
		if err != nil || !bytes.Equal(got, v) {
			t.Errorf("%s after the round trip: %q, %v; want %q", k, got, err, v)
		}
	}
	if _, _, err := back.Get(ctx, bucketkey.ProbeKey("x")); err == nil {
		t.Error("a probe key was copied")
	}
	if _, err := copyBucket(ctx, dir, "mem://copy-back", false, now); err == nil || !strings.Contains(err.Error(), "--overwrite") {
		t.Errorf("copy onto existing keys = %v, want an error naming --overwrite", err)
	}
	if _, err := copyBucket(ctx, dir, "mem://copy-back", true, now); err != nil {
		t.Errorf("copy --overwrite: %v", err)
	}
	if _, err := src.Put(ctx, bucketkey.NodeKey("node-live"), diagRecord("node-live", now.Add(time.Minute), "a:1"), plugins.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := copyBucket(ctx, "mem://copy-src", "mem://copy-3", false, now); err == nil || !strings.Contains(err.Error(), "node-live") {
		t.Errorf("copy of a bucket with a live node = %v, want a refusal naming it", err)
	}
}
