package jsapi

import "github.com/dop251/goja"

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
