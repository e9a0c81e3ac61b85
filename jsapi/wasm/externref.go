package wasm

import (
	"github.com/cellhost/cellhost/third_party/goja"
	wtable "github.com/cellhost/cellhost/third_party/wazero/experimental/table"
)

// externTable gives wasm handles to JS values: an externref is the index
// of its value here, plus one (0 is null). wasm cannot hold a Go pointer
// (wazero's references are plain integers the collector does not see), so
// the values live here and are freed by a mark-and-sweep: outside a running
// call, wasm holds references only in tables and globals (not in linear
// memory), which wazero patch 2 (experimental/table.ExternRefs) lists for
// each open module. A sweep runs when the table has doubled since the last
// one, only while no wasm code of the runtime runs and no conversion is
// half done, so the table stays within twice what wasm holds (plus a
// constant), however many values cross.
type externTable struct {
	vals []goja.Value
	free []uint64
	// ids gives an object already in the table its handle again, so the
	// same object crossing many times takes one slot.
	ids  map[*goja.Object]uint64
	next int // sweep when this many slots are in use
}

const minSweep = 1024

func (e *externTable) inUse() int { return len(e.vals) - len(e.free) }

func (e *externTable) handle(v goja.Value) uint64 {
	o, isObj := v.(*goja.Object)
	if isObj {
		if h, ok := e.ids[o]; ok {
			return h
		}
	}
	var h uint64
	if n := len(e.free); n > 0 {
		h = e.free[n-1]
		e.free = e.free[:n-1]
		e.vals[h-1] = v
	} else {
		e.vals = append(e.vals, v)
		h = uint64(len(e.vals))
	}
	if isObj {
		if e.ids == nil {
			e.ids = map[*goja.Object]uint64{}
		}
		e.ids[o] = h
	}
	return h
}

func (e *externTable) value(h uint64) goja.Value {
	if h == 0 || h > uint64(len(e.vals)) || e.vals[h-1] == nil {
		return goja.Null()
	}
	return e.vals[h-1]
}

// idle reports whether a sweep may run now: no wasm code of the runtime
// runs (a call, a start function) and no JS->wasm conversion is half done.
func (s *state) idle() bool {
	return len(s.calls.running) == 0 && s.instantiating == 0 && s.converting == 0
}

// maybeSweep frees the handles no open module holds, if the table grew
// enough since the last sweep and nothing runs.
func (s *state) maybeSweep() {
	e := &s.externs
	if e.inUse() < max(e.next, minSweep) || !s.idle() {
		return
	}
	s.sweepExterns()
}

func (s *state) sweepExterns() {
	e := &s.externs
	marked := make([]bool, len(e.vals))
	mark := func(h uint64) {
		if h != 0 && h <= uint64(len(marked)) {
			marked[h-1] = true
		}
	}
	for _, l := range s.scopes {
		for _, w := range l {
			ms := w.Value()
			if ms == nil {
				continue
			}
			ms.mu.Lock()
			if !ms.closed {
				for _, m := range ms.list {
					wtable.ExternRefs(m, mark)
				}
			}
			ms.mu.Unlock()
		}
	}
	live := 0
	e.free = e.free[:0]
	for i, v := range e.vals {
		switch {
		case marked[i]:
			live++
		case v != nil:
			if o, ok := v.(*goja.Object); ok {
				delete(e.ids, o)
			}
			e.vals[i] = nil
			fallthrough
		default:
			e.free = append(e.free, uint64(i+1))
		}
	}
	// Trim free slots at the end so the table can shrink.
	for n := len(e.vals); n > 0 && e.vals[n-1] == nil; n-- {
		e.vals = e.vals[:n-1]
	}
	kept := e.free[:0]
	for _, h := range e.free {
		if h <= uint64(len(e.vals)) {
			kept = append(kept, h)
		}
	}
	e.free = kept
	e.next = 2 * live
	sweeps++
}

// sweeps counts sweeps (tests).
var sweeps int
