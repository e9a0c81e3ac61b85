  // ---------------------------------------------------------------- AbortController
  const signalState = new WeakMap();
  class AbortSignal extends EventTarget {
    constructor(token) {
      if (token !== INTERNAL) throw new TypeError("Illegal constructor");
      super();
      signalState.set(this, { aborted: false, reason: undefined, onabort: null });
    }
    get aborted() { return signalState.get(this).aborted; }
    get reason() { return signalState.get(this).reason; }
    get onabort() { return signalState.get(this).onabort; }
    set onabort(f) {
      const s = signalState.get(this);
      if (s.onabort) this.removeEventListener("abort", s.onabort);
      s.onabort = typeof f === "function" ? f : null;
      if (s.onabort) this.addEventListener("abort", s.onabort);
    }
    throwIfAborted() {
      const s = signalState.get(this);
      if (s.aborted) throw s.reason;
    }
    static abort(reason) {
      const sig = new AbortSignal(INTERNAL);
      abortSignal(sig, reason);
      return sig;
    }
    static timeout(ms) {
      const sig = new AbortSignal(INTERNAL);
      if (typeof G.setTimeout !== "function") throw new TypeError("AbortSignal.timeout() needs timers, which are not available here");
      G.setTimeout(() => abortSignal(sig, new DOMException("The operation was aborted due to timeout", "TimeoutError")), Number(ms));
      return sig;
    }
    static any(signals) {
      const sig = new AbortSignal(INTERNAL);
      for (const s of signals) {
        if (s.aborted) {
          abortSignal(sig, s.reason);
          return sig;
        }
      }
      for (const s of signals) s.addEventListener("abort", () => abortSignal(sig, s.reason));
      return sig;
    }
  }
  Object.defineProperty(AbortSignal.prototype, Symbol.toStringTag, { value: "AbortSignal", configurable: true });
  function abortSignal(sig, reason) {
    const s = signalState.get(sig);
    if (s.aborted) return;
    s.aborted = true;
    s.reason = reason === undefined ? new DOMException("The operation was aborted.", "AbortError") : reason;
    const ev = new Event("abort");
    eventState.get(ev).trusted = true;
    sig.dispatchEvent(ev);
  }
  class AbortController {
    #signal = new AbortSignal(INTERNAL);
    get signal() { return this.#signal; }
    abort(reason) { abortSignal(this.#signal, reason); }
  }
  Object.defineProperty(AbortController.prototype, Symbol.toStringTag, { value: "AbortController", configurable: true });
  hostType(AbortSignal, "AbortSignal"); // not serializable, as on workerd
  defineGlobal("AbortSignal", AbortSignal);
  hostType(AbortController, "AbortController"); // not serializable, as on workerd
  defineGlobal("AbortController", AbortController);

