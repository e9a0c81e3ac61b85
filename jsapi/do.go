package jsapi

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/wasm"
	"github.com/cellhost/cellhost/jsapi/web"
)

//go:embed do.js
var doSource string

var doProgram = goja.MustCompile("cellhost:do.js", doSource, true)

// Namespace is one Durable Object namespace binding (env.NAME), provided by
// host. Every method is called on the goroutine of the runtime that holds
// the binding; Fetch must call done on that same goroutine, exactly once.
type Namespace interface {
	IDFromName(name string) string
	IDFromString(s string) (string, error) // the error text is a JS TypeError message
	NewUniqueID() string
	Fetch(id, name string, req *HTTPRequest, done func(*HTTPResponse, error))
	// Call invokes an RPC method (or reads a property when get is set) with
	// structured-clone argument bytes; done gets the result's bytes.
	Call(id, name, method string, args []byte, get bool, done func([]byte, error))
}

// ScriptError is a JS exception carried across runtimes or out to Go: the
// one typed error JS sees (jserr.Error).
type ScriptError = jserr.Error

// WorkerOptions describes what a worker's runtime is given.
type WorkerOptions struct {
	Bundle *Bundle
	// Namespaces are the Durable Object bindings: binding name → namespace.
	Namespaces map[string]Namespace
	// Vars are plain values (JSON-compatible) bound on env.
	Vars map[string]any
	// Classes are the class names the configuration requires the module to
	// export (durable_objects bindings).
	Classes []string
	// Bind, if set, adds more bindings to env (KV, services, ...): called
	// once per runtime on its goroutine, after Vars and Namespaces are on
	// env and before the bundle runs.
	Bind func(rt *goja.Runtime, env *goja.Object) error
	// BindingClasses maps each Durable Object binding to its class (for
	// the exports of cloudflare:workers, where a class is its namespace).
	BindingClasses map[string]string
	// Post queues a function to run on the runtime's loop, from any
	// goroutine (the shard's post), and reports whether it was queued;
	// calls from other runtimes to targets this one exported arrive through
	// it. Nil: such calls fail.
	Post func(func()) bool
	// PostAs, if set, is called on the loop and returns a Post whose
	// functions run as the code running at the call (the object whose
	// event, timer or continuation it is: its console label, its CPU
	// limit). The continuations of the runtime's own asynchronous work
	// (fetch(), stream bodies, blockConcurrencyWhile callbacks, RPC
	// replies) are posted through it. Nil: Post.
	PostAs func() func(func()) bool
	// CurrentScope names the object whose code is running ("" while the
	// worker's own handlers run): node:fs gives each object its own /tmp.
	CurrentScope func() string
	// BridgeSocket, if set, lets the program accept() a WebSocket that
	// came from another runtime in a Response (SocketBridge); nil:
	// such a socket can only be returned in a Response.
	BridgeSocket SocketBridge
	// WasmMemoryLimit bounds the WebAssembly memory of one object (the
	// object's memory limit; 0: none). See jsapi/wasm.
	WasmMemoryLimit int64
	// WasmMemoryExceeded is called, on the runtime's goroutine, when the
	// running object's WebAssembly memory would pass WasmMemoryLimit: the
	// host interrupts and resets the object (nil: the growth just fails).
	WasmMemoryExceeded func()
}

// Worker is a bundle evaluated in one runtime, with its env and exports.
// All methods must be called on the runtime's goroutine.
type Worker struct {
	rt      *goja.Runtime
	Env     *goja.Object
	Exports *goja.Object
	Default goja.Value              // the default export, or nil
	Classes map[string]*goja.Object // every exported class (function) by name
	settle  goja.Callable
	// promiseCtor and promiseThen are the intrinsic Promise and
	// Promise.prototype.then, for Settle's Go reactions.
	promiseCtor, promiseThen goja.Value
	makeID                   goja.Callable
	defer_                   goja.Callable // do.js defer: fn in a promise job of its own
	noop                     goja.Callable
	entryCls                 *goja.Object // WorkerEntrypoint
	doCls                    *goja.Object // DurableObject
	nsObjs                   map[*goja.Object]Namespace
	nsNames                  map[Namespace]string // binding name of each namespace
	rpc                      rpcModel
	postFn                   func(func()) bool
	postAsFn                 func() func(func()) bool // WorkerOptions.PostAs
	// abandonStreams ends the stream bodies this runtime still feeds
	// (web.SetPost); Retire calls it.
	abandonStreams func()
	retired        atomic.Bool
	loading        bool // the bundle's top level is running
	wasm           wasm.Scopes
	// exportOwner is the instance whose RPC result is being encoded (the
	// owner of what it exports), or nil.
	exportOwner *goja.Object
	// rpcPending: rpc.js holds calls to send at the end of this turn.
	rpcPending bool
	// stubProto is DurableObjectStub.prototype; stubRPC makes the callable
	// of an RPC method (do.js, stub.go).
	stubProto *goja.Object
	stubRPC   goja.Callable
	// fetchesInFlight counts the worker's fetch handlers that have not
	// settled; tmpGen names the /tmp of node:fs they share (a new one when
	// a request starts with none in flight, as workerd gives each request
	// its own).
	// Only a worker with node:* modules (node:fs) tracks them: it costs a
	// promise reaction per request.
	tracksFetches   bool
	fetchesInFlight int
	tmpGen          int
	// Poisoned is set by the owner once a Go panic crossed goja: the
	// runtime's call stack was unwound halfway, so the owner must replace
	// the runtime. (An interrupt leaves it usable, goja fork patch 9; a
	// stack overflow is a catchable RangeError.)
	Poisoned bool

	sharedCtx *goja.Object // the ExecutionContext of requests nothing tracks
	// loopback makes loopback service stubs (loopback.go); ctxExportsObj is
	// ctx.exports, made on first use; moduleExports are cloudflare:workers'
	// exports (classes bound as Durable Objects appear as namespaces).
	loopback      goja.Callable
	scheduledCtl  goja.Callable // makes a ScheduledController
	ctxExportsObj *goja.Object
	moduleExports *goja.Object
	// remoteStacks are the stacks of the last errors that crossed from
	// another object (rpcstack.go).
	remoteStacks []remoteStack
	// gates are the blockConcurrencyWhile states (input gates) of the
	// states not yet given to a constructor (by state object), then of the
	// live instances (by instance): calls to an instance's RPC targets
	// wait for its gate, as on workerd.
	gates map[*goja.Object]*bcwState
	// goneSeen are the exported targets whose reset this runtime was told
	// of (rpc.go sawGone).
	goneSeen map[uint64]bool
}

// newWorker installs the DurableObject model into rt, evaluates the bundle
// and checks its exports. rt must already have the Web globals (InstallWeb)
// and timers. NewWorker (enginepanic.go) calls it.
func newWorker(rt *goja.Runtime, o WorkerOptions) (*Worker, error) {
	w := &Worker{rt: rt, nsObjs: map[*goja.Object]Namespace{}, nsNames: map[Namespace]string{}, Classes: map[string]*goja.Object{}, postFn: o.Post, postAsFn: o.PostAs, gates: map[*goja.Object]*bcwState{}}
	if err := InstallWebSockets(rt); err != nil {
		return nil, fmt.Errorf("load worker: %w", err)
	}
	wsStateOf(rt).bridge = o.BridgeSocket
	if o.Post != nil {
		abandon, err := web.SetPost(rt, w.post)
		if err != nil {
			return nil, fmt.Errorf("load worker: %w", err)
		}
		w.abandonStreams = abandon
		if o.PostAs != nil {
			if err := web.SetPostHere(rt, w.postHere); err != nil {
				return nil, fmt.Errorf("load worker: %w", err)
			}
		}
	}
	if err := w.installRPC(); err != nil {
		return nil, fmt.Errorf("load worker: install RPC: %w", err)
	}
	fnv, err := rt.RunProgram(doProgram)
	if err != nil {
		return nil, fmt.Errorf("load worker: install model: %w", err)
	}
	fn, _ := goja.AssertFunction(fnv)
	native := rt.NewObject()
	_ = native.Set("stubFetch", w.stubFetch)
	_ = native.Set("stubSetup", w.stubSetup)
	_ = native.Set("doStubMethod", w.rpc.doStubMethod)
	_ = native.Set("makeStub", w.makeStub)
	mv, err := fn(goja.Undefined(), native)
	if err != nil {
		return nil, fmt.Errorf("load worker: install model: %w", err)
	}
	model := mv.ToObject(rt)
	w.settle, _ = goja.AssertFunction(model.Get("settle"))
	w.promiseCtor = rt.Get("Promise")
	w.promiseThen = w.promiseCtor.ToObject(rt).Get("prototype").ToObject(rt).Get("then")
	w.makeID, _ = goja.AssertFunction(model.Get("makeId"))
	w.defer_, _ = goja.AssertFunction(model.Get("defer"))
	w.noop, _ = goja.AssertFunction(model.Get("noop"))
	w.doCls = model.Get("DurableObject").ToObject(rt)
	w.entryCls = model.Get("WorkerEntrypoint").ToObject(rt)
	nsClass := model.Get("DurableObjectNamespace")

	w.Env = rt.NewObject()
	for _, name := range sortedKeys(o.Vars) {
		if err := w.Env.Set(name, rt.ToValue(o.Vars[name])); err != nil {
			return nil, fmt.Errorf("load worker: bind var %s: %w", name, err)
		}
	}
	for _, name := range sortedKeys(o.Namespaces) {
		nsObj := w.nativeNamespace(o.Namespaces[name])
		w.nsNames[o.Namespaces[name]] = name
		v, err := rt.New(nsClass, nsObj)
		if err != nil {
			return nil, fmt.Errorf("load worker: bind %s: %w", name, err)
		}
		_ = w.Env.Set(name, v)
	}
	if o.Bind != nil {
		if err := o.Bind(rt, w.Env); err != nil {
			return nil, fmt.Errorf("load worker: %w", err)
		}
	}

	cw := rt.NewObject()
	_ = cw.Set("DurableObject", w.doCls)
	_ = cw.Set("WorkerEntrypoint", w.entryCls)
	_ = cw.Set("RpcTarget", w.rpc.target)
	_ = cw.Set("RpcStub", w.rpc.stub)
	_ = cw.Set("RpcPromise", w.rpc.promise)
	_ = cw.Set("RpcProperty", w.rpc.property)
	_ = cw.Set("env", w.Env)
	setExports, err := w.installWorkersModule(cw)
	if err != nil {
		return nil, fmt.Errorf("load worker: install cloudflare:workers: %w", err)
	}
	w.tracksFetches = o.Bundle.Node.Modules
	if err := installNode(rt, o.Bundle, o.Vars, w.fsScope(o.CurrentScope)); err != nil {
		return nil, fmt.Errorf("load worker: install node.js modules: %w", err)
	}
	if err := installGlobalScope(rt); err != nil {
		return nil, fmt.Errorf("load worker: install the global scope: %w", err)
	}
	mods := o.Bundle.Wasm
	if mods == nil {
		if mods, err = wasm.BundledModules(o.Bundle.Code); err != nil {
			return nil, fmt.Errorf("load worker %s: %w", o.Bundle.Entry, err)
		}
	}
	policy := o.Bundle.WasmCompile
	if w.wasm, err = wasm.Install(rt, wasm.Options{MemoryLimit: o.WasmMemoryLimit, CurrentScope: o.CurrentScope, OnMemoryLimit: o.WasmMemoryExceeded,
		OnLostModuleScope: func() { w.Poisoned = true }, Modules: mods,
		AllowCompile: func() bool {
			return policy == WasmCompileAlways || policy == WasmCompileAtStartup && w.loading
		}}); err != nil {
		return nil, fmt.Errorf("load worker: install WebAssembly: %w", err)
	}

	w.loading = true
	_, err = rt.RunProgram(o.Bundle.Program)
	w.loading = false
	if err != nil {
		return nil, fmt.Errorf("load worker %s: %w", o.Bundle.Entry, w.errorOf(err))
	}
	ex, rejected, err := loadedExports(rt)
	if err != nil {
		return nil, fmt.Errorf("load worker %s: %w", o.Bundle.Entry, err)
	}
	if rejected != nil {
		return nil, fmt.Errorf("load worker %s: %w", o.Bundle.Entry, w.ScriptErrorOf(rejected))
	}
	if ex == nil || goja.IsUndefined(ex) || goja.IsNull(ex) {
		return nil, fmt.Errorf("load worker %s: the bundle exported nothing", o.Bundle.Entry)
	}
	w.Exports = ex.ToObject(rt)
	for _, k := range w.Exports.Keys() {
		v := w.Exports.Get(k)
		if k == "default" {
			w.Default = v
			continue
		}
		if obj, ok := v.(*goja.Object); ok {
			if _, isFn := goja.AssertFunction(obj); isFn && isClass(obj) {
				w.Classes[k] = obj
			}
		}
	}
	if err := setExports(o.BindingClasses); err != nil {
		return nil, fmt.Errorf("load worker %s: %w", o.Bundle.Entry, err)
	}
	if d, ok := w.Default.(*goja.Object); ok && w.extends(d, w.doCls) {
		return nil, fmt.Errorf("load worker %s: the default export is a Durable Object class; export it by name and bind it in durable_objects.bindings", o.Bundle.Entry)
	}
	var missing []string
	for _, cls := range o.Classes {
		if _, ok := w.Classes[cls]; !ok && !slices.Contains(missing, cls) {
			missing = append(missing, cls)
		}
	}
	if len(missing) > 0 {
		return nil, &UnexportedClassesError{Entry: o.Bundle.Entry, Missing: missing, Exported: sortedKeys(w.Classes)}
	}
	return w, nil
}

// UnexportedClassesError says that durable_objects bindings name classes
// the entry module does not export, in wrangler's words (wrangler dev and
// deploy refuse such a Worker with the same two sentences), followed by
// the classes it does export. A command may shorten Entry to a path
// relative to the project before printing it.
type UnexportedClassesError struct {
	Entry    string   // the entry module's path
	Missing  []string // bound classes not exported, in binding order
	Exported []string // the classes the module exports, sorted
}

func (e *UnexportedClassesError) Error() string {
	return fmt.Sprintf("load worker %s: Your Worker depends on the following Durable Objects, which are not exported in your entrypoint file: %s. "+
		"You should export these objects from your entrypoint, %s. (exported classes: %s)",
		e.Entry, strings.Join(e.Missing, ", "), e.Entry, listOrNone(e.Exported))
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// isClass reports whether fn was written as a class (its source says so).
func isClass(fn *goja.Object) bool {
	s := fn.String()
	return strings.HasPrefix(s, "class")
}

// extends reports whether cls is base or inherits from it.
func (w *Worker) extends(cls, base *goja.Object) bool {
	for p := cls; p != nil; {
		if p == base {
			return true
		}
		proto := p.Prototype()
		if proto == nil {
			return false
		}
		p = proto
	}
	return false
}

// ExtendsDurableObject reports whether the exported class extends
// DurableObject (and so supports RPC).
func (w *Worker) ExtendsDurableObject(cls *goja.Object) bool { return w.extends(cls, w.doCls) }

func (w *Worker) nativeNamespace(ns Namespace) *goja.Object {
	rt := w.rt
	obj := rt.NewObject()
	// A goja.FunctionCall, not a func(string) string: goja calls that
	// through reflection, and getByName runs on most requests.
	_ = obj.Set("idFromName", func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(ns.IDFromName(c.Argument(0).String()))
	})
	_ = obj.Set("idFromString", func(s string) string {
		id, err := ns.IDFromString(s)
		if err != nil {
			jserr.Throw(rt, jserr.TypeError(err.Error()))
		}
		return id
	})
	_ = obj.Set("newUniqueId", func() string { return ns.NewUniqueID() })
	w.nsObjs[obj] = ns
	return obj
}

// NewID builds a DurableObjectId for ns (which must be bound in this worker).
func (w *Worker) NewID(ns Namespace, hex, name string) goja.Value {
	var nsObj goja.Value = goja.Undefined()
	for o, n := range w.nsObjs {
		if n == ns {
			nsObj = o
			break
		}
	}
	var nameV goja.Value = goja.Undefined()
	if name != "" {
		nameV = w.rt.ToValue(name)
	}
	v, err := w.makeID(goja.Undefined(), w.rt.ToValue(hex), nameV, nsObj)
	if err != nil {
		panic(err)
	}
	return v
}

// remotePromise returns a promise that start settles: start gets a settle
// function to call, on this runtime's goroutine, with the result's JS value
// (built by its convert step) or an error, or returns an error at once.
func (w *Worker) remotePromise(start func(settle func(func() (goja.Value, error), error)) error) goja.Value {
	p, resolve, reject := w.rt.NewPromise()
	w.settleWith(start, resolve, reject)
	return w.rt.ToValue(p)
}

// remoteSettle is remotePromise settling the caller's resolve and reject
// functions (rpc.js's own promise) instead of a new promise.
func (w *Worker) remoteSettle(resolveV, rejectV goja.Value, start func(settle func(func() (goja.Value, error), error)) error) goja.Value {
	res, _ := goja.AssertFunction(resolveV)
	rej, _ := goja.AssertFunction(rejectV)
	w.settleWith(start,
		func(v any) error { _, err := res(goja.Undefined(), w.rt.ToValue(v)); return err },
		func(v any) error { _, err := rej(goja.Undefined(), w.rt.ToValue(v)); return err })
	return goja.Undefined()
}

func (w *Worker) settleWith(start func(settle func(func() (goja.Value, error), error)) error, resolve, reject func(any) error) {
	err := start(func(convert func() (goja.Value, error), err error) {
		var v goja.Value
		if err == nil {
			v, err = convert()
		}
		if err != nil {
			_ = reject(w.ErrorValue(err))
			return
		}
		_ = resolve(v)
	})
	if err != nil {
		_ = reject(w.ErrorValue(err))
	}
}

// settler returns remotePromise, or remoteSettle when call's arguments
// from index i on are rpc.js's resolve and reject functions.
func (w *Worker) settler(call goja.FunctionCall, i int) func(func(settle func(func() (goja.Value, error), error)) error) goja.Value {
	res, rej := call.Argument(i), call.Argument(i+1)
	_, ok1 := goja.AssertFunction(res)
	_, ok2 := goja.AssertFunction(rej)
	if !ok1 || !ok2 {
		return w.remotePromise
	}
	return func(start func(settle func(func() (goja.Value, error), error)) error) goja.Value {
		return w.remoteSettle(res, rej, start)
	}
}

func (w *Worker) stubFetch(call goja.FunctionCall) goja.Value {
	w.flushRPC()
	st := w.stubOf(call.Argument(0))
	return w.remotePromise(func(settle func(func() (goja.Value, error), error)) error {
		if err := st.checkReset(); err != nil {
			return err
		}
		req, err := web.ExportRequest(w.rt, call.Argument(1))
		if err != nil {
			return err
		}
		st.ns.Fetch(st.hex, st.name, req, func(resp *HTTPResponse, err error) {
			st.settled(err)
			settle(func() (goja.Value, error) { return web.NewResponse(w.rt, resp) }, err)
		})
		return nil
	})
}

// ErrNoRPC is workerd's error for an RPC to a class that does not extend
// DurableObject.
var ErrNoRPC = &ScriptError{Name: "TypeError", Message: "The receiving Durable Object does not support RPC, because its class was not declared with `extends DurableObject`. In order to enable RPC, make sure your class extends the special class `DurableObject`, which can be imported from the module \"cloudflare:workers\"."}

// CallRPC invokes an RPC on a Durable Object instance of class: args is
// the message (rpc.go's envelope: property path, capabilities, value) the
// caller's stub sent. It returns the result (a value or promise) to
// settle; SerializeResult encodes it for the caller.
func (w *Worker) CallRPC(class string, inst *goja.Object, method string, args []byte, get bool) (goja.Value, error) {
	if cls, ok := w.Classes[class]; !ok || !w.extends(cls, w.doCls) {
		return nil, ErrNoRPC
	}
	return w.serveEnvelope(inst, args, get, w.doCls)
}

// ErrorValue is jserr.ToJS on this worker's runtime: the JS value to throw
// or reject with for err. An error that crossed from another object keeps
// its stack on the Go side (rpcstack.go) for the log.
func (w *Worker) ErrorValue(err error) goja.Value {
	v := jserr.ToJS(w.rt, err)
	var se *ScriptError
	if errors.As(err, &se) && se.Remote && se.Stack != "" {
		if o, ok := v.(*goja.Object); ok {
			w.rememberRemoteStack(o, se.Stack)
		}
	}
	return v
}

// Settle calls ok or fail, on this runtime's goroutine, once v settles. v may
// be a plain value, a promise or a thenable.
func (w *Worker) Settle(v goja.Value, ok func(goja.Value), fail func(goja.Value)) {
	// Fast path: a value that is not a thenable, or a promise that has
	// already settled (an async handler whose awaits were all storage:
	// goja ran its jobs when the call returned) needs no reaction job.
	if obj, isObj := v.(*goja.Object); !isObj {
		ok(v)
		return
	} else if p, isPromise := obj.Export().(*goja.Promise); isPromise {
		switch p.State() {
		case goja.PromiseStateFulfilled:
			ok(p.Result())
			return
		case goja.PromiseStateRejected:
			fail(p.Result())
			return
		}
		// A pending promise whose then and constructor are the
		// intrinsic ones: `Promise.resolve(v).then(ok, fail)` would add
		// the same two reactions; goja adds them with Go handlers (fork
		// patch 45), without two function objects and a derived promise.
		if obj.Get("then") == w.promiseThen && obj.Get("constructor") == w.promiseCtor {
			p.Then(ok, fail)
			return
		}
	} else if then := obj.Get("then"); then == nil || goja.IsUndefined(then) {
		ok(v)
		return
	}
	_, err := w.settle(goja.Undefined(), v, w.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		ok(c.Argument(0))
		return goja.Undefined()
	}), w.rt.ToValue(func(c goja.FunctionCall) goja.Value {
		fail(c.Argument(0))
		return goja.Undefined()
	}))
	if err != nil {
		fail(w.rt.ToValue(err.Error()))
	}
}

// CallFetch invokes the fetch handler of the default export (an object with
// fetch(request, env, ctx), or a WorkerEntrypoint class) with the Request
// NewRequest would build from req, and returns its result (a value or
// promise). ctx is the ExecutionContext.
func (w *Worker) CallFetch(req *HTTPRequest, ctx *goja.Object) (goja.Value, error) {
	if !w.tracksFetches {
		return w.callDefaultFetch(req, ctx)
	}
	if w.fetchesInFlight == 0 {
		w.tmpGen++
	}
	w.fetchesInFlight++
	v, err := w.callDefaultFetch(req, ctx)
	if err != nil {
		w.fetchesInFlight--
		return v, err
	}
	w.whenSettled(v, func() { w.fetchesInFlight-- })
	return v, nil
}

// whenSettled calls f once v (a value or a promise) settles.
func (w *Worker) whenSettled(v goja.Value, f func()) {
	p, ok := v.(*goja.Object)
	if !ok {
		f()
		return
	}
	then, ok := goja.AssertFunction(p.Get("then"))
	if !ok {
		f()
		return
	}
	done := w.rt.ToValue(func(goja.FunctionCall) goja.Value { f(); return goja.Undefined() })
	if _, err := then(p, done, done); err != nil {
		f()
	}
}

// fsScope is node:fs's /tmp scope: the running object's, or the worker
// requests' current generation.
func (w *Worker) fsScope(current func() string) func() string {
	return func() string {
		if current != nil {
			if s := current(); s != "" {
				return "do:" + s
			}
		}
		return "worker:" + strconv.Itoa(w.tmpGen)
	}
}

func (w *Worker) callDefaultFetch(req *HTTPRequest, ctx *goja.Object) (goja.Value, error) {
	d, ok := w.Default.(*goja.Object)
	if !ok {
		return nil, ErrNoDefaultFetch
	}
	if w.extends(d, w.entryCls) {
		inst, err := w.rt.New(d, ctx, w.Env)
		if err != nil {
			return nil, w.errorOf(err)
		}
		return w.callFetch(inst, req)
	}
	return w.callFetch(d, req, w.Env, ctx)
}

// ErrNoDefaultFetch means the module has no default export with a fetch handler.
var ErrNoDefaultFetch = errors.New("the worker has no default export with a fetch() handler")

// Construct builds a Durable Object instance: new Class(state, env).
func (w *Worker) Construct(class string, state *goja.Object) (*goja.Object, error) {
	cls, ok := w.Classes[class]
	if !ok {
		return nil, fmt.Errorf("construct %s: the module does not export it", class)
	}
	inst, err := w.rt.New(cls, state, w.Env)
	g := w.gates[state]
	delete(w.gates, state)
	if err != nil {
		return nil, w.errorOf(err)
	}
	if g != nil {
		w.gates[inst] = g
	}
	w.drainJobs()
	return inst, nil
}

// CallObjectFetch calls instance.fetch(request) with the Request
// NewRequest would build from req.
func (w *Worker) CallObjectFetch(inst *goja.Object, req *HTTPRequest) (goja.Value, error) {
	return w.callFetch(inst, req)
}

// callFetch calls obj.fetch(request, rest...), building the request in
// the same call into JS.
func (w *Worker) callFetch(obj *goja.Object, req *HTTPRequest, rest ...goja.Value) (goja.Value, error) {
	fn := obj.Get("fetch")
	if _, ok := goja.AssertFunction(fn); !ok {
		if obj != w.Default {
			return nil, &ScriptError{Name: "TypeError", Message: "Handler does not export a fetch() function."}
		}
		return nil, ErrNoDefaultFetch
	}
	v, err := web.CallWithRequest(w.rt, fn, obj, req, rest...)
	if err != nil {
		return nil, w.errorOf(err)
	}
	return v, nil
}

// NewExecutionContext is the ctx argument of a worker's fetch handler.
func (w *Worker) NewExecutionContext(waitUntil func(goja.Value)) *goja.Object {
	if waitUntil == nil {
		// Nothing to track per request: one shared context serves all.
		if w.sharedCtx == nil {
			w.sharedCtx = w.newExecutionContext(func(goja.Value) {})
		}
		return w.sharedCtx
	}
	return w.newExecutionContext(waitUntil)
}

func (w *Worker) newExecutionContext(waitUntil func(goja.Value)) *goja.Object {
	ctx := w.rt.NewObject()
	_ = ctx.Set("waitUntil", func(p goja.Value) { waitUntil(p) })
	_ = ctx.Set("passThroughOnException", func() {})
	_ = ctx.Set("props", w.rt.NewObject())
	_ = ctx.DefineAccessorProperty("exports", w.rt.ToValue(func() goja.Value { return w.ctxExports() }), nil, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return ctx
}

// ScriptErrorOf converts a JS value (a thrown or rejected value) to a
// ScriptError the way workerd carries errors across objects: built-in error
// classes keep their name and message; any other error becomes an Error
// whose message is its toString() ("QuotaError: quota exceeded"); a thrown
// non-error becomes an Error with its string form ("just a string",
// "#<Object>").
func (w *Worker) ScriptErrorOf(v goja.Value) *ScriptError {
	se := w.scriptErrorOf(v)
	if clone.Enhanced(w.rt) && v != nil {
		// enhanced_error_serialization: the catcher gets the thrown value
		// itself, serialized (an error with its name, own properties and
		// cause; a plain object as it was). Values that cannot be cloned
		// cross in the legacy form.
		if b, err := clone.Serialize(w.rt, v); err == nil {
			se.Value = b
		}
	}
	return se
}

func (w *Worker) scriptErrorOf(v goja.Value) *ScriptError {
	obj, ok := v.(*goja.Object)
	if !ok {
		msg := "undefined"
		if v != nil {
			msg = v.String()
		}
		return &ScriptError{Name: "Error", Message: msg}
	}
	str := func(name string) string {
		if x := obj.Get(name); x != nil && !goja.IsUndefined(x) && !goja.IsNull(x) {
			return x.String()
		}
		return ""
	}
	if !w.isError(obj) {
		ctor := "Object"
		if c, ok := obj.Get("constructor").(*goja.Object); ok {
			if n := c.Get("name"); n != nil && n.String() != "" {
				ctor = n.String()
			}
		}
		return &ScriptError{Name: "Error", Message: "#<" + ctor + ">"}
	}
	// The message crosses only as an own data property (as V8's serializer
	// reads it): an accessor, such as zod 4's lazy ZodError message, is
	// left out.
	msg := ""
	if w.isDOMException(obj) {
		msg = str("message")
	} else if v, ok := w.ownDataProperty(obj, "message"); ok && !goja.IsUndefined(v) {
		msg = v.String()
	}
	se := &ScriptError{Name: str("name"), Message: msg, Stack: trimEntryFrames(str("stack"))}
	if st, ok := w.remoteStack(obj); ok {
		// Where it was thrown (the other object's frames), then where
		// this program awaited the call (its own frames, asyncStack).
		local := se.Stack
		se.Stack = st
		if i := strings.Index(local, "\n\tat "); i >= 0 {
			se.Stack = strings.TrimRight(st, "\n") + local[i:]
		}
	}
	if !jserr.IsBuiltin(se.Name) && !w.isDOMException(obj) {
		// "QuotaError: quota exceeded", or just the name with no message.
		if msg != "" {
			se.Message = se.Name + ": " + msg
		} else {
			se.Message = se.Name
		}
		se.Name = "Error"
	}
	return se
}

// ownDataProperty returns obj's own data property name (not an accessor,
// not inherited), as Object.getOwnPropertyDescriptor shows it.
func (w *Worker) ownDataProperty(obj *goja.Object, name string) (goja.Value, bool) {
	gopd, ok := goja.AssertFunction(w.rt.Get("Object").ToObject(w.rt).Get("getOwnPropertyDescriptor"))
	if !ok {
		return nil, false
	}
	d, err := gopd(goja.Undefined(), obj, w.rt.ToValue(name))
	if err != nil {
		return nil, false
	}
	desc, ok := d.(*goja.Object)
	if !ok {
		return nil, false
	}
	if g := desc.Get("get"); g != nil && !goja.IsUndefined(g) {
		return nil, false
	}
	return desc.Get("value"), true
}

// trimEntryFrames drops from a stack trace the frames of web.js's
// callWithRequest (and the Function.prototype.call under it), through which
// Go calls a fetch handler: they are cellhost's, not the application's.
func trimEntryFrames(stack string) string {
	i := strings.Index(stack, "\tat callWithRequest (cellhost:web.js:")
	if i < 0 {
		return stack
	}
	head := strings.TrimSuffix(stack[:i], "\tat call (native)\n")
	if j := strings.IndexByte(stack[i:], '\n'); j >= 0 {
		return head + stack[i+j+1:]
	}
	return head
}

func (w *Worker) isError(obj *goja.Object) bool {
	proto := w.rt.Get("Error").ToObject(w.rt).Get("prototype").(*goja.Object)
	for p := obj.Prototype(); p != nil; p = p.Prototype() {
		if p == proto {
			return true
		}
	}
	return false
}

// errorOf converts an error from a goja call: a JS exception becomes a
// ScriptError (with the stack of the throw), anything else stays.
func (w *Worker) errorOf(err error) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return err // the runtime stays usable (goja fork patch 9)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		se := w.ScriptErrorOf(ex.Value())
		if se.Stack == "" {
			se.Stack = ex.String()
		}
		return se
	}
	return err
}

// ObjectClasses evaluates the bundle in a scratch runtime and returns the
// exported classes that can serve as Durable Object classes (every exported
// class except WorkerEntrypoint subclasses), sorted. Used when no
// configuration names the bindings.
func ObjectClasses(b *Bundle) ([]string, error) { return CheckWorker(b, nil) }

// CloseAllWasm closes every WebAssembly instance the runtime's code made
// (the host replaced the runtime). On the loop.
func (w *Worker) CloseAllWasm() { w.wasm.CloseAll() }

// CheckWorker evaluates the bundle in a scratch runtime, checks that it
// exports every class in classes (and no Durable Object class as default),
// and returns its Durable Object classes as ObjectClasses does. It finds
// bad input before anything else starts.
func CheckWorker(b *Bundle, classes []string) ([]string, error) {
	return CheckWorkerLimits(b, classes, DefaultModuleCPULimit, DefaultModuleMemoryLimit)
}

// CheckWorkerLimits is CheckWorker with module scope bounded by cpu (wall
// time) and mem (heap growth; no single allocation larger either): past
// them the check fails with workerd's startup error.
func CheckWorkerLimits(b *Bundle, classes []string, cpu time.Duration, mem int64) ([]string, error) {
	rt := goja.New()
	rt.SetMaxCallStackSize(8192)
	if mem > 0 {
		rt.SetAllocationHook(func(n int64, _ goja.AllocationKind) bool { return n <= mem })
	}
	if err := InstallWeb(rt, WebOptions{Console: io.Discard}); err != nil {
		return nil, err
	}
	InstallTimers(rt, idleScheduler{})
	stop := GuardModuleScope(rt, cpu, mem)
	w, err := NewWorker(rt, WorkerOptions{Bundle: b, Classes: classes})
	if why := stop(); why != nil {
		return nil, fmt.Errorf("%v", why)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range sortedKeys(w.Classes) {
		if !w.extends(w.Classes[name], w.entryCls) {
			out = append(out, name)
		}
	}
	return out, nil
}

// idleScheduler never runs anything: module top-level timers are inert while
// inspecting exports.
type idleScheduler struct{}

func (idleScheduler) AfterFunc(time.Duration, func()) func() { return func() {} }
