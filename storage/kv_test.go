package storage_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/cellhost/cellhost/storage"
)

func TestDB_Get(t *testing.T) {
	db := openDB(t, storage.Options{Scope: "s"})
	big := make([]byte, 1<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	values := map[string][]byte{
		"text":    []byte("hello"),
		"empty":   {},
		"invalid": {0xff, 0xfe, 0x00, 0xc3, 0x28, 0x00},
		"nul":     {0},
		"big":     big,
		"😀":       []byte("emoji key"),
		"a\x00b":  []byte("key with NUL"),
		"":        []byte("empty key"),
	}
	var keys []string
	var vals [][]byte
	for k, v := range values {
		keys = append(keys, k)
		vals = append(vals, v)
	}
	if err := db.Put(keys, vals); err != nil {
		t.Fatalf("Put: %v", err)
	}

	check := func(t *testing.T) {
		t.Helper()
		for k, want := range values {
			got := mustGet(t, db, k)
			if got == nil {
				t.Errorf("Get(%q) = nil, want %d bytes", k, len(want))
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Get(%q) = %d bytes %.20q, want %d bytes %.20q", k, len(got), got, len(want), want)
			}
		}
	}
	t.Run("InTransaction", check)
	mustCommit(t, db)
	t.Run("Committed", check)

	t.Run("Missing", func(t *testing.T) {
		got, err := db.Get([]string{"text", "nope", "empty", "a", "TEXT"})
		if err != nil {
			t.Fatal(err)
		}
		want := [][]byte{[]byte("hello"), nil, {}, nil, nil}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Get = %q, want %q", got, want)
		}
		if got[2] == nil {
			t.Errorf("empty value read back as nil, want non-nil empty slice")
		}
	})

	t.Run("NoKeys", func(t *testing.T) {
		got, err := db.Get(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 0 {
			t.Errorf("Get(nil) = %q, want empty", got)
		}
	})

	t.Run("ResultIsACopy", func(t *testing.T) {
		got := mustGet(t, db, "text")
		got[0] = 'J'
		if got := string(mustGet(t, db, "text")); got != "hello" {
			t.Errorf("after mutating a result, Get = %q, want hello", got)
		}
	})

	t.Run("Reopen", func(t *testing.T) {
		path := db.Path()
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		db, err := storage.Open(path, storage.Options{Scope: "s"})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for k, want := range values {
			if got := mustGet(t, db, k); !bytes.Equal(got, want) || got == nil {
				t.Errorf("after reopen, Get(%q) = %d bytes, want %d", k, len(got), len(want))
			}
		}
	})
}

func TestDB_Put(t *testing.T) {
	db := openDB(t, storage.Options{})

	t.Run("Overwrite", func(t *testing.T) {
		mustPut(t, db, "k", "one")
		mustPut(t, db, "k", "two")
		if got := string(mustGet(t, db, "k")); got != "two" {
			t.Errorf("Get = %q, want two", got)
		}
	})

	t.Run("Batch", func(t *testing.T) {
		mustPut(t, db, "b1", "1", "b2", "2", "b3", "3")
		got, err := db.Get([]string{"b3", "b1", "b2"})
		if err != nil {
			t.Fatal(err)
		}
		if want := [][]byte{[]byte("3"), []byte("1"), []byte("2")}; !reflect.DeepEqual(got, want) {
			t.Errorf("Get = %q, want %q", got, want)
		}
	})

	t.Run("DuplicateKeyLastWins", func(t *testing.T) {
		mustPut(t, db, "d", "first", "d", "last")
		if got := string(mustGet(t, db, "d")); got != "last" {
			t.Errorf("Get = %q, want last", got)
		}
	})

	t.Run("NilValueIsEmpty", func(t *testing.T) {
		if err := db.Put([]string{"nil"}, [][]byte{nil}); err != nil {
			t.Fatal(err)
		}
		if got := mustGet(t, db, "nil"); got == nil || len(got) != 0 {
			t.Errorf("Get = %#v, want []byte{}", got)
		}
	})

	t.Run("ErrLengthMismatch", func(t *testing.T) {
		err := db.Put([]string{"x", "y"}, [][]byte{[]byte("1")})
		if err == nil {
			t.Fatalf("Put with 2 keys and 1 value: err = nil, want an error")
		}
		// The transaction is still usable.
		mustPut(t, db, "after", "ok")
		mustCommit(t, db)
	})

	t.Run("StoredAsBlob", func(t *testing.T) {
		mustPut(t, db, "blob", "abc", "emptyblob", "")
		mustCommit(t, db)
		raw := rawDB(t, db.Path())
		for _, k := range []string{"blob", "emptyblob"} {
			var typ string
			if err := raw.QueryRow(`SELECT typeof(v) FROM _cf_KV WHERE k = ?`, k).Scan(&typ); err != nil {
				t.Fatal(err)
			}
			if typ != "blob" {
				t.Errorf("typeof(v) of %q = %s, want blob", k, typ)
			}
		}
	})
}

func TestDB_Delete(t *testing.T) {
	db := openDB(t, storage.Options{})
	mustPut(t, db, "a", "1", "b", "2", "c", "3", "empty", "")
	mustCommit(t, db)

	tests := []struct {
		name string
		keys []string
		want int
	}{
		{"One", []string{"a"}, 1},
		{"Again", []string{"a"}, 0},
		{"Missing", []string{"zzz"}, 0},
		{"Mixed", []string{"b", "nope", "c"}, 2},
		{"EmptyValueCounts", []string{"empty"}, 1},
		{"None", nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.Delete(tt.keys)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Delete(%q) = %d, want %d", tt.keys, got, tt.want)
			}
		})
	}
	t.Run("DuplicateCountsOnce", func(t *testing.T) {
		mustPut(t, db, "dup", "x")
		got, err := db.Delete([]string{"dup", "dup"})
		if err != nil {
			t.Fatal(err)
		}
		if got != 1 {
			t.Errorf("Delete(dup, dup) = %d, want 1", got)
		}
	})
	mustCommit(t, db)
	entries, err := db.List(storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("List after deletes = %q, want empty", entries)
	}
}

func TestDB_Scope(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cell.sqlite")
	a, err := storage.Open(path, storage.Options{Scope: "A"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mustPut(t, a, "k", "from A")
	mustCommit(t, a)

	b, err := storage.Open(path, storage.Options{Scope: "B"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if got := mustGet(t, b, "k"); got != nil {
		t.Errorf("scope B sees %q, want nil", got)
	}
	mustPut(t, b, "k", "from B")
	mustCommit(t, b)
	if got := string(mustGet(t, a, "k")); got != "from A" {
		t.Errorf("scope A = %q, want from A", got)
	}
	entries, err := b.List(storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || string(entries[0].Value) != "from B" {
		t.Errorf("List in scope B = %q, want one entry from B", entries)
	}
	mustCommit(t, a)
	mustCommit(t, b)
}

// listKeys are in UTF-8 byte order. In UTF-16 order (JavaScript's <) "😀"
// would come before "\uffff".
var listKeys = []string{
	"",
	"\x00",
	"a",
	"a\x00",
	"aa",
	"ab",
	"abc",
	"b",
	"ba",
	"c",
	"z",
	"é",      // C3 A9
	"\uffff", // EF BF BF
	"😀",      // F0 9F 98 80
	"😀x",
	"\xff", // not UTF-8, but a valid Go string: bounds every prefix
	"\xff\xff",
}

func listDB(t *testing.T) *storage.DB {
	t.Helper()
	db := openDB(t, storage.Options{Scope: "s"})
	var values [][]byte
	for _, k := range listKeys {
		values = append(values, []byte("v:"+k))
	}
	// Insert in reverse so that insertion order cannot pass for key order.
	keys := slices.Clone(listKeys)
	slices.Reverse(keys)
	slices.Reverse(values)
	if err := db.Put(keys, values); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db)
	return db
}

func entryKeys(entries []storage.Entry) []string {
	keys := []string{}
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	return keys
}

func TestDB_List(t *testing.T) {
	db := listDB(t)

	t.Run("All", func(t *testing.T) {
		entries, err := db.List(storage.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := entryKeys(entries); !reflect.DeepEqual(got, listKeys) {
			t.Errorf("keys = %q, want %q", got, listKeys)
		}
		for _, e := range entries {
			if string(e.Value) != "v:"+e.Key {
				t.Errorf("value of %q = %q, want %q", e.Key, e.Value, "v:"+e.Key)
			}
		}
	})

	tests := []struct {
		name string
		opts storage.ListOptions
		want []string
	}{
		{"Start", storage.ListOptions{Start: "b", HasStart: true}, listKeys[7:]},
		{"StartMissingKey", storage.ListOptions{Start: "abd", HasStart: true}, listKeys[7:]},
		{"StartAfter", storage.ListOptions{StartAfter: "b", HasStartAfter: true}, listKeys[8:]},
		{"End", storage.ListOptions{End: "b", HasEnd: true}, listKeys[:7]},
		{"StartEnd", storage.ListOptions{Start: "aa", HasStart: true, End: "b", HasEnd: true}, []string{"aa", "ab", "abc"}},
		{"EmptyRange", storage.ListOptions{Start: "b", HasStart: true, End: "b", HasEnd: true}, []string{}},
		{"InvertedRange", storage.ListOptions{Start: "c", HasStart: true, End: "a", HasEnd: true}, []string{}},
		{"Prefix", storage.ListOptions{Prefix: "a", HasPrefix: true}, []string{"a", "a\x00", "aa", "ab", "abc"}},
		{"PrefixNoMatch", storage.ListOptions{Prefix: "q", HasPrefix: true}, []string{}},
		{"PrefixEmpty", storage.ListOptions{Prefix: "", HasPrefix: true}, listKeys},
		{"PrefixUnicode", storage.ListOptions{Prefix: "😀", HasPrefix: true}, []string{"😀", "😀x"}},
		{"PrefixFF", storage.ListOptions{Prefix: "\xff", HasPrefix: true}, []string{"\xff", "\xff\xff"}},
		{"PrefixNUL", storage.ListOptions{Prefix: "a\x00", HasPrefix: true}, []string{"a\x00"}},
		{"PrefixAndStart", storage.ListOptions{Prefix: "a", HasPrefix: true, Start: "ab", HasStart: true}, []string{"ab", "abc"}},
		{"PrefixAndEnd", storage.ListOptions{Prefix: "a", HasPrefix: true, End: "ab", HasEnd: true}, []string{"a", "a\x00", "aa"}},
		{"UnicodeOrder", storage.ListOptions{Start: "z", HasStart: true, End: "\xff", HasEnd: true}, []string{"z", "é", "\uffff", "😀", "😀x"}},
		{"Reverse", storage.ListOptions{Reverse: true}, reversed(listKeys)},
		{"ReverseBounds", storage.ListOptions{Start: "aa", HasStart: true, End: "b", HasEnd: true, Reverse: true}, []string{"abc", "ab", "aa"}},
		{"Limit", storage.ListOptions{Limit: 3}, listKeys[:3]},
		{"LimitZero", storage.ListOptions{Limit: 0}, listKeys},
		{"LimitAboveCount", storage.ListOptions{Limit: 100}, listKeys},
		{"ReverseLimit", storage.ListOptions{Reverse: true, Limit: 2}, []string{"\xff\xff", "\xff"}},
		{"ReversePrefixLimit", storage.ListOptions{Prefix: "a", HasPrefix: true, Reverse: true, Limit: 2}, []string{"abc", "ab"}},
		{"StartAndStartAfterStartWins", storage.ListOptions{Start: "b", HasStart: true, StartAfter: "a", HasStartAfter: true}, listKeys[7:]},
		{"StartAndStartAfterAfterWins", storage.ListOptions{Start: "a", HasStart: true, StartAfter: "b", HasStartAfter: true}, listKeys[8:]},
		{"StartAndStartAfterEqual", storage.ListOptions{Start: "b", HasStart: true, StartAfter: "b", HasStartAfter: true}, listKeys[8:]},
		{"IgnoredWithoutHas", storage.ListOptions{Start: "b", StartAfter: "c", End: "a", Prefix: "q"}, listKeys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := db.List(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := entryKeys(entries); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("keys = %q, want %q", got, tt.want)
			}
		})
	}
	mustCommit(t, db)
}

// TestDB_List_Combinations checks every combination of options against a
// model of the semantics.
func TestDB_List_Combinations(t *testing.T) {
	db := listDB(t)
	bounds := []*string{nil, ptr(""), ptr("a"), ptr("ab"), ptr("b"), ptr("é"), ptr("😀"), ptr("\xff")}
	prefixes := []*string{nil, ptr(""), ptr("a"), ptr("ab"), ptr("😀"), ptr("\xff")}
	reverses, limits := []bool{false, true}, []int{0, 1, 3}
	// Every combination of start x startAfter x end x prefix x reverse x
	// limit, as one mixed-radix index. Under -race, every 7th (7 is prime
	// to every radix): a sample that still holds every pair of values of
	// every two options, which the test checks.
	radix := []int{len(bounds), len(bounds), len(bounds), len(prefixes), len(reverses), len(limits)}
	total := 1
	for _, r := range radix {
		total *= r
	}
	step := 1
	if raceEnabled {
		step = 7
	}
	pairs := map[[4]int]bool{}
	n := 0
	for i := 0; i < total; i += step {
		d := make([]int, len(radix))
		for j, x := len(radix)-1, i; j >= 0; j-- {
			d[j], x = x%radix[j], x/radix[j]
		}
		for a := range d {
			for b := a + 1; b < len(d); b++ {
				pairs[[4]int{a, b, d[a], d[b]}] = true
			}
		}
		o := storage.ListOptions{Reverse: reverses[d[4]], Limit: limits[d[5]]}
		o.Start, o.HasStart = deref(bounds[d[0]])
		o.StartAfter, o.HasStartAfter = deref(bounds[d[1]])
		o.End, o.HasEnd = deref(bounds[d[2]])
		o.Prefix, o.HasPrefix = deref(prefixes[d[3]])
		entries, err := db.List(o)
		if err != nil {
			t.Fatal(err)
		}
		got, want := entryKeys(entries), modelList(listKeys, o)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("List(%+v) = %q, want %q", o, got, want)
		}
		n++
	}
	mustCommit(t, db)
	wantPairs := 0
	for a := range radix {
		for b := a + 1; b < len(radix); b++ {
			wantPairs += radix[a] * radix[b]
		}
	}
	if len(pairs) != wantPairs {
		t.Errorf("the combinations hold %d of the %d pairs of option values", len(pairs), wantPairs)
	}
	t.Logf("%d of %d combinations", n, total)
}

// modelList is the reference semantics of List over sorted keys.
func modelList(sorted []string, o storage.ListOptions) []string {
	out := []string{}
	for _, k := range sorted { // Go compares strings bytewise
		switch {
		case o.HasStart && k < o.Start,
			o.HasStartAfter && k <= o.StartAfter,
			o.HasEnd && k >= o.End,
			o.HasPrefix && !strings.HasPrefix(k, o.Prefix):
			continue
		}
		out = append(out, k)
	}
	if o.Reverse {
		slices.Reverse(out)
	}
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[:o.Limit]
	}
	return out
}

func ptr(s string) *string { return &s }

func deref(p *string) (string, bool) {
	if p == nil {
		return "", false
	}
	return *p, true
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

func TestDB_DeleteAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cell.sqlite")
	db, err := storage.Open(path, storage.Options{Scope: "s", ActorName: "Counter"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustPut(t, db, "a", "1", "b", "2")
	mustCommit(t, db)
	other, err := storage.Open(path, storage.Options{Scope: "other"})
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, other, "x", "1")
	mustCommit(t, other)
	other.Close()

	if err := db.SetAlarm(12345); err != nil {
		t.Fatal(err)
	}
	mustCommit(t, db)

	// The user's schema, as ctx.storage.sql would build it.
	raw := rawDB(t, path)
	for _, stmt := range []string{
		`PRAGMA foreign_keys = ON`,
		`CREATE TABLE parent (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT)`,
		`CREATE TABLE child (pid INTEGER NOT NULL REFERENCES parent (id))`,
		`CREATE INDEX child_pid ON child (pid)`,
		`CREATE TABLE "odd ""name""" (x)`,
		`CREATE VIEW kids AS SELECT * FROM child JOIN parent ON parent.id = child.pid`,
		`CREATE TRIGGER parent_ins AFTER INSERT ON parent BEGIN SELECT 1; END`,
		`CREATE VIRTUAL TABLE docs USING fts5 (body)`,
		`INSERT INTO parent (name) VALUES ('p')`,
		`INSERT INTO child (pid) VALUES (1)`,
		`INSERT INTO docs (body) VALUES ('hello world')`,
	} {
		if _, err := raw.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	objects := func(t *testing.T) []string {
		t.Helper()
		rows, err := raw.Query(`SELECT type || ' ' || name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY 1`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var names []string
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			names = append(names, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return names
	}
	before := objects(t)

	t.Run("RollbackRestores", func(t *testing.T) {
		if err := db.DeleteAll(); err != nil {
			t.Fatalf("DeleteAll: %v", err)
		}
		if !db.InTx() {
			t.Errorf("InTx() after DeleteAll = false, want true")
		}
		if err := db.Rollback(); err != nil {
			t.Fatal(err)
		}
		if got := objects(t); !reflect.DeepEqual(got, before) {
			t.Errorf("schema after rollback = %q, want %q", got, before)
		}
		if got := string(mustGet(t, db, "a")); got != "1" {
			t.Errorf("a after rollback = %q, want 1", got)
		}
		mustCommit(t, db)
	})

	if err := db.DeleteAll(); err != nil {
		t.Fatalf("DeleteAll: %v", err)
	}
	entries, err := db.List(storage.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("List in the DeleteAll transaction = %q, want empty", entries)
	}
	mustCommit(t, db)

	// A pending alarm stays, with its metadata; _cf_KV goes.
	want := []string{
		"table _cf_ALARM",
		"table _cf_METADATA",
		"table sqlite_sequence",
	}
	if got := objects(t); !reflect.DeepEqual(got, want) {
		t.Errorf("schema after DeleteAll = %q, want %q", got, want)
	}
	var name string
	if err := raw.QueryRow(`SELECT actor_name FROM _cf_METADATA WHERE scope = 's'`).Scan(&name); err != nil {
		t.Errorf("metadata row: %v", err)
	} else if name != "Counter" {
		t.Errorf("actor_name = %q, want Counter", name)
	}
	var at int64
	if err := raw.QueryRow(`SELECT at_ms FROM _cf_ALARM WHERE scope = 's'`).Scan(&at); err != nil {
		t.Errorf("alarm row: %v", err)
	} else if at != 12345 {
		t.Errorf("at_ms = %d, want 12345", at)
	}

	t.Run("Empty", func(t *testing.T) {
		if err := db.DeleteAll(); err != nil {
			t.Fatalf("DeleteAll on an empty database: %v", err)
		}
		mustCommit(t, db)
	})

	t.Run("UsableAfter", func(t *testing.T) {
		mustPut(t, db, "again", "yes")
		mustCommit(t, db)
		if got := string(mustGet(t, db, "again")); got != "yes" {
			t.Errorf("Get = %q, want yes", got)
		}
		mustCommit(t, db)
	})

	t.Run("NoAlarmDropsAll", func(t *testing.T) {
		if err := db.DeleteAlarm(); err != nil {
			t.Fatal(err)
		}
		if err := db.DeleteAll(); err != nil {
			t.Fatal(err)
		}
		mustCommit(t, db)
		if got, want := objects(t), []string{"table sqlite_sequence"}; !reflect.DeepEqual(got, want) {
			t.Errorf("schema after DeleteAll without an alarm = %q, want %q", got, want)
		}
	})
}

func BenchmarkDB_IncrementCommit(b *testing.B) {
	db := openDB(b, storage.Options{Scope: "Counter:bench"})
	keys := []string{"count"}
	var n uint64
	b.ReportAllocs()
	for b.Loop() {
		got, err := db.Get(keys)
		if err != nil {
			b.Fatal(err)
		}
		if got[0] != nil {
			fmt.Sscan(string(got[0]), &n)
		}
		n++
		if err := db.Put(keys, [][]byte{fmt.Append(nil, n)}); err != nil {
			b.Fatal(err)
		}
		if err := db.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDB_IncrementNoSync is the same increment without the commit's
// fsync (one commit every 1000 increments): the CPU cost of the storage
// layer, the baseline for IncrementCommit.
func BenchmarkDB_IncrementNoSync(b *testing.B) {
	db := openDB(b, storage.Options{Scope: "Counter:bench"})
	keys := []string{"count"}
	var n uint64
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		got, err := db.Get(keys)
		if err != nil {
			b.Fatal(err)
		}
		if got[0] != nil {
			fmt.Sscan(string(got[0]), &n)
		}
		n++
		if err := db.Put(keys, [][]byte{fmt.Append(nil, n)}); err != nil {
			b.Fatal(err)
		}
		if i++; i%1000 == 0 {
			if err := db.Commit(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkDB_List100(b *testing.B) {
	db := openDB(b, storage.Options{Scope: "s"})
	var keys []string
	var values [][]byte
	for i := range 1000 {
		keys = append(keys, fmt.Sprintf("key%04d", i))
		values = append(values, make([]byte, 100))
	}
	if err := db.Put(keys, values); err != nil {
		b.Fatal(err)
	}
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
	o := storage.ListOptions{Prefix: "key05", HasPrefix: true}
	b.ReportAllocs()
	for b.Loop() {
		entries, err := db.List(o)
		if err != nil {
			b.Fatal(err)
		}
		if len(entries) != 100 {
			b.Fatalf("len = %d, want 100", len(entries))
		}
	}
	db.Commit()
}
