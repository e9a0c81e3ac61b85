package jsapi

import (
	"bytes"
	"strings"

	"github.com/cellhost/cellhost/third_party/goja"
)

// maxRemoteStacks bounds how many errors from other objects keep their
// stacks; older ones fall back to their own.
const maxRemoteStacks = 64

// remoteStack is the stack an error had in the object that threw it.
type remoteStack struct {
	err   *goja.Object
	stack string
}

// rememberRemoteStack keeps the stack of an error that crossed from another
// object, so that when it goes uncaught here the log shows where it was
// thrown. JS does not see it: the error's own keys stay as workerd's
// (name and message only, plus remote). On the runtime's goroutine.
func (w *Worker) rememberRemoteStack(e *goja.Object, stack string) {
	if len(w.remoteStacks) >= maxRemoteStacks {
		w.remoteStacks = append(w.remoteStacks[:0], w.remoteStacks[1:]...)
	}
	w.remoteStacks = append(w.remoteStacks, remoteStack{err: e, stack: stack})
}

// remoteStack returns the remembered stack of e.
func (w *Worker) remoteStack(e *goja.Object) (string, bool) {
	for i := len(w.remoteStacks) - 1; i >= 0; i-- {
		if w.remoteStacks[i].err == e {
			return w.remoteStacks[i].stack, true
		}
	}
	return "", false
}

// callSiteDepth bounds the frames an RPC call keeps of where it was made.
const callSiteDepth = 10

// A callSite is where the program made an RPC call: the frames of its own
// code (not cellhost's), innermost first.
type callSite struct{ frames []goja.StackFrame }

// callSite is native.callSite(): the program's frames at an RPC call.
func (w *Worker) callSite() goja.Value {
	frames := w.rt.CaptureCallStack(callSiteDepth+8, nil)
	out := frames[:0]
	for _, f := range frames {
		if f.SrcName() == "<native>" || strings.HasPrefix(f.SrcName(), "cellhost:") {
			continue // native functions, rpc.js
		}
		out = append(out, f)
		if len(out) == callSiteDepth {
			break
		}
	}
	return w.rt.ToValue(&callSite{frames: out})
}

// asyncStack is native.asyncStack(error, site): an error an RPC call
// failed with, made outside any JS frame, gets the call's site as its
// stack's frames, each written as an awaiting caller ("at async f (...)"),
// as V8 writes them (workerd's testAsyncStackTrace). The error's header
// line stays.
func (w *Worker) asyncStack(e, site goja.Value) {
	obj, ok := e.(*goja.Object)
	if !ok || obj.ClassName() != "Error" || site == nil {
		return // a thrown non-error keeps what it is
	}
	cs, ok := site.Export().(*callSite)
	if !ok || len(cs.frames) == 0 {
		return
	}
	sv := obj.Get("stack")
	if sv == nil {
		return
	}
	stack, ok := sv.Export().(string)
	if !ok {
		return
	}
	head := strings.TrimRight(stack, "\n")
	if i := strings.Index(head, "\n\tat "); i >= 0 {
		return // it has frames of its own
	}
	var b bytes.Buffer
	b.WriteString(head)
	for i := range cs.frames {
		b.WriteString("\n\tat ")
		var fb bytes.Buffer
		cs.frames[i].Write(&fb)
		if !bytes.HasPrefix(fb.Bytes(), []byte("async ")) {
			b.WriteString("async ")
		}
		b.Write(fb.Bytes())
	}
	b.WriteString("\n")
	_ = obj.Set("stack", b.String())
}
