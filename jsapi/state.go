package jsapi

import (
	"sort"

	"github.com/dop251/goja"
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
	ID        goja.Value // a DurableObjectId (Worker.NewID)
	Storage   KV
	WaitUntil func(goja.Value)
	// Block closes the object's input gate for blockConcurrencyWhile; the
	// returned release reopens it, with the error (a rejection of the
	// callback) that must reset the object, or nil.
	Block func() (release func(err error))
	// Abort resets the object (ctx.abort(reason)).
	Abort func(reason string)
}

// NewState builds the DurableObjectState passed to a Durable Object's
// constructor (ctx).
func (w *Worker) NewState(o StateOptions) *goja.Object {
	rt := w.rt
	st := rt.NewObject()
	_ = st.Set("id", o.ID)
	_ = st.Set("storage", w.newStorage(o.Storage))
	_ = st.Set("waitUntil", func(p goja.Value) {
		if o.WaitUntil != nil {
			o.WaitUntil(p)
		}
	})
	_ = st.Set("blockConcurrencyWhile", func(fn goja.Value) goja.Value {
		p, resolve, reject := rt.NewPromise()
		f, ok := goja.AssertFunction(fn)
		if !ok {
			_ = reject(rt.NewTypeError("blockConcurrencyWhile() requires a function"))
			return rt.ToValue(p)
		}
		release := func(error) {}
		if o.Block != nil {
			release = o.Block()
		}
		v, err := f(goja.Undefined())
		if err != nil {
			err = w.errorOf(err)
			release(err)
			_ = reject(w.ErrorValue(err))
			return rt.ToValue(p)
		}
		w.Settle(v, func(r goja.Value) {
			release(nil)
			_ = resolve(r)
		}, func(e goja.Value) {
			release(w.ScriptErrorOf(e))
			_ = reject(e)
		})
		return rt.ToValue(p)
	})
	_ = st.Set("abort", func(reason goja.Value) {
		msg := "abort() was called"
		if !goja.IsUndefined(reason) {
			msg = reason.String()
		}
		if o.Abort != nil {
			o.Abort(msg)
		}
		panic(NewError(rt, "Error", msg))
	})
	return st
}

// storageCall runs f and returns a promise of its result; a Go error or a JS
// exception rejects the promise (storage methods never throw synchronously).
func (w *Worker) storageCall(f func() (goja.Value, error)) goja.Value {
	rt := w.rt
	p, resolve, reject := rt.NewPromise()
	v, err := w.catch(f)
	if err != nil {
		_ = reject(w.ErrorValue(err))
	} else {
		_ = resolve(v)
	}
	return rt.ToValue(p)
}

// catch runs f, turning a JS exception thrown inside it (a panic with a
// goja value, as goja's helpers raise) into an error.
func (w *Worker) catch(f func() (goja.Value, error)) (goja.Value, error) { return catchThrow(f) }

func catchThrow[T any](f func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			switch x := r.(type) {
			case *goja.Exception:
				err = x
			case goja.Value:
				err = errValue{x}
			default:
				panic(r)
			}
		}
	}()
	return f()
}

// errValue carries a thrown JS value as a Go error.
type errValue struct{ v goja.Value }

func (e errValue) Error() string { return e.v.String() }

func (w *Worker) newStorage(kv KV) *goja.Object {
	rt := w.rt
	s := rt.NewObject()
	toKeys := func(v goja.Value) ([]string, bool) {
		obj, ok := v.(*goja.Object)
		if !ok || obj.ClassName() != "Array" {
			return []string{v.String()}, false
		}
		var keys []string
		rt.ForOf(obj, func(k goja.Value) bool {
			keys = append(keys, k.String())
			return true
		})
		return keys, true
	}
	_ = s.Set("get", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) {
			keys, many := toKeys(call.Argument(0))
			vals, err := kv.Get(keys)
			if err != nil {
				return nil, err
			}
			if !many {
				if vals[0] == nil {
					return goja.Undefined(), nil
				}
				return Deserialize(rt, vals[0])
			}
			idx := make([]int, 0, len(keys))
			for i := range keys {
				if vals[i] != nil {
					idx = append(idx, i)
				}
			}
			sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
			m, err := rt.New(rt.Get("Map"))
			if err != nil {
				return nil, err
			}
			set, _ := goja.AssertFunction(m.Get("set"))
			seen := map[string]bool{}
			for _, i := range idx {
				if seen[keys[i]] {
					continue
				}
				seen[keys[i]] = true
				v, err := Deserialize(rt, vals[i])
				if err != nil {
					return nil, err
				}
				if _, err := set(m, rt.ToValue(keys[i]), v); err != nil {
					return nil, err
				}
			}
			return m, nil
		})
	})
	_ = s.Set("put", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) {
			var keys []string
			var vals [][]byte
			if obj, ok := call.Argument(0).(*goja.Object); ok && len(call.Arguments) < 2 {
				for _, k := range obj.Keys() {
					b, err := Serialize(rt, obj.Get(k))
					if err != nil {
						return nil, err
					}
					keys = append(keys, k)
					vals = append(vals, b)
				}
			} else {
				if goja.IsUndefined(call.Argument(1)) {
					panic(rt.NewTypeError("put() called with undefined value."))
				}
				b, err := Serialize(rt, call.Argument(1))
				if err != nil {
					return nil, err
				}
				keys = []string{call.Argument(0).String()}
				vals = [][]byte{b}
			}
			return goja.Undefined(), kv.Put(keys, vals)
		})
	})
	_ = s.Set("delete", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) {
			keys, many := toKeys(call.Argument(0))
			n, err := kv.Delete(keys)
			if err != nil {
				return nil, err
			}
			if many {
				return rt.ToValue(n), nil
			}
			return rt.ToValue(n > 0), nil
		})
	})
	_ = s.Set("list", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) {
			var o ListOptions
			if opts, ok := call.Argument(0).(*goja.Object); ok {
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
					if n := v.ToFloat(); !(n >= 1) {
						panic(rt.NewTypeError("List limit must be positive."))
					}
					o.Limit = int(v.ToInteger())
				}
				if o.HasStart && o.HasStartAfter {
					panic(rt.NewTypeError("list() cannot be called with both start and startAfter values."))
				}
			}
			entries, err := kv.List(o)
			if err != nil {
				return nil, err
			}
			m, err := rt.New(rt.Get("Map"))
			if err != nil {
				return nil, err
			}
			set, _ := goja.AssertFunction(m.Get("set"))
			for _, e := range entries {
				v, err := Deserialize(rt, e.Value)
				if err != nil {
					return nil, err
				}
				if _, err := set(m, rt.ToValue(e.Key), v); err != nil {
					return nil, err
				}
			}
			return m, nil
		})
	})
	_ = s.Set("deleteAll", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) {
			return goja.Undefined(), kv.DeleteAll()
		})
	})
	_ = s.Set("sync", func(call goja.FunctionCall) goja.Value {
		return w.storageCall(func() (goja.Value, error) { return goja.Undefined(), nil })
	})
	return s
}
