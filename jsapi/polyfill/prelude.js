// Hand-written built-ins that core-js does not provide and goja lacks.
// Runs before the worker's modules, after corejs.js. Each one is defined only
// when absent, non-enumerable, as V8 defines it.
(function () {
  "use strict";
  function define(obj, name, value) {
    if (!(name in obj)) {
      Object.defineProperty(obj, name, { value, writable: true, enumerable: false, configurable: true });
    }
  }
  // V8's Error.captureStackTrace(target, constructorOpt): an own,
  // non-enumerable "stack" accessor on target (reads the trace, headed like
  // Error.prototype.toString; keeps what is written).
  define(Error, "captureStackTrace", function captureStackTrace(target, constructorOpt) {
    if (target === null || (typeof target !== "object" && typeof target !== "function")) {
      throw new TypeError("Invalid argument");
    }
    let frames = String(new Error().stack).split("\n").slice(2); // drop "Error" and this function
    // V8 leaves out constructorOpt's frame and every frame above it.
    if (typeof constructorOpt === "function" && constructorOpt.name) {
      const at = frames.findIndex((f) => f.trim().startsWith("at " + constructorOpt.name + " ") ||
        f.trim().startsWith("at new " + constructorOpt.name + " "));
      if (at >= 0) frames = frames.slice(at + 1);
    }
    let header;
    try {
      header = Error.prototype.toString.call(target);
    } catch {
      header = "Error";
    }
    // An accessor pair, as V8 defines it (and as goja patch 35 gives errors).
    let stack = [header, ...frames.map((f) => "    " + f.trim())].join("\n");
    Object.defineProperty(target, "stack", {
      get() { return stack; },
      set(v) { stack = v; },
      enumerable: false, configurable: true,
    });
  });
  define(Error, "stackTraceLimit", 10);
})();
