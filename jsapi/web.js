// Web platform globals for cellhost, run once per goja runtime by
// InstallWeb (web.go). The completion value of this script is a function
// that receives the Go natives and returns the internals the Go bridge uses.
(function (native) {
  "use strict";

  const G = globalThis;
  const hostBrand = native.hostBrand;
  const INTERNAL = Symbol("internal");
  const jsonParse = JSON.parse; // already wrapped to give V8's messages
  const jsonStringify = JSON.stringify;
  const ObjectProto = Object.prototype;

  function defineGlobal(name, value) {
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }
  function brandHost(cls, name) {
    Object.defineProperty(cls.prototype, hostBrand, { value: name });
    Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }
  function isObject(x) {
    return (typeof x === "object" && x !== null) || typeof x === "function";
  }

  const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  function isArrayBuffer(x) {
    if (!isObject(x)) return false;
    try {
      abByteLength.call(x);
      return true;
    } catch {
      return false;
    }
  }
  // toU8 returns a Uint8Array view of a BufferSource, or undefined.
  function toU8(x) {
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    if (isArrayBuffer(x)) return new Uint8Array(x);
    return undefined;
  }

  // ---------------------------------------------------------------- DOMException
  const domCodes = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  class DOMException extends Error {
    #name;
    #code;
    constructor(message = "", options = "Error") {
      super(String(message));
      let name = "Error";
      if (isObject(options)) {
        if ("name" in options) name = String(options.name);
        if ("cause" in options) Object.defineProperty(this, "cause", { value: options.cause, writable: true, configurable: true });
      } else if (options !== undefined) {
        name = String(options);
      }
      this.#name = name;
      this.#code = domCodes[name] ?? 0;
    }
    get name() {
      return this.#name;
    }
    get code() {
      return this.#code;
    }
  }
  Object.defineProperty(DOMException.prototype, Symbol.toStringTag, { value: "DOMException", configurable: true });
  for (const [k, v] of Object.entries({
    INDEX_SIZE_ERR: 1, HIERARCHY_REQUEST_ERR: 3, WRONG_DOCUMENT_ERR: 4, INVALID_CHARACTER_ERR: 5,
    NO_MODIFICATION_ALLOWED_ERR: 7, NOT_FOUND_ERR: 8, NOT_SUPPORTED_ERR: 9, INVALID_STATE_ERR: 11,
    SYNTAX_ERR: 12, INVALID_MODIFICATION_ERR: 13, NAMESPACE_ERR: 14, INVALID_ACCESS_ERR: 15,
    TYPE_MISMATCH_ERR: 17, SECURITY_ERR: 18, NETWORK_ERR: 19, ABORT_ERR: 20, URL_MISMATCH_ERR: 21,
    QUOTA_EXCEEDED_ERR: 22, TIMEOUT_ERR: 23, INVALID_NODE_TYPE_ERR: 24, DATA_CLONE_ERR: 25,
  })) {
    Object.defineProperty(DOMException, k, { value: v, enumerable: true });
    Object.defineProperty(DOMException.prototype, k, { value: v, enumerable: true });
  }
  defineGlobal("DOMException", DOMException);

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
    get isTrusted() { return false; }
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
  class EventTarget {
    constructor() {
      listenersOf.set(this, new Map());
    }
    addEventListener(type, listener, options) {
      if (listener === null || listener === undefined) return;
      if (typeof listener !== "function" && !(isObject(listener) && "handleEvent" in listener)) {
        throw new TypeError("Failed to execute 'addEventListener' on 'EventTarget': parameter 2 is not of type 'EventListener'.");
      }
      const opts = typeof options === "boolean" ? { capture: options } : options ?? {};
      const map = listenersOf.get(this);
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
        sig.addEventListener("abort", () => this.removeEventListener(type, listener, { capture }));
      }
      list.push(entry);
    }
    removeEventListener(type, listener, options) {
      const opts = typeof options === "boolean" ? { capture: options } : options ?? {};
      const map = listenersOf.get(this);
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
      const s = eventState.get(event);
      if (!s) throw new TypeError("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.");
      const map = listenersOf.get(this);
      if (!map) throw new TypeError("Illegal invocation");
      s.target = this;
      s.currentTarget = this;
      s.phase = 2;
      const list = (map.get(s.type) || []).slice();
      for (const l of list) {
        if (l.removed) continue;
        if (l.once) this.removeEventListener(s.type, l.listener, { capture: l.capture });
        try {
          if (typeof l.listener === "function") l.listener.call(this, event);
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
      native.consoleWrite("Uncaught " + inspect(e));
    } catch {}
  }
  defineGlobal("Event", Event);
  defineGlobal("EventTarget", EventTarget);

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
    sig.dispatchEvent(new Event("abort"));
  }
  class AbortController {
    #signal = new AbortSignal(INTERNAL);
    get signal() { return this.#signal; }
    abort(reason) { abortSignal(this.#signal, reason); }
  }
  Object.defineProperty(AbortController.prototype, Symbol.toStringTag, { value: "AbortController", configurable: true });
  defineGlobal("AbortSignal", AbortSignal);
  defineGlobal("AbortController", AbortController);

  // ---------------------------------------------------------------- TextEncoder / TextDecoder
  class TextEncoder {
    get encoding() { return "utf-8"; }
    encode(input = "") {
      return new Uint8Array(native.utf8Encode(String(input)));
    }
    encodeInto(source, destination) {
      if (!(destination instanceof Uint8Array)) throw new TypeError("Failed to execute 'encodeInto' on 'TextEncoder': parameter 2 is not of type 'Uint8Array'.");
      const r = native.encodeInto(String(source), destination);
      return { read: r[0], written: r[1] };
    }
  }
  Object.defineProperty(TextEncoder.prototype, Symbol.toStringTag, { value: "TextEncoder", configurable: true });

  const encodingLabels = {
    "unicode-1-1-utf-8": "utf-8", unicode11utf8: "utf-8", unicode20utf8: "utf-8", "utf-8": "utf-8", utf8: "utf-8", "x-unicode20utf8": "utf-8",
    "utf-16": "utf-16le", "utf-16le": "utf-16le", "csunicode": "utf-16le", "iso-10646-ucs-2": "utf-16le", "ucs-2": "utf-16le", unicode: "utf-16le", unicodefeff: "utf-16le",
    "utf-16be": "utf-16be", unicodefffe: "utf-16be",
    "ansi_x3.4-1968": "windows-1252", ascii: "windows-1252", cp1252: "windows-1252", cp819: "windows-1252", csisolatin1: "windows-1252",
    ibm819: "windows-1252", "iso-8859-1": "windows-1252", "iso-ir-100": "windows-1252", "iso8859-1": "windows-1252", iso88591: "windows-1252",
    "iso_8859-1": "windows-1252", "iso_8859-1:1987": "windows-1252", l1: "windows-1252", latin1: "windows-1252", "us-ascii": "windows-1252",
    "windows-1252": "windows-1252", "x-cp1252": "windows-1252",
  };
  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    #pending = null;
    #bomSeen = false;
    constructor(label = "utf-8", options = {}) {
      const key = String(label).trim().toLowerCase();
      const enc = Object.prototype.hasOwnProperty.call(encodingLabels, key) ? encodingLabels[key] : undefined;
      if (enc === undefined) throw new RangeError(`"${label}" is not a valid encoding.`);
      options = options ?? {};
      this.#encoding = enc;
      this.#fatal = !!options.fatal;
      this.#ignoreBOM = !!options.ignoreBOM;
    }
    get encoding() { return this.#encoding; }
    get fatal() { return this.#fatal; }
    get ignoreBOM() { return this.#ignoreBOM; }
    decode(input, options = {}) {
      let bytes;
      if (input === undefined || input === null) bytes = new Uint8Array(0);
      else {
        bytes = toU8(input);
        if (bytes === undefined) throw new TypeError("Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'ArrayBuffer or ArrayBufferView'.");
      }
      const stream = !!(options && options.stream);
      if (this.#pending) {
        const merged = new Uint8Array(this.#pending.length + bytes.length);
        merged.set(this.#pending);
        merged.set(bytes, this.#pending.length);
        bytes = merged;
        this.#pending = null;
      }
      if (stream) {
        const keep = incompleteTail(bytes, this.#encoding);
        if (keep > 0) {
          this.#pending = bytes.slice(bytes.length - keep);
          bytes = bytes.subarray(0, bytes.length - keep);
        }
      }
      const out = native.decode(bytes, this.#encoding, this.#fatal, this.#ignoreBOM || this.#bomSeen);
      if (stream) {
        if (out.length > 0) this.#bomSeen = true;
      } else {
        this.#bomSeen = false;
      }
      return out;
    }
  }
  Object.defineProperty(TextDecoder.prototype, Symbol.toStringTag, { value: "TextDecoder", configurable: true });
  function incompleteTail(b, enc) {
    if (enc === "utf-16le" || enc === "utf-16be") return b.length % 2;
    if (enc !== "utf-8") return 0;
    for (let k = 1; k <= 3 && k <= b.length; k++) {
      const c = b[b.length - k];
      if ((c & 0xc0) === 0x80) continue;
      const need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      return need > k ? k : 0;
    }
    return 0;
  }
  defineGlobal("TextEncoder", TextEncoder);
  defineGlobal("TextDecoder", TextDecoder);

  // ---------------------------------------------------------------- atob / btoa
  defineGlobal("atob", function atob(data) {
    return arguments.length === 0 ? native.atob() : native.atob(String(data));
  });
  defineGlobal("btoa", function btoa(data) {
    return arguments.length === 0 ? native.btoa() : native.btoa(String(data));
  });

  // ---------------------------------------------------------------- URLSearchParams / URL
  function stableSortPairs(list) {
    const idx = list.map((p, i) => [p, i]);
    idx.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
    return idx.map((x) => x[0]);
  }
  function parsePairs(s) {
    const flat = native.formParse(s);
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
    return out;
  }
  function toUSV(v) {
    return String(v);
  }
  let paramsAttach; // (params, url) links a URLSearchParams to its URL
  let paramsReset; // (params, queryString) replaces the list without updating the URL
  class URLSearchParams {
    #list = null; // [[name, value], ...], or null while it is #query, not parsed yet
    #query = "";
    #url = null;
    constructor(init = "") {
      if (isObject(init)) {
        const list = [];
        this.#list = list;
        if (#list in init) {
          const src = init.#list ?? init.#parse();
          for (let i = 0; i < src.length; i++) list.push([src[i][0], src[i][1]]);
        } else if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) {
            if (!isObject(pair) || typeof pair[Symbol.iterator] !== "function") {
              throw new TypeError("Failed to construct 'URLSearchParams': The provided value cannot be converted to a sequence.");
            }
            const p = [...pair];
            if (p.length !== 2) throw new TypeError("Failed to construct 'URLSearchParams': Sequence initializer must only contain pair elements");
            list.push([toUSV(p[0]), toUSV(p[1])]);
          }
        } else {
          const keys = Object.keys(init);
          for (let i = 0; i < keys.length; i++) list.push([keys[i], toUSV(init[keys[i]])]);
        }
      } else {
        let s = toUSV(init);
        if (s.startsWith("?")) s = s.slice(1);
        this.#query = s;
      }
    }
    static {
      paramsAttach = (p, url) => {
        p.#url = url;
      };
      paramsReset = (p, q) => {
        p.#list = null;
        p.#query = q === null ? "" : q;
      };
    }
    #parse() {
      const l = this.#query === "" ? [] : parsePairs(this.#query);
      this.#list = l;
      return l;
    }
    #update() {
      if (this.#url) urlSetQueryFromParams(this.#url, this.toString());
    }
    get size() { return (this.#list ?? this.#parse()).length; }
    append(name, value) {
      (this.#list ?? this.#parse()).push([toUSV(name), toUSV(value)]);
      this.#update();
    }
    delete(name, value) {
      name = toUSV(name);
      if (value !== undefined) value = toUSV(value);
      const l = this.#list ?? this.#parse();
      const out = [];
      if (value === undefined) {
        for (let i = 0; i < l.length; i++) if (l[i][0] !== name) out.push(l[i]);
      } else {
        for (let i = 0; i < l.length; i++) if (!(l[i][0] === name && l[i][1] === value)) out.push(l[i]);
      }
      this.#list = out;
      this.#update();
    }
    get(name) {
      name = toUSV(name);
      let l = this.#list;
      if (l === null) {
        // straight from the query string, without building the list
        const v = native.formGet(this.#query, name);
        if (v !== undefined) return v;
        l = this.#parse();
      }
      for (let i = 0; i < l.length; i++) if (l[i][0] === name) return l[i][1];
      return null;
    }
    getAll(name) {
      name = toUSV(name);
      const l = this.#list ?? this.#parse();
      const out = [];
      for (let i = 0; i < l.length; i++) if (l[i][0] === name) out.push(l[i][1]);
      return out;
    }
    has(name, value) {
      name = toUSV(name);
      if (value === undefined) {
        if (this.#list === null) {
          const v = native.formGet(this.#query, name);
          if (v !== undefined) return v !== null;
        }
        const l = this.#list ?? this.#parse();
        for (let i = 0; i < l.length; i++) if (l[i][0] === name) return true;
        return false;
      }
      value = toUSV(value);
      const l = this.#list ?? this.#parse();
      for (let i = 0; i < l.length; i++) if (l[i][0] === name && l[i][1] === value) return true;
      return false;
    }
    set(name, value) {
      name = toUSV(name);
      value = toUSV(value);
      const l = this.#list ?? this.#parse();
      let i = 0;
      while (i < l.length && l[i][0] !== name) i++;
      if (i === l.length) l.push([name, value]);
      else {
        l[i][1] = value;
        const out = [];
        for (let j = 0; j < l.length; j++) if (j <= i || l[j][0] !== name) out.push(l[j]);
        this.#list = out;
      }
      this.#update();
    }
    sort() {
      this.#list = stableSortPairs(this.#list ?? this.#parse());
      this.#update();
    }
    forEach(callback, thisArg) {
      if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'URLSearchParams': parameter 1 is not of type 'Function'.");
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) {
        const p = this.#list[i];
        callback.call(thisArg, p[1], p[0], this);
      }
    }
    *entries() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield [this.#list[i][0], this.#list[i][1]];
    }
    *keys() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield this.#list[i][0];
    }
    *values() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield this.#list[i][1];
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    toString() {
      const l = this.#list;
      if (l === null) return native.formSerialize(native.formParse(this.#query));
      const flat = [];
      for (let i = 0; i < l.length; i++) flat.push(l[i][0], l[i][1]);
      return native.formSerialize(flat);
    }
  }
  Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });
  function isURLSearchParams(x) {
    return isObject(x) && URLSearchParams.prototype.isPrototypeOf(x) && paramsBrand(x);
  }
  function paramsBrand(x) {
    try {
      URLSearchParams.prototype.has.call(x, "");
      return true;
    } catch {
      return false;
    }
  }

  // record: [href, protocol, username, password, host, hostname, port, pathname, search, hash, origin, query]
  let urlSetQueryFromParams;
  class URL {
    #rec;
    #params = null;
    // (...args, not arguments: goja builds an arguments object eagerly, and it costs twice a rest array)
    constructor(...args) {
      if (args.length === 0) throw new TypeError("Failed to construct 'URL': 1 argument required, but only 0 present.");
      const url = args[0];
      const base = args[1];
      const rec = native.urlParse(toUSV(url), base === undefined ? undefined : toUSV(base));
      if (rec === null) throw new TypeError("Invalid URL string.");
      this.#rec = rec;
    }
    static canParse(url, base) {
      return native.urlParse(toUSV(url), base === undefined ? undefined : toUSV(base)) !== null;
    }
    static parse(url, base) {
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }
    static createObjectURL() {
      throw new TypeError("URL.createObjectURL() is not supported by cellhost.");
    }
    static revokeObjectURL() {
      throw new TypeError("URL.revokeObjectURL() is not supported by cellhost.");
    }
    static {
      urlSetQueryFromParams = (u, s) => {
        const r = native.urlSet(u.#rec[0], "search", s);
        if (r !== null) u.#rec = r;
      };
    }
    #set(component, value) {
      const r = native.urlSet(this.#rec[0], component, toUSV(value));
      if (r === null) {
        if (component === "href") throw new TypeError("Invalid URL string.");
        return;
      }
      this.#rec = r;
      if (this.#params && (component === "href" || component === "search")) paramsReset(this.#params, r[11]);
    }
    get href() { return this.#rec[0]; }
    set href(v) { this.#set("href", v); }
    get origin() { return this.#rec[10]; }
    get protocol() { return this.#rec[1]; }
    set protocol(v) { this.#set("protocol", v); }
    get username() { return this.#rec[2]; }
    set username(v) { this.#set("username", v); }
    get password() { return this.#rec[3]; }
    set password(v) { this.#set("password", v); }
    get host() { return this.#rec[4]; }
    set host(v) { this.#set("host", v); }
    get hostname() { return this.#rec[5]; }
    set hostname(v) { this.#set("hostname", v); }
    get port() { return this.#rec[6]; }
    set port(v) { this.#set("port", v); }
    get pathname() { return this.#rec[7]; }
    set pathname(v) { this.#set("pathname", v); }
    get search() { return this.#rec[8]; }
    set search(v) { this.#set("search", v); }
    get searchParams() {
      if (!this.#params) {
        this.#params = new URLSearchParams(this.#rec[11] ?? "");
        paramsAttach(this.#params, this);
      }
      return this.#params;
    }
    get hash() { return this.#rec[9]; }
    set hash(v) { this.#set("hash", v); }
    toString() { return this.#rec[0]; }
    toJSON() { return this.#rec[0]; }
  }
  Object.defineProperty(URL, "length", { value: 2, configurable: true });
  Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });
  defineGlobal("URL", URL);
  defineGlobal("URLSearchParams", URLSearchParams);

  // ---------------------------------------------------------------- Headers
  // A Headers object is a view of a Go header list (a handle that only the
  // natives read, web_headers.go): names are checked and values normalized
  // in Go, and the bridge reads the lists of requests and responses
  // directly, without iterating them in JS.
  const BODY_USED = "Body has already been used. It can only be used once. Use tee() first if you need to read it twice.";
  const arrayIter = Array.prototype[Symbol.iterator];
  const arrayIterProto = Object.getPrototypeOf([][Symbol.iterator]());
  const arrayIterNext = arrayIterProto.next;
  // isPlainArray: iterating x is reading its elements (no user iterator).
  function isPlainArray(x) {
    return Array.isArray(x) && x[Symbol.iterator] === arrayIter && arrayIterProto.next === arrayIterNext;
  }
  let wrapHeaders; // (list, guard|null) → Headers; a null guard is read from the list when needed
  let headersList; // (h) → the list of a Headers, or undefined
  class Headers {
    #map; // the Go header list (named #map for the brand-check messages)
    #guard = "none";
    constructor(init) {
      if (init === INTERNAL) return;
      if (init === undefined) {
        this.#map = native.hNew();
        return;
      }
      if (!isObject(init)) {
        this.#map = native.hNew();
        throw new TypeError("Failed to construct 'Headers': The provided value is not of type '(record<ByteString, ByteString> or sequence<sequence<ByteString>>)'.");
      }
      if (#map in init) {
        this.#map = native.hCopy(init.#map);
        return;
      }
      this.#map = native.hNew();
      if (typeof init[Symbol.iterator] === "function") {
        if (isPlainArray(init)) {
          for (let i = 0; i < init.length; i++) {
            const pair = init[i];
            let p = null;
            if (isPlainArray(pair)) p = pair;
            else if (isObject(pair) && typeof pair[Symbol.iterator] === "function") p = [...pair];
            if (p === null || p.length !== 2) {
              throw new TypeError("To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.");
            }
            this.append(p[0], p[1]);
          }
          return;
        }
        for (const pair of init) {
          const p = isObject(pair) && typeof pair[Symbol.iterator] === "function" ? (isPlainArray(pair) ? pair : [...pair]) : null;
          if (p === null || p.length !== 2) {
            throw new TypeError("To initialize a Headers object from a sequence, each inner sequence must have exactly two elements.");
          }
          this.append(p[0], p[1]);
        }
      } else {
        const keys = Object.keys(init);
        for (let i = 0; i < keys.length; i++) {
          const k = keys[i];
          this.append(k, init[k]);
        }
      }
    }
    static {
      wrapHeaders = (list, guard) => {
        const h = new Headers(INTERNAL);
        h.#map = list;
        h.#guard = guard;
        return h;
      };
      headersList = (h) => (isObject(h) && #map in h ? h.#map : undefined);
    }
    #check() {
      let g = this.#guard;
      if (g === null) g = this.#guard = native.hGuard(this.#map);
      if (g !== "none") throw new TypeError("Can't modify immutable headers.");
    }
    append(name, value) {
      this.#check();
      if (typeof name !== "string") name = String(name);
      if (typeof value !== "string") {
        native.hName(name);
        value = String(value);
      }
      native.hAppend(this.#map, name, value);
    }
    delete(name) {
      this.#check();
      native.hDelete(this.#map, typeof name === "string" ? name : String(name));
    }
    get(name) {
      const m = this.#map;
      return native.hGet(m, typeof name === "string" ? name : String(name));
    }
    getAll(name) {
      if (String(name).toLowerCase() !== "set-cookie") {
        throw new TypeError('getAll() can only be used with the header name "Set-Cookie".');
      }
      return this.getSetCookie();
    }
    getSetCookie() {
      return native.hGetSetCookie(this.#map);
    }
    has(name) {
      const m = this.#map;
      return native.hHas(m, typeof name === "string" ? name : String(name));
    }
    set(name, value) {
      this.#check();
      if (typeof name !== "string") name = String(name);
      if (typeof value !== "string") {
        native.hName(name);
        value = String(value);
      }
      native.hSet(this.#map, name, value);
    }
    // #displayed(mode): sorted by name, set-cookie lines apart. mode 0:
    // [[name, value], ...], 1: names, 2: values, 3: [name, value, ...].
    #displayed(mode) {
      return native.hDisplay(this.#map, mode);
    }
    forEach(callback, thisArg) {
      if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'Headers': parameter 1 is not of type 'Function'.");
      const d = this.#displayed(3);
      for (let i = 0; i < d.length; i += 2) callback.call(thisArg, d[i + 1], d[i], this);
    }
    entries() {
      return this.#displayed(0)[Symbol.iterator]();
    }
    keys() {
      return this.#displayed(1)[Symbol.iterator]();
    }
    values() {
      return this.#displayed(2)[Symbol.iterator]();
    }
    [Symbol.iterator]() {
      return this.entries();
    }
  }
  brandHost(Headers, "Headers");
  defineGlobal("Headers", Headers);
  const TEXT_PLAIN = "text/plain;charset=UTF-8";

  // ---------------------------------------------------------------- bodies
  // A body state is shared by a Request/Response and its stream. It is an
  // array (the cheapest object goja makes):
  //   [0] bytes: Uint8Array, or null while the body is still [1]
  //   [1] src: a string (its UTF-8 encoding) or a Go body handle
  //       (web_headers.go), both immutable
  //   [2] used: boolean
  //   [3] stream: ReadableStream|null
  //   [4] locked: boolean
  function newBodyState(bytes) {
    return [bytes, null, false, null, false];
  }
  function srcBodyState(src) {
    return [null, src, false, null, false];
  }
  // sharedBodyState: a new state over the same (immutable) contents.
  function sharedBodyState(st) {
    return [st[0], st[1], false, null, false];
  }
  function copyBodyState(st) {
    return st[0] === null ? srcBodyState(st[1]) : newBodyState(st[0].slice());
  }
  function stBytes(st) {
    let b = st[0];
    if (b === null) {
      b = st[0] = new Uint8Array(native.bodyBuffer(st[1]));
      st[1] = null;
    }
    return b;
  }
  function stEmpty(st) {
    if (st[0] !== null) return st[0].length === 0;
    return typeof st[1] === "string" ? st[1].length === 0 : native.bodyEmpty(st[1]);
  }
  const streamState = new WeakMap();
  // ReadableStream is not a global yet: only bodies hand these out.
  class ReadableStream {
    constructor(token, state) {
      if (token !== INTERNAL) {
        throw new TypeError("ReadableStream is not supported by cellhost yet (request and response bodies are buffered).");
      }
      streamState.set(this, state);
    }
    get locked() { return streamState.get(this)[4]; }
    getReader(options) {
      const st = streamState.get(this);
      if (options && options.mode === "byob") throw new TypeError("cellhost does not support BYOB readers yet.");
      if (st[4]) throw new TypeError("This ReadableStream is currently locked to a reader.");
      st[4] = true;
      return new ReadableStreamDefaultReader(INTERNAL, st);
    }
    cancel(reason) {
      const st = streamState.get(this);
      if (st[4]) return Promise.reject(new TypeError("This ReadableStream is currently locked to a reader."));
      st[2] = true;
      st[0] = new Uint8Array(0);
      st[1] = null;
      return Promise.resolve(undefined);
    }
    tee() {
      const st = streamState.get(this);
      if (st[4]) throw new TypeError("This ReadableStream is currently locked to a reader.");
      const bytes = st[2] ? new Uint8Array(0) : stBytes(st);
      st[2] = true;
      st[4] = true;
      return [new ReadableStream(INTERNAL, newBodyState(bytes.slice())), new ReadableStream(INTERNAL, newBodyState(bytes.slice()))];
    }
    pipeTo() {
      return Promise.reject(new TypeError("ReadableStream.pipeTo() is not supported by cellhost yet."));
    }
    pipeThrough() {
      throw new TypeError("ReadableStream.pipeThrough() is not supported by cellhost yet.");
    }
    values() {
      const reader = this.getReader();
      return {
        next: () => reader.read(),
        return: () => {
          reader.releaseLock();
          return Promise.resolve({ value: undefined, done: true });
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    }
    [Symbol.asyncIterator]() {
      return this.values();
    }
  }
  brandHost(ReadableStream, "ReadableStream");
  class ReadableStreamDefaultReader {
    #st;
    #released = false;
    constructor(token, st) {
      if (token !== INTERNAL) throw new TypeError("ReadableStreamDefaultReader is not supported by cellhost yet.");
      this.#st = st;
    }
    get closed() { return Promise.resolve(undefined); }
    read() {
      if (this.#released) return Promise.reject(new TypeError("This ReadableStream reader has been released."));
      const st = this.#st;
      if (st[2] || stEmpty(st)) {
        st[2] = true;
        return Promise.resolve({ value: undefined, done: true });
      }
      st[2] = true;
      return Promise.resolve({ value: stBytes(st).slice(), done: false });
    }
    releaseLock() {
      if (!this.#released) {
        this.#released = true;
        this.#st[4] = false;
      }
    }
    cancel() {
      this.#st[2] = true;
      return Promise.resolve(undefined);
    }
  }
  brandHost(ReadableStreamDefaultReader, "ReadableStreamDefaultReader");

  // extractBody returns { state, contentType } for a body init value (a
  // string is handled by the callers without it).
  function extractBody(init) {
    if (typeof init === "string") return { state: srcBodyState(init), contentType: TEXT_PLAIN };
    if (isObject(init)) {
      const u8 = toU8(init);
      if (u8 !== undefined) return { state: newBodyState(u8.slice()), contentType: null };
      if (isURLSearchParams(init)) {
        return { state: srcBodyState(init.toString()), contentType: "application/x-www-form-urlencoded;charset=UTF-8" };
      }
      const ss = streamState.get(init);
      if (ss) {
        if (ss[4]) throw new TypeError("This ReadableStream is currently locked to a reader.");
        if (ss[2]) throw new TypeError("This ReadableStream is disturbed (has already been read from), and cannot be used as a body.");
        ss[2] = true;
        ss[4] = true;
        return { state: sharedBodyState(ss), contentType: null };
      }
      if (typeof init.getReader === "function" || typeof init[Symbol.asyncIterator] === "function") {
        throw new TypeError("cellhost does not support streaming bodies yet: use a string, ArrayBuffer, typed array or URLSearchParams body.");
      }
      const tag = Object.prototype.toString.call(init);
      if (tag === "[object Blob]" || tag === "[object File]" || tag === "[object FormData]") {
        throw new TypeError("cellhost does not support Blob or FormData bodies yet.");
      }
    }
    return { state: srcBodyState(String(init)), contentType: TEXT_PLAIN };
  }

  let bodyStateOf;
  class Body {
    #state; // body state or null
    constructor(token, state, headers) {
      if (token !== INTERNAL) throw new TypeError("Illegal constructor");
      this.#state = state;
    }
    static {
      bodyStateOf = (b) => b.#state;
    }
    get body() {
      const st = this.#state;
      if (st === null) return null;
      if (!st[3]) st[3] = new ReadableStream(INTERNAL, st);
      return st[3];
    }
    get bodyUsed() {
      return this.#state !== null && this.#state[2];
    }
    // #take(raw) marks the body used and returns its bytes (a Uint8Array),
    // or with raw its contents as they are (a Uint8Array, string or Go body).
    #take(raw) {
      const st = this.#state;
      if (st === null) return raw ? "" : new Uint8Array(0);
      if (st[2]) throw new TypeError(BODY_USED);
      if (st[4]) throw new TypeError("This ReadableStream is currently locked to a reader.");
      st[2] = true;
      if (raw) return st[0] !== null ? st[0] : st[1];
      return stBytes(st);
    }
    async arrayBuffer() {
      return this.#take(false).slice().buffer;
    }
    async bytes() {
      return this.#take(false).slice();
    }
    async text() {
      return native.decode(this.#take(true), "utf-8", false, false);
    }
    async json() {
      return jsonParse(native.decode(this.#take(true), "utf-8", false, false));
    }
    async formData() {
      if (this.#state !== null && this.#state[2]) throw new TypeError(BODY_USED);
      throw new TypeError("cellhost does not support FormData yet.");
    }
    async blob() {
      if (this.#state !== null && this.#state[2]) throw new TypeError(BODY_USED);
      throw new TypeError("cellhost does not support Blob yet.");
    }
  }
  // takeForExport marks b's body used and returns it as it is (a
  // Uint8Array, string or Go body) or null.
  function takeForExport(b) {
    const st = bodyStateOf(b);
    if (st === null) return null;
    if (st[2]) throw new TypeError(BODY_USED);
    if (st[4]) throw new TypeError("This ReadableStream is currently locked to a reader.");
    st[2] = true;
    return st[0] !== null ? st[0] : st[1];
  }

  // Requests and responses keep their headers as a Go list (#hl) and make
  // the Headers object on first use. Until a list is needed, #hl is null
  // and #ctype is the only header (a content type) or null.

  // ---------------------------------------------------------------- Request
  const httpMethods = new Set([
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "PURGE", "OPTIONS", "TRACE", "COPY", "LOCK", "MKCOL", "MOVE",
    "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "ACL", "REPORT", "MKACTIVITY", "CHECKOUT", "MERGE", "M-SEARCH",
    "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE",
  ]);
  function normalizeMethod(m) {
    if (httpMethods.has(m)) return m;
    const u = m.toUpperCase();
    if (httpMethods.has(u)) return u;
    throw new TypeError("Invalid HTTP method string: " + m);
  }
  let isRequest; // (x) → boolean
  let makeRequestInternal; // (method, url, list|null, ctype|null, state) → Request
  let exportRequestInternal; // (req) → undefined, after native.outRequest(...)
  let goMakeRequest; // internals.makeRequest
  let Request; // the public class (made in RequestImpl's static block)
  const setPrototypeOf = Object.setPrototypeOf;
  // RequestImpl holds a Request's slots and methods; the Request class
  // (below) has its methods and makes RequestImpl instances with its
  // prototype. So making a Request from Go runs no constructor that needs
  // the argument count (goja builds an arguments object eagerly).
  class RequestImpl extends Body {
    #method;
    #url;
    #headers; // the Headers object, or null until asked for
    #hl;
    #ctype;
    #redirect;
    #signal;
    #cf;
    #cache;
    // internal construction: the caller sets the fields
    constructor(state) {
      super(INTERNAL, state, null);
    }
    static {
      // the public class: its constructor is RequestImpl's code, so that it
      // reads RequestImpl's slots without another call (a deeper stack)
      Request = class Request extends Body {
        constructor(...args) {
          if (args.length === 0) throw new TypeError("Failed to construct 'Request': 1 argument required, but only 0 present.");
          const input = args[0];
          const init = args[1];
          const newTarget = new.target;
          let url;
          let method = "GET";
          let headers = null; // a Headers object from init, else the list is hl (or only ctype)
          let hl = null;
          let ctype = null;
          let state = null;
          let contentType = null;
          let redirect = "follow";
          let signal = null;
          let cf;
          let cache;
          const initIsRequest = isObject(init) && #method in init;
          let dict = false;
          let dBody, dCache, dCf, dEncodeResponseBody, dHeaders, dIntegrity, dMethod, dRedirect, dSignal;
          if (init !== undefined && init !== null && !initIsRequest) {
            if (!isObject(init)) throw new TypeError("Failed to construct 'Request': parameter 2 is not of type 'RequestInit'.");
            dict = true;
            dBody = init.body;
            dCache = init.cache;
            dCf = init.cf;
            dEncodeResponseBody = init.encodeResponseBody;
            init.fetcher;
            dHeaders = init.headers;
            dIntegrity = init.integrity;
            dMethod = init.method;
            dRedirect = init.redirect;
            dSignal = init.signal;
          }
          const ignoreInputBody = initIsRequest || (dict && dBody !== undefined);
          if (isObject(input) && #method in input) {
            url = input.#url;
            method = input.#method;
            if (input.#hl !== null) hl = native.hCopy(input.#hl);
            else ctype = input.#ctype;
            cf = input.#cf;
            cache = input.#cache;
            redirect = input.#redirect;
            signal = input.#signal;
            if (!ignoreInputBody) {
              const st = bodyStateOf(input);
              if (st !== null) {
                if (st[2]) throw new TypeError("Cannot reconstruct a Request with a used body.");
                state = sharedBodyState(st);
                st[2] = true;
                st[4] = true;
              }
            }
          } else {
            const s = toUSV(input);
            const rec = native.urlParse(s, undefined);
            if (rec === null) throw new TypeError("Invalid URL: " + s);
            url = rec[0];
          }
          if (dict) {
            if (dIntegrity !== undefined && String(dIntegrity) !== "") {
              throw new TypeError("Subrequest integrity checking is not implemented. The integrity option must be either undefined or an empty string.");
            }
            if (dMethod !== undefined) method = normalizeMethod(String(dMethod));
            if (dHeaders !== undefined) {
              headers = new Headers(dHeaders);
              hl = headersList(headers);
              ctype = null;
            }
            if (dSignal !== undefined) signal = dSignal;
            if (dCf !== undefined) cf = dCf === null ? undefined : native.structuredClone(dCf);
            if (dBody !== undefined && dBody !== null) {
              if (typeof dBody === "string") {
                state = srcBodyState(dBody);
                contentType = TEXT_PLAIN;
              } else {
                const ex = extractBody(dBody);
                state = ex.state;
                contentType = ex.contentType;
              }
              if (method === "GET" || method === "HEAD") throw new TypeError("Request with a GET or HEAD method cannot have a body.");
            } else if (dBody === null) {
              state = null;
            }
            if (dRedirect !== undefined) {
              const r = String(dRedirect).toLowerCase();
              if (r !== "follow" && r !== "manual") {
                throw new TypeError('Invalid redirect value, must be one of "follow" or "manual" ("error" won\'t be implemented since it does not make sense at the edge; use "manual" and check the response status code).');
              }
              redirect = r;
            }
            if (dCache !== undefined) {
              const c = String(dCache);
              if (c !== "no-store" && c !== "no-cache" && c !== "reload") throw new TypeError("Unsupported cache mode: " + c);
              cache = c;
            }
            if (dEncodeResponseBody !== undefined) {
              const e = String(dEncodeResponseBody);
              if (e !== "manual" && e !== "automatic") throw new TypeError("encodeResponseBody: unexpected value: " + e);
            }
            if ((dMethod !== undefined || dBody !== undefined) && (method === "GET" || method === "HEAD") && state !== null) {
              throw new TypeError("Request with a GET or HEAD method cannot have a body.");
            }
          } else if (initIsRequest) {
            method = init.#method;
            redirect = init.#redirect;
            cache = init.#cache;
            signal = init.#signal;
            hl = init.#hl === null ? null : native.hCopy(init.#hl);
            ctype = hl === null ? init.#ctype : null;
            cf = init.#cf;
            state = bodyStateOf(init); // shared, as workerd does
          }
          if (contentType !== null) {
            if (hl !== null) native.hSetDefault(hl, "content-type", contentType);
            else if (ctype === null) ctype = contentType;
          }
          const r = new RequestImpl(state);
          const proto = newTarget.prototype;
          setPrototypeOf(r, isObject(proto) ? proto : ObjectProto);
          r.#method = method;
          r.#url = url;
          r.#headers = headers;
          r.#hl = hl;
          r.#ctype = ctype;
          r.#redirect = redirect;
          r.#signal = signal;
          r.#cf = cf;
          r.#cache = cache;
          return r;
        }
      };
      isRequest = (r) => isObject(r) && #method in r;
      makeRequestInternal = (method, url, hl, ctype, state) => {
        const r = new RequestImpl(state);
        setPrototypeOf(r, Request.prototype);
        r.#method = method;
        r.#url = url;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = ctype;
        r.#redirect = "follow";
        r.#signal = null;
        r.#cf = undefined;
        r.#cache = undefined;
        return r;
      };
      goMakeRequest = (method, url, hl, body) => {
        const r = new RequestImpl(body === null ? null : [null, body, false, null, false]);
        setPrototypeOf(r, Request.prototype);
        r.#method = method;
        r.#url = url;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = null;
        r.#redirect = "follow";
        r.#signal = null;
        r.#cf = undefined;
        r.#cache = undefined;
        return r;
      };
      exportRequestInternal = (r) => {
        if (!(isObject(r) && #method in r)) throw new TypeError("Expected a Request object.");
        native.outRequest(r.#method, r.#url, r.#hl, r.#ctype, takeForExport(r));
      };
    }
    get method() { return this.#method; }
    get url() { return this.#url; }
    get headers() {
      let h = this.#headers;
      if (h === null) {
        let l = this.#hl;
        if (l === null) l = this.#hl = native.hOf(this.#ctype === null ? null : "content-type", this.#ctype, false);
        h = this.#headers = wrapHeaders(l, null);
      }
      return h;
    }
    get redirect() { return this.#redirect; }
    get signal() {
      if (this.#signal === null) this.#signal = new AbortSignal(INTERNAL);
      return this.#signal;
    }
    get fetcher() { return null; }
    get cf() { return this.#cf; }
    get cache() { return this.#cache; }
    get integrity() { return ""; }
    get keepalive() { return false; }
    clone() {
      const st = bodyStateOf(this);
      if (st !== null && st[2]) throw new TypeError(BODY_USED);
      const r = makeRequestInternal(this.#method, this.#url, this.#hl === null ? null : native.hCopy(this.#hl), this.#hl === null ? this.#ctype : null,
        st === null ? null : copyBodyState(st));
      r.#redirect = this.#redirect;
      r.#signal = this.#signal;
      r.#cf = this.#cf === undefined ? undefined : native.structuredClone(this.#cf);
      r.#cache = this.#cache;
      return r;
    }
  }
  for (const k of Reflect.ownKeys(RequestImpl.prototype)) {
    if (k !== "constructor") Object.defineProperty(Request.prototype, k, Object.getOwnPropertyDescriptor(RequestImpl.prototype, k));
  }
  Object.defineProperty(Request, "length", { value: 2, configurable: true });
  brandHost(Request, "Request");
  defineGlobal("Request", Request);

  // ---------------------------------------------------------------- Response
  const statusTexts = {
    0: "", 100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints", 200: "OK", 201: "Created",
    202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content", 205: "Reset Content", 206: "Partial Content",
    207: "Multi-Status", 208: "Already Reported", 226: "IM Used", 300: "Multiple Choices", 301: "Moved Permanently",
    302: "Found", 303: "See Other", 304: "Not Modified", 305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
    400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
    405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required", 408: "Request Timeout",
    409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed", 413: "Payload Too Large",
    414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
    418: "I'm a teapot", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked", 424: "Failed Dependency",
    426: "Upgrade Required", 428: "Precondition Required", 429: "Too Many Requests", 431: "Request Header Fields Too Large",
    451: "Unavailable For Legal Reasons", 500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
    503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
    507: "Insufficient Storage", 508: "Loop Detected", 510: "Not Extended", 511: "Network Authentication Required",
  };
  function defaultStatusText(s) {
    if (s === 200) return "OK";
    if (Object.prototype.hasOwnProperty.call(statusTexts, s)) return statusTexts[s];
    if (s >= 200 && s < 300) return "Successful";
    if (s >= 300 && s < 400) return "Redirection";
    if (s >= 400 && s < 500) return "Client Error";
    if (s >= 500 && s < 600) return "Server Error";
    return "";
  }
  function toInt32(v) {
    return Number(v) | 0;
  }
  const nullBodyStatus = (s) => s === 101 || s === 204 || s === 205 || s === 304;
  let makeResponseInternal; // (status, statusText|null, list|null, ctype|null, state, webSocket) → Response
  let exportResponseInternal; // (res) → undefined, after native.outResponse(...)
  let goMakeResponse; // internals.makeResponse
  let Response; // the public class (made in ResponseImpl's static block)
  // ResponseImpl holds a Response's slots and methods, as RequestImpl does
  // for Request: its constructor is small, and the stack goja regrows on
  // every call from Go stays short.
  class ResponseImpl extends Body {
    #status;
    #statusText; // null = default for the status
    #headers; // the Headers object, or null until asked for
    #hl;
    #ctype;
    #webSocket;
    #type;
    #cf;
    // internal construction: the caller sets the fields
    constructor(state) {
      super(INTERNAL, state, null);
    }
    static {
      // the public class (see Request)
      Response = class Response extends Body {
        constructor(body, init) {
          const newTarget = new.target;
          let status = 200;
          let statusText = null;
          let headers = null; // a Headers object from init, else the list is hl (or only ctype)
          let hl = null;
          let ctype = null;
          let webSocket = null;
          let cf;
          if (isObject(init) && #status in init) {
            status = init.#status;
            if (init.#statusText !== null && init.#statusText !== defaultStatusText(status)) statusText = init.#statusText;
            if (init.#hl !== null) hl = native.hCopy(init.#hl);
            else ctype = init.#ctype;
            webSocket = init.#webSocket;
            cf = init.#cf;
          } else if (init !== undefined && init !== null) {
            if (!isObject(init)) throw new TypeError("Failed to construct 'Response': parameter 2 is not of type 'ResponseInit'.");
            const dCf = init.cf;
            const dEncodeBody = init.encodeBody;
            const dHeaders = init.headers;
            const dStatus = init.status;
            const dStatusText = init.statusText;
            const dWebSocket = init.webSocket;
            if (dStatus !== undefined) status = toInt32(dStatus);
            if (dStatusText !== undefined) statusText = String(dStatusText);
            if (dEncodeBody !== undefined) {
              const e = String(dEncodeBody);
              if (e !== "manual" && e !== "automatic") throw new TypeError("encodeBody: unexpected value: " + e);
            }
            if (dHeaders !== undefined) {
              headers = new Headers(dHeaders);
              hl = headersList(headers);
            }
            if (dCf !== undefined && dCf !== null) cf = native.structuredClone(dCf);
            if (dWebSocket !== undefined && dWebSocket !== null) webSocket = dWebSocket;
          }
          if (webSocket === null) {
            if (!(status >= 200 && status <= 599)) {
              throw new RangeError("Responses may only be constructed with status codes in the range 200 to 599, inclusive.");
            }
          } else if (status !== 101) {
            throw new RangeError("Responses with a WebSocket must have status code 101.");
          }
          if (statusText !== null) {
            for (let i = 0; i < statusText.length; i++) {
              if (statusText.charCodeAt(i) < 0x20) throw new TypeError("Invalid statusText");
            }
          }
          let state = null;
          if (body !== undefined && body !== null) {
            let bstate, btype;
            if (typeof body === "string") {
              bstate = srcBodyState(body);
              btype = TEXT_PLAIN;
            } else {
              const ex = extractBody(body);
              bstate = ex.state;
              btype = ex.contentType;
            }
            if (nullBodyStatus(status)) {
              if (!stEmpty(bstate)) {
                throw new TypeError("Response with null body status (101, 204, 205, or 304) cannot have a body.");
              }
            } else {
              state = bstate;
              if (btype !== null) {
                if (hl !== null) native.hSetDefault(hl, "content-type", btype);
                else if (ctype === null) ctype = btype;
              }
            }
          }
          const r = new ResponseImpl(state);
          const proto = newTarget.prototype;
          setPrototypeOf(r, isObject(proto) ? proto : ObjectProto);
          r.#status = status;
          r.#statusText = statusText;
          r.#headers = headers;
          r.#hl = hl;
          r.#ctype = ctype;
          r.#webSocket = webSocket;
          r.#type = "default";
          r.#cf = cf;
          return r;
        }
      };
      makeResponseInternal = (status, statusText, hl, ctype, state, webSocket) => {
        const r = new ResponseImpl(state);
        setPrototypeOf(r, Response.prototype);
        r.#status = status;
        r.#statusText = statusText;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = ctype;
        r.#webSocket = webSocket;
        r.#type = "default";
        r.#cf = undefined;
        return r;
      };
      goMakeResponse = (status, statusText, hl, body, webSocket) => {
        const r = new ResponseImpl(body === null ? null : [null, body, false, null, false]);
        setPrototypeOf(r, Response.prototype);
        r.#status = status;
        r.#statusText = statusText;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = null;
        r.#webSocket = webSocket;
        r.#type = "default";
        r.#cf = undefined;
        return r;
      };
      exportResponseInternal = (r) => {
        if (!(isObject(r) && #status in r)) throw new TypeError("Expected a Response object.");
        native.outResponse(r.#status, r.#statusText, r.#hl, r.#ctype, takeForExport(r), r.#webSocket);
      };
    }
    static json(data, init) {
      const text = jsonStringify(data);
      if (text === undefined) throw new TypeError("The value provided to Response.json() is not JSON-serializable.");
      if (init === undefined || init === null) {
        return makeResponseInternal(200, null, null, "application/json", srcBodyState(text), null);
      }
      let newInit;
      if (isObject(init) && #status in init) {
        const headers = wrapHeaders(init.#hl !== null ? native.hCopy(init.#hl) : native.hOf(init.#ctype === null ? null : "content-type", init.#ctype, false), "none");
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
        newInit = { status: init.#status, headers, webSocket: init.#webSocket ?? undefined };
        if (init.#statusText !== null && init.#statusText !== defaultStatusText(init.#status)) newInit.statusText = init.#statusText;
      } else {
        if (!isObject(init)) throw new TypeError("Failed to execute 'json' on 'Response': parameter 2 is not of type 'ResponseInit'.");
        const dCf = init.cf;
        const dEncodeBody = init.encodeBody;
        const dHeaders = init.headers;
        const dStatus = init.status;
        const dStatusText = init.statusText;
        const dWebSocket = init.webSocket;
        const headers = dHeaders !== undefined ? new Headers(dHeaders) : new Headers();
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
        newInit = { cf: dCf, encodeBody: dEncodeBody, headers, status: dStatus, statusText: dStatusText, webSocket: dWebSocket };
      }
      return new Response(text, newInit);
    }
    static redirect(url, status = 302) {
      const code = toInt32(status);
      if (![301, 302, 303, 307, 308].includes(code)) {
        throw new RangeError(`${code} is not a redirect status code. It must be one of: 301, 302, 303, 307, or 308.`);
      }
      const s = toUSV(url);
      const rec = native.urlParse(s, undefined);
      if (rec === null) throw new TypeError("Unable to parse URL: " + s);
      return makeResponseInternal(code, null, native.hOf("location", rec[0], true), null, null, null);
    }
    static error() {
      const r = makeResponseInternal(0, null, null, null, null, null);
      r.#type = "error";
      return r;
    }
    get status() { return this.#status; }
    get statusText() { return this.#statusText ?? defaultStatusText(this.#status); }
    get ok() { return this.#status >= 200 && this.#status < 300; }
    get redirected() { return false; }
    get url() { return ""; }
    get headers() {
      let h = this.#headers;
      if (h === null) {
        let l = this.#hl;
        if (l === null) l = this.#hl = native.hOf(this.#ctype === null ? null : "content-type", this.#ctype, false);
        h = this.#headers = wrapHeaders(l, null);
      }
      return h;
    }
    get webSocket() { return this.#webSocket; }
    get cf() { return this.#cf; }
    get type() { return this.#type; }
    clone() {
      if (this.#webSocket !== null) throw new TypeError("Cannot clone a response to a WebSocket handshake.");
      const st = bodyStateOf(this);
      if (st !== null && st[2]) throw new TypeError(BODY_USED);
      const r = makeResponseInternal(this.#status, this.#statusText, this.#hl === null ? null : native.hCopy(this.#hl), this.#hl === null ? this.#ctype : null,
        st === null ? null : copyBodyState(st), null);
      r.#type = this.#type;
      r.#cf = this.#cf === undefined ? undefined : native.structuredClone(this.#cf);
      return r;
    }
  }
  for (const k of Reflect.ownKeys(ResponseImpl.prototype)) {
    if (k !== "constructor") Object.defineProperty(Response.prototype, k, Object.getOwnPropertyDescriptor(ResponseImpl.prototype, k));
  }
  for (const k of ["json", "redirect", "error"]) Object.defineProperty(Response, k, Object.getOwnPropertyDescriptor(ResponseImpl, k));
  brandHost(Response, "Response");
  defineGlobal("Response", Response);

  // ---------------------------------------------------------------- bridge internals
  // Go passes header lists and bodies as handles (web_headers.go) and reads
  // exports through native.outRequest / native.outResponse.
  // (the entry points are the functions themselves: each JS frame less
  // shortens the stack goja regrows on every call from Go)
  const internals = {
    DOMException,
    makeRequest: goMakeRequest, // (method, url, list, goBody|null) → Request
    exportRequest: exportRequestInternal, // (req)
    // requestFrom(input, init) exports the Request stub.fetch(input, init) sends.
    requestFrom(input, init) {
      exportRequestInternal(init === undefined && isRequest(input) ? input : new Request(input, init));
    },
    makeResponse: goMakeResponse, // (status, statusText|null, list, goBody|null, webSocket) → Response
    exportResponse: exportResponseInternal, // (res)
    // fn.call(self, request, ...rest) with the request built from Go's
    // parts, in one call from Go instead of two (each call from Go makes
    // goja regrow its stack and run its job queue); rest has n elements.
    callWithRequest: (fn, self, method, url, list, body, n, a, b) =>
      n === 0
        ? fn.call(self, goMakeRequest(method, url, list, body))
        : fn.call(self, goMakeRequest(method, url, list, body), a, b),
  };

  // ---------------------------------------------------------------- console
  const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
  }
  function ctorName(o) {
    try {
      const p = Object.getPrototypeOf(o);
      if (p === null) return null;
      const c = p.constructor;
      return typeof c === "function" && typeof c.name === "string" ? c.name : "";
    } catch {
      return "";
    }
  }
  function inspect(v, depth = 2, seen = []) {
    switch (typeof v) {
      case "string":
        return seen.length === 0 ? v : quote(v);
      case "number":
        return Object.is(v, -0) ? "-0" : String(v);
      case "bigint":
        return v + "n";
      case "symbol":
        return v.toString();
      case "undefined":
        return "undefined";
      case "boolean":
        return String(v);
      case "function": {
        const src = Function.prototype.toString.call(v);
        if (src.startsWith("class")) return `[class ${v.name || "(anonymous)"}]`;
        return v.name ? `[Function: ${v.name}]` : "[Function (anonymous)]";
      }
    }
    if (v === null) return "null";
    if (seen.includes(v)) return "[Circular *1]";
    if (v instanceof Error) {
      const stack = typeof v.stack === "string" ? v.stack : "";
      const head = `${v.name}: ${v.message}`;
      return stack && stack.startsWith(head) ? stack : stack ? head + "\n" + stack : head;
    }
    if (v instanceof Date) return isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof URL) return `URL '${v.href}'`;
    const inner = seen.concat([v]);
    const fmt = (x) => (typeof x === "string" ? quote(x) : inspect(x, depth - 1, inner));
    const wrap = (prefix, items) => (items.length === 0 ? prefix + "{}" : `${prefix}{ ${items.join(", ")} }`);
    if (Array.isArray(v)) {
      if (depth < 0) return "[Array]";
      const items = [];
      let holes = 0;
      const flushHoles = () => {
        if (holes) items.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`);
        holes = 0;
      };
      const n = Math.min(v.length, 100);
      for (let i = 0; i < n; i++) {
        if (!(i in v)) {
          holes++;
          continue;
        }
        flushHoles();
        items.push(fmt(v[i]));
      }
      flushHoles();
      if (v.length > 100) items.push(`... ${v.length - 100} more item${v.length - 100 > 1 ? "s" : ""}`);
      for (const k of Object.keys(v)) if (!/^\d+$/.test(k)) items.push(`${identRe.test(k) ? k : quote(k)}: ${fmt(v[k])}`);
      return items.length === 0 ? "[]" : `[ ${items.join(", ")} ]`;
    }
    if (v instanceof Map) {
      if (depth < 0) return "[Map]";
      const items = [];
      for (const [k, x] of v) items.push(`${fmt(k)} => ${fmt(x)}`);
      return wrap(`Map(${v.size}) `, items);
    }
    if (v instanceof Set) {
      if (depth < 0) return "[Set]";
      const items = [];
      for (const x of v) items.push(fmt(x));
      return wrap(`Set(${v.size}) `, items);
    }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const items = Array.from(v.subarray(0, 100), (x) => fmt(x));
      if (v.length > 100) items.push(`... ${v.length - 100} more items`);
      return `${ctorName(v)}(${v.length}) [${items.length ? " " + items.join(", ") + " " : ""}]`;
    }
    if (isArrayBuffer(v)) {
      const b = Array.from(new Uint8Array(v).subarray(0, 50), (x) => x.toString(16).padStart(2, "0"));
      return `ArrayBuffer { [Uint8Contents]: <${b.join(" ")}${v.byteLength > 50 ? " ... " + (v.byteLength - 50) + " more bytes" : ""}>, byteLength: ${v.byteLength} }`;
    }
    if (v instanceof Promise) return "Promise { <unknown> }";
    if (v instanceof Headers) return `Headers(${[...v].length}) { ${[...v].map(([k, x]) => `${quote(k)} => ${quote(x)}`).join(", ")} }`;
    const name = ctorName(v);
    if (depth < 0) return name === "Object" || name === "" ? "[Object]" : `[${name || "Object"}]`;
    const items = [];
    for (const k of Object.keys(v)) {
      let x;
      try {
        x = v[k];
      } catch (e) {
        x = e;
      }
      items.push(`${identRe.test(k) ? k : quote(k)}: ${fmt(x)}`);
    }
    let prefix = "";
    if (name === null) prefix = "[Object: null prototype] ";
    else if (name !== "Object") prefix = (name || "Object") + " ";
    const tag = v[Symbol.toStringTag];
    if (typeof tag === "string" && tag !== name && name !== null) prefix = `${name || "Object"} [${tag}] `;
    return wrap(prefix, items);
  }
  function format(args) {
    if (args.length === 0) return "";
    let out = "";
    let i = 0;
    if (typeof args[0] === "string") {
      const f = args[0];
      i = 1;
      let last = 0;
      for (let j = 0; j < f.length - 1; j++) {
        if (f[j] !== "%") continue;
        const c = f[j + 1];
        let rep;
        if (c === "%") rep = "%";
        else if (i < args.length) {
          const a = args[i];
          switch (c) {
            case "s":
              rep = typeof a === "string" ? a : typeof a === "bigint" ? a + "n" : typeof a === "symbol" ? a.toString() : isObject(a) ? inspect(a, 1, [null]) : inspect(a);
              break;
            case "d":
            case "i":
              rep = typeof a === "bigint" ? a + "n" : isObject(a) ? "NaN" : String(c === "i" ? parseInt(a) : Number(a));
              break;
            case "f":
              rep = String(parseFloat(a));
              break;
            case "j":
              try {
                rep = jsonStringify(a);
              } catch {
                rep = "[Circular]";
              }
              break;
            case "o":
            case "O":
              rep = inspect(a, c === "o" ? 4 : 2, [null]);
              break;
            case "c":
              rep = "";
              break;
            default:
              continue;
          }
          i++;
        } else continue;
        out += f.slice(last, j) + rep;
        last = j + 2;
        j++;
      }
      out += f.slice(last);
    }
    for (; i < args.length; i++) {
      if (out !== "" || i > 0) out += " ";
      out += typeof args[i] === "string" ? args[i] : inspect(args[i]);
    }
    return out;
  }
  let groupIndent = "";
  const counts = new Map();
  const timers = new Map();
  function emit(args) {
    let line = format(args);
    if (groupIndent) line = line.split("\n").map((l) => groupIndent + l).join("\n");
    native.consoleWrite(line);
  }
  const consoleObj = {
    log: (...a) => emit(a),
    info: (...a) => emit(a),
    debug: (...a) => emit(a),
    warn: (...a) => emit(a),
    error: (...a) => emit(a),
    trace: (...a) => emit(["Trace:", ...a]),
    dir: (v) => emit([inspect(v, 2, [null])]),
    dirxml: (...a) => emit(a),
    table: (...a) => emit(a),
    assert: (cond, ...a) => {
      if (!cond) emit(a.length ? ["Assertion failed:", ...a] : ["Assertion failed"]);
    },
    group: (...a) => {
      if (a.length) emit(a);
      groupIndent += "  ";
    },
    groupCollapsed: (...a) => consoleObj.group(...a),
    groupEnd: () => {
      groupIndent = groupIndent.slice(2);
    },
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      emit([`${label}: ${n}`]);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, Date.now()),
    timeLog: (label = "default", ...a) => emit([`${label}: ${Date.now() - (timers.get(label) ?? Date.now())}ms`, ...a]),
    timeEnd: (label = "default") => {
      emit([`${label}: ${Date.now() - (timers.get(label) ?? Date.now())}ms`]);
      timers.delete(label);
    },
  };
  defineGlobal("console", consoleObj);

  // ---------------------------------------------------------------- crypto, misc
  const integerArrays = new Set(["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"]);
  const taTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
  function notSupported(name) {
    return function () {
      return Promise.reject(new DOMException(`crypto.subtle.${name}() is not supported by cellhost yet.`, "NotSupportedError"));
    };
  }
  const subtle = {};
  for (const m of ["encrypt", "decrypt", "sign", "verify", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"]) {
    subtle[m] = notSupported(m);
  }
  subtle.digest = function digest(algorithm, data) {
    try {
      const name = String(isObject(algorithm) ? algorithm.name : algorithm).toUpperCase();
      const bytes = toU8(data);
      if (bytes === undefined) throw new TypeError("Failed to execute 'digest' on 'SubtleCrypto': parameter 2 is not of type 'ArrayBuffer or ArrayBufferView'.");
      return Promise.resolve(native.digest(name, bytes));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  subtle.timingSafeEqual = function timingSafeEqual(a, b) {
    const x = toU8(a);
    const y = toU8(b);
    if (x === undefined || y === undefined) throw new TypeError("timingSafeEqual() requires ArrayBuffer or ArrayBufferView arguments.");
    if (x.byteLength !== y.byteLength) throw new RangeError("Input buffers must have the same byte length.");
    let d = 0;
    for (let i = 0; i < x.length; i++) d |= x[i] ^ y[i];
    return d === 0;
  };
  const cryptoObj = {
    subtle,
    randomUUID: () => native.randomUUID(),
    getRandomValues(array) {
      const tag = ArrayBuffer.isView(array) ? taTag.call(array) : undefined;
      if (!integerArrays.has(tag)) {
        throw new DOMException("ArrayBufferView argument to getRandomValues() must be an integer-typed view.", "TypeMismatchError");
      }
      if (array.byteLength > 65536) {
        throw new DOMException(`getRandomValues() only accepts buffers of size <= 64K but provided ${array.byteLength} bytes.`, "QuotaExceededError");
      }
      native.fillRandom(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      return array;
    },
  };
  defineGlobal("crypto", cryptoObj);
  defineGlobal("structuredClone", function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    if (options && options.transfer && options.transfer.length) {
      throw new DOMException("structuredClone() with a transfer list is not supported by cellhost yet.", "DataCloneError");
    }
    return native.structuredClone(value);
  });
  defineGlobal("queueMicrotask", function queueMicrotask(callback) {
    if (typeof callback !== "function") {
      throw new TypeError("Failed to execute 'queueMicrotask': parameter 1 is not of type 'Function'.");
    }
    Promise.resolve().then(() => callback());
  });
  defineGlobal("navigator", Object.freeze({ userAgent: "Cloudflare-Workers", hardwareConcurrency: 1, language: "en-US", languages: ["en-US"] }));
  defineGlobal("self", G);
  // workerd: performance.now() is Date.now() (the clock only moves across I/O) and timeOrigin is 0.
  defineGlobal("performance", Object.freeze({ timeOrigin: 0, now: () => Date.now(), toJSON: () => ({ timeOrigin: 0 }) }));

  return internals;
});
