package jsapi

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/jserr"
)

// A Durable Object stub is a goja dynamic object backed by stubObject
// rather than a JS Proxy: a worker makes one on every getByName, and a
// Proxy with its handler, plus the WeakMap entry its fetch needed to find
// its target, cost several times more in goja than one Go value. What JS
// sees is the same (do.js, DurableObjectStub): own properties id and name,
// the prototype's fetch, and an RPC method for any other string property
// except "then".
type stubObject struct {
	w     *Worker
	ns    Namespace
	nsObj *goja.Object
	id    goja.Value
	hex   string
	name  string       // "" when the id has no name
	nameV goja.Value   // the id's name, or undefined
	obj   *goja.Object // the stub as JS sees it
	// broken is the error of a call that reset the object: a stub stays
	// broken once its object was reset, as on workerd (a new stub works).
	broken error
	// reached is set by the stub's first call, with the object's reset
	// count then (objectResets): a reset after it breaks the stub.
	reached   bool
	resetSeen uint64
	// Properties the program set on the stub (a stub is an ordinary
	// object in that respect), in the order they were added.
	extra     map[string]goja.Value
	extraKeys []string
}

var _ goja.DynamicObject = (*stubObject)(nil)

// stubSetup receives DurableObjectStub.prototype and the RPC method maker
// from do.js.
func (w *Worker) stubSetup(proto *goja.Object, rpc goja.Value) {
	w.stubProto = proto
	w.stubRPC, _ = goja.AssertFunction(rpc)
}

// makeStub is native.makeStub(nsObj, id, hex, name).
func (w *Worker) makeStub(call goja.FunctionCall) goja.Value {
	nsObj, _ := call.Argument(0).(*goja.Object)
	st := &stubObject{w: w, ns: w.nsObjs[nsObj], nsObj: nsObj, id: call.Argument(1), hex: call.Argument(2).String(), nameV: call.Argument(3)}
	if !goja.IsUndefined(st.nameV) {
		st.name = st.nameV.String()
	}
	obj := w.rt.NewDynamicObject(st)
	_ = obj.SetPrototype(w.stubProto)
	st.obj = obj
	return obj
}

// stubOf returns the stub v is, throwing workerd's TypeError when v is not
// one (a stub's fetch called with another `this`).
func (w *Worker) stubOf(v goja.Value) *stubObject {
	if obj, ok := v.(*goja.Object); ok && obj.Prototype() == w.stubProto { // Export walks an ordinary object
		if st, ok := obj.Export().(*stubObject); ok {
			return st
		}
	}
	jserr.Throw(w.rt, jserr.TypeError("Illegal invocation: function called with incorrect `this` reference. See https://developers.cloudflare.com/workers/observability/errors/#illegal-invocation-errors for details."))
	return nil
}

func (s *stubObject) Get(key string) goja.Value {
	switch key {
	case "id":
		return s.id
	case "name":
		return s.nameV
	case "then":
		return nil // from the prototype chain: undefined
	}
	if v, ok := s.extra[key]; ok {
		return v
	}
	if s.w.stubProto.Get(key) != nil {
		return nil // the prototype's (fetch, toString, ...)
	}
	v, err := s.w.stubRPC(goja.Undefined(), s.obj, s.w.rt.ToValue(key))
	if err != nil {
		panic(err)
	}
	return v
}

// Set adds or replaces a property of the program's; id and name are
// read-only.
func (s *stubObject) Set(key string, v goja.Value) bool {
	if key == "id" || key == "name" {
		return false
	}
	if s.extra == nil {
		s.extra = map[string]goja.Value{}
	}
	if _, ok := s.extra[key]; !ok {
		s.extraKeys = append(s.extraKeys, key)
	}
	s.extra[key] = v
	return true
}

func (s *stubObject) Has(key string) bool {
	if key == "id" || key == "name" {
		return true
	}
	_, ok := s.extra[key]
	return ok
}

func (s *stubObject) Delete(key string) bool {
	if key == "id" || key == "name" {
		return false
	}
	if _, ok := s.extra[key]; ok {
		delete(s.extra, key)
		for i, k := range s.extraKeys {
			if k == key {
				s.extraKeys = append(s.extraKeys[:i], s.extraKeys[i+1:]...)
				break
			}
		}
	}
	return true
}

func (s *stubObject) Keys() []string {
	return append([]string{"id", "name"}, s.extraKeys...)
}

// settled records the outcome of a call through the stub: an error that
// says the object was reset breaks the stub.
func (s *stubObject) settled(err error) {
	var se *ScriptError
	if s.broken == nil && errors.As(err, &se) {
		switch {
		case se.Reset:
			s.broken = err
		case se.Broken:
			// Later calls fail with the error as the object raised it
			// (workerd marks only the first one remote).
			b := *se
			b.Remote = false
			s.broken = &b
		}
	}
}

// objectResets records, per object id, the instance resets of this process
// that broke stubs (ctx.abort, a failed blockConcurrencyWhile, ...), so
// that a stub of any runtime that reached the object before fails with
// the reset's error, as on workerd, even when another path (an RpcTarget
// the object returned) caused it. Bounded: past maxObjectResets the oldest
// half is forgotten.
var objectResets = struct {
	sync.Mutex
	m   map[string]objectReset
	seq uint64
	any atomic.Bool // a reset was recorded: stub calls look (else they skip the lock)
}{m: map[string]objectReset{}}

type objectReset struct {
	seq uint64
	err error
}

const maxObjectResets = 4096

// objectWasReset records a reset of object id, failing with err.
func objectWasReset(id string, err error) {
	if id == "" {
		return
	}
	objectResets.Lock()
	defer objectResets.Unlock()
	objectResets.seq++
	objectResets.any.Store(true)
	if len(objectResets.m) >= maxObjectResets {
		cut := objectResets.seq - maxObjectResets/2
		for k, r := range objectResets.m {
			if r.seq < cut {
				delete(objectResets.m, k)
			}
		}
	}
	objectResets.m[id] = objectReset{seq: objectResets.seq, err: err}
}

// checkReset returns the error a call through the stub fails with: the
// one that broke it, or the reset of its object since its first call.
func (s *stubObject) checkReset() error {
	if s.broken != nil {
		return s.broken
	}
	if !objectResets.any.Load() {
		s.reached = true // resetSeen 0: every later reset is newer
		return nil
	}
	objectResets.Lock()
	r, ok := objectResets.m[s.hex]
	objectResets.Unlock()
	if !s.reached {
		s.reached = true
		if ok {
			s.resetSeen = r.seq
		}
		return nil
	}
	if ok && r.seq > s.resetSeen {
		s.broken = r.err
		return s.broken
	}
	return nil
}
