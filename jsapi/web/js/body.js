  // ---------------------------------------------------------------- bodies
  // A body state is shared by a Request/Response and its stream. It is an
  // array (the cheapest object goja makes):
  //   [0] bytes: Uint8Array, or null while the body is still [1]
  //   [1] src: a string (its UTF-8 encoding), a Go body handle (headers.go),
  //       both immutable, or a Go stream handle (stream.go)
  //   [2] used: boolean
  //   [3] stream: the ReadableStream, made on first use of .body (or the
  //       stream the body was made from)
  //   [4] kind: 0 = bytes or string or Go body, 1 = Go stream, 2 = JS stream
  //   [5] taken: the contents went elsewhere without the stream (a fast
  //       path), so the stream's cancel must not touch them
  // Kinds 0 and 1 keep fast paths (text(), json(), arrayBuffer(), passing
  // the body on) while nobody has read from the stream.
  function newBodyState(bytes) {
    return [bytes, null, false, null, 0, false];
  }
  function srcBodyState(src) {
    return [null, src, false, null, 0, false];
  }
  // goSrcState: the state of a body handle from Go (a Go body or stream).
  function goSrcState(src) {
    return [null, src, false, null, src.stream === true ? 1 : 0, false];
  }
  function streamBodyState(rs) {
    return [null, null, false, rs, 2, false];
  }
  // untouched: st's contents may still be taken without its stream.
  function untouched(st) {
    return st[4] !== 2 && (st[3] === null || !st[3]._disturbed);
  }
  // detach marks st used and, if its stream exists, closes the stream
  // without touching the contents (already taken).
  function detach(st) {
    st[2] = true;
    st[5] = true;
    if (st[3] !== null) st[3].cancel().catch(() => {});
  }
  // sharedBodyState: a new state that takes st's contents over (st becomes
  // used): the same immutable bytes, the same Go stream, or st's stream.
  function sharedBodyState(st) {
    if (untouched(st)) {
      const ns = st[4] === 1 ? [null, st[1], false, null, 1, false] : [st[0], st[1], false, null, 0, false];
      detach(st);
      return ns;
    }
    st[2] = true;
    return streamBodyState(st[3]);
  }
  // copyBodyState is clone(): bytes are copied, streams teed.
  function copyBodyState(st) {
    if (st[4] === 0 && untouched(st)) return st[0] === null ? srcBodyState(st[1]) : newBodyState(st[0].slice());
    const [a, b] = rsTee.call(bodyStream(st));
    st[3] = a;
    st[4] = 2;
    return streamBodyState(b);
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
    if (st[4] !== 0) return false;
    if (st[0] !== null) return st[0].length === 0;
    return typeof st[1] === "string" ? st[1].length === 0 : native.bodyEmpty(st[1]);
  }
  // bodyStream returns st's ReadableStream, making it on first use: a byte
  // stream over the bytes, or pulling the Go stream one chunk at a time.
  function bodyStream(st) {
    if (st[3] !== null) return st[3];
    let source;
    if (st[4] === 1) {
      const h = st[1];
      source = {
        type: "bytes",
        pull(c) {
          st[2] = true;
          return native.streamRead(h).then((ab) => {
            if (ab === null) {
              c.close();
              if (c.byobRequest) c.byobRequest.respond(0);
            } else c.enqueue(new Uint8Array(ab));
          });
        },
        cancel() {
          if (!st[5]) {
            st[2] = true;
            native.streamCancel(h);
          }
        },
      };
    } else {
      source = {
        type: "bytes",
        pull(c) {
          st[2] = true;
          const b = stBytes(st);
          if (b.byteLength > 0) c.enqueue(b.slice());
          c.close();
          if (c.byobRequest) c.byobRequest.respond(0);
        },
        cancel() {
          st[2] = true;
        },
      };
    }
    return (st[3] = new ReadableStream(source));
  }
  const LOCKED = "This ReadableStream is currently locked to a reader.";
  const NOT_BYTES_BODY = "This ReadableStream did not return bytes.";
  // readAll reads a stream to its end: a promise of one Uint8Array.
  async function readAll(rs) {
    const reader = rs.getReader();
    const parts = [];
    let n = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const u8 = toU8(value);
      if (u8 === undefined) {
        reader.cancel().catch(() => {});
        throw new TypeError(NOT_BYTES_BODY);
      }
      parts.push(u8);
      n += u8.byteLength;
    }
    if (parts.length === 1) return parts[0].slice();
    const out = new Uint8Array(n);
    let off = 0;
    for (const p of parts) {
      out.set(p, off);
      off += p.byteLength;
    }
    return out;
  }
  // takeBody marks st used and returns its contents: with raw as they are
  // (a Uint8Array, string or Go body), else as a Uint8Array; or, for a
  // streamed body, a promise of a Uint8Array.
  function takeBody(st, raw) {
    if (st[2]) throw new TypeError(BODY_USED);
    const rs = st[3];
    if (rs !== null && rs.locked) throw new TypeError(LOCKED);
    if (!untouched(st)) {
      st[2] = true;
      return readAll(rs);
    }
    detach(st);
    if (st[4] === 1) return native.streamReadAll(st[1]).then((ab) => new Uint8Array(ab));
    if (raw) return st[0] !== null ? st[0] : st[1];
    return stBytes(st);
  }
  const isPromise = (x) => x instanceof Promise;
  // pumpToSink hands a JS stream to Go (native.newSink): one chunk at a
  // time, each after Go took the last.
  // pumpToSink pumps rs into a new Go sink; with strings, a string chunk
  // goes as its UTF-8 bytes (a ReadableStream sent over RPC, as workerd).
  function pumpToSink(rs, strings) {
    const length = fixedLengths.get(rs);
    const reader = rs.getReader();
    const h = native.newSink((reason) => {
      reader.cancel(new TypeError(reason)).catch(() => {});
    }, length === undefined ? -1 : length);
    (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          const chunk = strings === true && typeof value === "string" ? new G.TextEncoder().encode(value) : value;
          if (toU8(chunk) === undefined) throw new TypeError(NOT_BYTES_BODY);
          await native.sinkWrite(h, chunk);
        }
        native.sinkEnd(h, null);
      } catch (e) {
        native.sinkEnd(h, isObject(e) && "message" in e ? String(e.message) : String(e));
        reader.cancel(e).catch(() => {});
      }
    })();
    return h;
  }
  // ourStreams maps the streams bodies made to their states, so that a body
  // made from another body's untouched stream takes its contents over.
  const ourStreams = new WeakMap();
  const rsTee = ReadableStream.prototype.tee;
  function teeUsed() {
    const st = ourStreams.get(this);
    const r = rsTee.call(this);
    if (st !== undefined) st[2] = true;
    return r;
  }

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
      if (init instanceof ReadableStream) {
        if (init.locked) throw new TypeError("This ReadableStream is locked to a reader, and cannot be used as a body.");
        if (init._disturbed) throw new TypeError("This ReadableStream is disturbed (has already been read from), and cannot be used as a body.");
        const ss = ourStreams.get(init);
        if (ss !== undefined && ss[3] === init && !ss[2] && untouched(ss)) return { state: sharedBodyState(ss), contentType: null };
        return { state: streamBodyState(init), contentType: null };
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
      if (st[3] === null) {
        const rs = bodyStream(st);
        ourStreams.set(rs, st);
        // as on workerd, a teed body counts as used
        Object.defineProperty(rs, "tee", { value: teeUsed, writable: true, configurable: true });
      }
      return st[3];
    }
    // streamed: the body is a stream (from the network or a JS stream), not
    // bytes at hand: cloning it tees it (do.js does not keep a copy for
    // redirects then).
    get [Symbol.for("cellhost.streamedBody")]() {
      const st = this.#state;
      return st !== null && st[4] !== 0;
    }
    get bodyUsed() {
      const st = this.#state;
      return st !== null && (st[2] || (st[3] !== null && st[3]._disturbed === true));
    }
    // #take(raw): takeBody of this body (an empty one when it has none).
    #take(raw) {
      const st = this.#state;
      if (st === null) return raw ? "" : new Uint8Array(0);
      return takeBody(st, raw);
    }
    async arrayBuffer() {
      const b = this.#take(false);
      return isPromise(b) ? (await b).buffer : b.slice().buffer;
    }
    async bytes() {
      const b = this.#take(false);
      return isPromise(b) ? await b : b.slice();
    }
    async text() {
      let b = this.#take(true);
      if (isPromise(b)) b = await b;
      return native.decode(b, "utf-8", false, false);
    }
    async json() {
      let b = this.#take(true);
      if (isPromise(b)) b = await b;
      return jsonParse(native.decode(b, "utf-8", false, false));
    }
    // webapi hooks: formData() and blob() (formdata.js)
    async formData() {
      let bytes = this.#take(false);
      if (isPromise(bytes)) bytes = await bytes;
      return formDataFromBody(bytes, this.headers.get("content-type"));
    }
    async blob() {
      const b = this.#take(false);
      const bytes = isPromise(b) ? await b : b.slice();
      return blobFromBody(bytes, this.headers.get("content-type"));
    }
  }
  // takeForExport marks b's body used and returns it as it is (a
  // Uint8Array, string, Go body or Go stream), a sink a JS stream is
  // pumped into, or null.
  function takeForExport(b) {
    const st = bodyStateOf(b);
    if (st === null) return null;
    if (st[2]) throw new TypeError(BODY_USED);
    const rs = st[3];
    if (rs !== null && rs.locked) throw new TypeError(LOCKED);
    if (!untouched(st)) {
      st[2] = true;
      return pumpToSink(rs);
    }
    detach(st);
    return st[0] !== null ? st[0] : st[1];
  }

  // copyMethods puts the methods and accessors of an Impl class (see
  // request.js) on its public class's prototype.
  function copyMethods(from, to) {
    for (const k of Reflect.ownKeys(from.prototype)) {
      if (k !== "constructor") Object.defineProperty(to.prototype, k, Object.getOwnPropertyDescriptor(from.prototype, k));
    }
  }

