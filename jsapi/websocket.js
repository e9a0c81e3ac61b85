// WebSockets for cellhost: WebSocketPair, WebSocket, MessageEvent,
// CloseEvent, ErrorEvent and WebSocketRequestResponsePair. Run once per
// runtime by InstallWebSockets (websocket.go) after web.js; the completion
// value is a function that receives the Go natives and returns the
// internals Go needs. A WebSocket's state lives in Go (a *WebSocket handle
// in a private field), so that the host can hold a socket across instances.
// helpers are the web prelude's (web.Helpers: begin.js).
(function (native, helpers) {
  "use strict";

  const G = globalThis;
  const INTERNAL = Symbol("internal");
  const { defineGlobal, isObject, isArrayBuffer } = helpers;
  function utf8Length(s) {
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        n += 4;
        i++;
      } else n += 3;
    }
    return n;
  }

  // ---------------------------------------------------------------- events
  class MessageEvent extends Event {
    #data;
    constructor(type, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'MessageEvent': 1 argument required, but only 0 present.");
      super(type, init);
      this.#data = init?.data ?? null;
    }
    get data() { return this.#data; }
  }
  Object.defineProperty(MessageEvent.prototype, Symbol.toStringTag, { value: "MessageEvent", configurable: true });

  class CloseEvent extends Event {
    #code;
    #reason;
    #wasClean;
    constructor(type, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'CloseEvent': 1 argument required, but only 0 present.");
      super(type, init);
      this.#code = Number(init?.code ?? 0);
      this.#reason = String(init?.reason ?? "");
      this.#wasClean = !!init?.wasClean;
    }
    get code() { return this.#code; }
    get reason() { return this.#reason; }
    get wasClean() { return this.#wasClean; }
  }
  Object.defineProperty(CloseEvent.prototype, Symbol.toStringTag, { value: "CloseEvent", configurable: true });

  class ErrorEvent extends Event {
    #error;
    #message;
    constructor(type, init) {
      if (arguments.length === 0) throw new TypeError("Failed to construct 'ErrorEvent': 1 argument required, but only 0 present.");
      super(type, init);
      this.#error = init?.error;
      this.#message = String(init?.message ?? "");
    }
    get error() { return this.#error; }
    get message() { return this.#message; }
    get filename() { return ""; }
    get lineno() { return 0; }
    get colno() { return 0; }
  }
  Object.defineProperty(ErrorEvent.prototype, Symbol.toStringTag, { value: "ErrorEvent", configurable: true });

  // ---------------------------------------------------------------- WebSocket
  let handleOf; // (ws) → its Go handle, or undefined
  class WebSocket extends EventTarget {
    #h;
    constructor(url, protocols) {
      if (url === INTERNAL) {
        super();
        this.#h = protocols;
        native.bind(protocols, this);
        return;
      }
      throw new DOMException(
        "new WebSocket(url) is not supported by cellhost yet: a Durable Object can accept WebSockets (WebSocketPair), not open them.",
        "NotSupportedError",
      );
    }
    static {
      handleOf = (ws) => (isObject(ws) && #h in ws ? ws.#h : undefined);
    }
    accept(options) {
      native.accept(this.#h);
    }
    send(message) {
      if (arguments.length === 0) throw new TypeError("Failed to execute 'send' on 'WebSocket': 1 argument required, but only 0 present.");
      if (typeof message === "string") {
        native.send(this.#h, message, false);
      } else if (ArrayBuffer.isView(message)) {
        native.send(this.#h, new Uint8Array(message.buffer, message.byteOffset, message.byteLength), true);
      } else if (isArrayBuffer(message)) {
        native.send(this.#h, new Uint8Array(message), true);
      } else {
        native.send(this.#h, String(message), false);
      }
    }
    close(code, reason) {
      let c = null;
      if (code !== undefined) {
        c = Math.trunc(Number(code));
        if (!(c === 1000 || (c >= 3000 && c <= 4999))) {
          throw new DOMException(`Invalid WebSocket close code: ${Number.isFinite(c) ? c : code}.`, "InvalidAccessError");
        }
      }
      let r = null;
      if (reason !== undefined) {
        if (c === null) throw new TypeError("If you specify a WebSocket close reason, you must also specify a code.");
        r = String(reason);
        if (utf8Length(r) > 123) throw new DOMException("The WebSocket close reason must not be longer than 123 bytes.", "SyntaxError");
      }
      native.close(this.#h, c, r);
    }
    get readyState() { return native.readyState(this.#h); }
    get url() { return null; }
    get protocol() { return null; }
    get extensions() { return null; }
    serializeAttachment(value) {
      native.serializeAttachment(this.#h, value);
    }
    deserializeAttachment() {
      return native.deserializeAttachment(this.#h);
    }
  }
  const readyStates = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 };
  for (const [k, v] of Object.entries(readyStates)) {
    for (const name of [k, "READY_STATE_" + k]) {
      Object.defineProperty(WebSocket, name, { value: v, enumerable: true });
      Object.defineProperty(WebSocket.prototype, name, { value: v, enumerable: true });
    }
  }
  Object.defineProperty(WebSocket.prototype, Symbol.toStringTag, { value: "WebSocket", configurable: true });

  function wrap(h) {
    return new WebSocket(INTERNAL, h);
  }

  class WebSocketPair {
    constructor() {
      const [a, b] = native.pair();
      this[0] = wrap(a);
      this[1] = wrap(b);
    }
    *[Symbol.iterator]() {
      yield this[0];
      yield this[1];
    }
  }
  Object.defineProperty(WebSocketPair.prototype, Symbol.toStringTag, { value: "WebSocketPair", configurable: true });

  class WebSocketRequestResponsePair {
    #request;
    #response;
    constructor(request, response) {
      if (arguments.length < 2) {
        throw new TypeError(`Failed to construct 'WebSocketRequestResponsePair': 2 arguments required, but only ${arguments.length} present.`);
      }
      this.#request = String(request);
      this.#response = String(response);
    }
    get request() { return this.#request; }
    get response() { return this.#response; }
  }
  Object.defineProperty(WebSocketRequestResponsePair.prototype, Symbol.toStringTag, { value: "WebSocketRequestResponsePair", configurable: true });
  function autoResponsePair(x) {
    if (!(isObject(x) && x instanceof WebSocketRequestResponsePair)) {
      throw new TypeError("Failed to execute 'setWebSocketAutoResponse' on 'DurableObjectState': parameter 1 is not of type 'WebSocketRequestResponsePair'.");
    }
    return [x.request, x.response];
  }

  if (G.MessageEvent === undefined) defineGlobal("MessageEvent", MessageEvent);
  if (G.CloseEvent === undefined) defineGlobal("CloseEvent", CloseEvent);
  if (G.ErrorEvent === undefined) defineGlobal("ErrorEvent", ErrorEvent);
  defineGlobal("WebSocket", WebSocket);
  defineGlobal("WebSocketPair", WebSocketPair);
  defineGlobal("WebSocketRequestResponsePair", WebSocketRequestResponsePair);

  const MessageEventCtor = G.MessageEvent;
  const CloseEventCtor = G.CloseEvent;
  const ErrorEventCtor = G.ErrorEvent;
  const dispatch = EventTarget.prototype.dispatchEvent;
  const setTimeoutFn = typeof G.setTimeout === "function" ? G.setTimeout : null;

  return {
    wrap,
    handleOf,
    // later(fn) runs fn in a macrotask of its own (a pair used inside one runtime)
    later: (fn) => {
      if (setTimeoutFn === null) throw new Error("WebSocketPair: no timers in this runtime");
      setTimeoutFn(fn, 0);
    },
    autoResponsePair,
    newAutoResponsePair: (req, res) => new WebSocketRequestResponsePair(req, res),
    // events for sockets accepted with accept()
    message: (ws, data) => dispatch.call(ws, new MessageEventCtor("message", { data })),
    close: (ws, code, reason, wasClean) => dispatch.call(ws, new CloseEventCtor("close", { code, reason, wasClean })),
    error: (ws, error) => dispatch.call(ws, new ErrorEventCtor("error", { error, message: error?.message ?? String(error) })),
  };
});
