package goja

// cellhost patch: an uncatchable exception (an Interrupt) that reaches the
// outermost Go caller leaves the runtime reusable.
//
// Upstream, an interrupt raised inside a generator or an async function
// (generator.next, asyncRunner.start: they push a context and a try frame
// and pop them without defer) unwinds past those frames and leaves them on
// vm.callStack and vm.tryStack. Every later call then looks nested
// (len(callStack) > 0): it never reaches Runtime.leave, so promise jobs
// never run again and the runtime has to be thrown away, with everything
// else living in it. abortToTop, called where the unwinding reaches the
// outermost Go caller, drops whatever the aborted call left behind, so that
// the runtime serves the next call as if the interrupted one had returned.
// Iterators open in the aborted frames are not closed (their return methods
// would run JS while the interrupt is being delivered).
func (vm *vm) abortToTop() {
	clear(vm.callStack)
	vm.callStack = vm.callStack[:0]
	clear(vm.tryStack)
	vm.tryStack = vm.tryStack[:0]
	clear(vm.iterStack)
	vm.iterStack = vm.iterStack[:0]
	clear(vm.refStack)
	vm.refStack = vm.refStack[:0]
	clear(vm.stack)
	vm.stack = vm.stack[:0]
	vm.sp, vm.sb, vm.args, vm.pc = 0, -1, 0, 0
	vm.prg = nil
	vm.stash = &vm.r.global.stash
	vm.privEnv = nil
	vm.newTarget = nil
	vm.result = nil
	vm.curAsyncRunner = nil
}
