package storage_test

import (
	"reflect"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

// Hibernated WebSockets survive a commit and a reopen, deleteAll() keeps
// them, and the application's SQL cannot reach their table.
func TestDB_WebSockets(t *testing.T) {
	path := t.TempDir() + "/db.sqlite"
	db, err := storage.Open(path, storage.Options{Scope: "Room:ab"})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok, err := db.GetWebSocket("a"); ok || err != nil {
		t.Fatalf("GetWebSocket on a new database = %v, %v", ok, err)
	}
	if err := db.DeleteWebSocket("a"); err != nil {
		t.Fatal(err)
	}
	if err := db.PutWebSocket("a", []string{"room", "x"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.PutWebSocket("b", nil, []byte{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutWebSocket("a", []string{"room"}, []byte{9}); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteAll(); err != nil {
		t.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("SELECT * FROM _cf_cellhost_websockets"); err == nil {
		t.Error("the application's SQL read _cf_cellhost_websockets")
	}
	_ = db.Rollback()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = storage.Open(path, storage.Options{Scope: "Room:ab"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tags, att, ok, err := db.GetWebSocket("a")
	if err != nil || !ok || !reflect.DeepEqual(tags, []string{"room"}) || !reflect.DeepEqual(att, []byte{9}) {
		t.Fatalf("GetWebSocket(a) = %v %v %v %v", tags, att, ok, err)
	}
	tags, att, ok, err = db.GetWebSocket("b")
	if err != nil || !ok || len(tags) != 0 || !reflect.DeepEqual(att, []byte{1, 2}) {
		t.Fatalf("GetWebSocket(b) = %v %v %v %v", tags, att, ok, err)
	}
	if err := db.DeleteWebSocket("a"); err != nil {
		t.Fatal(err)
	}
	if _, _, ok, _ := db.GetWebSocket("a"); ok {
		t.Error("a is still stored after DeleteWebSocket")
	}
}
