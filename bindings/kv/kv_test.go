package kv_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cellhost/cellhost/bindings/kv"
	"github.com/cellhost/cellhost/plugins/filestore"
)

func TestNamespace_PutGetExpire(t *testing.T) {
	eachBackend(t, func(t *testing.T, n *kv.Namespace) {
		now := time.Unix(1_000_000, 0)
		n.Now = func() time.Time { return now }
		if err := n.Put("a", kv.Entry{Value: []byte("1"), Expiration: now.Unix() + 60, Metadata: `{"m":1}`}); err != nil {
			t.Fatal(err)
		}
		e, ok, err := n.Get("a")
		if err != nil || !ok || string(e.Value) != "1" || e.Metadata != `{"m":1}` || e.Expiration != now.Unix()+60 {
			t.Fatalf("Get = %+v, %v, %v", e, ok, err)
		}
		now = now.Add(60 * time.Second)
		if _, ok, _ := n.Get("a"); ok {
			t.Error("Get found a key at its expiration time")
		}
		if keys, _, _ := n.List("", "", 10); len(keys) != 0 {
			t.Errorf("List shows expired keys: %v", keys)
		}
		if err := n.Put("a", kv.Entry{Value: []byte("2")}); err != nil {
			t.Fatal(err)
		}
		if e, ok, _ := n.Get("a"); !ok || string(e.Value) != "2" || e.Expiration != 0 || e.Metadata != "" {
			t.Errorf("overwrite: %+v %v, want value 2 without expiration or metadata", e, ok)
		}
		if err := n.Delete("a"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := n.Get("a"); ok {
			t.Error("Get after Delete found the key")
		}
	})
}

func TestNamespace_ListPages(t *testing.T) {
	eachBackend(t, func(t *testing.T, n *kv.Namespace) {
		for i := 0; i < 25; i++ {
			if err := n.Put(fmt.Sprintf("p/%02d", i), kv.Entry{Value: []byte("x")}); err != nil {
				t.Fatal(err)
			}
		}
		_ = n.Put("q", kv.Entry{Value: []byte("y")})
		var got []string
		cursor, pages := "", 0
		for {
			keys, next, err := n.List("p/", cursor, 10)
			if err != nil {
				t.Fatal(err)
			}
			pages++
			for _, k := range keys {
				got = append(got, k.Name)
			}
			if next == "" {
				break
			}
			cursor = next
		}
		if len(got) != 25 || got[0] != "p/00" || got[24] != "p/24" || pages != 3 {
			t.Errorf("listed %d keys in %d pages (%v), want 25 in 3", len(got), pages, got)
		}
	})
}

// eachBackend runs f on a namespace in SQLite and on one in a bucket.
func eachBackend(t *testing.T, f func(t *testing.T, n *kv.Namespace)) {
	t.Run("sqlite", func(t *testing.T) {
		n, err := kv.Open(filepath.Join(t.TempDir(), "ns.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		defer n.Close()
		f(t, n)
	})
	t.Run("bucket", func(t *testing.T) {
		store, err := filestore.New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		n, err := kv.OpenStore(store, "ns", "")
		if err != nil {
			t.Fatal(err)
		}
		f(t, n)
	})
}

// A namespace moves from its SQLite file into the bucket once, keeping
// what the bucket already has.
func TestOpenStore_MovesLegacyFile(t *testing.T) {
	legacy := filepath.Join(t.TempDir(), "ns.sqlite")
	old, err := kv.Open(legacy)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"a": "1", "b/c": "2", "keep": "old"} {
		if err := old.Put(k, kv.Entry{Value: []byte(v), Metadata: `{"k":"` + k + `"}`}); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()
	store, err := filestore.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	pre, err := kv.OpenStore(store, "ns", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := pre.Put("keep", kv.Entry{Value: []byte("new")}); err != nil {
		t.Fatal(err)
	}
	n, err := kv.OpenStore(store, "ns", legacy)
	if err != nil {
		t.Fatal(err)
	}
	keys, _, err := n.List("", "", 10)
	if err != nil || fmt.Sprint(keys) != `[{a 0 {"k":"a"}} {b/c 0 {"k":"b/c"}} {keep 0 }]` {
		t.Errorf("List = %v, %v", keys, err)
	}
	if e, _, _ := n.Get("keep"); string(e.Value) != "new" {
		t.Errorf("keep = %q, want the bucket's value", e.Value)
	}
	if _, err := os.Stat(legacy + ".moved"); err != nil {
		t.Errorf("the legacy file was not renamed: %v", err)
	}
}

func FuzzDecodeEntry(f *testing.F) {
	good, _ := kv.EncodeEntry(kv.Entry{Value: []byte("v"), Expiration: 5, Metadata: `{"m":1}`})
	f.Add(good)
	f.Add([]byte("CHKV\x01\x00\x00\x00\x02{}"))
	f.Add([]byte("junk"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := kv.DecodeEntry(b)
		if err != nil {
			if !errors.Is(err, kv.ErrFormat) {
				t.Fatalf("error %v does not wrap ErrFormat", err)
			}
			return
		}
		again, err := kv.EncodeEntry(e)
		if err != nil {
			t.Fatal(err)
		}
		e2, err := kv.DecodeEntry(again)
		if err != nil || string(e2.Value) != string(e.Value) || e2.Expiration != e.Expiration || e2.Metadata != e.Metadata {
			t.Fatalf("round trip: %+v %v", e2, err)
		}
	})
}
