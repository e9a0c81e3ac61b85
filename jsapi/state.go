package jsapi

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
)

// KV is a cell's key-value storage as host provides it. Calls are synchronous
// (the data is local SQLite) and happen on the runtime's goroutine; values are
// structured-clone bytes (Serialize/Deserialize).
type KV interface {
	Get(keys []string) ([][]byte, error) // result[i] == nil when keys[i] is absent
	Put(keys []string, values [][]byte) error
	Delete(keys []string) (int, error)
	List(o ListOptions) ([]KVEntry, error)
	DeleteAll() error
}

// KVEntry is one key and its value bytes.
type KVEntry struct {
	Key   string
	Value []byte
}

// ListOptions are the options of storage.list().
type ListOptions struct {
	Start, StartAfter, End, Prefix             string
	HasStart, HasStartAfter, HasEnd, HasPrefix bool
	Reverse                                    bool
	Limit                                      int // 0 = no limit
}

// StateOptions is what host gives a Durable Object's ctx.
type StateOptions struct {
	ID goja.Value // a DurableObjectId (Worker.NewID)
	// Storage is the cell's storage. When it also implements SQL,
	// Transactions and Alarms, ctx.storage.sql, transaction(),
	// transactionSync() and the alarm methods work; otherwise they throw.
	Storage   KV
	WaitUntil func(goja.Value)
	// Block closes the object's input gate for blockConcurrencyWhile; the
	// returned release reopens it, with the error (a rejection of the
	// callback) that must reset the object, or nil.
	Block func() (release func(err error))
	// Abort resets the object (ctx.abort(reason)).
	Abort func(reason string)
	// WebSockets is the object's hibernatable WebSockets
	// (ctx.acceptWebSocket and friends); the host keeps one per object
	// across instances. Nil: those methods throw.
	WebSockets *WebSocketSet
	// CompatibilityDate and CompatibilityFlags are the worker's (wrangler
	// compatibility_date, compatibility_flags). They decide whether
	// deleteAll() deletes the alarm (date >= 2026-02-24 or flag
	// delete_all_deletes_alarm). The host passes the wrangler config's.
	CompatibilityDate  string
	CompatibilityFlags []string
}

// deleteAllDeletesAlarm reports whether deleteAll() also deletes the alarm
// under o's compatibility settings.
func (o *StateOptions) deleteAllDeletesAlarm() bool {
	for _, f := range o.CompatibilityFlags {
		switch f {
		case "delete_all_deletes_alarm":
			return true
		case "delete_all_preserves_alarm":
			return false
		}
	}
	return o.CompatibilityDate >= "2026-02-24"
}

// NewState builds the DurableObjectState passed to a Durable Object's
// constructor (ctx).
func (w *Worker) NewState(o StateOptions) *goja.Object {
	rt := w.rt
	// How errors are serialized follows the worker's compatibility
	// settings; every object of a worker shares them.
	_ = clone.SetEnhancedErrors(rt, clone.EnhancedErrors(o.CompatibilityDate, o.CompatibilityFlags))
	st := rt.NewObject()
	_ = st.Set("id", o.ID)
	_ = st.Set("storage", w.newStorage(o))
	_ = st.Set("waitUntil", func(p goja.Value) {
		if o.WaitUntil != nil {
			o.WaitUntil(p)
		}
	})
	bcw := &bcwState{w: w, block: o.Block}
	if w.gates != nil {
		w.gates[st] = bcw
	}
	_ = st.Set("blockConcurrencyWhile", bcw.call)
	_ = st.Set("abort", func(reason goja.Value) {
		msg := "abort() was called"
		if !goja.IsUndefined(reason) {
			msg = reason.String()
		}
		if o.Abort != nil {
			o.Abort(msg)
		}
		jserr.Throw(rt, jserr.New("Error", msg))
	})
	w.installWebSocketState(st, o.WebSockets)
	return st
}

// storageCall runs f and returns a promise of its result; a Go error or a JS
// exception rejects the promise (storage methods never throw synchronously).
func (w *Worker) storageCall(f func() (goja.Value, error)) goja.Value {
	rt := w.rt
	p, resolve, reject := rt.NewPromise()
	v, err := jserr.Catch(f)
	if err != nil {
		_ = reject(jserr.ToJS(w.rt, err))
	} else {
		_ = resolve(v)
	}
	return rt.ToValue(p)
}

// listOptions parses the options argument of list() (async and sync KV)
// with workerd's TypeErrors.
func listOptions(rt *goja.Runtime, v goja.Value) ListOptions {
	var o ListOptions
	opts, ok := v.(*goja.Object)
	if !ok {
		return o
	}
	str := func(name string, dst *string, has *bool) {
		if v := opts.Get(name); v != nil && !goja.IsUndefined(v) {
			*dst, *has = v.String(), true
		}
	}
	str("start", &o.Start, &o.HasStart)
	str("startAfter", &o.StartAfter, &o.HasStartAfter)
	str("end", &o.End, &o.HasEnd)
	str("prefix", &o.Prefix, &o.HasPrefix)
	if v := opts.Get("reverse"); v != nil {
		o.Reverse = v.ToBoolean()
	}
	if v := opts.Get("limit"); v != nil && !goja.IsUndefined(v) {
		n := v.ToFloat()
		if !(n >= 1) {
			jserr.Throw(rt, jserr.TypeError("List limit must be positive."))
		}
		if n > math.MaxInt32 {
			n = math.MaxInt32
		}
		o.Limit = int(n)
	}
	if o.HasStart && o.HasStartAfter {
		jserr.Throw(rt, jserr.TypeError("list() cannot be called with both start and startAfter values."))
	}
	return o
}

// storageAPI holds what the storage methods share: the runtime, the
// storage interfaces and the options.
type storageAPI struct {
	w  *Worker
	rt *goja.Runtime
	kv KV
	// listGen counts kv.list() calls: an older iterator is invalidated.
	listGen int
	// bookmarks counts getCurrentBookmark() calls of this instance.
	bookmarks uint32
	sql       SQL
	tx        Transactions
	alarms    Alarms
	o         *StateOptions
}

// txnGuard is checked by the methods of a transaction object before they
// run; nil for ctx.storage itself.
type txnGuard func(method string)

func (a *storageAPI) toKeys(v goja.Value) ([]string, bool) {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ClassName() != "Array" {
		return []string{v.String()}, false
	}
	var keys []string
	a.rt.ForOf(obj, func(k goja.Value) bool {
		keys = append(keys, k.String())
		return true
	})
	return keys, true
}

func (a *storageAPI) newMap() (*goja.Object, goja.Callable, error) {
	m, err := a.rt.New(a.rt.Get("Map"))
	if err != nil {
		return nil, nil, err
	}
	set, _ := goja.AssertFunction(m.Get("set"))
	return m, set, nil
}

// maxGetKeys is workerd's limit on the key-value pairs one get([...])
// returns: 129 keys that exist throw (recorded on workerd 2026-11-17),
// 129 keys of which none exists give an empty Map (the kv-batch case,
// recorded on workerd), so the limit counts the pairs found. put() of an
// object and delete([...]) have none (100 000 keys accepted there).
const maxGetKeys = 128

// maxGetArray bounds the keys one get([...]) reads at all: cellhost's own
// bound (workerd's answer for such an array was not recorded), so that a
// 2**31-long array is refused before 2**31 keys are made.
const maxGetArray = 1 << 20

func (a *storageAPI) get(call goja.FunctionCall) (goja.Value, error) {
	rt := a.rt
	if obj, ok := call.Argument(0).(*goja.Object); ok && obj.ClassName() == "Array" {
		// Checked before the keys are read: a huge array is refused at
		// once.
		if n := obj.Get("length").ToInteger(); n > maxGetArray {
			jserr.Throw(rt, jserr.RangeError(fmt.Sprintf("Maximum number of key value pairs is %d. %d pairs were provided.", maxGetKeys, n)))
		}
	}
	keys, many := a.toKeys(call.Argument(0))
	vals, err := a.kv.Get(keys)
	if err != nil {
		return nil, err
	}
	if !many {
		if vals[0] == nil {
			return goja.Undefined(), nil
		}
		return clone.Deserialize(rt, vals[0])
	}
	idx := make([]int, 0, len(keys))
	for i := range keys {
		if vals[i] != nil {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(x, y int) bool { return keys[idx[x]] < keys[idx[y]] })
	// A key asked for twice is one pair: sorted, its copies are adjacent
	// (the first kept, as the stable sort leaves them in request order).
	idx = slices.CompactFunc(idx, func(x, y int) bool { return keys[x] == keys[y] })
	if len(idx) > maxGetKeys {
		jserr.Throw(rt, jserr.RangeError(fmt.Sprintf("Maximum number of key value pairs is %d. %d pairs were provided.", maxGetKeys, len(idx))))
	}
	m, set, err := a.newMap()
	if err != nil {
		return nil, err
	}
	for _, i := range idx {
		v, err := clone.Deserialize(rt, vals[i])
		if err != nil {
			return nil, err
		}
		if _, err := set(m, rt.ToValue(keys[i]), v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (a *storageAPI) put(call goja.FunctionCall) (goja.Value, error) {
	rt := a.rt
	var keys []string
	var vals [][]byte
	if obj, ok := call.Argument(0).(*goja.Object); ok && len(call.Arguments) < 2 {
		for _, k := range obj.Keys() {
			b, err := clone.Serialize(rt, obj.Get(k))
			if err != nil {
				return nil, err
			}
			keys = append(keys, k)
			vals = append(vals, b)
		}
	} else {
		if goja.IsUndefined(call.Argument(1)) {
			jserr.Throw(rt, jserr.TypeError("put() called with undefined value."))
		}
		b, err := clone.Serialize(rt, call.Argument(1))
		if err != nil {
			return nil, err
		}
		keys = []string{call.Argument(0).String()}
		vals = [][]byte{b}
	}
	return goja.Undefined(), a.kv.Put(keys, vals)
}

func (a *storageAPI) delete(call goja.FunctionCall) (goja.Value, error) {
	keys, many := a.toKeys(call.Argument(0))
	n, err := a.kv.Delete(keys)
	if err != nil {
		return nil, err
	}
	if many {
		return a.rt.ToValue(n), nil
	}
	return a.rt.ToValue(n > 0), nil
}

func (a *storageAPI) list(call goja.FunctionCall) (goja.Value, error) {
	rt := a.rt
	o := listOptions(rt, call.Argument(0))
	entries, err := a.kv.List(o)
	if err != nil {
		return nil, err
	}
	m, set, err := a.newMap()
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		v, err := clone.Deserialize(rt, e.Value)
		if err != nil {
			return nil, err
		}
		if _, err := set(m, rt.ToValue(e.Key), v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (a *storageAPI) deleteAll(goja.FunctionCall) (goja.Value, error) {
	if a.o.deleteAllDeletesAlarm() && a.alarms != nil {
		if err := a.alarms.DeleteAlarm(); err != nil {
			return nil, err
		}
	}
	return goja.Undefined(), a.kv.DeleteAll()
}

// alarmTime converts the argument of setAlarm (a Date or a number of
// milliseconds) as workerd does.
func (a *storageAPI) alarmTime(v goja.Value) int64 {
	rt := a.rt
	var ms float64
	switch x := v.(type) {
	case *goja.Object:
		t, ok, err := clone.Time(rt, x)
		if err != nil {
			jserr.Throw(rt, jserr.New("Error", err.Error()))
		}
		if !ok {
			jserr.Throw(rt, jserr.TypeError("Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'."))
		}
		ms = t
	default:
		switch v.Export().(type) {
		case int64, float64:
			ms = v.ToFloat()
		default:
			jserr.Throw(rt, jserr.TypeError("Failed to execute 'setAlarm' on 'DurableObjectStorage': parameter 1 is not of type 'date'."))
		}
	}
	if math.IsNaN(ms) || math.IsInf(ms, 0) || math.Abs(ms) > 8.64e15 {
		jserr.Throw(rt, jserr.TypeError("The value cannot be converted because it is not a valid Date."))
	}
	return int64(ms)
}

func (a *storageAPI) needAlarms() {
	if a.alarms == nil {
		jserr.Throw(a.rt, jserr.New("Error", "alarms are not available on this storage"))
	}
}

func (a *storageAPI) getAlarm(goja.FunctionCall) (goja.Value, error) {
	a.needAlarms()
	ms, ok, err := a.alarms.GetAlarm()
	if err != nil {
		return nil, err
	}
	if !ok {
		return goja.Null(), nil
	}
	return a.rt.ToValue(ms), nil
}

func (a *storageAPI) setAlarm(call goja.FunctionCall) (goja.Value, error) {
	a.needAlarms()
	ms := a.alarmTime(call.Argument(0))
	return goja.Undefined(), a.alarms.SetAlarm(ms)
}

func (a *storageAPI) deleteAlarm(goja.FunctionCall) (goja.Value, error) {
	a.needAlarms()
	return goja.Undefined(), a.alarms.DeleteAlarm()
}

// getCurrentBookmark() answers a bookmark as workerd's local storage
// does: a counter of the calls in the bookmark format, so that each one
// sorts after the previous (workerd keeps no history to restore either).
func (a *storageAPI) getCurrentBookmark(goja.FunctionCall) (goja.Value, error) {
	b := fmt.Sprintf("00000000-%08x-00000000-%032x", a.bookmarks, 0)
	a.bookmarks++
	return a.rt.ToValue(b), nil
}

// noPITR is getBookmarkForTime() and onNextSessionRestoreBookmark():
// point-in-time recovery is not kept, as on workerd's local storage.
func noPITR(goja.FunctionCall) (goja.Value, error) {
	return nil, jserr.New("Error", "This Durable Object's storage back-end does not implement point-in-time recovery.")
}

// method installs an async storage method on obj: it runs f and returns a
// promise of its result. guard, if set, runs first (a transaction's checks).
func (a *storageAPI) method(obj *goja.Object, name string, guard txnGuard, f func(goja.FunctionCall) (goja.Value, error)) {
	_ = obj.Set(name, func(call goja.FunctionCall) goja.Value {
		return a.w.storageCall(func() (goja.Value, error) {
			if guard != nil {
				guard(name)
			}
			return f(call)
		})
	})
}

// kvMethods installs the KV and alarm methods shared by ctx.storage and a
// transaction's txn object (guard, if set, runs before each).
func (a *storageAPI) kvMethods(obj *goja.Object, guard txnGuard) {
	a.method(obj, "get", guard, a.get)
	a.method(obj, "put", guard, a.put)
	a.method(obj, "delete", guard, a.delete)
	a.method(obj, "list", guard, a.list)
	a.method(obj, "deleteAll", guard, a.deleteAll)
	a.method(obj, "getAlarm", guard, a.getAlarm)
	a.method(obj, "setAlarm", guard, a.setAlarm)
	a.method(obj, "deleteAlarm", guard, a.deleteAlarm)
}

func (w *Worker) newStorage(o StateOptions) *goja.Object {
	rt := w.rt
	a := &storageAPI{w: w, rt: rt, kv: o.Storage, o: &o}
	a.sql, _ = o.Storage.(SQL)
	a.tx, _ = o.Storage.(Transactions)
	a.alarms, _ = o.Storage.(Alarms)
	s := rt.NewObject()
	a.kvMethods(s, nil)
	_ = s.Set("sync", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) { return goja.Undefined(), nil })
	})
	_ = s.Set("transaction", a.transaction)
	_ = s.Set("transactionSync", a.transactionSync)
	a.method(s, "getCurrentBookmark", nil, a.getCurrentBookmark)
	a.method(s, "getBookmarkForTime", nil, noPITR)
	a.method(s, "onNextSessionRestoreBookmark", nil, noPITR)
	_ = s.Set("sql", w.newSQLStorage(a.sql))
	_ = s.Set("kv", a.newSyncKV())
	return s
}

func (a *storageAPI) needTx() {
	if a.tx == nil {
		jserr.Throw(a.rt, jserr.New("Error", "transactions are not available on this storage"))
	}
}

// transactionSync(fn) runs fn in a nested transaction: committed when fn
// returns (even a promise), rolled back when it throws.
func (a *storageAPI) transactionSync(call goja.FunctionCall) goja.Value {
	rt := a.rt
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		jserr.Throw(rt, jserr.TypeError("Failed to execute 'transactionSync' on 'DurableObjectStorage': parameter 1 is not of type 'Function'."))
	}
	a.needTx()
	depth, err := a.tx.BeginTransaction()
	if err != nil {
		jserr.Throw(rt, jserr.New("Error", err.Error()))
	}
	v, err := fn(goja.Undefined())
	if err != nil {
		_ = a.tx.RollbackTransaction(depth)
		// The closure's own error object, as workerd rethrows it.
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex)
		}
		jserr.Throw(rt, a.w.errorOf(err))
	}
	if err := a.tx.CommitTransaction(depth); err != nil {
		jserr.Throw(rt, jserr.New("Error", err.Error()))
	}
	return v
}

// transaction(async txn => ...) runs the closure in a nested transaction
// and returns a promise of its result: committed when the closure's
// promise fulfills, rolled back when it rejects or when it calls
// txn.rollback() (operations on txn then throw).
func (a *storageAPI) transaction(call goja.FunctionCall) goja.Value {
	rt := a.rt
	p, resolve, reject := rt.NewPromise()
	fn, ok := goja.AssertFunction(call.Argument(0))
	if !ok {
		_ = reject(jserr.ToJS(rt, jserr.TypeError("Failed to execute 'transaction' on 'DurableObjectStorage': parameter 1 is not of type 'Function'.")))
		return rt.ToValue(p)
	}
	if a.tx == nil {
		_ = reject(jserr.ToJS(rt, jserr.New("Error", "transactions are not available on this storage")))
		return rt.ToValue(p)
	}
	depth, err := a.tx.BeginTransaction()
	if err != nil {
		_ = reject(jserr.ToJS(rt, jserr.New("Error", err.Error())))
		return rt.ToValue(p)
	}
	rolledBack, ended := false, false
	rollback := func() {
		if rolledBack || ended {
			return
		}
		rolledBack = true
		if err := a.tx.RollbackTransaction(depth); err != nil {
			jserr.Throw(rt, jserr.New("Error", err.Error()))
		}
	}
	guard := func(method string) {
		if rolledBack {
			jserr.Throw(rt, jserr.New("Error", "Cannot "+method+"() on rolled back transaction"))
		}
	}
	txn := rt.NewObject()
	a.kvMethods(txn, guard)
	_ = txn.Set("rollback", func(goja.FunctionCall) goja.Value {
		rollback()
		return goja.Undefined()
	})
	finish := func(commit bool) error {
		if rolledBack || ended {
			ended = true
			return nil
		}
		ended = true
		if commit {
			return a.tx.CommitTransaction(depth)
		}
		rolledBack = true
		return a.tx.RollbackTransaction(depth)
	}
	v, err := fn(goja.Undefined(), txn)
	if err != nil {
		_ = finish(false)
		_ = reject(jserr.ToJS(a.rt, a.w.errorOf(err)))
		return rt.ToValue(p)
	}
	a.w.Settle(v, func(r goja.Value) {
		if err := finish(true); err != nil {
			_ = reject(jserr.ToJS(rt, jserr.New("Error", err.Error())))
			return
		}
		_ = resolve(r)
	}, func(e goja.Value) {
		_ = finish(false)
		_ = reject(e)
	})
	return rt.ToValue(p)
}

// newSyncKV builds ctx.storage.kv, the synchronous KV API over the same
// data: get(key) → value | undefined, put(key, value), delete(key) →
// boolean, list(options) → iterator of [key, value].
func (a *storageAPI) newSyncKV() *goja.Object {
	rt := a.rt
	kv := rt.NewObject()
	sync := func(f func(goja.FunctionCall) (goja.Value, error)) func(goja.FunctionCall) goja.Value {
		return func(call goja.FunctionCall) goja.Value {
			v, err := f(call)
			if err != nil {
				jserr.Throw(rt, err)
			}
			return v
		}
	}
	single := func(call goja.FunctionCall) goja.FunctionCall {
		// The sync API takes one key: an array is converted to a string.
		if o, ok := call.Argument(0).(*goja.Object); ok && o.ClassName() == "Array" {
			call.Arguments[0] = rt.ToValue(o.String())
		}
		return call
	}
	_ = kv.Set("get", sync(func(call goja.FunctionCall) (goja.Value, error) { return a.get(single(call)) }))
	_ = kv.Set("put", sync(func(call goja.FunctionCall) (goja.Value, error) {
		call = single(call)
		if len(call.Arguments) < 2 {
			call.Arguments = append(call.Arguments, goja.Undefined())
		}
		if goja.IsUndefined(call.Argument(1)) {
			jserr.Throw(rt, jserr.TypeError("put() called with undefined value."))
		}
		return a.put(call)
	}))
	_ = kv.Set("delete", sync(func(call goja.FunctionCall) (goja.Value, error) { return a.delete(single(call)) }))
	_ = kv.Set("list", sync(func(call goja.FunctionCall) (goja.Value, error) {
		o := listOptions(rt, call.Argument(0))
		entries, err := a.kv.List(o)
		if err != nil {
			return nil, err
		}
		pairs := make([]any, len(entries))
		for i, e := range entries {
			v, err := clone.Deserialize(rt, e.Value)
			if err != nil {
				return nil, err
			}
			pairs[i] = rt.NewArray(e.Key, v)
		}
		// Only the newest kv.list() iterator may be used (workerd).
		a.listGen++
		gen := a.listGen
		it := rt.NewObject()
		next := 0
		_ = it.Set("next", func() goja.Value {
			if a.listGen != gen {
				panic(jserr.Object(rt, "Error", "kv.list() iterator was invalidated because a new call to kv.list() was started. Only one kv.list() iterator can exist at a time."))
			}
			res := rt.NewObject()
			if next >= len(pairs) {
				_ = res.Set("done", true)
				_ = res.Set("value", goja.Undefined())
				return res
			}
			_ = res.Set("done", false)
			_ = res.Set("value", pairs[next])
			pairs[next] = nil
			next++
			return res
		})
		_ = it.SetSymbol(goja.SymIterator, func(call goja.FunctionCall) goja.Value { return call.This })
		return it, nil
	}))
	return kv
}
