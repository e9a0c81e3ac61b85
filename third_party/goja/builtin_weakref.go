package goja

// cellhost patch: WeakRef and FinalizationRegistry (ES2021), which upstream
// goja lacks and core-js cannot polyfill (they need the garbage collector).
// Built on Go's weak pointers and runtime.AddCleanup, as this fork's
// WeakMap is.
//
//   - A WeakRef holds a weak.Pointer to its target. Targets of WeakRefs
//     created or dereferenced during a job stay strongly held until the
//     runtime's job queue drains (the spec's KeepDuringJob / ClearKeptObjects).
//   - A FinalizationRegistry registers a runtime.AddCleanup on each target.
//     The Go cleanup (on another goroutine) only queues the cell; the
//     callbacks run on the runtime's goroutine when it next leaves JS
//     (Runtime.leave), after the promise jobs, as separate jobs whose
//     exceptions are dropped (V8 reports them to the host; goja has no
//     host hook for it).

import (
	"runtime"
	"sync"
	"weak"
)

const (
	classWeakRef              = "WeakRef"
	classFinalizationRegistry = "FinalizationRegistry"
)

// weakRefState is the per-runtime part of the patch.
type weakRefState struct {
	weakRef, weakRefProto   *Object
	registry, registryProto *Object

	kept []*Object // KeepDuringJob; cleared by Runtime.leave

	mu      sync.Mutex // guards pending (appended to by Go cleanups)
	pending []*finalizationCell
}

func (r *Runtime) weakRefs() *weakRefState {
	if r.weakRefState == nil {
		r.weakRefState = &weakRefState{}
	}
	return r.weakRefState
}

// leaveWeakRefs runs at the end of Runtime.leave: it clears the kept
// objects and runs the cleanup callbacks of collected targets.
func (r *Runtime) leaveWeakRefs() {
	s := r.weakRefState
	if s == nil {
		return
	}
	s.kept = nil
	s.mu.Lock()
	cells := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, c := range cells {
		reg := c.registry.Value()
		if c.removed || reg == nil {
			continue
		}
		reg.removeCell(c)
		_ = r.vm.try(func() {
			reg.cleanup(FunctionCall{This: _undefined, Arguments: []Value{c.held}})
		})
	}
	// Callbacks may have queued promise jobs.
	var jobs []func()
	for len(r.jobQueue) > 0 {
		jobs, r.jobQueue = r.jobQueue, jobs[:0]
		for _, job := range jobs {
			job()
		}
	}
}

type weakRefObject struct {
	baseObject
	target weak.Pointer[Object]
}

func (r *Runtime) builtin_newWeakRef(args []Value, newTarget *Object) *Object {
	if newTarget == nil {
		panic(r.needNew("WeakRef"))
	}
	target, ok := argAt(args, 0).(*Object)
	if !ok {
		panic(r.NewTypeError("WeakRef: invalid target"))
	}
	s := r.weakRefs()
	proto := r.getPrototypeFromCtor(newTarget, s.weakRef, s.weakRefProto)
	o := &Object{runtime: r}
	w := &weakRefObject{target: weak.Make(target)}
	w.class = classObject
	w.val = o
	w.extensible = true
	w.prototype = proto
	o.self = w
	w.init()
	s.kept = append(s.kept, target)
	return o
}

func argAt(args []Value, i int) Value {
	if i < len(args) {
		return args[i]
	}
	return _undefined
}

func (r *Runtime) weakRefProto_deref(call FunctionCall) Value {
	thisObj := r.toObject(call.This)
	w, ok := thisObj.self.(*weakRefObject)
	if !ok {
		panic(r.NewTypeError("Method WeakRef.prototype.deref called on incompatible receiver %s", r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	t := w.target.Value()
	if t == nil {
		return _undefined
	}
	s := r.weakRefs()
	s.kept = append(s.kept, t)
	return t
}

func (r *Runtime) getWeakRef() *Object {
	s := r.weakRefs()
	if s.weakRef == nil {
		s.weakRef = &Object{runtime: r}
		s.weakRefProto = &Object{runtime: r}
		proto := newBaseObjectObj(s.weakRefProto, r.global.ObjectPrototype, classObject)
		s.weakRefProto.self = proto
		s.weakRef.self = r.newNativeConstructOnly(s.weakRef, r.builtin_newWeakRef, s.weakRefProto, "WeakRef", 1)
		proto._putProp("constructor", s.weakRef, true, false, true)
		proto._putProp("deref", r.newNativeFunc(r.weakRefProto_deref, "deref", 0), true, false, true)
		proto._putSym(SymToStringTag, valueProp(asciiString(classWeakRef), false, false, true))
	}
	return s.weakRef
}

// finalizationCell is one registration. It must not reference the target.
type finalizationCell struct {
	registry weak.Pointer[registryObject]
	held     Value
	token    weak.Pointer[Object] // zero: no unregister token
	hasToken bool
	removed  bool // unregistered (runtime goroutine only)
}

type registryObject struct {
	baseObject
	cleanup func(FunctionCall) Value
	cells   []*finalizationCell
}

func (f *registryObject) removeCell(c *finalizationCell) {
	for i, x := range f.cells {
		if x == c {
			f.cells = append(f.cells[:i], f.cells[i+1:]...)
			return
		}
	}
}

func (r *Runtime) builtin_newFinalizationRegistry(args []Value, newTarget *Object) *Object {
	if newTarget == nil {
		panic(r.needNew("FinalizationRegistry"))
	}
	cb := toMethod(argAt(args, 0))
	if cb == nil {
		panic(r.NewTypeError("FinalizationRegistry: cleanup must be callable"))
	}
	s := r.weakRefs()
	proto := r.getPrototypeFromCtor(newTarget, s.registry, s.registryProto)
	o := &Object{runtime: r}
	f := &registryObject{cleanup: cb}
	f.class = classObject
	f.val = o
	f.extensible = true
	f.prototype = proto
	o.self = f
	f.init()
	return o
}

func (r *Runtime) registryOf(call FunctionCall, method string) *registryObject {
	thisObj := r.toObject(call.This)
	f, ok := thisObj.self.(*registryObject)
	if !ok {
		panic(r.NewTypeError("Method FinalizationRegistry.prototype.%s called on incompatible receiver %s", method, r.objectproto_toString(FunctionCall{This: thisObj})))
	}
	return f
}

func (r *Runtime) registryProto_register(call FunctionCall) Value {
	f := r.registryOf(call, "register")
	target, ok := call.Argument(0).(*Object)
	if !ok {
		panic(r.NewTypeError("FinalizationRegistry.prototype.register: invalid target"))
	}
	held := call.Argument(1)
	if held.SameAs(target) {
		panic(r.NewTypeError("FinalizationRegistry.prototype.register: target and holdings must not be same"))
	}
	c := &finalizationCell{registry: weak.Make(f), held: held}
	switch tok := call.Argument(2).(type) {
	case *Object:
		c.token, c.hasToken = weak.Make(tok), true
	default:
		if tok != _undefined {
			panic(r.NewTypeError("FinalizationRegistry.prototype.register: invalid unregister token"))
		}
	}
	f.cells = append(f.cells, c)
	s := r.weakRefs()
	runtime.AddCleanup(target, func(c *finalizationCell) {
		s.mu.Lock()
		s.pending = append(s.pending, c)
		s.mu.Unlock()
	}, c)
	return _undefined
}

func (r *Runtime) registryProto_unregister(call FunctionCall) Value {
	f := r.registryOf(call, "unregister")
	tok, ok := call.Argument(0).(*Object)
	if !ok {
		panic(r.NewTypeError("Invalid unregisterToken ('%s')", call.Argument(0).String()))
	}
	removed := false
	kept := f.cells[:0]
	for _, c := range f.cells {
		if c.hasToken && c.token.Value() == tok {
			c.removed = true
			removed = true
			continue
		}
		kept = append(kept, c)
	}
	for i := len(kept); i < len(f.cells); i++ {
		f.cells[i] = nil
	}
	f.cells = kept
	return valueBool(removed)
}

func (r *Runtime) getFinalizationRegistry() *Object {
	s := r.weakRefs()
	if s.registry == nil {
		s.registry = &Object{runtime: r}
		s.registryProto = &Object{runtime: r}
		proto := newBaseObjectObj(s.registryProto, r.global.ObjectPrototype, classObject)
		s.registryProto.self = proto
		s.registry.self = r.newNativeConstructOnly(s.registry, r.builtin_newFinalizationRegistry, s.registryProto, "FinalizationRegistry", 1)
		proto._putProp("constructor", s.registry, true, false, true)
		proto._putProp("register", r.newNativeFunc(r.registryProto_register, "register", 2), true, false, true)
		proto._putProp("unregister", r.newNativeFunc(r.registryProto_unregister, "unregister", 1), true, false, true)
		proto._putSym(SymToStringTag, valueProp(asciiString(classFinalizationRegistry), false, false, true))
	}
	return s.registry
}
