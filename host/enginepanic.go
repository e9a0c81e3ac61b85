package host

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/cellhost/cellhost/third_party/goja"

	"github.com/cellhost/cellhost/jsapi"
)

// errEnginePanic is the reason a shard's runtime is replaced after a Go
// panic crossed goja (a bug in the engine or in a host function, reached by
// the program's code).
const errEnginePanic = "its JavaScript runtime hit an internal error (a Go panic in the engine)"

// guard runs start, a call into JavaScript for an event that waits for a
// reply, and turns a Go panic that crosses goja into an error for that
// event: the runtime is marked poisoned, so runJob replaces it when the job
// ends (resetting the shard's objects and failing their running events and
// the worker's pending requests), and the reply goes out in this turn
// instead of when the request times out. A JS exception thrown as a panic
// and an interrupt keep their own handling in runJob. On the loop.
func (s *shard) guard(start func() (goja.Value, error)) (v goja.Value, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch r.(type) {
		case *goja.Exception, *goja.InterruptedError:
			panic(r)
		}
		s.log.Error(fmt.Sprintf("internal error in shard %d: %v\n%s", s.idx, r, debug.Stack()))
		s.w.Poisoned = true
		v, err = nil, fmt.Errorf("internal error in the JavaScript engine: %v", r)
	}()
	return start()
}

// workerEvent is a worker request not answered yet.
type workerEvent struct {
	deliver func(*jsapi.HTTPResponse, error) // answers once
}

// startWorkerEvent registers a worker request until it is answered; the
// reply it returns answers it once (a replaced runtime may have answered it
// first). On the loop.
func (s *shard) startWorkerEvent(reply func(*jsapi.HTTPResponse, error)) func(*jsapi.HTTPResponse, error) {
	e := &workerEvent{}
	e.deliver = func(r *jsapi.HTTPResponse, err error) {
		if _, ok := s.workerEvents[e]; !ok {
			return
		}
		delete(s.workerEvents, e)
		reply(r, err)
	}
	if s.workerEvents == nil {
		s.workerEvents = map[*workerEvent]struct{}{}
	}
	s.workerEvents[e] = struct{}{}
	return e.deliver
}

// failWorkerEvents fails the worker requests of a runtime being replaced:
// their promises will never settle. A response already queued in this turn
// (its promise settled before the runtime went) still goes out: the first
// answer queued wins. On the loop.
func (s *shard) failWorkerEvents(reason string) {
	err := errors.New("the worker's JavaScript runtime was reset because " + reason)
	for e := range s.workerEvents {
		s.reply(nil, func() { e.deliver(nil, err) })
	}
}
