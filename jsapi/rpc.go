package jsapi

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi/clone"
	"github.com/cellhost/cellhost/jsapi/jserr"
	"github.com/cellhost/cellhost/jsapi/web"
)

//go:embed rpc.js
var rpcSource string

var rpcProgram = goja.MustCompile("cellhost:rpc.js", rpcSource, true)

// rpcModel is what rpc.js returns.
type rpcModel struct {
	target, stub, promise, property goja.Value
	encode, received, serveRemote   goja.Callable
	disposeTarget, releaseOwner     goja.Callable
	flush                           goja.Callable // sends the outbox (rpc.js)
	doStubMethod                    goja.Value
}

// An exportEntry is a capability a runtime exported: an RpcTarget, a
// function or an object behind a local RpcStub. Other runtimes hold its id
// (never obj): calls reach obj by posting to its home runtime's loop. refs
// counts the stubs that hold it, in any runtime; when the last one goes,
// the target's Symbol.dispose runs at home.
type exportEntry struct {
	id    uint64
	home  *Worker
	obj   *goja.Object // touched on home's loop only
	owner *goja.Object // the instance whose result exported it, or nil (home's loop only)
	refs  atomic.Int64
	// gone is the error calls that reach home after the owner instance was
	// reset fail with (its abort reason); pending fails the calls it still
	// runs. Both on home's loop only.
	gone    error
	pending map[*func([]byte, error)]struct{}
}

// errContextGone is workerd's error for a call to a target whose Durable
// Object instance was reset or evicted before the call was made.
var errContextGone = &ScriptError{Name: "Error", Message: "The execution context which hosts this callback is no longer running."}

// abortError is the error a reset instance's in-flight calls fail with.
func abortError(reason error) error {
	if reason == nil {
		return errContextGone
	}
	var se *ScriptError
	if errors.As(reason, &se) {
		r := *se
		r.Reset = false // the target's caller holds no stub of the object
		return &r
	}
	return &ScriptError{Name: "Error", Message: reason.Error()}
}

// exportTable maps ids to the live export entries of every runtime of the
// process.
var exportTable = struct {
	sync.Mutex
	m    map[uint64]*exportEntry
	next uint64
	// gone counts, per id whose owner instance was reset, the references
	// stubs still hold: calls through them fail with errContextGone.
	gone map[uint64]goneExport
}{m: map[uint64]*exportEntry{}, next: exportIDBase(), gone: map[uint64]goneExport{}}

// A goneExport is a dropped entry whose stubs still exist: refs of them,
// and the reset's error.
type goneExport struct {
	refs int64
	err  error
}

// exportGone returns the reset error of id's target, or nil when id names
// no target whose instance was reset.
func exportGone(id uint64) error {
	exportTable.Lock()
	defer exportTable.Unlock()
	if g, ok := exportTable.gone[id]; ok && g.refs > 0 {
		return g.err
	}
	return nil
}

func lookupExport(id uint64) *exportEntry {
	exportTable.Lock()
	defer exportTable.Unlock()
	return exportTable.m[id]
}

// installRPC evaluates rpc.js in w's runtime.
func (w *Worker) installRPC() error {
	rt := w.rt
	fnv, err := rt.RunProgram(rpcProgram)
	if err != nil {
		return err
	}
	fn, _ := goja.AssertFunction(fnv)
	native := rt.NewObject()
	_ = native.Set("capExport", w.capExport)
	_ = native.Set("capAddRef", func(id int64) {
		if e := lookupExport(uint64(id)); e != nil {
			e.refs.Add(1)
		}
	})
	_ = native.Set("capRelease", func(id int64) { releaseExport(uint64(id)) })
	_ = native.Set("capCall", w.capCall)
	_ = native.Set("stubCall", w.stubCall)
	_ = native.Set("objectStubOf", w.objectStubOf)
	_ = native.Set("makeObjectStub", w.makeObjectStub)
	_ = native.Set("rpcPending", func() { w.rpcPending = true })
	_ = native.Set("isProxy", isProxy)
	_ = native.Set("callSite", w.callSite)
	_ = native.Set("asyncStack", w.asyncStack)
	_ = native.Set("later", func(f goja.Callable) {
		run := func() { _, _ = f(goja.Undefined()) }
		if !w.postHere()(run) {
			w.microtask(run)
		}
	})
	mv, err := fn(goja.Undefined(), native)
	if err != nil {
		return err
	}
	m := mv.ToObject(rt)
	call := func(name string) goja.Callable {
		f, _ := goja.AssertFunction(m.Get(name))
		return f
	}
	w.rpc = rpcModel{
		target: m.Get("RpcTarget"), stub: m.Get("RpcStub"), promise: m.Get("RpcPromise"), property: m.Get("RpcProperty"),
		encode: call("encode"), received: call("received"), serveRemote: call("serveRemote"),
		disposeTarget: call("disposeTarget"), releaseOwner: call("releaseOwner"), flush: call("flush"), doStubMethod: m.Get("doStubMethod"),
	}
	return w.installLoopback()
}

var proxyType = reflect.TypeOf(goja.Proxy{})

// isProxy is native.isProxy(v): whether v is a Proxy (which JS cannot
// tell: workerd's serializer can, and stubs a Proxy by reference).
func isProxy(v goja.Value) bool {
	obj, ok := v.(*goja.Object)
	return ok && obj.ExportType() == proxyType
}

// capExport is native.capExport(target): a new export entry holding one
// reference, returned as its id.
func (w *Worker) capExport(v goja.Value) int64 {
	obj, ok := v.(*goja.Object)
	if !ok {
		panic(w.rt.NewTypeError("cannot export a primitive"))
	}
	e := &exportEntry{home: w, obj: obj, owner: w.exportOwner}
	e.refs.Store(1)
	exportTable.Lock()
	exportTable.next++
	e.id = exportTable.next
	exportTable.m[e.id] = e
	exportTable.Unlock()
	return int64(e.id)
}

// releaseExport drops one reference of the entry id; the last one removes
// it and disposes the target at home. Safe from any goroutine.
func releaseExport(id uint64) {
	exportTable.Lock()
	e := exportTable.m[id]
	if e == nil {
		if g, ok := exportTable.gone[id]; ok {
			if g.refs <= 1 {
				delete(exportTable.gone, id)
			} else {
				g.refs--
				exportTable.gone[id] = g
			}
		}
		exportTable.Unlock()
		return
	}
	last := e.refs.Add(-1) <= 0
	if last {
		delete(exportTable.m, id)
	}
	exportTable.Unlock()
	if last {
		e.home.post(func() {
			_, _ = e.home.rpc.disposeTarget(goja.Undefined(), e.obj)
		})
	}
}

// sawGone records that this runtime got a reply saying the target id's
// instance was reset (capCall). On the loop; bounded.
func (w *Worker) sawGone(id uint64) {
	if w.goneSeen == nil || len(w.goneSeen) >= 4096 {
		w.goneSeen = map[uint64]bool{}
	}
	w.goneSeen[id] = true
}

// flushRPC sends the calls rpc.js holds for this turn's pipelining, so
// that a message sent now (stub.fetch) does not overtake them. On the
// loop.
func (w *Worker) flushRPC() {
	if w.rpcPending {
		w.rpcPending = false
		_, _ = w.rpc.flush(goja.Undefined())
	}
}

// post runs f on w's loop, or drops it when w has no loop (a scratch
// runtime) or was retired.
func (w *Worker) post(f func()) bool {
	if w.postFn == nil || w.retired.Load() {
		return false
	}
	return w.postFn(func() {
		if !w.retired.Load() {
			f()
		}
	})
}

// postHere returns, on the loop, a post whose functions run as the code
// running now (WorkerOptions.PostAs), or post when the host gives none.
func (w *Worker) postHere() func(func()) bool {
	if w.postAsFn == nil || w.postFn == nil {
		return w.post
	}
	p := w.postAsFn()
	return func(f func()) bool {
		if w.retired.Load() {
			return false
		}
		return p(func() {
			if !w.retired.Load() {
				f()
			}
		})
	}
}

// Retire marks the worker as replaced: calls to the targets it exported
// fail from now on, and its entries leave the table. Safe from any
// goroutine.
func (w *Worker) Retire() {
	w.retired.Store(true)
	if w.abandonStreams != nil {
		w.abandonStreams()
	}
	dropExports(func(e *exportEntry) bool { return e.home == w }, nil)
}

// errStubDisposed is workerd's error for a call through a disposed stub.
var errStubDisposed = &ScriptError{Name: "Error", Message: "RPC stub used after being disposed."}

// rpcMessages counts the RPC messages runtimes of this process sent (to
// objects and to exported targets).
var rpcMessages atomic.Int64

// RPCMessages is how many RPC messages the runtimes of this process sent
// to Durable Objects and to targets other runtimes exported (a pipelined
// chain is one message). Safe from any goroutine.
func RPCMessages() int64 { return rpcMessages.Load() }

// capCall is native.capCall(id, path, value, caps, isGet[, resolve,
// reject]): a call on an exported target, wherever it lives (stubCall says
// what resolve and reject do). The arguments travel as bytes.
func (w *Worker) capCall(call goja.FunctionCall) goja.Value {
	rpcMessages.Add(1)
	id := uint64(call.Argument(0).ToInteger())
	isGet := call.Argument(4).ToBoolean()
	return w.settler(call, 5)(func(settle func(func() (goja.Value, error), error)) error {
		msg, err := w.envelope(call.Argument(1), call.Argument(2), call.Argument(3))
		if err != nil {
			return err
		}
		e := lookupExport(id)
		if e == nil {
			if gone := exportGone(id); gone != nil {
				// A call sent before this runtime saw the reset fails
				// with its reason (workerd: the call was already on its
				// way); one made after, with errContextGone.
				if w.goneSeen[id] {
					return errContextGone
				}
				w.post(func() { w.sawGone(id) })
				return remoteScriptError(gone)
			}
			return errStubDisposed
		}
		caller := w
		home := e.home
		callerPost := w.postHere() // the reply runs as the code that called
		reply := func(res []byte, err error) {
			if !callerPost(func() {
				if err != nil && exportGone(id) != nil {
					caller.sawGone(id)
				}
				settle(func() (goja.Value, error) { return caller.receive(res) }, err)
			}) {
				return
			}
		}
		var run func()
		run = func() {
			if e.gone != nil {
				reply(nil, remoteScriptError(e.gone))
				return
			}
			if g := home.gates[e.owner]; e.owner != nil && g != nil {
				if g.broken != nil {
					reply(nil, remoteScriptError(abortError(g.broken)))
					return
				}
				if len(g.queue) > 0 || g.topRunning() {
					g.wait(run) // the object's input gate is closed
					return
				}
			}
			// Until it settles, the call fails with its owner's reset.
			if e.pending == nil {
				e.pending = map[*func([]byte, error)]struct{}{}
			}
			key := &reply
			e.pending[key] = struct{}{}
			done := func() bool {
				if _, ok := e.pending[key]; !ok {
					return false // failed by the reset
				}
				delete(e.pending, key)
				return true
			}
			v, err := home.serveEnvelope(e.obj, msg, isGet, nil)
			if err != nil {
				if done() {
					reply(nil, remoteScriptError(home.fromObject(err, e.owner)))
				}
				return
			}
			home.Settle(v, func(r goja.Value) {
				if done() {
					b, err := home.SerializeResultFor(e.owner, r)
					reply(b, remoteScriptError(err))
				}
			}, func(x goja.Value) {
				if done() {
					reply(nil, remoteScriptError(home.fromObject(home.ScriptErrorOf(x), e.owner)))
				}
			})
		}
		ok := home.post(run)
		if !ok {
			return &ScriptError{Name: "Error", Message: "The RPC target is gone: the runtime that held it was replaced."}
		}
		return nil
	})
}

// fromObject names, in a script error thrown by a target that the Durable
// Object instance owner exported, the object it came from (workerd sets
// durableObjectId on such errors).
func (w *Worker) fromObject(err error, owner *goja.Object) error {
	var se *ScriptError
	if owner == nil || !errors.As(err, &se) {
		return err
	}
	ctx, ok := owner.Get("ctx").(*goja.Object)
	if !ok {
		return err
	}
	id, ok := ctx.Get("id").(*goja.Object)
	if !ok {
		return err
	}
	r := *se
	r.ObjectID = id.String()
	return &r
}

// remoteScriptError marks an error from another runtime as remote.
func remoteScriptError(err error) error {
	var se *ScriptError
	if errors.As(err, &se) {
		r := *se
		r.Remote = true
		return &r
	}
	return err
}

// stubCall is native.stubCall(stub, path, value, caps, isGet[, resolve,
// reject]): an RPC to a Durable Object. With resolve and reject it settles
// them (rpc.js's promise) and returns undefined; otherwise a promise.
func (w *Worker) stubCall(call goja.FunctionCall) goja.Value {
	rpcMessages.Add(1)
	st := w.stubOf(call.Argument(0))
	isGet := call.Argument(4).ToBoolean()
	return w.settler(call, 5)(func(settle func(func() (goja.Value, error), error)) error {
		if err := st.checkReset(); err != nil {
			return err
		}
		msg, err := w.envelope(call.Argument(1), call.Argument(2), call.Argument(3))
		if err != nil {
			return err
		}
		method := ""
		if p, ok := call.Argument(1).(*goja.Object); ok {
			method = p.Get("0").String()
		}
		st.ns.Call(st.hex, st.name, method, msg, isGet, func(res []byte, err error) {
			st.settled(err)
			settle(func() (goja.Value, error) { return w.receive(res) }, err)
		})
		return nil
	})
}

// objectStubOf is native.objectStubOf(v): [binding, hex, name] for a
// Durable Object stub, else undefined.
func (w *Worker) objectStubOf(v goja.Value) goja.Value {
	obj, ok := v.(*goja.Object)
	if !ok || obj.Prototype() != w.stubProto { // Export walks an ordinary object
		return goja.Undefined()
	}
	st, ok := obj.Export().(*stubObject)
	if !ok || st.w != w {
		return goja.Undefined()
	}
	return w.rt.ToValue([]any{w.nsNames[st.ns], st.hex, st.nameV})
}

// makeObjectStub is native.makeObjectStub(binding, hex, name): the stub a
// Durable Object stub sent from another runtime becomes.
func (w *Worker) makeObjectStub(binding string, hex string, name goja.Value) goja.Value {
	for obj, ns := range w.nsObjs {
		if w.nsNames[ns] == binding {
			var nameArg goja.Value = goja.Undefined()
			if name != nil && !goja.IsUndefined(name) && !goja.IsNull(name) {
				nameArg = name
			}
			id := w.NewID(ns, hex, valueString(nameArg))
			return w.makeStub(goja.FunctionCall{Arguments: []goja.Value{obj, id, w.rt.ToValue(hex), nameArg}})
		}
	}
	panic(w.rt.NewTypeError(fmt.Sprintf("no Durable Object binding %q in this worker", binding)))
}

func valueString(v goja.Value) string {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// The envelope of an RPC message: the property path, the capabilities, then
// the value's structured-clone bytes (the value with each capability
// replaced by a marker rpc.js puts back).
//
//	magic 0xC7 | uvarint n, n × (uvarint len, path segment) |
//	uvarint m, m × cap | clone bytes
//	cap: 1, uvarint export id | 2, binding, hex, 0/1 has-name, name
//	(strings: uvarint len, bytes)
const envelopeMagic = 0xC7

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// envelope encodes (path, value, caps) for another runtime.
func (w *Worker) envelope(path, v, caps goja.Value) ([]byte, error) {
	return jserr.Catch(func() ([]byte, error) {
		b := []byte{envelopeMagic}
		segs := w.arrayItems(path)
		b = binary.AppendUvarint(b, uint64(len(segs)))
		for _, s := range segs {
			b = appendStr(b, s.String())
		}
		items := w.arrayItems(caps)
		list := make([]*goja.Object, len(items))
		for i, x := range items {
			list[i] = x.ToObject(w.rt)
		}
		body, refs, err := clone.SerializeRPC(w.rt, v)
		if err != nil {
			for _, id := range refs {
				web.ReleaseRPCBody(id)
			}
			return nil, err
		}
		// The body streams the value refers to follow the capabilities
		// (kind 3), so that a message's local references can be found
		// without decoding it (rpcnodes.go).
		b = binary.AppendUvarint(b, uint64(len(list)+len(refs)))
		for _, c := range list {
			switch c.Get("t").ToInteger() {
			case 1:
				b = append(b, 1)
				b = binary.AppendUvarint(b, uint64(c.Get("id").ToInteger()))
			default:
				b = append(b, 2)
				b = appendStr(b, c.Get("b").String())
				b = appendStr(b, c.Get("h").String())
				if n := c.Get("n"); n != nil && !goja.IsUndefined(n) && !goja.IsNull(n) {
					b = append(b, 1)
					b = appendStr(b, n.String())
				} else {
					b = append(b, 0)
				}
			}
		}
		for _, id := range refs {
			b = append(b, 3)
			b = binary.AppendUvarint(b, id)
		}
		return append(b, body...), nil
	})
}

// errEnvelope is the error for bytes that are not an RPC envelope.
var errEnvelope = errors.New("corrupt RPC message")

// maxEnvelopeID is the largest export id an envelope may carry: ids reach
// JS as numbers, exact up to 2^53-1 (they count up from 1, so a larger one
// is corrupt; FuzzEnvelopeTargetIDs found 2^61.6 read as two ids).
const maxEnvelopeID = 1<<53 - 1

// openEnvelope decodes an envelope into its path, capability list (as JS
// descriptors) and value.
func (w *Worker) openEnvelope(b []byte) (path []string, caps *goja.Object, v goja.Value, err error) {
	if len(b) == 0 || b[0] != envelopeMagic {
		return nil, nil, nil, errEnvelope
	}
	b = b[1:]
	uv := func() uint64 {
		x, n := binary.Uvarint(b)
		if n <= 0 {
			panic(errEnvelope)
		}
		b = b[n:]
		return x
	}
	str := func() string {
		n := uv()
		if n > uint64(len(b)) {
			panic(errEnvelope)
		}
		s := string(b[:n])
		b = b[n:]
		return s
	}
	byte1 := func() byte {
		if len(b) == 0 {
			panic(errEnvelope)
		}
		c := b[0]
		b = b[1:]
		return c
	}
	defer func() {
		if r := recover(); r != nil {
			if r != errEnvelope {
				panic(r)
			}
			err = errEnvelope
		}
	}()
	n := uv()
	if n > uint64(len(b)) {
		return nil, nil, nil, errEnvelope
	}
	for i := uint64(0); i < n; i++ {
		path = append(path, str())
	}
	m := uv()
	if m > uint64(len(b)) {
		return nil, nil, nil, errEnvelope
	}
	descs := make([]any, 0, m)
	for i := uint64(0); i < m; i++ {
		d := w.rt.NewObject()
		switch byte1() {
		case 1:
			_ = d.Set("t", 1)
			id := uv()
			if id > maxEnvelopeID {
				return nil, nil, nil, errEnvelope
			}
			_ = d.Set("id", int64(id))
		case 2:
			_ = d.Set("t", 2)
			_ = d.Set("b", str())
			_ = d.Set("h", str())
			if byte1() == 1 {
				_ = d.Set("n", str())
			}
		case 3: // a body stream, read by the value's codec
			if uv() > maxEnvelopeID {
				return nil, nil, nil, errEnvelope
			}
			continue
		default:
			return nil, nil, nil, errEnvelope
		}
		descs = append(descs, d)
	}
	v, err = clone.DeserializeRPC(w.rt, b)
	if err != nil {
		return nil, nil, nil, err
	}
	return path, w.rt.NewArray(descs...), v, nil
}

// receive turns a result envelope into the value the caller's promise
// resolves to.
func (w *Worker) receive(b []byte) (goja.Value, error) {
	_, caps, v, err := w.openEnvelope(b)
	if err != nil {
		return nil, err
	}
	r, err := w.rpc.received(goja.Undefined(), v, caps)
	if err != nil {
		return nil, w.errorOf(err)
	}
	return r, nil
}

// serveEnvelope runs a call that arrived as msg on target (rpc.js
// serveRemote); base is the class whose methods the first path segment
// may name (DurableObject), or nil.
func (w *Worker) serveEnvelope(target *goja.Object, msg []byte, isGet bool, base *goja.Object) (goja.Value, error) {
	path, caps, v, err := w.openEnvelope(msg)
	if err != nil {
		return nil, err
	}
	segs := make([]any, len(path))
	for i, s := range path {
		segs[i] = s
	}
	var baseV goja.Value = goja.Undefined()
	if base != nil {
		baseV = base
	}
	r, err := w.rpc.serveRemote(goja.Undefined(), target, w.rt.ToValue(segs), v, caps, w.rt.ToValue(isGet), baseV)
	if err != nil {
		return nil, w.errorOf(err)
	}
	return r, nil
}

// SerializeResult encodes an RPC result for another runtime: targets and
// functions in it are exported, stubs hand over their reference.
func (w *Worker) SerializeResult(v goja.Value) ([]byte, error) { return w.SerializeResultFor(nil, v) }

// SerializeResultFor is SerializeResult for a result of the Durable Object
// instance owner: what it exports lives until the instance is released
// (ReleaseOwner) at the latest.
func (w *Worker) SerializeResultFor(owner *goja.Object, v goja.Value) ([]byte, error) {
	w.exportOwner = owner
	defer func() { w.exportOwner = nil }()
	enc, err := w.rpc.encode(goja.Undefined(), v)
	if err != nil {
		return nil, w.errorOf(err)
	}
	o := enc.ToObject(w.rt)
	return w.envelope(nil, o.Get("v"), o.Get("caps"))
}

// errGlobalScope is workerd's error for I/O at a module's top level.
const errGlobalScope = "Disallowed operation called within global scope. Asynchronous I/O (ex: fetch() or connect()), setting a timeout, and generating random values are not allowed within global scope. To fix this error, perform this operation within a handler. https://developers.cloudflare.com/workers/runtime-apis/handlers/"

// waitUntil is cloudflare:workers' waitUntil(promise). A runtime here is
// never torn down under a pending promise, so outside the module's top
// level it only observes the promise (a rejection is not unhandled).
func (w *Worker) waitUntil(p goja.Value) {
	if w.loading {
		panic(jserr.Object(w.rt, "Error", errGlobalScope))
	}
	if obj, ok := p.(*goja.Object); ok {
		if c, ok := goja.AssertFunction(obj.Get("catch")); ok {
			_, _ = c(obj, w.rt.ToValue(func(goja.FunctionCall) goja.Value { return goja.Undefined() }))
		}
	}
}

// ReleaseOwner disposes the stubs a Durable Object instance received (its
// RPC parameters it kept, by dup()): host calls it when the instance is
// reset, as workerd disposes them with the instance's I/O context.
func (w *Worker) ReleaseOwner(inst *goja.Object) { w.AbortOwner(inst, "", nil) }

// AbortOwner is ReleaseOwner for the instance of object id reset with
// reason (ctx.abort, a failed blockConcurrencyWhile, ...): as on workerd,
// the calls its targets were running, and those already sent to them, fail
// with it; calls made later fail with errContextGone; and the stubs of the
// process that reached the instance stay broken with it. On the loop.
func (w *Worker) AbortOwner(inst *goja.Object, id string, reason error) {
	if inst == nil {
		return
	}
	if reason != nil {
		objectWasReset(id, abortError(reason))
	}
	_, _ = w.rpc.releaseOwner(goja.Undefined(), inst)
	gate := w.gates[inst]
	delete(w.gates, inst)
	gone := abortError(reason)
	for _, e := range dropExports(func(e *exportEntry) bool { return e.home == w && e.owner == inst }, gone) {
		e.gone = gone
		for key := range e.pending {
			delete(e.pending, key)
			(*key)(nil, remoteScriptError(gone))
		}
		_, _ = w.rpc.disposeTarget(goja.Undefined(), e.obj)
	}
	if gate != nil { // calls held at its gate now fail with gone
		waiting := gate.waiting
		gate.waiting = nil
		for _, f := range waiting {
			f()
		}
	}
}

// dropExports removes the entries match selects from the table (their
// stubs fail from now on, as stubs to a reset object's targets do on
// workerd) and returns them; with gone, calls through their stubs fail
// with errContextGone until the stubs are released. match runs under the
// table's lock.
func dropExports(match func(*exportEntry) bool, gone error) []*exportEntry {
	exportTable.Lock()
	defer exportTable.Unlock()
	var out []*exportEntry
	for id, e := range exportTable.m {
		if match(e) {
			delete(exportTable.m, id)
			if gone != nil {
				if n := e.refs.Load(); n > 0 {
					exportTable.gone[id] = goneExport{refs: n, err: gone}
				}
			}
			out = append(out, e)
		}
	}
	return out
}

// isDOMException reports whether obj is a DOMException (jserr.IsDOMException).
func (w *Worker) isDOMException(obj *goja.Object) bool { return jserr.IsDOMException(w.rt, obj) }

// arrayItems returns the elements of a JS array (nil for anything else).
func (w *Worker) arrayItems(v goja.Value) []goja.Value {
	a, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	n := int(a.Get("length").ToInteger())
	out := make([]goja.Value, n)
	for i := range out {
		out[i] = a.Get(strconv.Itoa(i))
	}
	return out
}

//go:embed workers.js
var workersSource string

var workersProgram = goja.MustCompile("cellhost:workers.js", workersSource, true)

// installWorkersModule builds the object behind cloudflare:workers from
// base (the model's classes and env) and returns the function that gives
// it the worker's exports once the bundle ran.
func (w *Worker) installWorkersModule(base *goja.Object) (func(bindingClasses map[string]string) error, error) {
	fnv, err := w.rt.RunProgram(workersProgram)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(fnv)
	rv, err := fn(goja.Undefined(), base, w.rt.ToValue(w.waitUntil))
	if err != nil {
		return nil, err
	}
	r := rv.ToObject(w.rt)
	_ = w.rt.Set("__cellhost_cloudflare_workers", r.Get("module"))
	set, _ := goja.AssertFunction(r.Get("setExports"))
	return func(bindingClasses map[string]string) error {
		nsOf := map[string]goja.Value{}
		for binding, class := range bindingClasses {
			if _, ok := nsOf[class]; !ok {
				nsOf[class] = w.Env.Get(binding)
			}
		}
		ex := w.rt.NewObject()
		for _, k := range w.Exports.Keys() {
			v := w.Exports.Get(k)
			if ns, ok := nsOf[k]; ok && w.Classes[k] != nil {
				v = ns
			}
			_ = ex.Set(k, v)
		}
		w.moduleExports = ex
		_, err := set(goja.Undefined(), ex)
		return err
	}, nil
}
