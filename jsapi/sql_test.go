package jsapi

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/storage"

	"github.com/cellhost/cellhost/jsapi/internal/jstest"
	"github.com/cellhost/cellhost/jsapi/jserr"

	"github.com/cellhost/cellhost/jsapi/clone"
)

// testStorage is a cell's storage over a real storage.DB, as host's
// adapter provides it (without the turn bookkeeping).
type testStorage struct{ db *storage.DB }

func (s testStorage) Get(keys []string) ([][]byte, error)      { return s.db.Get(keys) }
func (s testStorage) Put(keys []string, values [][]byte) error { return s.db.Put(keys, values) }
func (s testStorage) Delete(keys []string) (int, error)        { return s.db.Delete(keys) }
func (s testStorage) DeleteAll() error                         { return s.db.DeleteAll() }
func (s testStorage) List(o ListOptions) ([]KVEntry, error) {
	entries, err := s.db.List(storage.ListOptions(o))
	out := make([]KVEntry, len(entries))
	for i, e := range entries {
		out[i] = KVEntry(e)
	}
	return out, err
}
func (s testStorage) Exec(q string, args []any) (SQLCursor, error) {
	c, err := s.db.Exec(q, args...)
	if err != nil {
		return nil, err
	}
	return c, nil
}
func (s testStorage) DatabaseSize() (int64, error)    { return s.db.DatabaseSize() }
func (s testStorage) BeginTransaction() (int, error)  { return s.db.BeginTransaction() }
func (s testStorage) CommitTransaction(d int) error   { return s.db.CommitTransaction(d) }
func (s testStorage) RollbackTransaction(d int) error { return s.db.RollbackTransaction(d) }
func (s testStorage) SetAlarm(ms int64) error         { return s.db.SetAlarm(ms) }
func (s testStorage) DeleteAlarm() error              { return s.db.DeleteAlarm() }
func (s testStorage) GetAlarm() (int64, bool, error) {
	a, ok, err := s.db.GetAlarm()
	return a.AtMs, ok, err
}

// newStorageRuntime returns a runtime whose global ctx is a Durable Object
// state over a fresh cell database, and the database.
func newStorageRuntime(t testing.TB, o StateOptions) (*goja.Runtime, *storage.DB) {
	t.Helper()
	rt, _ := newWebRuntime(t)
	dir := t.TempDir()
	entry := filepath.Join(dir, "index.js")
	if err := os.WriteFile(entry, []byte("export class Obj {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := BuildBundle(entry)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorker(rt, WorkerOptions{Bundle: b})
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(filepath.Join(dir, "cell.sqlite"), storage.Options{DeferSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o.Storage = testStorage{db}
	if err := rt.Set("ctx", w.NewState(o)); err != nil {
		t.Fatal(err)
	}
	jstest.Run(t, rt, `
globalThis.attempt = (f) => { try { return { ok: f() }; } catch (e) { return { threw: e.name, message: e.message }; } };
globalThis.attemptAsync = async (f) => { try { return { ok: await f() }; } catch (e) { return { threw: e.name, message: e.message }; } };
globalThis.sql = ctx.storage.sql;`)
	return rt, db
}

// jsJSON runs src (an expression, possibly a promise) and returns the JSON
// of its value.
func jsJSON(t testing.TB, rt *goja.Runtime, src string) string {
	t.Helper()
	v := jstest.Run(t, rt, src)
	if err := rt.Set("__v", v); err != nil {
		t.Fatal(err)
	}
	return jstest.Run(t, rt, "JSON.stringify(__v)").String()
}

func TestSQL_Bindings(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	for _, tc := range []struct{ expr, want string }{
		{`sql.exec("SELECT ? AS v, typeof(?1) AS t", 12).one()`, `{"v":12,"t":"real"}`},
		{`sql.exec("SELECT CAST(? AS TEXT) AS v", 12).one()`, `{"v":"12.0"}`},
		{`sql.exec("SELECT ? AS v, typeof(?1) AS t", 1.5).one()`, `{"v":1.5,"t":"real"}`},
		{`sql.exec("SELECT ? AS v, typeof(?1) AS t", "s").one()`, `{"v":"s","t":"text"}`},
		{`sql.exec("SELECT typeof(?) AS t", null).one()`, `{"t":"null"}`},
		{`sql.exec("SELECT typeof(?) AS t", undefined).one()`, `{"t":"null"}`},
		{`sql.exec("SELECT typeof(?) AS t", NaN).one()`, `{"t":"null"}`},
		{`sql.exec("SELECT ? AS v, typeof(?1) AS t", true).one()`, `{"v":1,"t":"real"}`},
		{`sql.exec("SELECT ? AS v", {a: 1}).one()`, `{"v":"[object Object]"}`},
		{`sql.exec("SELECT ? AS v", [1, 2]).one()`, `{"v":"1,2"}`},
		{`sql.exec("SELECT hex(?) AS v", new Uint8Array([1, 2, 3, 4]).subarray(1, 3)).one()`, `{"v":"0203"}`},
		{`sql.exec("SELECT hex(?) AS v", new Uint16Array([0x0102])).one()`, `{"v":"0201"}`},
		{`sql.exec("SELECT hex(?) AS v", new DataView(new Uint8Array([9, 8, 7]).buffer, 1)).one()`, `{"v":"0807"}`},
		{`sql.exec("SELECT hex(?) AS v, typeof(?1) AS t", new ArrayBuffer(2)).one()`, `{"v":"0000","t":"blob"}`},
		{`attempt(() => sql.exec("SELECT ?", 1n))`, `{"threw":"TypeError","message":"Cannot convert a BigInt value to a number"}`},
		{`attempt(() => sql.exec("SELECT ?", Symbol("s")))`, `{"threw":"TypeError","message":"Cannot convert a Symbol value to a number"}`},
		{`attempt(() => sql.exec("SELECT ?", { toString() { throw new RangeError("no"); } }))`, `{"threw":"RangeError","message":"no"}`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestSQL_Values(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	for _, tc := range []struct{ expr, want string }{
		{`sql.exec("SELECT 1 AS i, 1.5 AS r, 'x' AS s, NULL AS n").one()`, `{"i":1,"r":1.5,"s":"x","n":null}`},
		{`sql.exec("SELECT 9007199254740993 AS v").one().v === 9007199254740992`, `true`},
		{`sql.exec("SELECT -9223372036854775808 AS v").one().v === -9223372036854775808`, `true`},
		{`(() => { const v = sql.exec("SELECT x'00ff' AS b").one().b; return [v instanceof ArrayBuffer, [...new Uint8Array(v)]]; })()`, `[true,[0,255]]`},
		{`sql.exec("SELECT 1 AS x, 2 AS x").toArray()`, `[{"x":2}]`},
		{`sql.exec("SELECT 1 AS x, 2 AS x").raw().toArray()`, `[[1,2]]`},
		{`Object.getPrototypeOf(sql.exec("SELECT 1 AS __proto__").one()) === Object.prototype`, `true`},
		{`sql.exec("SELECT 1 AS __proto__").one().__proto__`, `1`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s = %s, want %s", tc.expr, got, tc.want)
		}
	}
}

func TestSQL_Cursor(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	jstest.Run(t, rt, `sql.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT)"); sql.exec("INSERT INTO t (name) VALUES ('a'), ('b'), ('c')")`)
	for _, tc := range []struct{ expr, want string }{
		{`(() => { const c = sql.exec("SELECT name FROM t ORDER BY id"); const first = c.next(); const rest = [...c]; return { first, rest, after: c.next(), cols: c.columnNames, read: c.rowsRead, written: c.rowsWritten }; })()`,
			`{"first":{"done":false,"value":{"name":"a"}},"rest":[{"name":"b"},{"name":"c"}],"after":{"done":true},"cols":["name"],"read":3,"written":0}`},
		{`(() => { const c = sql.exec("SELECT id, name FROM t ORDER BY id DESC"); const r = c.raw(); return [r.next().value, r.toArray(), r.columnNames, c.next()]; })()`,
			`[[3,"c"],[[2,"b"],[1,"a"]],["id","name"],{"done":true}]`},
		{`attempt(() => sql.exec("SELECT name FROM t WHERE id = 2").one())`, `{"ok":{"name":"b"}}`},
		{`attempt(() => sql.exec("SELECT name FROM t WHERE id = 9").one())`, `{"threw":"Error","message":"Expected exactly one result from SQL query, but got no results."}`},
		{`attempt(() => sql.exec("SELECT name FROM t").one())`, `{"threw":"Error","message":"Expected exactly one result from SQL query, but got multiple results."}`},
		{`attempt(() => sql.exec("INSERT INTO t (name) VALUES ('d')").one())`, `{"threw":"Error","message":"Expected exactly one result from SQL query, but got no results."}`},
		{`attempt(() => sql.exec("SELEC 1"))`, `{"threw":"Error","message":"near \"SELEC\": syntax error at offset 0: SQLITE_ERROR"}`},
		{`attempt(() => sql.exec("BEGIN"))`, `{"threw":"Error","message":"` + strings.ReplaceAll(msgTxnSQL, `"`, `\"`) + `"}`},
		{`attempt(() => { ctx.storage.kv.put("k", 1); return sql.exec("SELECT * FROM _cf_KV"); })`, `{"threw":"Error","message":"access to _cf_KV.key is prohibited: SQLITE_AUTH"}`},
		{`Object.prototype.toString.call(sql.exec("SELECT 1"))`, `"[object SqlStorageCursor]"`},
		{`attempt(() => new (Object.getPrototypeOf(sql.exec("SELECT 1")).constructor)())`, `{"threw":"TypeError","message":"Illegal constructor"}`},
		{`sql.databaseSize > 0`, `true`},
		{`(() => { const c = sql.exec("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"); let n = 0; for (const r of c) { if (++n === 10) break; } return n; })()`, `10`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

const msgTxnSQL = "To execute a transaction, please use the state.storage.transaction() or state.storage.transactionSync() APIs instead of the SQL BEGIN TRANSACTION or SAVEPOINT statements. The JavaScript API is safer because it will automatically roll back on exceptions, and because it interacts correctly with Durable Objects' automatic atomic write coalescing."

func TestSQL_AbandonedCursors(t *testing.T) {
	rt, db := newStorageRuntime(t, StateOptions{})
	jstest.Run(t, rt, `sql.exec("CREATE TABLE t (x)"); for (let i = 0; i < 3000; i++) sql.exec("INSERT INTO t VALUES (?)", i);`)
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	// Each open cursor's handle is registered for release once collected;
	// the test sees the handles (weakly) and, once the collector has found
	// them unreachable, releases their cursors itself, as the cleanups
	// would on their own goroutine some time later.
	type registered struct {
		h   weak.Pointer[cursorHandle]
		cur SQLCursor
	}
	var regs []registered
	old := releaseWhenCollected
	releaseWhenCollected = func(h *cursorHandle, cur SQLCursor) { regs = append(regs, registered{weak.Make(h), cur}) }
	t.Cleanup(func() { releaseWhenCollected = old })
	// Cursors read once and dropped: collected, they end at the commit
	// instead of being read ahead.
	jstest.Run(t, rt, `for (let i = 0; i < 50; i++) sql.exec("SELECT x FROM t").next();`)
	if n := db.OpenCursors(); n != 50 || len(regs) != 50 {
		t.Fatalf("OpenCursors = %d, registered for release %d, want 50", n, len(regs))
	}
	collected := func() (n int) {
		for _, r := range regs {
			if r.h.Value() == nil {
				n++
			}
		}
		return n
	}
	// runtime.GC runs a whole cycle: the handles nothing references are
	// unreachable once it returns (a few cycles: goja may drop its last
	// references to a value late).
	for i := 0; i < 10 && collected() < len(regs); i++ {
		runtime.GC()
	}
	if n := collected(); n != len(regs) {
		t.Fatalf("%d of %d dropped cursors' handles collected", n, len(regs))
	}
	for _, r := range regs {
		r.cur.Release()
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := db.OpenCursors(); n != 0 {
		t.Errorf("OpenCursors after release and commit = %d, want 0", n)
	}
}

func TestSQL_ToArrayLimit(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	got := jsJSON(t, rt, `attempt(() => sql.exec("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x, zeroblob(10000) FROM c").toArray().length)`)
	if want := `{"threw":"RangeError","message":"` + msgToArrayTooLarge + `"}`; got != want {
		t.Errorf("endless toArray = %s, want %s", got, want)
	}
}

func TestStorage_Transactions(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	jstest.Run(t, rt, `
sql.exec("CREATE TABLE log (what TEXT)");
globalThis.log = (w) => sql.exec("INSERT INTO log VALUES (?)", w);
globalThis.state = async () => ({ kv: Object.fromEntries(await ctx.storage.list()), sql: sql.exec("SELECT what FROM log ORDER BY rowid").toArray().map((r) => r.what) });`)
	for _, tc := range []struct{ expr, want string }{
		{`attempt(() => ctx.storage.transactionSync(() => { log("a"); return 1; }))`, `{"ok":1}`},
		{`attempt(() => ctx.storage.transactionSync(() => { log("x"); throw new TypeError("no"); }))`, `{"threw":"TypeError","message":"no"}`},
		{`attempt(() => ctx.storage.transactionSync(() => { log("b"); try { ctx.storage.transactionSync(() => { log("y"); throw new Error("inner"); }); } catch {} log("c"); }))`, `{}`},
		{`attempt(() => ctx.storage.transactionSync("nope"))`, `{"threw":"TypeError","message":"Failed to execute 'transactionSync' on 'DurableObjectStorage': parameter 1 is not of type 'Function'."}`},
		{`attemptAsync(() => ctx.storage.transaction(async (txn) => { await txn.put("k", 1); log("d"); return (await txn.get("k")); }))`, `{"ok":1}`},
		{`attemptAsync(() => ctx.storage.transaction(async (txn) => { await txn.put("gone", 1); log("z"); txn.rollback(); txn.rollback(); return "rolled back"; }))`, `{"ok":"rolled back"}`},
		{`attemptAsync(() => ctx.storage.transaction(async (txn) => { txn.rollback(); await txn.get("k"); }))`, `{"threw":"Error","message":"Cannot get() on rolled back transaction"}`},
		{`attemptAsync(() => ctx.storage.transaction(async (txn) => { txn.rollback(); await txn.delete("k"); }))`, `{"threw":"Error","message":"Cannot delete() on rolled back transaction"}`},
		{`attemptAsync(() => ctx.storage.transaction(async (txn) => { await txn.put("gone2", 1); throw new RangeError("r"); }))`, `{"threw":"RangeError","message":"r"}`},
		{`attemptAsync(() => ctx.storage.transaction(() => { throw new Error("sync throw"); }))`, `{"threw":"Error","message":"sync throw"}`},
		{`attemptAsync(() => ctx.storage.transaction(5))`, `{"threw":"TypeError","message":"Failed to execute 'transaction' on 'DurableObjectStorage': parameter 1 is not of type 'Function'."}`},
		{`state()`, `{"kv":{"k":1},"sql":["a","b","c","d"]}`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

func TestStorage_SyncKV(t *testing.T) {
	rt, _ := newStorageRuntime(t, StateOptions{})
	for _, tc := range []struct{ expr, want string }{
		{`ctx.storage.kv.put("a", { n: 1 })`, ``},
		{`ctx.storage.kv.get("a")`, `{"n":1}`},
		{`ctx.storage.get("a")`, `{"n":1}`},
		{`ctx.storage.put("b", [2]).then(() => ctx.storage.kv.get("b"))`, `[2]`},
		{`ctx.storage.kv.get("missing") === undefined`, `true`},
		{`[ctx.storage.kv.delete("b"), ctx.storage.kv.delete("b")]`, `[true,false]`},
		{`(() => { ctx.storage.kv.put("c", 3); ctx.storage.kv.put("ab", 4); return [...ctx.storage.kv.list()]; })()`, `[["a",{"n":1}],["ab",4],["c",3]]`},
		{`[...ctx.storage.kv.list({ prefix: "a", reverse: true })]`, `[["ab",4],["a",{"n":1}]]`},
		{`[...ctx.storage.kv.list({ start: "ab", limit: 1 })]`, `[["ab",4]]`},
		{`attempt(() => ctx.storage.kv.list({ limit: 0 }))`, `{"threw":"TypeError","message":"List limit must be positive."}`},
		{`attempt(() => ctx.storage.kv.put("u", undefined))`, `{"threw":"TypeError","message":"put() called with undefined value."}`},
		{`attempt(() => ctx.storage.kv.put("f", () => 1))`, `{"threw":"DataCloneError","message":"() => 1 could not be cloned."}`},
	} {
		got := jsJSON(t, rt, tc.expr)
		if tc.want == "" {
			continue
		}
		if got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

func TestStorage_Alarms(t *testing.T) {
	rt, db := newStorageRuntime(t, StateOptions{})
	for _, tc := range []struct{ expr, want string }{
		{`ctx.storage.getAlarm()`, `null`},
		{`ctx.storage.setAlarm(1234.9).then((r) => [r === undefined])`, `[true]`},
		{`ctx.storage.getAlarm()`, `1234`},
		{`ctx.storage.setAlarm(new Date(5000)).then(() => ctx.storage.getAlarm())`, `5000`},
		{`attemptAsync(() => ctx.storage.setAlarm("soon"))`, `{"threw":"TypeError","message":"Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'."}`},
		{`attemptAsync(() => ctx.storage.setAlarm())`, `{"threw":"TypeError","message":"Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'."}`},
		{`attemptAsync(() => ctx.storage.setAlarm(NaN))`, `{"threw":"TypeError","message":"The value cannot be converted because it is not a valid Date."}`},
		{`attemptAsync(() => ctx.storage.setAlarm(Infinity))`, `{"threw":"TypeError","message":"The value cannot be converted because it is not a valid Date."}`},
		{`attemptAsync(() => ctx.storage.setAlarm(new Date(NaN)))`, `{"threw":"TypeError","message":"The value cannot be converted because it is not a valid Date."}`},
		{`attemptAsync(() => ctx.storage.setAlarm({ getTime() { return 1; } }))`, `{"threw":"TypeError","message":"Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'."}`},
		{`ctx.storage.getAlarm()`, `5000`},
		{`ctx.storage.deleteAll().then(() => ctx.storage.getAlarm())`, `5000`},
		{`ctx.storage.deleteAlarm().then(() => ctx.storage.getAlarm())`, `null`},
	} {
		if got := jsJSON(t, rt, tc.expr); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
	if err := db.Commit(); err != nil {
		t.Fatal(err)
	}

	t.Run("DeleteAllDeletesAlarm", func(t *testing.T) {
		for _, o := range []StateOptions{
			{CompatibilityDate: "2026-02-24"},
			{CompatibilityDate: "2025-01-01", CompatibilityFlags: []string{"delete_all_deletes_alarm"}},
		} {
			rt, _ := newStorageRuntime(t, o)
			got := jsJSON(t, rt, `ctx.storage.setAlarm(1).then(() => ctx.storage.deleteAll()).then(() => ctx.storage.getAlarm())`)
			if got != `null` {
				t.Errorf("%+v: alarm after deleteAll = %s, want null", o, got)
			}
		}
	})
}

// FuzzListOptions checks the list() option parser: bad options give
// workerd's TypeErrors, good ones select exactly the keys in range, in
// order, and nothing panics.
func FuzzListOptions(f *testing.F) {
	f.Add("a", "b", "c", "a", 2.0, true, uint8(0xff))
	f.Add("", "", "", "", 0.0, false, uint8(0))
	f.Add("\xff", "é", "\x00", "a\xffb", -1.0, false, uint8(0x1f))
	f.Add("b", "a", "a", "", math.NaN(), true, uint8(0x2f))
	f.Add("k1", "k3", "k9", "k", 1e300, false, uint8(0x15))
	f.Fuzz(func(t *testing.T, start, startAfter, end, prefix string, limit float64, reverse bool, present uint8) {
		rt, db := newStorageRuntime(t, StateOptions{})
		keys := []string{"", "a", "ab", "b", "k1", "k2", "k3", "é", "\xff", "a\xffb", start, end, prefix}
		values := make([][]byte, len(keys))
		for i := range keys {
			v, err := clone.Serialize(rt, rt.ToValue(i))
			if err != nil {
				t.Fatal(err)
			}
			values[i] = v
		}
		if err := db.Put(keys, values); err != nil {
			t.Fatal(err)
		}
		opts := rt.NewObject()
		set := func(bit uint8, name string, v any) {
			if present&bit != 0 {
				_ = opts.Set(name, v)
			}
		}
		set(1, "start", start)
		set(2, "startAfter", startAfter)
		set(4, "end", end)
		set(8, "prefix", prefix)
		set(16, "limit", limit)
		set(32, "reverse", reverse)
		o, err := jserr.Catch(func() (ListOptions, error) { return listOptions(rt, opts), nil })
		if err != nil {
			var ev jserr.Thrown
			if !errors.As(err, &ev) {
				t.Fatalf("listOptions: %v", err)
			}
			msg := ev.Value.ToObject(rt).Get("message").String()
			switch msg {
			case "List limit must be positive.":
				if present&16 == 0 || limit >= 1 {
					t.Fatalf("limit error for limit %v", limit)
				}
			case "list() cannot be called with both start and startAfter values.":
				if present&3 != 3 {
					t.Fatalf("start/startAfter error without both")
				}
			default:
				t.Fatalf("unexpected error %q", msg)
			}
			return
		}
		if present&16 != 0 && (o.Limit < 1 || float64(o.Limit) > limit) {
			t.Fatalf("Limit = %d for %v", o.Limit, limit)
		}
		entries, err := db.List(storage.ListOptions(o))
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		// Every returned key is in range, in order; no key in range is
		// missing unless the limit stopped the listing.
		in := func(k string) bool {
			return (!o.HasStart || k >= o.Start) && (!o.HasStartAfter || k > o.StartAfter) &&
				(!o.HasEnd || k < o.End) && (!o.HasPrefix || strings.HasPrefix(k, o.Prefix))
		}
		want := 0
		seen := map[string]bool{}
		for _, k := range keys {
			if !seen[k] && in(k) {
				want++
			}
			seen[k] = true
		}
		if o.Limit > 0 && want > o.Limit {
			want = o.Limit
		}
		if len(entries) != want {
			t.Fatalf("List(%+v) returned %d entries, want %d", o, len(entries), want)
		}
		for i, e := range entries {
			if !in(e.Key) {
				t.Fatalf("key %q out of range for %+v", e.Key, o)
			}
			if i > 0 && (entries[i-1].Key < e.Key) == o.Reverse {
				t.Fatalf("keys out of order: %q then %q (reverse %v)", entries[i-1].Key, e.Key, o.Reverse)
			}
		}
		_ = db.Commit()
	})
}

// Benchmarks of the storage API as JS code calls it (one operation and one
// commit per iteration, as one turn); compare with the storage package's
// BenchmarkCell_* (the same work in Go, next to plain SQLite).
func benchJS(b *testing.B, setup, op string) {
	rt, db := newStorageRuntime(b, StateOptions{})
	jstest.Run(b, rt, setup)
	if err := db.Commit(); err != nil {
		b.Fatal(err)
	}
	v, err := rt.RunString("(function (i) {" + op + "})")
	if err != nil {
		b.Fatal(err)
	}
	f, _ := goja.AssertFunction(v)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		if _, err := f(goja.Undefined(), rt.ToValue(i)); err != nil {
			b.Fatal(err)
		}
		if err := db.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

const benchJSSetup = `sql.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score REAL)");
for (let i = 0; i < 1000; i++) { sql.exec("INSERT INTO items VALUES (?, ?, ?)", i, "item" + i, i); ctx.storage.kv.put("key" + i, new Uint8Array(100)); }`

func BenchmarkJS_KVPut(b *testing.B) {
	benchJS(b, benchJSSetup, `ctx.storage.put("key" + (i % 1000), new Uint8Array(100));`)
}

func BenchmarkJS_KVGet(b *testing.B) {
	benchJS(b, benchJSSetup, `ctx.storage.get("key" + (i % 1000));`)
}

func BenchmarkJS_SyncKVGet(b *testing.B) {
	benchJS(b, benchJSSetup, `ctx.storage.kv.get("key" + (i % 1000));`)
}

func BenchmarkJS_SQLInsert(b *testing.B) {
	benchJS(b, benchJSSetup, `sql.exec("INSERT INTO items (name, score) VALUES (?, ?)", "item", i);`)
}

func BenchmarkJS_SQLSelect(b *testing.B) {
	benchJS(b, benchJSSetup, `sql.exec("SELECT id, name, score FROM items WHERE id = ?", i % 1000).one();`)
}

func BenchmarkJS_SQLScan(b *testing.B) {
	benchJS(b, benchJSSetup, `sql.exec("SELECT id, name, score FROM items WHERE id >= ? ORDER BY id LIMIT 100", 500).toArray();`)
}

func BenchmarkJS_SQLCount(b *testing.B) {
	benchJS(b, benchJSSetup, `sql.exec("SELECT count(*) AS n FROM items").one().n;`)
}

func BenchmarkJS_SQLUpdate(b *testing.B) {
	benchJS(b, benchJSSetup, `sql.exec("UPDATE items SET score = ? WHERE id = ?", i, i % 1000);`)
}

// BenchmarkJS_SQLWrite is the write of examples/sqlheavy (bench/sql.sh): an
// INSERT, a count(*) over the growing table and a KV put of the count.
func BenchmarkJS_SQLWrite(b *testing.B) {
	benchJS(b, `sql.exec("CREATE TABLE events (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, path TEXT NOT NULL, agent TEXT)");`,
		`sql.exec("INSERT INTO events (at, path, agent) VALUES (?, ?, ?)", 1764650000000 + i, "/?name=bench", "wrk");
		const n = sql.exec("SELECT count(*) AS n FROM events").one().n;
		ctx.storage.kv.put("n", n);`)
}
