  // ---------------------------------------------------------------- Event, EventTarget
  const eventState = new WeakMap();
  class Event {
    constructor(type, init = {}) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'Event': 1 argument required, but only 0 present.");
      init = init ?? {};
      eventState.set(this, {
        type: String(type),
        bubbles: !!init.bubbles,
        cancelable: !!init.cancelable,
        composed: !!init.composed,
        defaultPrevented: false,
        stop: false,
        target: null,
        currentTarget: null,
        phase: 0,
        timeStamp: Date.now(),
      });
    }
    get type() { return eventState.get(this).type; }
    get bubbles() { return eventState.get(this).bubbles; }
    get cancelable() { return eventState.get(this).cancelable; }
    get composed() { return eventState.get(this).composed; }
    get defaultPrevented() { return eventState.get(this).defaultPrevented; }
    get target() { return eventState.get(this).target; }
    get srcElement() { return eventState.get(this).target; }
    get currentTarget() { return eventState.get(this).currentTarget; }
    get eventPhase() { return eventState.get(this).phase; }
    get timeStamp() { return eventState.get(this).timeStamp; }
    // Events the platform dispatches (an AbortSignal's abort) are trusted;
    // those a program constructs are not.
    get isTrusted() { return eventState.get(this).trusted === true; }
    get returnValue() { return !eventState.get(this).defaultPrevented; }
    get cancelBubble() { return eventState.get(this).stop; }
    set cancelBubble(v) { if (v) eventState.get(this).stop = true; }
    composedPath() {
      const s = eventState.get(this);
      return s.currentTarget ? [s.currentTarget] : [];
    }
    preventDefault() {
      const s = eventState.get(this);
      if (s.cancelable) s.defaultPrevented = true;
    }
    // The legacy initializer (DOM 2.10): ignored while the event is being
    // dispatched; otherwise it resets the flags, as workerd's Event does.
    initEvent(type, bubbles = false, cancelable = false) {
      if (arguments.length === 0) throw new TypeError("Failed to execute 'initEvent' on 'Event': 1 argument required, but only 0 present.");
      const s = eventState.get(this);
      if (s.phase !== 0) return;
      s.type = String(type);
      s.bubbles = !!bubbles;
      s.cancelable = !!cancelable;
      s.defaultPrevented = false;
      s.stop = false;
      s.stopImmediate = false;
      s.target = null;
    }
    stopPropagation() { eventState.get(this).stop = true; }
    stopImmediatePropagation() {
      const s = eventState.get(this);
      s.stop = true;
      s.stopImmediate = true;
    }
  }
  Object.assign(Event, { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 });
  Object.defineProperty(Event.prototype, Symbol.toStringTag, { value: "Event", configurable: true });

  const listenersOf = new WeakMap();
  // The global object is an EventTarget too (ServiceWorkerGlobalScope, as
  // on workerd: jsapi/globalscope.go), made without this constructor.
  const mapOf = (t) => {
    let m = listenersOf.get(t);
    if (!m && t === globalThis) listenersOf.set(t, (m = new Map()));
    return m;
  };
  class EventTarget {
    constructor() {
      listenersOf.set(this, new Map());
    }
    addEventListener(type, listener, options) {
      // WebIDL: an operation of an interface the global object implements,
      // called with an undefined or null receiver (a bare
      // `addEventListener(...)` in strict code), acts on the global object.
      const target = this ?? globalThis;
      // The options are converted first (DOM "flatten more"): a signal that
      // is no AbortSignal throws even when the listener is null.
      if (isObject(options) && options.signal !== undefined && !(options.signal instanceof AbortSignal)) {
        throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type AbortSignal.");
      }
      if (listener === null || listener === undefined) return;
      if (typeof listener !== "function" && !(isObject(listener) && "handleEvent" in listener)) {
        throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'EventListener'.");
      }
      const opts = typeof options === "boolean" ? { capture: options } : options ?? {};
      const map = mapOf(target);
      if (!map) throw new TypeError("Illegal invocation");
      type = String(type);
      let list = map.get(type);
      if (!list) map.set(type, (list = []));
      const capture = !!opts.capture;
      if (list.some((l) => l.listener === listener && l.capture === capture)) return;
      const entry = { listener, capture, once: !!opts.once, removed: false };
      if (opts.signal !== undefined) {
        const sig = opts.signal;
        if (sig.aborted) return;
        sig.addEventListener("abort", () => target.removeEventListener(type, listener, { capture }));
      }
      list.push(entry);
    }
    removeEventListener(type, listener, options) {
      const target = this ?? globalThis;
      const opts = typeof options === "boolean" ? { capture: options } : options ?? {};
      const map = mapOf(target);
      if (!map) throw new TypeError("Illegal invocation");
      const list = map.get(String(type));
      if (!list) return;
      const capture = !!opts.capture;
      const i = list.findIndex((l) => l.listener === listener && l.capture === capture);
      if (i >= 0) {
        list[i].removed = true;
        list.splice(i, 1);
      }
    }
    dispatchEvent(event) {
      const target = this ?? globalThis;
      const s = eventState.get(event);
      if (!s) throw new TypeError("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.");
      const map = mapOf(target);
      if (!map) throw new TypeError("Illegal invocation");
      s.target = target;
      s.currentTarget = target;
      s.phase = 2;
      const list = (map.get(s.type) || []).slice();
      for (const l of list) {
        if (l.removed) continue;
        if (l.once) target.removeEventListener(s.type, l.listener, { capture: l.capture });
        try {
          if (typeof l.listener === "function") l.listener.call(target, event);
          else l.listener.handleEvent(event);
        } catch (e) {
          reportError(e);
        }
        if (s.stopImmediate) break;
      }
      s.currentTarget = null;
      s.phase = 0;
      return !s.defaultPrevented;
    }
  }
  Object.defineProperty(EventTarget.prototype, Symbol.toStringTag, { value: "EventTarget", configurable: true });
  function reportError(e) {
    try {
      native.consoleWrite("Uncaught " + inspect(e), "error");
    } catch {}
  }
  hostType(Event, "Event"); // not serializable, as on workerd
  defineGlobal("Event", Event);
  // CustomEvent (DOM 2.4): an Event carrying init.detail.
  class CustomEvent extends Event {
    #detail;
    constructor(type, init = {}) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'CustomEvent': 1 argument required, but only 0 present.");
      super(type, init);
      this.#detail = init?.detail ?? null;
    }
    get detail() { return this.#detail; }
    initCustomEvent(type, bubbles = false, cancelable = false, detail = null) {
      if (eventState.get(this).phase !== 0) return;
      this.initEvent(type, bubbles, cancelable);
      this.#detail = detail;
    }
  }
  Object.defineProperty(CustomEvent.prototype, Symbol.toStringTag, { value: "CustomEvent", configurable: true });
  hostType(CustomEvent, "CustomEvent"); // not serializable, as on workerd
  defineGlobal("CustomEvent", CustomEvent);
  hostType(EventTarget, "EventTarget"); // not serializable, as on workerd
  defineGlobal("EventTarget", EventTarget);

