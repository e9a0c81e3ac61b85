  // ---------------------------------------------------------------- bodies
  // A body state is shared by a Request/Response and its stream. It is an
  // array (the cheapest object goja makes):
  //   [0] bytes: Uint8Array, or null while the body is still [1]
  //   [1] src: a string (its UTF-8 encoding) or a Go body handle
  //       (headers.go), both immutable
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
      // webapi hook: Blob, File and FormData bodies (formdata.js)
      const bx = bodyInitOf(init);
      if (bx !== undefined) return { state: newBodyState(bx.bytes), contentType: bx.contentType };
    }
    return { state: srcBodyState(String(init)), contentType: TEXT_PLAIN };
  }

  let bodyStateOf;
  // Requests and responses keep their headers as a Go list (#hl) and make
  // the Headers object (#headers) on first use. Until a list is needed, #hl
  // is null and #ctype is the only header (a content type) or null. The
  // slots stay in the subclasses (goja makes those objects faster than
  // with the slots in Body); the helpers below hold what the two share.
  function listFromContentType(ctype) {
    return native.hOf(ctype === null ? null : "content-type", ctype, false);
  }
  // withContentType adds a default content type to a new request's or
  // response's header slots and returns the ctype slot.
  function withContentType(hl, ctype, contentType) {
    if (hl !== null) native.hSetDefault(hl, "content-type", contentType);
    else if (ctype === null) return contentType;
    return ctype;
  }
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
    // webapi hooks: formData() and blob() (formdata.js)
    async formData() {
      const bytes = this.#take(false);
      return formDataFromBody(bytes, this.headers.get("content-type"));
    }
    async blob() {
      const bytes = this.#take(false).slice();
      return blobFromBody(bytes, this.headers.get("content-type"));
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

  // copyMethods puts the methods and accessors of an Impl class (see
  // request.js) on its public class's prototype.
  function copyMethods(from, to) {
    for (const k of Reflect.ownKeys(from.prototype)) {
      if (k !== "constructor") Object.defineProperty(to.prototype, k, Object.getOwnPropertyDescriptor(from.prototype, k));
    }
  }

