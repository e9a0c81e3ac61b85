package storage

import (
	"context"
	"path/filepath"
	"testing"
)

// TestOpen_SynchronousByOption: FULL by default, NORMAL with DeferSync, OFF
// with NoSync (which wins over DeferSync).
func TestOpen_SynchronousByOption(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts Options
		want string
	}{
		{"default", Options{}, "2"},
		{"DeferSync", Options{DeferSync: true}, "1"},
		{"NoSync", Options{DeferSync: true, NoSync: true}, "0"},
	} {
		db, err := Open(filepath.Join(t.TempDir(), "cell.sqlite"), tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := db.conn.QueryRowContext(context.Background(), "PRAGMA synchronous").Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != tt.want {
			t.Errorf("%s: PRAGMA synchronous = %s, want %s", tt.name, got, tt.want)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
