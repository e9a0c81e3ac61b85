package kv_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cellhost/cellhost/plugins/kv"
)

func TestNamespace_PutGetExpire(t *testing.T) {
	n, err := kv.Open(filepath.Join(t.TempDir(), "ns.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
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
}

func TestNamespace_ListPages(t *testing.T) {
	n, err := kv.Open(filepath.Join(t.TempDir(), "ns.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
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
}
