package jsapi

import "github.com/cellhost/cellhost/third_party/goja"

// globalScopeJS gives the global object workerd's shape: its prototype is
// ServiceWorkerGlobalScope.prototype (Object.prototype.toString gives
// "[object ServiceWorkerGlobalScope]"), and ServiceWorkerGlobalScope and
// WorkerGlobalScope are constructors that throw "Illegal constructor".
// Libraries detect Workers by them: emscripten builds (@jsquash) take
// their Workers path only when ServiceWorkerGlobalScope exists, and
// otherwise build URLs from an import.meta.url a bundle does not have.
// Recorded on workerd: testjs/libs/jsquash.
const globalScopeJS = `(function () {
  const illegal = () => { throw new TypeError("Illegal constructor"); };
  const WorkerGlobalScope = function WorkerGlobalScope() { illegal(); };
  const ServiceWorkerGlobalScope = function ServiceWorkerGlobalScope() { illegal(); };
  Object.defineProperty(ServiceWorkerGlobalScope.prototype, Symbol.toStringTag, { value: "ServiceWorkerGlobalScope", configurable: true });
  Object.defineProperty(WorkerGlobalScope.prototype, Symbol.toStringTag, { value: "WorkerGlobalScope", configurable: true });
  for (const [k, v] of [["WorkerGlobalScope", WorkerGlobalScope], ["ServiceWorkerGlobalScope", ServiceWorkerGlobalScope]]) {
    Object.defineProperty(globalThis, k, { value: v, writable: true, configurable: true, enumerable: false });
  }
  // ServiceWorkerGlobalScope extends WorkerGlobalScope extends EventTarget,
  // as on workerd: the global has addEventListener and dispatchEvent.
  if (typeof EventTarget === "function") Object.setPrototypeOf(WorkerGlobalScope.prototype, EventTarget.prototype);
  Object.setPrototypeOf(ServiceWorkerGlobalScope.prototype, WorkerGlobalScope.prototype);
  Object.setPrototypeOf(globalThis, ServiceWorkerGlobalScope.prototype);
})()`

var globalScopeProgram = goja.MustCompile("cellhost:globalscope", globalScopeJS, true)

func installGlobalScope(rt *goja.Runtime) error {
	_, err := rt.RunProgram(globalScopeProgram)
	return err
}
