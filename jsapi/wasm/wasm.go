package wasm

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/cellhost/cellhost/third_party/goja"
	"github.com/cellhost/cellhost/third_party/wazero"
	"github.com/cellhost/cellhost/third_party/wazero/api"
	"github.com/cellhost/cellhost/third_party/wazero/experimental"
	wglobal "github.com/cellhost/cellhost/third_party/wazero/experimental/global"
	wtable "github.com/cellhost/cellhost/third_party/wazero/experimental/table"
	"github.com/cellhost/cellhost/third_party/wazero/sys"
)

//go:embed wasm.js
var wasmJS string

var wasmProgram = goja.MustCompile("cellhost:wasm", wasmJS, true)

// BundleGlobal is the function a bundle calls for each CompiledWasm module
// it carries (jsapi's module rules): it takes the module's hash (Hash) and
// returns the WebAssembly.Module of that module among the bundle's own
// (Options.Modules, read from the script's text before it ran: see
// bundled.go). It takes no bytes: code that calls it can reach only what
// `import` reaches. Other bytes compile only where Options.AllowCompile
// says (workerd's rule: module scope, from compatibility date 2025-06-01).
const BundleGlobal = "__cellhost_wasm_module"

// Options configures Install.
type Options struct {
	// MemoryLimit bounds the wasm memory of one object (its memories'
	// bytes; 0: no bound). A memory.grow past it fails (returns -1 in
	// wasm, a RangeError from Memory.grow), as an allocation fails in V8;
	// wasm memory is Go heap, so it also counts in the host's memory
	// watchdog like any allocation of the object.
	MemoryLimit int64
	// CurrentScope names the object whose code runs ("" at module scope):
	// the memory a module instance makes counts against that object.
	CurrentScope func() string
	// OnMemoryLimit is called when an object's wasm memory would pass
	// MemoryLimit (the growth is refused): the host interrupts and resets
	// the object, as the memory watchdog does.
	OnMemoryLimit func()
	// OnLostModuleScope is called when a module instance made at module
	// scope (shared by the objects of the runtime) was stopped by an
	// interrupt: wazero closes a module it stops, so the runtime's module
	// scope is broken and must be evaluated again (the host replaces the
	// runtime, as after any uncatchable error).
	OnLostModuleScope func()
	// Modules are the bundle's CompiledWasm modules by Hash
	// (BundledModules): all that BundleGlobal can give.
	Modules map[string]*Compiled
	// AllowCompile reports whether code may compile bytes now (new
	// WebAssembly.Module(bytes), WebAssembly.compile and instantiate of
	// bytes); nil: never. workerd allows it only where it allows eval: at
	// startup with allow_eval_during_startup (the default from 2025-06-01),
	// always with allow_insecure_inefficient_logged_eval (its WPT runs).
	AllowCompile func() bool
}

type state struct {
	rt *goja.Runtime
	o  Options

	compileErr, linkErr, runtimeErr       *goja.Object
	mkModule, mkMemory, mkGlobal, mkTable goja.Callable
	handleOf, isMemory, isGlobal, isTable goja.Callable
	asIntN, freeze, stamp                 goja.Callable

	calls   *calls
	scopes  map[string][]weak.Pointer[modules] // by the object whose code made them
	budgets map[string]*budget
	// mems finds the wrapper of a memory (its identity in JS) while JS
	// holds it; live are the memories whose ArrayBuffer JS may hold. Weak:
	// a wrapper JS dropped lets its instance be closed (instance.cleanup).
	mems    map[api.Memory]weak.Pointer[memory]
	live    []weak.Pointer[memory]
	externs externTable
	// refObjs finds the JS function of a funcref JS put in a table or read
	// from one, so Table.get gives the same object back.
	refObjs map[uint64]weak.Pointer[goja.Object]
	// instantiating counts instantiations running their start function;
	// converting the JS->wasm calls converting their arguments (externref
	// handles made but not yet held by wasm): no sweep of externs then.
	instantiating, converting int
}

var seq atomic.Uint64

func uniqueName(prefix string) string {
	return prefix + strconv.FormatUint(seq.Add(1), 10)
}

// Scopes closes what a runtime's code made (the host, when it replaces
// the runtime).
type Scopes struct{ s *state }

// CloseAll closes everything the runtime's code made, module scope's too
// (the host replaces the runtime).
func (c Scopes) CloseAll() {
	if c.s == nil {
		return
	}
	for scope := range c.s.scopes {
		c.s.CloseScope(scope)
	}
}

// Install defines the WebAssembly namespace and BundleGlobal on rt.
func Install(rt *goja.Runtime, o Options) (Scopes, error) {
	s, err := install(rt, o)
	return Scopes{s}, err
}

func install(rt *goja.Runtime, o Options) (*state, error) {
	s := &state{rt: rt, o: o, budgets: map[string]*budget{}, mems: map[api.Memory]weak.Pointer[memory]{}, calls: &calls{}, scopes: map[string][]weak.Pointer[modules]{}}
	rt.SetInterruptHook(s.calls.interrupted)
	if installHook != nil {
		installHook(s)
	}
	fv, err := rt.RunProgram(wasmProgram)
	if err != nil {
		return nil, err
	}
	f, _ := goja.AssertFunction(fv)
	n := rt.NewObject()
	set := func(k string, v any) { _ = n.Set(k, v) }
	set("setup", func(m *goja.Object) {
		s.compileErr = m.Get("CompileError").ToObject(rt)
		s.linkErr = m.Get("LinkError").ToObject(rt)
		s.runtimeErr = m.Get("RuntimeError").ToObject(rt)
		fn := func(k string) goja.Callable { c, _ := goja.AssertFunction(m.Get(k)); return c }
		s.mkModule, s.mkMemory, s.mkGlobal, s.mkTable = fn("module"), fn("memory"), fn("global"), fn("table")
		s.handleOf, s.isMemory, s.isGlobal, s.isTable = fn("handleOf"), fn("isMemory"), fn("isGlobal"), fn("isTable")
		s.asIntN, s.freeze, s.stamp = fn("asIntN"), fn("freeze"), fn("stamp")
	})
	set("validate", func(b goja.Value) bool { return Validate(s.bytes(b)) })
	set("allowCompile", func() bool { return o.AllowCompile != nil && o.AllowCompile() })
	set("compile", func(b goja.Value, fn string) *Compiled {
		if o.AllowCompile == nil || !o.AllowCompile() {
			panic(s.newError(s.compileErr, fn+": Wasm code generation disallowed by embedder"))
		}
		c, err := Compile(append([]byte(nil), s.bytes(b)...))
		if err != nil {
			panic(s.newError(s.compileErr, fn+": "+err.Error()))
		}
		return c
	})
	set("moduleExports", s.moduleExports)
	set("moduleImports", s.moduleImports)
	set("moduleCustomSections", s.moduleCustomSections)
	set("instantiate", s.instantiate)
	set("newMemory", s.newMemory)
	set("memoryBuffer", func(h *memory) goja.Value { return s.buffer(h) })
	set("memoryGrow", s.memoryGrow)
	set("bind", func(h goja.Value, obj goja.Value) {
		switch x := h.Export().(type) {
		case *memory:
			x.obj = obj
		case *global:
			x.obj = obj
		}
	})
	set("newGlobal", s.newGlobal)
	set("globalGet", func(g *global) goja.Value { return s.fromWasm(g.vt, g.g.Get()) })
	set("globalSet", s.globalSet)
	set("tableGet", s.tableGet)
	set("newTable", s.newTable)
	set("tableLength", s.tableLength)
	set("tableGrow", s.tableGrow)
	set("tableSet", s.tableSet)
	if _, err := f(goja.Undefined(), n); err != nil {
		return nil, err
	}
	bundled := rt.ToValue(func(hash string) goja.Value {
		c := o.Modules[hash]
		if c == nil {
			panic(rt.NewTypeError("%s: the bundle carries no WebAssembly module %.64q", BundleGlobal, hash))
		}
		v, _ := s.mkModule(goja.Undefined(), rt.ToValue(c))
		return v
	})
	return s, rt.GlobalObject().DefineDataProperty(BundleGlobal, bundled, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

func (s *state) newError(c *goja.Object, msg string) *goja.Object {
	o, err := s.rt.New(c, s.rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return o
}

func (s *state) bytes(v goja.Value) []byte {
	switch x := v.Export().(type) {
	case goja.ArrayBuffer:
		return x.Bytes()
	case []byte:
		return x
	}
	if b, ok := v.Export().([]byte); ok {
		return b
	}
	panic(s.rt.NewTypeError("Argument 0 must be a buffer source"))
}

func (s *state) scope() string {
	if s.o.CurrentScope != nil {
		return s.o.CurrentScope()
	}
	return ""
}

func (s *state) budgetFor() *budget {
	scope := s.scope()
	b := s.budgets[scope]
	if b == nil {
		b = &budget{exceeded: s.o.OnMemoryLimit}
		if s.o.MemoryLimit > 0 {
			b.limit = uint64(s.o.MemoryLimit)
		}
		s.budgets[scope] = b
	}
	return b
}

// interruptCtx is done when the goja runtime is interrupted (cpu_ms, the
// memory watchdog): wazero then stops the call at the next function entry
// or loop head (WithCloseOnContextDone).
type interruptCtx struct {
	context.Context
	done <-chan struct{}
}

func (c interruptCtx) Done() <-chan struct{} { return c.done }
func (c interruptCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

func (s *state) ctx(base context.Context) context.Context {
	return interruptCtx{Context: base, done: s.rt.InterruptDone()}
}

func kindName(k api.ExternType) string { return api.ExternTypeName(k) }

func (s *state) moduleExports(c *Compiled) goja.Value {
	out := make([]any, len(c.exports))
	for i, e := range c.exports {
		out[i] = map[string]any{"name": e.Name, "kind": e.Kind}
	}
	return s.rt.ToValue(s.rt.NewArray(out...))
}

func (s *state) moduleImports(c *Compiled) goja.Value {
	out := make([]any, len(c.imports))
	for i, e := range c.imports {
		out[i] = map[string]any{"module": e.Module, "name": e.Name, "kind": e.Kind}
	}
	return s.rt.NewArray(out...)
}

func (s *state) moduleCustomSections(c *Compiled, name string) goja.Value {
	var out []any
	for _, cs := range c.custom {
		if cs.Name() == name {
			out = append(out, s.rt.NewArrayBuffer(append([]byte(nil), cs.Data()...)))
		}
	}
	return s.rt.NewArray(out...)
}

// memory is a WebAssembly.Memory: an exported memory of a module instance
// (one made by new WebAssembly.Memory is the only export of a module made
// for it).
type memory struct {
	inst   *instance // keeps the instance open while JS holds the memory
	mod    api.Module
	export string
	mem    api.Memory
	obj    goja.Value
	ab     goja.ArrayBuffer
	abObj  goja.Value
	size   uint32
	min    uint32
	max    uint32
	hasMax bool
}

type global struct {
	inst    *instance
	mod     api.Module
	export  string
	g       api.Global
	vt      api.ValueType
	mutable bool
	obj     goja.Value
}

// buffer is the memory's ArrayBuffer: the wasm memory's own bytes, not a
// copy. A new one after the memory grew; the old one is detached then, as
// in V8, so that code that caches views (wasm-bindgen's getUint8Memory)
// sees byteLength 0 and makes new ones.
func (s *state) buffer(m *memory) goja.Value {
	size := m.mem.Size()
	if m.abObj != nil && size == m.size && !m.ab.Detached() {
		return m.abObj
	}
	m.detach()
	b, _ := m.mem.Read(0, size)
	m.ab = s.rt.NewArrayBuffer(b)
	m.abObj = s.rt.ToValue(m.ab)
	m.size = size
	s.live = append(s.live, weak.Make(m))
	return m.abObj
}

func (m *memory) detach() {
	if m.abObj != nil {
		m.ab.Detach()
		m.abObj = nil
	}
}

// refresh detaches the buffers of memories that grew, after any run of wasm
// code (a call returned, or wasm calls out to JS).
func (s *state) refresh() {
	if len(s.live) == 0 {
		return
	}
	kept := s.live[:0]
	for _, w := range s.live {
		m := w.Value()
		if m == nil || m.abObj == nil {
			continue
		}
		if m.mem.Size() != m.size {
			m.detach()
			continue
		}
		kept = append(kept, w)
	}
	clear(s.live[len(kept):])
	s.live = kept
}

func (s *state) memoryGrow(m *memory, delta uint32) uint32 {
	old, ok := m.mem.Grow(delta)
	if !ok {
		s.throwRange("WebAssembly.Memory.grow(): Maximum memory size exceeded")
	}
	m.detach()
	s.refresh()
	return old
}

func (s *state) throwRange(msg string) {
	ctor := s.rt.GlobalObject().Get("RangeError").ToObject(s.rt)
	panic(s.newError(ctor, msg))
}

func (s *state) memoryOf(inst *instance, mod api.Module, export string, mem api.Memory, min, max uint32, hasMax bool) *memory {
	if m := s.mems[mem].Value(); m != nil && m.obj != nil {
		return m
	}
	m := &memory{inst: inst, mod: mod, export: export, mem: mem, min: min, max: max, hasMax: hasMax}
	m.obj, _ = s.mkMemory(goja.Undefined(), s.rt.ToValue(m))
	s.remember(mem, m)
	return m
}

func (s *state) remember(mem api.Memory, m *memory) {
	if len(s.mems) >= 64 && len(s.mems)&(len(s.mems)-1) == 0 {
		for k, w := range s.mems {
			if w.Value() == nil {
				delete(s.mems, k)
			}
		}
	}
	s.mems[mem] = weak.Make(m)
}

// instance is the wazero modules behind a WebAssembly.Instance (its module
// and the ones made to link it): closed once JS can no longer reach the
// instance, its exports or its memories, which returns their memory to the
// object's budget. (A module whose JS imports reach back to its exports,
// as most libraries' glue does, lives as long as the runtime.)
type instance struct {
	mods  *modules
	keep  []any // the memories and globals from JS it imported
	scope string
}

// modules are the wazero modules of an instance, closed once: by the
// cleanup of an instance JS can no longer reach (its JS imports are held
// weakly from wazero's side, jsFunc, so an instance whose imports reach
// its own exports is collected too), or with the whole runtime
// (Scopes.CloseAll).
type modules struct {
	mu     sync.Mutex
	list   []api.Module
	closed bool
}

// closeMu serialises closing wazero modules across the process: modules
// of different instances can share a memory (a memory made in JS is
// re-exported by a glue module and imported by each instance), and
// wazero's ModuleInstance.Close frees the memory's buffer without a lock,
// so two cleanups closing two such modules at once raced on it (seen by
// the race detector in testjs).
var closeMu sync.Mutex

func closeModule(mod api.Module) {
	closeMu.Lock()
	defer closeMu.Unlock()
	_ = mod.Close(context.Background())
}

func (m *modules) add(mod api.Module) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		closeModule(mod)
		return
	}
	m.list = append(m.list, mod)
	openModules.Add(1)
}

func (m *modules) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	for _, mod := range m.list {
		closeModule(mod)
	}
	openModules.Add(-int64(len(m.list)))
	m.list = nil
}

// openModules counts the wazero modules instances hold open (tests: an
// object that went away leaves none behind).
var openModules atomic.Int64

// OpenModules is how many wazero modules of WebAssembly instances,
// memories, globals and tables are open in this process.
func OpenModules() int64 { return openModules.Load() }

func (s *state) newInstance(mods []api.Module, keep []any, scope string) *instance {
	ms := &modules{}
	for _, m := range mods {
		ms.add(m)
	}
	inst := &instance{mods: ms, keep: keep, scope: scope}
	runtime.AddCleanup(inst, (*modules).close, ms)
	{
		l := s.scopes[scope]
		if len(l) >= 16 && len(l)&(len(l)-1) == 0 { // drop the collected now and then
			kept := l[:0]
			for _, w := range l {
				if w.Value() != nil {
					kept = append(kept, w)
				}
			}
			clear(l[len(kept):])
			l = kept
		}
		s.scopes[scope] = append(l, weak.Make(ms))
	}
	return inst
}

// CloseScope closes the WebAssembly instances (and memories, globals,
// tables) the code of the object scope made. Their memory returns to the
// object's budget. Not called when one object goes away: an instance an
// object's code made may be cached at module level and used by others
// (sql.js's initSqlJs); collection frees those no one reaches.
func (s *state) CloseScope(scope string) {
	for _, w := range s.scopes[scope] {
		if ms := w.Value(); ms != nil {
			ms.close()
		}
	}
	delete(s.scopes, scope)
	delete(s.budgets, scope)
}

func (s *state) newMemory(initial uint32, maximum goja.Value) goja.Value {
	max, hasMax := uint32(65536), false
	if maximum != nil && !goja.IsUndefined(maximum) {
		max, hasMax = uint32(maximum.ToInteger()), true
	}
	c, err := Compile(memoryModule(initial, max, hasMax))
	if err != nil {
		panic(s.rt.NewGoError(err))
	}
	ctx := experimental.WithMemoryAllocator(context.Background(), allocator{s.budgetFor()})
	mod, err := theEngine().InstantiateModule(ctx, c.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		s.throwRange("WebAssembly.Memory(): could not allocate memory")
	}
	mem := mod.ExportedMemory("m")
	m := &memory{inst: s.newInstance([]api.Module{mod}, nil, s.scope()), mod: mod, export: "m", mem: mem, min: initial, max: max, hasMax: hasMax}
	s.remember(mem, m)
	return s.rt.ToValue(m)
}

func (s *state) newGlobal(vt api.ValueType, mutable bool, v goja.Value) goja.Value {
	var bits uint64
	switch {
	case vt == api.ValueTypeExternref:
		// A missing value is undefined (the JS API's DefaultValue).
		if v == nil {
			v = goja.Undefined()
		}
		s.maybeSweep()
		bits = s.toWasm(vt, v)
	case v != nil && !goja.IsUndefined(v):
		bits = s.toWasm(vt, v)
	}
	c, err := Compile(globalModule(vt, mutable, bits))
	if err != nil {
		panic(s.rt.NewGoError(err))
	}
	mod, err := theEngine().InstantiateModule(context.Background(), c.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	if err != nil {
		panic(s.rt.NewGoError(err))
	}
	if vt == api.ValueTypeExternref && bits != 0 {
		// No constant expression makes a handle of ours (globalModule
		// starts it null); wazero patch 4 sets it, immutable or not.
		wglobal.Set(mod, 0, bits)
	}
	return s.rt.ToValue(&global{inst: s.newInstance([]api.Module{mod}, nil, s.scope()), mod: mod, export: "g", g: mod.ExportedGlobal("g"), vt: vt, mutable: mutable})
}

func (s *state) globalSet(g *global, v goja.Value) {
	s.maybeSweep()
	mg, ok := g.g.(api.MutableGlobal)
	if !g.mutable || !ok {
		panic(s.rt.NewTypeError("set WebAssembly.Global.value): Can't set the value of an immutable global."))
	}
	mg.Set(s.toWasm(g.vt, v))
}

// toWasm is ToWebAssemblyValue.
func (s *state) toWasm(t api.ValueType, v goja.Value) uint64 {
	if bits, ok := toWasmDirect(t, v); ok {
		return bits
	}
	switch t {
	case api.ValueTypeI32:
		return uint64(toUint32(v.ToFloat()))
	case api.ValueTypeI64:
		b, err := s.asIntN(goja.Undefined(), v)
		if err != nil {
			panic(err)
		}
		bi, _ := b.Export().(*big.Int)
		if bi == nil {
			return 0
		}
		return uint64(bi.Int64())
	case api.ValueTypeF32:
		return api.EncodeF32(float32(v.ToFloat()))
	case api.ValueTypeF64:
		return api.EncodeF64(v.ToFloat())
	case api.ValueTypeExternref:
		if goja.IsNull(v) {
			return 0
		}
		return s.externs.handle(v)
	}
	return 0
}

// toWasmDirect is toWasm for the values whose conversion cannot run script
// code or throw (a number for i32, f32 and f64, a BigInt for i64): the hot
// path of every call across the boundary, done without calling into JS
// (BigInt.asIntN) and, for an import's result, without setting up a try.
func toWasmDirect(t api.ValueType, v goja.Value) (uint64, bool) {
	switch t {
	case api.ValueTypeI32:
		if goja.IsNumber(v) {
			return uint64(toUint32(v.ToFloat())), true
		}
	case api.ValueTypeF32:
		if goja.IsNumber(v) {
			return api.EncodeF32(float32(v.ToFloat())), true
		}
	case api.ValueTypeF64:
		if goja.IsNumber(v) {
			return api.EncodeF64(v.ToFloat()), true
		}
	case api.ValueTypeI64:
		if goja.IsBigInt(v) {
			bi, _ := v.Export().(*big.Int)
			if bi.IsInt64() {
				return uint64(bi.Int64()), true
			}
			// BigInt.asIntN(64, v): the low 64 bits of the two's
			// complement (big.Int's And works in two's complement).
			return new(big.Int).And(bi, maxUint64).Uint64(), true
		}
	}
	return 0, false
}

var maxUint64 = new(big.Int).SetUint64(math.MaxUint64)

// toUint32 is ECMAScript's ToUint32 of a number.
func toUint32(f float64) uint32 {
	if f > -2147483649 && f < 4294967296 { // truncation to int64 is exact
		return uint32(int64(f))
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	f = math.Mod(math.Trunc(f), 4294967296)
	if f < 0 {
		f += 4294967296
	}
	return uint32(f)
}

func (s *state) fromWasm(t api.ValueType, v uint64) goja.Value {
	switch t {
	case api.ValueTypeI32:
		return goja.IntValue(int64(int32(uint32(v))))
	case api.ValueTypeI64:
		return s.rt.ToValue(big.NewInt(int64(v)))
	case api.ValueTypeF32:
		return goja.FloatValue(float64(api.DecodeF32(v)))
	case api.ValueTypeF64:
		return goja.FloatValue(api.DecodeF64(v))
	case api.ValueTypeExternref:
		return s.externs.value(v)
	}
	return goja.Null()
}

// throwCallError turns what a wasm call returned into the JS exception V8
// throws: a JS exception of an import passes through unchanged, a trap is a
// RuntimeError with V8's message, a stack overflow a RangeError.
func (s *state) throwCallError(err error, inst *instance) goja.Value {
	var ex *goja.Exception
	if errors.As(err, &ex) {
		panic(ex)
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		panic(ie)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		select {
		case <-s.rt.InterruptDone():
			// Stopped by the interrupt (cpu_ms, memory): the VM throws it
			// at its next instruction. The module is closed now; one that
			// the whole runtime shares is lost with it.
			if inst != nil && inst.scope == "" && s.o.OnLostModuleScope != nil {
				s.o.OnLostModuleScope()
			}
			return goja.Undefined()
		default:
		}
		panic(s.newError(s.runtimeErr, "the WebAssembly instance was stopped by a limit (cpu_ms or memory) and cannot run again"))
	}
	var ge goja.Value
	if errors.As(err, &ge) {
		panic(ge)
	}
	msg, isRange := trapMessage(err)
	if isRange {
		s.throwRange(msg)
	}
	panic(s.newError(s.runtimeErr, msg))
}

// jsThrow carries a value a JS import threw through wazero.
type jsThrow struct{ v goja.Value }

func (j jsThrow) Error() string { return j.v.String() }

// instantiate links c with importObject and instantiates it; fn names the
// API for messages ("WebAssembly.Instance()").
func (s *state) instantiate(c *Compiled, importObject goja.Value, fn string) goja.Value {
	rt := s.rt
	var imp *goja.Object
	if importObject != nil && !goja.IsUndefined(importObject) && !goja.IsNull(importObject) {
		imp, _ = importObject.(*goja.Object)
	}
	if len(c.imports) > 0 && imp == nil {
		panic(rt.NewTypeError("%s: Imports argument must be present and must be an object", fn))
	}
	type group struct {
		name  string
		funcs []hostFunc
		items []glueItem
		mixed bool
	}
	var order []*group
	groups := map[string]*group{}
	sources := map[string]api.Module{} // resolver names of memories/globals given
	var keep []any
	for i, im := range c.imports {
		g := groups[im.Module]
		if g == nil {
			g = &group{name: im.Module}
			groups[im.Module] = g
			order = append(order, g)
		}
		mv, ok := imp.Get(im.Module).(*goja.Object)
		if !ok {
			panic(rt.NewTypeError("%s: Import #%d \"%s\": module is not an object or function", fn, i, im.Module))
		}
		v := mv.Get(im.Name)
		if v == nil {
			v = goja.Undefined()
		}
		prefix := fmt.Sprintf("%s: Import #%d \"%s\" \"%s\"", fn, i, im.Module, im.Name)
		switch im.Kind {
		case "function":
			f, ok := goja.AssertFunction(v)
			if !ok {
				panic(s.newError(s.linkErr, prefix+": function import requires a callable"))
			}
			def := c.funcImports[im.Index]
			jf := &jsFunc{fn: f}
			keep = append(keep, jf)
			g.funcs = append(g.funcs, hostFunc{name: im.Name, fn: jf, params: def.ParamTypes(), results: def.ResultTypes()})
			g.items = append(g.items, glueItem{Name: im.Name, Field: im.Name, Kind: 0, Params: def.ParamTypes(), Results: def.ResultTypes()})
		case "memory":
			m, _ := s.handle(v).(*memory)
			if m == nil {
				panic(s.newError(s.linkErr, prefix+": memory import must be a WebAssembly.Memory object"))
			}
			src := uniqueName("m")
			sources[src] = m.mod
			keep = append(keep, m)
			size := m.mem.Size() / 65536
			if size < im.Min {
				panic(s.newError(s.linkErr, fmt.Sprintf("%s: memory import has %d pages which is smaller than the declared initial of %d", prefix, size, im.Min)))
			}
			g.items = append(g.items, glueItem{Name: im.Name, From: src, Field: m.export, Kind: 2, Min: im.Min, Max: im.Max, HasMax: im.HasMax})
			g.mixed = true
		case "global":
			gl, _ := s.handle(v).(*global)
			if gl == nil {
				if im.Mutable {
					panic(s.newError(s.linkErr, prefix+": imported mutable global must be a WebAssembly.Global object"))
				}
				// Not Export on an object: it would run its getters.
				var isNum, isBig bool
				if _, isObj := v.(*goja.Object); !isObj {
					switch v.Export().(type) {
					case int64, float64:
						isNum = true
					case *big.Int:
						isBig = true
					}
				}
				switch {
				case im.ValType == api.ValueTypeI64 && !isBig:
					panic(s.newError(s.linkErr, prefix+": global import must be a BigInt value"))
				case im.ValType != api.ValueTypeI64 && im.ValType != api.ValueTypeExternref && !isNum:
					panic(s.newError(s.linkErr, prefix+": global import must be a number, valid Wasm reference, or WebAssembly.Global object"))
				}
				gl = s.newGlobal(im.ValType, false, v).Export().(*global)
			}
			src := uniqueName("g")
			sources[src] = gl.mod
			keep = append(keep, gl)
			g.items = append(g.items, glueItem{Name: im.Name, From: src, Field: gl.export, Kind: 3, ValType: im.ValType, Mutable: im.Mutable})
			g.mixed = true
		case "table":
			tb, _ := s.handle(v).(*table)
			if tb == nil {
				panic(s.newError(s.linkErr, prefix+": table import requires a WebAssembly.Table"))
			}
			if tb.elem != im.ValType {
				panic(s.newError(s.linkErr, prefix+": imported table does not match the expected type"))
			}
			src := uniqueName("t")
			sources[src] = tb.mod
			keep = append(keep, tb)
			g.items = append(g.items, glueItem{Name: im.Name, From: src, Field: tb.export, Kind: 1, ValType: im.ValType, Min: im.Min, Max: im.Max, HasMax: im.HasMax})
			g.mixed = true
		default:
			panic(s.newError(s.linkErr, prefix+": tag imports are not supported"))
		}
	}
	eng := theEngine()
	base := experimental.WithMemoryAllocator(context.Background(), allocator{s.budgetFor()})
	resolve := map[string]api.Module{}
	base = experimental.WithImportResolver(base, func(name string) api.Module {
		if m := resolve[name]; m != nil {
			return m
		}
		return sources[name]
	})
	var deps []api.Module
	fail := func(err error) {
		for _, d := range deps {
			closeModule(d)
		}
		panic(s.newError(s.linkErr, fn+": "+err.Error()))
	}
	for _, g := range order {
		var host api.Module
		if len(g.funcs) > 0 {
			hb := eng.NewHostModuleBuilder(uniqueName("cellhost.js"))
			for _, f := range g.funcs {
				hb.NewFunctionBuilder().WithGoModuleFunction(s.hostFunction(f), f.params, f.results).Export(f.name)
			}
			hc, err := hb.Compile(base)
			if err != nil {
				fail(err)
			}
			host, err = eng.InstantiateModule(base, hc, wazero.NewModuleConfig().WithName(""))
			if err != nil {
				fail(err)
			}
			deps = append(deps, host)
		}
		if !g.mixed {
			resolve[g.name] = host
			continue
		}
		hostName := uniqueName("h")
		sources[hostName] = host
		for i := range g.items {
			if g.items[i].Kind == 0 {
				g.items[i].From = hostName
			}
		}
		gc, err := Compile(glueModule(g.items))
		if err != nil {
			fail(err)
		}
		glue, err := eng.InstantiateModule(base, gc.cm, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			fail(err)
		}
		deps = append(deps, glue)
		resolve[g.name] = glue
	}
	s.instantiating++
	mod, err := eng.InstantiateModule(s.ctx(base), c.cm, wazero.NewModuleConfig().WithName("").WithStartFunctions())
	s.instantiating--
	s.refresh()
	if err != nil {
		for _, d := range deps {
			closeModule(d)
		}
		if isTrap(err) {
			s.throwCallError(err, nil)
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			panic(ex)
		}
		panic(s.newError(s.linkErr, fn+": "+err.Error()))
	}
	return s.exportsObject(c, s.newInstance(append(deps, mod), keep, s.scope()), mod)
}

func isTrap(err error) bool {
	var ex *goja.Exception
	var ie *goja.InterruptedError
	return errors.As(err, &ex) || errors.As(err, &ie) || len(err.Error()) > 11 && err.Error()[:11] == "wasm error:" ||
		errors.As(err, new(*sys.ExitError))
}

func (s *state) handle(v goja.Value) any {
	h, err := s.handleOf(goja.Undefined(), v)
	if err != nil || h == nil {
		return nil
	}
	return h.Export()
}

type hostFunc struct {
	name            string
	fn              *jsFunc
	params, results []api.ValueType
}

// jsFunc is a JS function given as an import. The instance holds it
// (instance.keep); the wazero host function that calls it holds it only
// weakly. wazero's store holds every module it instantiated, so a strong
// reference from there would keep the import, and through its closure
// the instance's own exports (emscripten's and wasm-bindgen's glue read
// them), alive as long as the process: the instance would never be freed.
type jsFunc struct{ fn goja.Callable }

// hostFunction is a JS function as a wasm import: arguments converted by
// ToJSValue, the result by ToWebAssemblyValue; an exception passes through
// wasm to the JS that called it.
func (s *state) hostFunction(f hostFunc) api.GoModuleFunc {
	wf := weak.Make(f.fn)
	params, results := f.params, f.results
	// The arguments' slice is reused from call to call: goja copies a JS
	// function's arguments onto its own stack, and a native function may
	// not keep its Arguments (goja hands it a window of that stack). A call
	// re-entered while the slice is in use (the import, through wasm,
	// calling itself) gets its own.
	argBuf := make([]goja.Value, len(params))
	busy := false
	return func(ctx context.Context, _ api.Module, stack []uint64) {
		jf := wf.Value()
		if jf == nil {
			// Its instance was collected: only a funcref that outlived it
			// (in another instance's table) can still call it.
			panic(s.newError(s.runtimeErr, "the JavaScript import of a collected WebAssembly instance was called"))
		}
		s.refresh()
		args := argBuf
		if busy {
			args = make([]goja.Value, len(params))
		} else {
			busy = true
			defer func() { busy = false; clear(argBuf) }()
		}
		for i, t := range params {
			args[i] = s.fromWasm(t, stack[i])
		}
		v, err := jf.fn(goja.Undefined(), args...)
		if err != nil {
			panic(err)
		}
		if len(results) == 1 {
			if bits, ok := toWasmDirect(results[0], v); ok {
				stack[0] = bits
				return
			}
		}
		if ex := s.rt.Try(func() { s.results(results, v, stack) }); ex != nil {
			panic(ex)
		}
	}
}

func (s *state) results(types []api.ValueType, v goja.Value, stack []uint64) {
	switch len(types) {
	case 0:
	case 1:
		stack[0] = s.toWasm(types[0], v)
	default:
		o, ok := v.(*goja.Object)
		if !ok {
			panic(s.rt.NewTypeError("multi-return value must be iterable"))
		}
		arr := s.rt.Get("Array").ToObject(s.rt).Get("from")
		from, _ := goja.AssertFunction(arr)
		av, err := from(goja.Undefined(), o)
		if err != nil {
			panic(err)
		}
		var vals []goja.Value
		_ = s.rt.ExportTo(av, &vals)
		if len(vals) != len(types) {
			panic(s.rt.NewTypeError("multi-return length mismatch"))
		}
		for i, t := range types {
			stack[i] = s.toWasm(t, vals[i])
		}
	}
}

func (s *state) exportsObject(c *Compiled, inst *instance, mod api.Module) goja.Value {
	rt := s.rt
	obj := rt.NewObject()
	_ = obj.SetPrototype(nil)
	memDefs := c.cm.ExportedMemories()
	for _, e := range c.exports {
		var v goja.Value
		switch e.Kind {
		case "function":
			v = s.exportFunction(inst, mod, e.Name, c.exportedFuncs[e.Name], e.Index)
		case "memory":
			mem := mod.ExportedMemory(e.Name)
			var min, max uint32
			var hasMax bool
			if d, ok := memDefs[e.Name]; ok {
				min = d.Min()
				max, hasMax = d.Max()
			}
			v = s.memoryOf(inst, mod, e.Name, mem, min, max, hasMax).obj
		case "global":
			g := mod.ExportedGlobal(e.Name)
			gl := &global{inst: inst, mod: mod, export: e.Name, g: g, vt: g.Type()}
			_, gl.mutable = g.(api.MutableGlobal)
			v, _ = s.mkGlobal(goja.Undefined(), rt.ToValue(gl))
		case "table":
			var elem byte = valueTypeFuncref
			if int(e.Index) < len(c.tables) {
				elem = c.tables[e.Index]
			}
			v, _ = s.mkTable(goja.Undefined(), rt.ToValue(&table{inst: inst, mod: mod, index: e.Index, export: e.Name, elem: elem}))
		default:
			v = goja.Undefined()
		}
		_ = obj.DefineDataProperty(e.Name, v, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	if _, err := s.freeze(goja.Undefined(), obj); err != nil {
		panic(err)
	}
	return obj
}

// table is a WebAssembly.Table: a table a module exports, or one made in
// JS (the only export of a module made for it, tableDefModule), which
// modules import like any other.
type table struct {
	inst   *instance
	mod    api.Module
	index  uint32
	export string
	elem   byte
	ops    api.Module // tableModule's instance, made on first use
}

// newTable is new WebAssembly.Table(desc, value): filled with value, or
// the element type's default (null for funcref, undefined for externref)
// when hasValue is false.
func (s *state) newTable(elem byte, initial uint32, maximum goja.Value, hasValue bool, v goja.Value) goja.Value {
	var max uint32
	hasMax := maximum != nil && !goja.IsUndefined(maximum)
	if hasMax {
		max = uint32(maximum.ToInteger())
	}
	c, err := Compile(tableDefModule(elem, initial, max, hasMax))
	if err != nil {
		panic(s.rt.NewGoError(err))
	}
	mod, err := theEngine().InstantiateModule(context.Background(), c.cm, wazero.NewModuleConfig().WithName(""))
	if err != nil {
		s.throwRange("WebAssembly.Table(): could not allocate table")
	}
	t := &table{inst: s.newInstance([]api.Module{mod}, nil, s.scope()), mod: mod, export: "t", elem: elem}
	if !hasValue || v == nil {
		v = goja.Undefined()
	}
	s.maybeSweep()
	if ref := s.tableRef(t, "WebAssembly.Table()", v, hasValue); ref != 0 && initial > 0 {
		s.op(t, "fill", 0, ref, uint64(initial))
	}
	return s.rt.ToValue(t)
}

// funcInfo is what JS's exported functions carry (stamped as their
// handle): how to get the funcref that puts the function in a table.
type funcInfo struct {
	ref   uint64
	refOf func() (uint64, bool)
}

func (f *funcInfo) funcref() (uint64, bool) {
	if f.ref == 0 && f.refOf != nil {
		f.ref, _ = f.refOf()
	}
	return f.ref, f.ref != 0
}

func (s *state) rememberRef(ref uint64, o *goja.Object) {
	if s.refObjs == nil {
		s.refObjs = map[uint64]weak.Pointer[goja.Object]{}
	}
	if n := len(s.refObjs); n >= 64 && n&(n-1) == 0 {
		for k, w := range s.refObjs {
			if w.Value() == nil {
				delete(s.refObjs, k)
			}
		}
	}
	s.refObjs[ref] = weak.Make(o)
}

// op calls one of tableModule's functions on t.
func (s *state) op(t *table, name string, args ...uint64) uint64 {
	if t.ops == nil {
		c, err := Compile(tableModule(t.export, t.elem))
		if err != nil {
			panic(s.rt.NewGoError(err))
		}
		ctx := experimental.WithImportResolver(context.Background(), func(n string) api.Module {
			if n == "t" {
				return t.mod
			}
			return nil
		})
		m, err := theEngine().InstantiateModule(ctx, c.cm, wazero.NewModuleConfig().WithName(""))
		if err != nil {
			panic(s.rt.NewGoError(err))
		}
		t.ops = m
		t.inst.mods.add(m)
	}
	stack := append(args, 0)
	if err := t.ops.ExportedFunction(name).CallWithStack(context.Background(), stack); err != nil {
		s.throwCallError(err, t.inst)
	}
	return stack[0]
}

func (s *state) tableLength(t *table) uint32 { return uint32(s.op(t, "size")) }

// tableRef is v as an element of t; given is false when JS passed no value
// (funcref's default, null; an explicit undefined is refused as V8 does).
func (s *state) tableRef(t *table, fn string, v goja.Value, given bool) uint64 {
	if t.elem == api.ValueTypeExternref {
		return s.toWasm(api.ValueTypeExternref, v)
	}
	if v == nil || goja.IsNull(v) || (!given && goja.IsUndefined(v)) {
		return 0
	}
	// Only a WebAssembly function (an export; a JS function a module
	// imported and exported again) goes in a funcref table.
	if fi, ok := s.handle(v).(*funcInfo); ok {
		if ref, ok := fi.funcref(); ok {
			s.rememberRef(ref, v.(*goja.Object))
			return ref
		}
	}
	panic(s.rt.NewTypeError("%s: Argument 1 is invalid for table: function-typed object expected", fn))
}

// maxTableSize is V8's limit on a table's length (wasm::max_table_init_entries).
const maxTableSize = 10000000

func (s *state) tableGrow(t *table, n uint32, v goja.Value, given bool) uint32 {
	s.maybeSweep()
	if uint64(s.tableLength(t))+uint64(n) > maxTableSize {
		s.throwRange(fmt.Sprintf("WebAssembly.Table.grow(): failed to grow table by %d", n))
	}
	r := s.op(t, "grow", uint64(n), s.tableRef(t, "WebAssembly.Table.grow()", v, given))
	if int32(uint32(r)) == -1 {
		s.throwRange(fmt.Sprintf("WebAssembly.Table.grow(): failed to grow table by %d", n))
	}
	return uint32(r)
}

func (s *state) tableSet(t *table, i uint32, v goja.Value, given bool) {
	s.maybeSweep()
	ref := s.tableRef(t, "WebAssembly.Table.set()", v, given)
	if size := s.tableLength(t); i >= size {
		s.throwRange(fmt.Sprintf("WebAssembly.Table.set(): invalid address %d in %s table of size %d", i, elemName(t.elem), size))
	}
	s.op(t, "set", uint64(i), ref)
}

func elemName(e byte) string {
	if e == api.ValueTypeExternref {
		return "externref"
	}
	return "funcref"
}

// tableGet is Table.prototype.get: an externref's value; a funcref's
// function, the same object each time for an entry JS put there or read
// before (refObjs), else a new wrapper of whatever function wasm put
// there (wazero patch 3 finds it whatever its type).
func (s *state) tableGet(t *table, i uint32) goja.Value {
	if size := s.tableLength(t); i >= size {
		s.throwRange(fmt.Sprintf("WebAssembly.Table.get(): invalid address %d in %s table of size %d", i, elemName(t.elem), size))
	}
	raw := s.op(t, "get", uint64(i))
	if t.elem == api.ValueTypeExternref {
		return s.fromWasm(api.ValueTypeExternref, raw)
	}
	if raw == 0 {
		return goja.Null()
	}
	if o := s.refObjs[raw].Value(); o != nil {
		return o
	}
	f := wtable.LookupFunctionAnyType(t.mod, t.index, i)
	if f == nil {
		return goja.Null()
	}
	d := f.Definition()
	again := func() api.Function { return wtable.LookupFunctionAnyType(t.mod, t.index, i) }
	o := s.wrapFunction(t.inst, again, f, d.ParamTypes(), d.ResultTypes(), strconv.FormatUint(uint64(d.Index()), 10), &funcInfo{ref: raw})
	s.rememberRef(raw, o.(*goja.Object))
	return o
}

// exportFunction is an exported function as JS sees it: name is its index,
// length its parameter count.
func (s *state) exportFunction(inst *instance, mod api.Module, name string, def api.FunctionDefinition, index uint32) goja.Value {
	ref := func() (uint64, bool) { return wtable.FunctionRef(mod, index) }
	return s.wrapFunction(inst, func() api.Function { return mod.ExportedFunction(name) }, mod.ExportedFunction(name), def.ParamTypes(), def.ResultTypes(), strconv.FormatUint(uint64(index), 10), &funcInfo{refOf: ref})
}

// wrapFunction is a wasm function as JS calls it; again makes another
// api.Function for a re-entrant call.
func (s *state) wrapFunction(inst *instance, again func() api.Function, f api.Function, params, results []api.ValueType, name string, info *funcInfo) goja.Value {
	rt := s.rt
	buf := make([]uint64, max(len(params), len(results)))
	busy := false
	native := func(call goja.FunctionCall) goja.Value {
		var stack []uint64
		fn := f
		s.maybeSweep()
		reentered := busy
		if reentered {
			// Re-entered (wasm -> JS -> the same export): a call engine
			// serves one call at a time.
			fn = again()
			stack = make([]uint64, len(buf))
		} else {
			busy = true
			stack = buf
		}
		s.converting++
		converted := false
		defer func() {
			if !converted { // a conversion threw
				s.converting--
			}
			if !reentered {
				busy = false
			}
		}()
		for i, t := range params {
			stack[i] = s.toWasm(t, call.Argument(i))
		}
		s.converting--
		converted = true
		err := s.call(inst, fn, stack)
		s.refresh()
		if err != nil {
			return s.throwCallError(err, inst)
		}
		switch len(results) {
		case 0:
			return goja.Undefined()
		case 1:
			return s.fromWasm(results[0], stack[0])
		}
		out := make([]any, len(results))
		for i, t := range results {
			out[i] = s.fromWasm(t, stack[i])
		}
		return rt.NewArray(out...)
	}
	o := rt.ToValue(native).(*goja.Object)
	// writable false, configurable true, enumerable false (goja's order:
	// writable, configurable, enumerable), as a function's own.
	_ = o.DefineDataProperty("name", rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = o.DefineDataProperty("length", rt.ToValue(len(params)), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	if _, err := s.stamp(goja.Undefined(), o, rt.ToValue(info)); err != nil {
		panic(err)
	}
	return o
}
