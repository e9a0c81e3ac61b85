// Node.js built-in modules cellhost writes in JavaScript (the rest come from
// goja_nodejs and Go). Called once per runtime with the native parts; returns
// a map from module name to a function that makes its exports.
(function (native) {
  "use strict";
  const defs = {};

  // ---- buffer: goja_nodejs's Buffer, with what it lacks of Node's ----
  defs.buffer = () => {
    const { Buffer } = require("_buffer");
    const P = Buffer.prototype;
    const toBuf = (u) => Object.setPrototypeOf(u, P);
    // A Buffer method called on an object that only inherits from
    // Buffer.prototype (Buffer.prototype itself, a fake) throws V8's
    // TypeError, as Node's do, before goja_nodejs reads it as bytes
    // (where such a receiver never returned).
    const taLength = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), "length").get;
    const receiver = (b) => { taLength.call(b); return b; };
    const def = (o, k, v) => Object.defineProperty(o, k, { value: v, writable: true, configurable: true });
    const encodings = ["utf8", "utf-8", "hex", "base64", "base64url", "ascii", "latin1", "binary", "ucs2", "ucs-2", "utf16le", "utf-16le"];
    def(Buffer, "isBuffer", (b) => b instanceof Buffer);
    def(Buffer, "isEncoding", (e) => typeof e === "string" && encodings.includes(e.toLowerCase()));
    def(Buffer, "byteLength", (s, enc) => (typeof s === "string" ? Buffer.from(s, enc).length : s.byteLength));
    def(Buffer, "allocUnsafe", (n) => Buffer.alloc(n));
    def(Buffer, "allocUnsafeSlow", (n) => Buffer.alloc(n));
    def(Buffer, "of", (...items) => Buffer.from(items));
    def(Buffer, "compare", (a, b) => {
      const n = Math.min(a.length, b.length);
      for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
      return a.length < b.length ? -1 : a.length > b.length ? 1 : 0;
    });
    def(P, "subarray", function (start, end) { return toBuf(Uint8Array.prototype.subarray.call(this, start, end)); });
    def(P, "slice", function (start, end) { return toBuf(Uint8Array.prototype.subarray.call(this, start, end)); });
    def(P, "toJSON", function () { return { type: "Buffer", data: Array.from(this) }; });
    def(P, "compare", function (b) { return Buffer.compare(this, b); });
    def(P, "copy", function (target, targetStart = 0, sourceStart = 0, sourceEnd = this.length) {
      const src = Uint8Array.prototype.subarray.call(this, sourceStart, Math.min(sourceEnd, sourceStart + target.length - targetStart));
      target.set(src, targetStart);
      return src.length;
    });
    const fill = Uint8Array.prototype.fill;
    def(P, "fill", function (v, start = 0, end = receiver(this).length, enc) {
      if (typeof start === "string") { enc = start; start = 0; end = this.length; }
      if (typeof v === "number") return fill.call(this, v, start, end), this;
      const src = typeof v === "string" ? Buffer.from(v, enc) : v;
      if (src.length === 0) return fill.call(this, 0, start, end), this;
      for (let i = start, j = 0; i < end; i++, j = (j + 1) % src.length) this[i] = src[j];
      return this;
    });
    function indexOf(hay, v, from, enc, last) {
      if (typeof v === "number") return last ? Uint8Array.prototype.lastIndexOf.call(hay, v, from === undefined ? hay.length : from) : Uint8Array.prototype.indexOf.call(hay, v, from);
      const needle = typeof v === "string" ? Buffer.from(v, enc) : v;
      from = from === undefined ? (last ? hay.length - needle.length : 0) : from < 0 ? hay.length + from : from;
      outer: for (let i = from; last ? i >= 0 : i <= hay.length - needle.length; last ? i-- : i++) {
        for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
        return i;
      }
      return -1;
    }
    def(P, "indexOf", function (v, from, enc) { receiver(this); if (typeof from === "string") { enc = from; from = undefined; } return indexOf(this, v, from, enc, false); });
    def(P, "lastIndexOf", function (v, from, enc) { receiver(this); if (typeof from === "string") { enc = from; from = undefined; } return indexOf(this, v, from, enc, true); });
    def(P, "includes", function (v, from, enc) { return this.indexOf(v, from, enc) !== -1; });
    // latin1/binary, ascii and utf16le/ucs2: goja_nodejs's Buffer has no
    // codec for them (jws, inside jsonwebtoken, uses "binary").
    const extraEncodings = { latin1: "latin1", binary: "latin1", ascii: "ascii", ucs2: "utf16le", "ucs-2": "utf16le", utf16le: "utf16le", "utf-16le": "utf16le" };
    const extraOf = (enc) => (typeof enc === "string" ? extraEncodings[enc.toLowerCase()] : undefined);
    function encodeExtra(str, kind) {
      if (kind === "utf16le") {
        const u = new Uint8Array(str.length * 2);
        for (let i = 0; i < str.length; i++) { const c = str.charCodeAt(i); u[2 * i] = c & 255; u[2 * i + 1] = c >> 8; }
        return u;
      }
      const u = new Uint8Array(str.length);
      for (let i = 0; i < str.length; i++) u[i] = str.charCodeAt(i) & 255;
      return u;
    }
    function decodeExtra(u, kind) {
      let s = "";
      if (kind === "utf16le") {
        for (let i = 0; i + 1 < u.length; i += 2) s += String.fromCharCode(u[i] | (u[i + 1] << 8));
        return s;
      }
      const mask = kind === "ascii" ? 127 : 255;
      for (let i = 0; i < u.length; i += 8192) s += String.fromCharCode.apply(null, Array.from(u.subarray(i, i + 8192), (b) => b & mask));
      return s;
    }
    // goja_nodejs's codecs by Node's encoding names: Node reads them
    // case-insensitively ("UTF8", "Hex"), names base64url "base64url"
    // (goja_nodejs's key is "base64Url"), and throws on an unknown one
    // (goja_nodejs's Buffer.from fell back to UTF-8).
    const goEncodings = { utf8: "utf8", "utf-8": "utf8", hex: "hex", base64: "base64", base64url: "base64Url" };
    function goEncoding(enc) {
      if (enc === undefined || enc === null) return undefined;
      const e = goEncodings[String(enc).toLowerCase()];
      if (e) return e;
      const err = new TypeError("Unknown encoding: " + enc);
      err.code = "ERR_UNKNOWN_ENCODING";
      throw err;
    }
    const goFrom = Buffer.from;
    def(Buffer, "from", function from(value, encodingOrOffset, length) {
      // Node's fromObject paths goja_nodejs lacks: an object's valueOf, a
      // {type: "Buffer", data} (toJSON's shape), Symbol.toPrimitive.
      if (typeof value === "object" && value !== null && !(value instanceof ArrayBuffer) && !ArrayBuffer.isView(value)) {
        const v = typeof value.valueOf === "function" ? value.valueOf() : undefined;
        if (v != null && v !== value && (typeof v === "string" || typeof v === "object")) return Buffer.from(v, encodingOrOffset, length);
        if (value.length === undefined && value.type === "Buffer" && Array.isArray(value.data)) return goFrom.call(this, value.data);
        if (value.length === undefined && typeof value[Symbol.toPrimitive] === "function") {
          const p = value[Symbol.toPrimitive]("string");
          if (typeof p === "string") return Buffer.from(p, encodingOrOffset);
        }
      }
      if (typeof value !== "string") return goFrom.apply(this, arguments);
      const kind = extraOf(encodingOrOffset);
      return kind ? toBuf(encodeExtra(value, kind)) : goFrom.call(this, value, goEncoding(encodingOrOffset));
    });
    const goToString = P.toString;
    // UTF-8 decodes as V8 does (the WHATWG decoder: one U+FFFD for each
    // maximal invalid subpart), not as Go's per-byte replacement.
    // (Made on first use: the runtime's TextDecoder comes from jsapi/web;
    // without one, goja_nodejs's decoder stays.)
    let utf8Decoder;
    def(P, "toString", function toString(encoding, start, end) {
      receiver(this);
      if (utf8Decoder === undefined) utf8Decoder = typeof TextDecoder === "function" ? new TextDecoder("utf-8") : null;
      if (utf8Decoder && (encoding === undefined || encoding === null || (typeof encoding === "string" && /^utf-?8$/i.test(encoding)))) {
        const len = this.length;
        start = start === undefined ? 0 : Math.max(0, Math.min(len, Math.trunc(+start) || 0));
        end = end === undefined ? len : Math.max(start, Math.min(len, Math.trunc(+end) || 0));
        return start === 0 && end === len ? utf8Decoder.decode(this) : utf8Decoder.decode(Uint8Array.prototype.subarray.call(this, start, end));
      }
      const kind = extraOf(encoding);
      if (!kind) return goToString.call(this, goEncoding(encoding), start, end);
      return decodeExtra(Uint8Array.prototype.subarray.call(this, start || 0, end === undefined ? this.length : end), kind);
    });
    const goWrite = P.write;
    def(P, "write", function write(string, offset, length, encoding) {
      receiver(this);
      if (typeof offset === "string") [encoding, offset, length] = [offset, 0, undefined];
      else if (typeof length === "string") [encoding, length] = [length, undefined];
      const kind = extraOf(encoding);
      if (!kind) return goWrite.call(this, string, offset === undefined ? 0 : offset, length, goEncoding(encoding));
      offset = offset || 0;
      const bytes = encodeExtra(string, kind).subarray(0, Math.min(length === undefined ? Infinity : length, this.length - offset));
      this.set(bytes, offset);
      return bytes.length;
    });
    def(P, "toLocaleString", P.toString);
    // isUtf8/isAscii take an ArrayBuffer or a view, as Node's.
    const bytesInput = (b) => {
      if (!(b instanceof ArrayBuffer) && !ArrayBuffer.isView(b)) throw Object.assign(new TypeError(`The "input" argument must be an instance of ArrayBuffer, Buffer, or TypedArray. Received ${typeText(b)}`), { code: "ERR_INVALID_ARG_TYPE" });
    };
    // swap16/32/64: byte order swapped in place, in 2-, 4- or 8-byte units.
    for (const bits of [16, 32, 64]) {
      const n = bits / 8;
      def(P, "swap" + bits, function () {
        receiver(this);
        if (this.length % n !== 0) throw Object.assign(new RangeError(`Buffer size must be a multiple of ${bits}-bits`), { code: "ERR_INVALID_BUFFER_SIZE" });
        for (let i = 0; i < this.length; i += n) {
          for (let a = i, b = i + n - 1; a < b; a++, b--) { const t = this[a]; this[a] = this[b]; this[b] = t; }
        }
        return this;
      });
    }
    // Node's legacy accessors: buf.parent and buf.offset.
    Object.defineProperty(P, "parent", { get() { return this instanceof Buffer ? this.buffer : undefined; }, enumerable: true, configurable: true });
    Object.defineProperty(P, "offset", { get() { return this instanceof Buffer ? this.byteOffset : undefined; }, enumerable: true, configurable: true });
    // Node's per-encoding methods (utf8Slice, hexWrite, ...), which
    // libraries call directly.
    for (const [name, enc] of [["utf8", "utf8"], ["latin1", "latin1"], ["ascii", "ascii"], ["hex", "hex"], ["base64", "base64"], ["base64url", "base64url"], ["ucs2", "utf16le"]]) {
      def(P, name + "Slice", function (start = 0, end = this.length) { return this.toString(enc, start, end); });
      def(P, name + "Write", function (str, offset = 0, length = this.length - offset) { return this.write(str, offset, length, enc); });
    }
    // Offsets as Node checks them (lib/internal/buffer.js: checkBounds,
    // boundsError), before goja_nodejs's readers and writers run: a
    // non-number offset is ERR_INVALID_ARG_TYPE, a fraction or one past
    // the end ERR_OUT_OF_RANGE with the range, a buffer shorter than the
    // value ERR_BUFFER_OUT_OF_BOUNDS.
    const numText = (v) => {
      if (Object.is(v, -0)) return "-0";
      let t = String(v);
      if (Number.isInteger(v) && Math.abs(v) > 2 ** 32) {
        let res = "", i = t.length;
        const start = t[0] === "-" ? 1 : 0;
        for (; i >= start + 4; i -= 3) res = "_" + t.slice(i - 3, i) + res;
        t = t.slice(0, i) + res;
      }
      return t;
    };
    const typeText = (v) => v === null ? "null" : v === undefined ? "undefined" : typeof v === "function" ? `function ${v.name}` : typeof v === "object" ? (v.constructor && v.constructor.name ? `an instance of ${v.constructor.name}` : "an object") : `type ${typeof v} (${typeof v === "string" ? `'${v}'` : String(v)}${typeof v === "bigint" ? "n" : ""})`;
    const notNumber = (name, v) => Object.assign(new TypeError(`The "${name}" argument must be of type number. Received ${typeText(v)}`), { code: "ERR_INVALID_ARG_TYPE" });
    const outOfRange = (name, range, v) => Object.assign(new RangeError(`The value of "${name}" is out of range. It must be ${range}. Received ${numText(v)}`), { code: "ERR_OUT_OF_RANGE" });
    function boundsError(value, length, type) {
      if (Math.floor(value) !== value) {
        if (typeof value !== "number") throw notNumber(type || "offset", value);
        throw outOfRange(type || "offset", "an integer", value);
      }
      if (length < 0) throw Object.assign(new RangeError("Attempt to access memory outside buffer bounds"), { code: "ERR_BUFFER_OUT_OF_BOUNDS" });
      throw outOfRange(type || "offset", `>= ${type ? 1 : 0} and <= ${length}`, value);
    }
    function checkOffset(buf, offset, size) {
      if (typeof offset !== "number") throw notNumber("offset", offset);
      const last = buf.length - size;
      if (!(offset >= 0 && offset <= last && Math.floor(offset) === offset)) boundsError(offset, last);
    }
    const fixed = { 8: 1, 16: 2, 32: 4, Float: 4, Double: 8, BigInt64: 8, BigUInt64: 8, BigUint64: 8 };
    for (const k of Object.getOwnPropertyNames(P)) {
      const m = /^(read|write)(U?[Ii]nt(8|16|32)|Float|Double|BigU?[Ii]nt64)(LE|BE)?$/.exec(k);
      if (!m || typeof P[k] !== "function") continue;
      const size = m[3] ? fixed[m[3]] : fixed[m[2]];
      const orig = P[k];
      if (m[1] === "read") def(P, k, { [k](offset = 0) { checkOffset(this, offset, size); return orig.call(this, offset); } }[k]);
      else def(P, k, { [k](value, offset = 0) { checkOffset(this, offset, size); return orig.call(this, value, offset); } }[k]);
    }
    for (const k of Object.getOwnPropertyNames(P)) {
      const m = /^(read|write)U?[Ii]nt(LE|BE)$/.exec(k);
      if (!m || typeof P[k] !== "function") continue;
      const orig = P[k];
      const checkLen = (offset, byteLength, buf) => {
        if (offset === undefined) throw notNumber("offset", offset);
        if (!(byteLength >= 1 && byteLength <= 6 && Math.floor(byteLength) === byteLength)) boundsError(byteLength, 6, "byteLength");
        checkOffset(buf, offset, byteLength);
      };
      if (m[1] === "read") def(P, k, { [k](offset, byteLength) { checkLen(offset, byteLength, this); return orig.call(this, offset, byteLength); } }[k]);
      else def(P, k, { [k](value, offset, byteLength) { checkLen(offset, byteLength, this); return orig.call(this, value, offset, byteLength); } }[k]);
    }
    return {
      Buffer,
      SlowBuffer: function SlowBuffer(size) { return Buffer.allocUnsafeSlow(size); },
      atob: globalThis.atob, btoa: globalThis.btoa, Blob: globalThis.Blob, File: globalThis.File,
      kMaxLength: 2 ** 32, kStringMaxLength: 2 ** 29 - 24, INSPECT_MAX_BYTES: 50,
      constants: { MAX_LENGTH: 2 ** 32, MAX_STRING_LENGTH: 2 ** 29 - 24 },
      isUtf8: (b) => { bytesInput(b); try { new TextDecoder("utf-8", { fatal: true }).decode(b); return true; } catch { return false; } },
      isAscii: (b) => { bytesInput(b); return Array.prototype.every.call(ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b), (x) => x < 128); },
    };
  };

  // ---- url: the global WHATWG URL (as workerd's node:url), goja_nodejs's
  // domainToASCII/Unicode, and Node's helpers ----
  defs.url = () => {
    const g = require("_url");
    const invalid = (msg, code) => { const e = new TypeError(msg); e.code = code; return e; };
    function fileURLToPath(u) {
      const url = typeof u === "string" ? new URL(u) : u;
      if (url.protocol !== "file:") throw invalid("The URL must be of scheme file", "ERR_INVALID_URL_SCHEME");
      if (url.hostname !== "") throw invalid('File URL host must be "localhost" or empty on linux', "ERR_INVALID_FILE_URL_HOST");
      if (/%2f/i.test(url.pathname)) throw invalid("File URL path must not include encoded / characters", "ERR_INVALID_FILE_URL_PATH");
      return decodeURIComponent(url.pathname);
    }
    function pathToFileURL(p) {
      const abs = require("path").resolve(p);
      const u = new URL("file://");
      u.pathname = abs.replace(/%/g, "%25").replace(/\\/g, "%5C").replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/\t/g, "%09") + (p.endsWith("/") && !abs.endsWith("/") ? "/" : "");
      return u;
    }
    function format(u, opts) {
      if (typeof u === "string") return u;
      if (u instanceof URL) {
        const o = Object.assign({ auth: true, fragment: true, search: true, unicode: false }, opts);
        let s = u.protocol + (u.host !== "" || u.protocol === "file:" ? "//" : "");
        if (o.auth && (u.username || u.password)) s += u.username + (u.password ? ":" + u.password : "") + "@";
        s += o.unicode ? g.domainToUnicode(u.hostname) + (u.port ? ":" + u.port : "") : u.host;
        s += u.pathname;
        if (o.search) s += u.search;
        if (o.fragment) s += u.hash;
        return s;
      }
      let s = "";
      if (u.protocol) s += u.protocol + (u.protocol.endsWith(":") ? "" : ":");
      if (u.slashes || u.host || u.hostname) s += "//";
      if (u.auth) s += u.auth + "@";
      s += u.host || (u.hostname || "") + (u.port ? ":" + u.port : "");
      s += u.pathname || "";
      if (u.search) s += u.search.startsWith("?") ? u.search : "?" + u.search;
      else if (u.query && typeof u.query === "object") { const q = require("querystring").stringify(u.query); if (q) s += "?" + q; }
      if (u.hash) s += u.hash;
      return s;
    }
    function parse(str, parseQuery) {
      let url;
      try { url = new URL(str); } catch { url = null; }
      if (url === null) {
        const m = /^([^?#]*)(\?[^#]*)?(#.*)?$/.exec(str);
        const search = m[2] || null;
        return { protocol: null, slashes: null, auth: null, host: null, port: null, hostname: null, hash: m[3] || null, search,
          query: parseQuery ? require("querystring").parse(search ? search.slice(1) : "") : search ? search.slice(1) : null, pathname: m[1] || null, path: (m[1] || "") + (search || "") || null, href: str };
      }
      const auth = url.username ? decodeURIComponent(url.username) + (url.password ? ":" + decodeURIComponent(url.password) : "") : null;
      return { protocol: url.protocol, slashes: true, auth, host: url.host, port: url.port || null, hostname: url.hostname, hash: url.hash || null,
        search: url.search || null, query: parseQuery ? require("querystring").parse(url.search.slice(1)) : url.search ? url.search.slice(1) : null,
        pathname: url.pathname, path: url.pathname + url.search, href: url.href };
    }
    return { URL, URLSearchParams, domainToASCII: g.domainToASCII, domainToUnicode: g.domainToUnicode, fileURLToPath, pathToFileURL, format, parse,
      resolve: (from, to) => { const r = new URL(to, new URL(from, "resolve://")); return r.protocol === "resolve:" ? r.pathname + r.search + r.hash : r.toString(); } };
  };

  // ---- querystring ----
  defs.querystring = () => {
    const escape = (s) => encodeURIComponent(s); // Node's table: !'()* stay as they are
    const unescape = (s) => { try { return decodeURIComponent(s); } catch { return s; } };
    const prim = (v) => (typeof v === "string" ? v : typeof v === "number" && isFinite(v) ? "" + v : typeof v === "bigint" ? "" + v : typeof v === "boolean" ? (v ? "true" : "false") : "");
    function stringify(obj, sep = "&", eq = "=", opts) {
      const enc = (opts && opts.encodeURIComponent) || escape;
      if (obj === null || typeof obj !== "object") return "";
      const out = [];
      for (const k of Object.keys(obj)) {
        const v = obj[k];
        const ks = enc(prim(k)) + eq;
        if (Array.isArray(v)) for (const x of v) out.push(ks + enc(prim(x)));
        else out.push(ks + enc(prim(v)));
      }
      return out.join(sep);
    }
    function parse(str, sep = "&", eq = "=", opts) {
      const obj = Object.create(null);
      if (typeof str !== "string" || str.length === 0) return obj;
      const dec = (opts && opts.decodeURIComponent) || unescape;
      let parts = str.split(sep);
      const max = opts && typeof opts.maxKeys === "number" ? opts.maxKeys : 1000;
      if (max > 0) parts = parts.slice(0, max);
      for (const part of parts) {
        if (part === "") continue;
        const i = part.indexOf(eq);
        const k = dec((i >= 0 ? part.slice(0, i) : part).replace(/\+/g, " "));
        const v = i >= 0 ? dec(part.slice(i + eq.length).replace(/\+/g, " ")) : "";
        if (!(k in obj)) obj[k] = v;
        else if (Array.isArray(obj[k])) obj[k].push(v);
        else obj[k] = [obj[k], v];
      }
      return obj;
    }
    return { stringify, parse, encode: stringify, decode: parse, escape, unescape };
  };

  // ---- events ----
  defs.events = () => {
    const kCapture = Symbol("kCapture");
    function EventEmitter(opts) { EventEmitter.init.call(this, opts); }
    EventEmitter.prototype._events = undefined;
    EventEmitter.prototype._maxListeners = undefined;
    EventEmitter.defaultMaxListeners = 10;
    EventEmitter.captureRejectionSymbol = Symbol.for("nodejs.rejection");
    EventEmitter.errorMonitor = Symbol("events.errorMonitor");
    // captureRejections (Node's): a listener's rejected promise becomes
    // the emitter's 'error' event, or its [Symbol.for("nodejs.rejection")].
    let captureDefault = false;
    Object.defineProperty(EventEmitter, "captureRejections", {
      get() { return captureDefault; },
      set(v) { if (typeof v !== "boolean") throw Object.assign(new TypeError(`The "EventEmitter.captureRejections" property must be of type boolean. Received ${v === null ? "null" : typeof v}`), { code: "ERR_INVALID_ARG_TYPE" }); captureDefault = v; },
      enumerable: true, configurable: true,
    });
    EventEmitter.init = function (opts) {
      if (this._events === undefined || this._events === Object.getPrototypeOf(this)._events) {
        this._events = Object.create(null);
      }
      this._maxListeners = this._maxListeners || undefined;
      if (opts && opts.captureRejections !== undefined) {
        if (typeof opts.captureRejections !== "boolean") throw Object.assign(new TypeError(`The "options.captureRejections" property must be of type boolean. Received ${opts.captureRejections === null ? "null" : typeof opts.captureRejections}`), { code: "ERR_INVALID_ARG_TYPE" });
        this[kCapture] = opts.captureRejections;
      } else if (this[kCapture] === undefined || this[kCapture] === Object.getPrototypeOf(this)[kCapture]) {
        this[kCapture] = captureDefault;
      }
    };
    function rejected(ee, err, type, args) {
      const handler = ee[EventEmitter.captureRejectionSymbol];
      if (typeof handler === "function") return handler.call(ee, err, type, ...args);
      const prev = ee[kCapture];
      try { ee[kCapture] = false; ee.emit("error", err); } finally { ee[kCapture] = prev; }
    }
    function addCatch(ee, result, type, args) {
      if (!ee[kCapture] || result === undefined || result === null) return;
      try {
        const then = result.then;
        if (typeof then === "function") then.call(result, undefined, (err) => queueMicrotask(() => rejected(ee, err, type, args)));
      } catch (err) { ee.emit("error", err); }
    }
    const P = EventEmitter.prototype;
    P.setMaxListeners = function (n) { this._maxListeners = n; return this; };
    P.getMaxListeners = function () { return this._maxListeners === undefined ? EventEmitter.defaultMaxListeners : this._maxListeners; };
    P.emit = function (type, ...args) {
      const events = this._events;
      if (type === "error" && events && events[EventEmitter.errorMonitor]) {
        this.emit(EventEmitter.errorMonitor, ...args);
      }
      const handler = events === undefined ? undefined : events[type];
      if (handler === undefined) {
        if (type === "error") {
          const er = args[0];
          if (er instanceof Error) throw er;
          const err = new Error("Unhandled error." + (er === undefined ? "" : " (" + String(er) + ")"));
          err.code = "ERR_UNHANDLED_ERROR";
          err.context = er;
          throw err;
        }
        return false;
      }
      const list = typeof handler === "function" ? [handler] : handler.slice();
      for (const fn of list) addCatch(this, Reflect.apply(fn, this, args), type, args);
      return true;
    };
    function add(target, type, listener, prepend) {
      if (typeof listener !== "function") {
        const e = new TypeError('The "listener" argument must be of type function. Received ' + (listener === null ? "null" : typeof listener));
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      let events = target._events;
      if (events === undefined) events = target._events = Object.create(null);
      else if (events.newListener !== undefined) target.emit("newListener", type, listener.listener ? listener.listener : listener);
      events = target._events;
      const existing = events[type];
      if (existing === undefined) events[type] = listener;
      else if (typeof existing === "function") events[type] = prepend ? [listener, existing] : [existing, listener];
      else if (prepend) existing.unshift(listener);
      else existing.push(listener);
      return target;
    }
    P.addListener = P.on = function (type, listener) { return add(this, type, listener, false); };
    P.prependListener = function (type, listener) { return add(this, type, listener, true); };
    function onceWrap(target, type, listener) {
      const state = { fired: false, target, type, listener };
      const wrapped = function (...args) {
        if (!state.fired) {
          state.target.removeListener(state.type, wrapped);
          state.fired = true;
          return Reflect.apply(state.listener, state.target, args);
        }
      };
      wrapped.listener = listener;
      return wrapped;
    }
    P.once = function (type, listener) { if (typeof listener !== "function") return add(this, type, listener); return this.on(type, onceWrap(this, type, listener)); };
    P.prependOnceListener = function (type, listener) { return this.prependListener(type, onceWrap(this, type, listener)); };
    P.removeListener = P.off = function (type, listener) {
      const events = this._events;
      if (events === undefined) return this;
      const list = events[type];
      if (list === undefined) return this;
      if (list === listener || list.listener === listener) {
        delete events[type];
        if (events.removeListener) this.emit("removeListener", type, list.listener || listener);
      } else if (typeof list !== "function") {
        for (let i = list.length - 1; i >= 0; i--) {
          if (list[i] === listener || list[i].listener === listener) {
            const orig = list[i].listener || list[i];
            list.splice(i, 1);
            if (list.length === 1) events[type] = list[0];
            if (events.removeListener !== undefined) this.emit("removeListener", type, orig);
            break;
          }
        }
      }
      return this;
    };
    P.removeAllListeners = function (type) {
      if (this._events === undefined) return this;
      if (type === undefined) this._events = Object.create(null);
      else delete this._events[type];
      return this;
    };
    P.listeners = function (type) {
      const l = this._events && this._events[type];
      if (l === undefined) return [];
      return typeof l === "function" ? [l.listener || l] : l.map((f) => f.listener || f);
    };
    P.rawListeners = function (type) {
      const l = this._events && this._events[type];
      if (l === undefined) return [];
      return typeof l === "function" ? [l] : l.slice();
    };
    P.listenerCount = function (type) {
      const l = this._events && this._events[type];
      if (l === undefined) return 0;
      return typeof l === "function" ? 1 : l.length;
    };
    P.eventNames = function () { return this._events ? Reflect.ownKeys(this._events) : []; };
    EventEmitter.listenerCount = (em, type) => em.listenerCount(type);
    EventEmitter.once = function (emitter, name) {
      // An EventTarget (a WebSocket, an AbortSignal): resolved with
      // [event] at its first event, as Node's events.once does.
      if (typeof emitter.on !== "function" && typeof emitter.addEventListener === "function") {
        return new Promise((resolve) => emitter.addEventListener(name, (...args) => resolve(args), { once: true }));
      }
      return new Promise((resolve, reject) => {
        const onError = (err) => { emitter.removeListener(name, onEvent); reject(err); };
        const onEvent = (...args) => { if (name !== "error") emitter.removeListener("error", onError); resolve(args); };
        emitter.once(name, onEvent);
        if (name !== "error") emitter.once("error", onError);
      });
    };
    EventEmitter.EventEmitter = EventEmitter;
    EventEmitter.usingDomains = false;
    return EventEmitter;
  };

  // ---- path (POSIX, as workerd's node:path) ----
  defs.path = () => {
    function assertPath(p) {
      if (typeof p !== "string") {
        const e = new TypeError('The "path" argument must be of type string. Received ' + (p === null ? "null" : typeof p));
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
    }
    function normalizeString(path, allowAboveRoot) {
      const out = [];
      for (const seg of path.split("/")) {
        if (seg === "" || seg === ".") continue;
        if (seg === "..") {
          if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
          else if (allowAboveRoot) out.push("..");
        } else out.push(seg);
      }
      return out.join("/");
    }
    const posix = {
      sep: "/",
      delimiter: ":",
      resolve(...args) {
        let resolved = "", abs = false;
        for (let i = args.length - 1; i >= -1 && !abs; i--) {
          const p = i >= 0 ? args[i] : "/";
          assertPath(p);
          if (p.length === 0) continue;
          resolved = p + "/" + resolved;
          abs = p.charCodeAt(0) === 47;
        }
        resolved = normalizeString(resolved, !abs);
        return abs ? "/" + resolved : resolved.length > 0 ? resolved : ".";
      },
      normalize(p) {
        assertPath(p);
        if (p.length === 0) return ".";
        const abs = p.charCodeAt(0) === 47, trail = p.charCodeAt(p.length - 1) === 47;
        let r = normalizeString(p, !abs);
        if (r.length === 0) { if (abs) return "/"; return trail ? "./" : "."; }
        if (trail) r += "/";
        return abs ? "/" + r : r;
      },
      isAbsolute(p) { assertPath(p); return p.length > 0 && p.charCodeAt(0) === 47; },
      join(...args) {
        if (args.length === 0) return ".";
        for (const a of args) assertPath(a);
        const j = args.filter((a) => a.length > 0).join("/");
        return j.length === 0 ? "." : posix.normalize(j);
      },
      relative(from, to) {
        assertPath(from); assertPath(to);
        if (from === to) return "";
        const f = posix.resolve(from).split("/").filter(Boolean), t = posix.resolve(to).split("/").filter(Boolean);
        let i = 0;
        while (i < f.length && i < t.length && f[i] === t[i]) i++;
        return [...f.slice(i).map(() => ".."), ...t.slice(i)].join("/");
      },
      toNamespacedPath(p) { return p; },
      dirname(p) {
        assertPath(p);
        if (p.length === 0) return ".";
        const abs = p.charCodeAt(0) === 47;
        let end = -1, matched = true;
        for (let i = p.length - 1; i >= 1; --i) {
          if (p.charCodeAt(i) === 47) { if (!matched) { end = i; break; } } else matched = false;
        }
        if (end === -1) return abs ? "/" : ".";
        if (abs && end === 1) return "//";
        return p.slice(0, end);
      },
      basename(p, ext) {
        assertPath(p);
        let end = p.length;
        while (end > 0 && p.charCodeAt(end - 1) === 47) end--;
        if (end === 0) return "";
        const start = p.lastIndexOf("/", end - 1) + 1;
        let b = p.slice(start, end);
        if (ext !== undefined && ext !== b && b.endsWith(ext)) b = b.slice(0, b.length - ext.length);
        return b;
      },
      extname(p) {
        assertPath(p);
        const b = posix.basename(p);
        const dot = b.lastIndexOf(".");
        if (dot <= 0 || (dot === 1 && b === "..")) return "";
        return b.slice(dot);
      },
      format(o) {
        const dir = o.dir || o.root;
        const base = o.base || (o.name || "") + (o.ext ? (o.ext[0] === "." ? "" : ".") + o.ext : "");
        if (!dir) return base;
        return dir === o.root ? dir + base : dir + "/" + base;
      },
      parse(p) {
        assertPath(p);
        const root = p.charCodeAt(0) === 47 ? "/" : "";
        const base = posix.basename(p), ext = posix.extname(p);
        let dir = posix.dirname(p);
        if (dir === "." && !p.startsWith(".")) dir = "";
        return { root, dir, base, ext, name: ext ? base.slice(0, base.length - ext.length) : base };
      },
      matchesGlob() { throw new Error("path.matchesGlob is not implemented"); },
    };
    posix.posix = posix;
    posix.win32 = posix; // workerd: win32 is not provided; the same object
    return posix;
  };
  defs["path/posix"] = () => require("path");

  // ---- string_decoder ----
  defs.string_decoder = () => {
    const { Buffer } = require("buffer");
    class StringDecoder {
      constructor(encoding) {
        this.encoding = normalize(encoding);
        this._dec = this.encoding === "utf8" ? new TextDecoder("utf-8") : this.encoding === "utf16le" ? new TextDecoder("utf-16le") : null;
        this._rest = null;
      }
      write(buf) {
        if (typeof buf === "string") return buf;
        if (this._dec) return this._dec.decode(buf, { stream: true });
        if (this.encoding === "base64" || this.encoding === "base64url") {
          let b = this._rest ? Buffer.concat([this._rest, buf]) : Buffer.from(buf);
          const n = b.length - (b.length % 3);
          this._rest = b.length > n ? b.subarray(n) : null;
          return b.subarray(0, n).toString(this.encoding);
        }
        return Buffer.from(buf).toString(this.encoding);
      }
      end(buf) {
        let s = buf === undefined ? "" : this.write(buf);
        if (this._dec) s += this._dec.decode();
        else if (this._rest) { s += this._rest.toString(this.encoding); this._rest = null; }
        return s;
      }
    }
    function normalize(enc) {
      // Node's normalizeEncoding: null, undefined and "" are UTF-8.
      const e = String(enc === undefined || enc === null || enc === "" ? "utf8" : enc).toLowerCase();
      switch (e) {
        case "utf8": case "utf-8": return "utf8";
        case "ucs2": case "ucs-2": case "utf16le": case "utf-16le": return "utf16le";
        case "latin1": case "binary": return "latin1";
        case "base64": case "base64url": case "ascii": case "hex": return e;
      }
      const err = new TypeError("Unknown encoding: " + enc);
      err.code = "ERR_UNKNOWN_ENCODING";
      throw err;
    }
    return { StringDecoder };
  };

  // ---- util (goja_nodejs gives format) ----
  defs.util = () => {
    const u = native.util;
    const types = {
      isPromise: (v) => v instanceof Promise,
      isDate: (v) => v instanceof Date,
      isRegExp: (v) => v instanceof RegExp,
      isMap: (v) => v instanceof Map,
      isSet: (v) => v instanceof Set,
      isWeakMap: (v) => v instanceof WeakMap,
      isWeakSet: (v) => v instanceof WeakSet,
      isArrayBuffer: (v) => v instanceof ArrayBuffer,
      isAnyArrayBuffer: (v) => v instanceof ArrayBuffer,
      isArrayBufferView: (v) => ArrayBuffer.isView(v),
      isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
      isUint8Array: (v) => v instanceof Uint8Array,
      isDataView: (v) => v instanceof DataView,
      isNativeError: (v) => v instanceof Error,
      isAsyncFunction: (v) => typeof v === "function" && v.constructor && v.constructor.name === "AsyncFunction",
      isGeneratorFunction: (v) => typeof v === "function" && v.constructor && /GeneratorFunction$/.test(v.constructor.name),
      isBoxedPrimitive: (v) => v instanceof Number || v instanceof String || v instanceof Boolean,
    };
    const kCustom = Symbol.for("nodejs.util.promisify.custom");
    function promisify(fn) {
      if (typeof fn !== "function") {
        const e = new TypeError('The "original" argument must be of type function');
        e.code = "ERR_INVALID_ARG_TYPE";
        throw e;
      }
      if (fn[kCustom]) return fn[kCustom];
      const p = function (...args) {
        return new Promise((resolve, reject) => {
          Reflect.apply(fn, this, [...args, (err, value) => (err ? reject(err) : resolve(value))]);
        });
      };
      Object.setPrototypeOf(p, Object.getPrototypeOf(fn));
      Object.defineProperty(p, kCustom, { value: p });
      return p;
    }
    promisify.custom = kCustom;
    function callbackify(fn) {
      return function (...args) {
        const cb = args.pop();
        fn.apply(this, args).then((v) => cb(null, v), (e) => cb(e));
      };
    }
    function inspect(v, opts) {
      const seen = new Set();
      const depth = opts && opts.depth !== undefined ? opts.depth : 2;
      const go = (v, d, top) => {
        switch (typeof v) {
          case "string": return top ? v : "'" + v.replace(/'/g, "\\'") + "'";
          case "bigint": return v + "n";
          case "symbol": return v.toString();
          case "function": return "[Function: " + (v.name || "(anonymous)") + "]";
          case "undefined": return "undefined";
          case "object": break;
          default: return String(v);
        }
        if (v === null) return "null";
        if (v instanceof Error) return v.stack || String(v);
        if (v instanceof Date) return v.toISOString();
        if (v instanceof RegExp) return String(v);
        if (seen.has(v)) return "[Circular *1]";
        if (d > depth) return Array.isArray(v) ? "[Array]" : "[Object]";
        seen.add(v);
        let s;
        if (Array.isArray(v)) s = v.length === 0 ? "[]" : "[ " + v.map((x) => go(x, d + 1)).join(", ") + " ]";
        else if (v instanceof Map) s = "Map(" + v.size + ") {" + (v.size ? " " + [...v].map(([k, x]) => go(k, d + 1) + " => " + go(x, d + 1)).join(", ") + " " : "") + "}";
        else if (v instanceof Set) s = "Set(" + v.size + ") {" + (v.size ? " " + [...v].map((x) => go(x, d + 1)).join(", ") + " " : "") + "}";
        else {
          const keys = Object.keys(v);
          const name = v.constructor && v.constructor.name && v.constructor !== Object ? v.constructor.name + " " : "";
          s = keys.length === 0 ? name + "{}" : name + "{ " + keys.map((k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : "'" + k + "'") + ": " + go(v[k], d + 1)).join(", ") + " }";
        }
        seen.delete(v);
        return s;
      };
      return go(v, 0, false);
    }
    inspect.custom = Symbol.for("nodejs.util.inspect.custom");
    function isDeepStrictEqual(a, b) { return require("assert")._deepEqual(a, b, true); }
    function inherits(ctor, superCtor) {
      Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
      Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
    }
    function deprecate(fn) { return fn; }
    const out = {
      format: u.format,
      formatWithOptions: (o, ...a) => u.format(...a),
      inspect, promisify, callbackify, inherits, deprecate, isDeepStrictEqual, types,
      isArray: Array.isArray,
      TextEncoder, TextDecoder,
      debuglog: () => () => {},
      stripVTControlCharacters: (s) => s.replace(/\u001b\[[0-9;]*m/g, ""),
      toUSVString: (s) => String(s).toWellFormed ? String(s).toWellFormed() : String(s),
      aborted: (signal) => new Promise((r) => signal.addEventListener("abort", r, { once: true })),
    };
    return out;
  };
  defs["util/types"] = () => require("util").types;

  // ---- assert ----
  defs.assert = () => {
    class AssertionError extends Error {
      constructor(options) {
        super(options.message);
        this.name = "AssertionError";
        this.code = "ERR_ASSERTION";
        this.actual = options.actual;
        this.expected = options.expected;
        this.operator = options.operator;
        this.generatedMessage = !options.userMessage;
      }
    }
    const inspect = (v) => require("util").inspect(v);
    function fail(actual, expected, message, operator, defaultMsg) {
      if (message instanceof Error) throw message;
      throw new AssertionError({ message: message !== undefined ? message : defaultMsg(), userMessage: message !== undefined, actual, expected, operator });
    }
    function deepEqual(a, b, strict, memo) {
      if (strict ? Object.is(a, b) : a == b || (a !== a && b !== b)) return true;
      if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
      if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
      if (Object.prototype.toString.call(a) !== Object.prototype.toString.call(b)) return false;
      if (a instanceof Date) return a.getTime() === b.getTime();
      if (a instanceof RegExp) return String(a) === String(b);
      if (a instanceof Error && (a.message !== b.message || a.name !== b.name)) return false;
      if (ArrayBuffer.isView(a)) {
        if (a.byteLength !== b.byteLength) return false;
        const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength), y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
        return true;
      }
      memo = memo || new Map();
      if (memo.get(a) === b) return true;
      memo.set(a, b);
      if (a instanceof Map) {
        if (a.size !== b.size) return false;
        for (const [k, v] of a) if (!b.has(k) || !deepEqual(v, b.get(k), strict, memo)) return false;
        return true;
      }
      if (a instanceof Set) {
        if (a.size !== b.size) return false;
        for (const v of a) if (!b.has(v)) return false;
        return true;
      }
      const ka = Object.keys(a), kb = Object.keys(b);
      if (ka.length !== kb.length) return false;
      for (const k of ka) if (!Object.prototype.hasOwnProperty.call(b, k) || !deepEqual(a[k], b[k], strict, memo)) return false;
      return true;
    }
    function assert(value, message) { ok(value, message); }
    function ok(value, message) {
      if (!value) fail(value, true, message, "==", () => (arguments.length === 0 ? "No value argument passed to `assert.ok()`" : "The expression evaluated to a falsy value:\n\n  assert.ok(" + inspect(value) + ")\n"));
    }
    assert.ok = ok;
    assert.AssertionError = AssertionError;
    assert.fail = (message) => { if (message instanceof Error) throw message; throw new AssertionError({ message: message === undefined ? "Failed" : message, userMessage: message !== undefined, operator: "fail" }); };
    assert.equal = (a, b, m) => { if (!(a == b || (a !== a && b !== b))) fail(a, b, m, "==", () => `${inspect(a)} == ${inspect(b)}`); };
    assert.notEqual = (a, b, m) => { if (a == b || (a !== a && b !== b)) fail(a, b, m, "!=", () => `${inspect(a)} != ${inspect(b)}`); };
    assert.strictEqual = (a, b, m) => { if (!Object.is(a, b)) fail(a, b, m, "strictEqual", () => `Expected values to be strictly equal:\n\n${inspect(a)} !== ${inspect(b)}\n`); };
    assert.notStrictEqual = (a, b, m) => { if (Object.is(a, b)) fail(a, b, m, "notStrictEqual", () => `Expected "actual" to be strictly unequal to: ${inspect(b)}`); };
    assert.deepEqual = (a, b, m) => { if (!deepEqual(a, b, false)) fail(a, b, m, "deepEqual", () => `Expected values to be loosely deep-equal:\n\n${inspect(a)}\n\nshould loosely deep-equal\n\n${inspect(b)}`); };
    assert.deepStrictEqual = (a, b, m) => { if (!deepEqual(a, b, true)) fail(a, b, m, "deepStrictEqual", () => `Expected values to be strictly deep-equal:\n${inspect(a)}\n\nshould equal\n\n${inspect(b)}`); };
    assert.notDeepEqual = (a, b, m) => { if (deepEqual(a, b, false)) fail(a, b, m, "notDeepEqual", () => `Expected "actual" not to be loosely deep-equal to: ${inspect(b)}`); };
    assert.notDeepStrictEqual = (a, b, m) => { if (deepEqual(a, b, true)) fail(a, b, m, "notDeepStrictEqual", () => `Expected "actual" not to be strictly deep-equal to: ${inspect(b)}`); };
    function matches(err, expected) {
      if (expected === undefined) return true;
      if (typeof expected === "function") {
        if (expected.prototype !== undefined && err instanceof expected) return true;
        if (Error.isPrototypeOf(expected) || expected === Error) return false;
        return expected.call({}, err) === true;
      }
      if (expected instanceof RegExp) return expected.test(String(err));
      if (typeof expected === "object") {
        for (const k of Object.keys(expected)) {
          const v = expected[k];
          if (v instanceof RegExp && typeof err[k] === "string" ? !v.test(err[k]) : !deepEqual(err[k], v, true)) return false;
        }
        return true;
      }
      return true;
    }
    assert.throws = (fn, expected, message) => {
      if (typeof expected === "string") { message = expected; expected = undefined; }
      try { fn(); } catch (e) {
        if (!matches(e, expected)) { if (typeof expected === "function" && expected.prototype !== undefined && !(e instanceof expected) && (Error.isPrototypeOf(expected) || expected === Error)) throw e; fail(e, expected, message, "throws", () => "The error is expected to match"); }
        return;
      }
      fail(undefined, expected, message, "throws", () => "Missing expected exception" + (expected && expected.name ? ` (${expected.name}).` : "."));
    };
    assert.doesNotThrow = (fn, message) => { try { fn(); } catch (e) { fail(e, undefined, typeof message === "string" ? message : undefined, "doesNotThrow", () => "Got unwanted exception.\nActual message: \"" + (e && e.message) + "\""); } };
    assert.rejects = async (p, expected, message) => {
      if (typeof expected === "string") { message = expected; expected = undefined; }
      try { await (typeof p === "function" ? p() : p); } catch (e) {
        if (!matches(e, expected)) fail(e, expected, message, "rejects", () => "The error is expected to match");
        return;
      }
      fail(undefined, expected, message, "rejects", () => "Missing expected rejection" + (expected && expected.name ? ` (${expected.name}).` : "."));
    };
    assert.doesNotReject = async (p, message) => { try { await (typeof p === "function" ? p() : p); } catch (e) { fail(e, undefined, message, "doesNotReject", () => "Got unwanted rejection.\nActual message: \"" + (e && e.message) + "\""); } };
    assert.match = (s, re, m) => { if (!re.test(s)) fail(s, re, m, "match", () => `The input did not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`); };
    assert.doesNotMatch = (s, re, m) => { if (re.test(s)) fail(s, re, m, "doesNotMatch", () => `The input was expected to not match the regular expression ${re}. Input:\n\n${inspect(s)}\n`); };
    assert.ifError = (v) => { if (v !== null && v !== undefined) throw v; };
    assert._deepEqual = deepEqual;
    const strict = (v, m) => ok(v, m);
    Object.assign(strict, assert, { equal: assert.strictEqual, deepEqual: assert.deepStrictEqual, notEqual: assert.notStrictEqual, notDeepEqual: assert.notDeepStrictEqual });
    strict.strict = strict;
    assert.strict = strict;
    return assert;
  };
  defs["assert/strict"] = () => require("assert").strict;

  // ---- async_hooks ----
  defs.async_hooks = () => {
    const ctx = native.asyncContext; // { get(), run(store key map, fn) }
    class AsyncLocalStorage {
      // options: workerd's and Node 24's { defaultValue, name }.
      constructor(options) {
        this._key = Symbol("AsyncLocalStorage");
        this._default = options == null ? undefined : options.defaultValue;
        this._name = options == null || options.name === undefined ? "" : String(options.name);
      }
      get name() { return this._name; }
      getStore() { const m = ctx.get(); return m !== undefined && m.has(this._key) ? m.get(this._key) : this._default; }
      run(store, fn, ...args) {
        const m = new Map(ctx.get() || []);
        m.set(this._key, store);
        return ctx.run(m, () => fn(...args));
      }
      exit(fn, ...args) {
        const m = new Map(ctx.get() || []);
        m.delete(this._key);
        return ctx.run(m, () => fn(...args));
      }
      enterWith() { throw new Error("asyncLocalStorage.enterWith() is not implemented"); }
      disable() {}
      static bind(fn) { const m = ctx.get(); return (...a) => ctx.run(m, () => fn(...a)); }
      static snapshot() { const m = ctx.get(); return (fn, ...a) => ctx.run(m, () => fn(...a)); }
    }
    class AsyncResource {
      constructor(type) { this.type = type; this._ctx = ctx.get(); }
      runInAsyncScope(fn, thisArg, ...args) { return ctx.run(this._ctx, () => Reflect.apply(fn, thisArg, args)); }
      bind(fn) { return (...a) => this.runInAsyncScope(fn, undefined, ...a); }
      static bind(fn, type) { return new AsyncResource(type).bind(fn); }
      emitDestroy() { return this; }
      asyncId() { return 0; }
      triggerAsyncId() { return 0; }
    }
    // workerd tracks no async ids: its executionAsyncId() and
    // triggerAsyncId() are 0 and createHook() returns a hook that does
    // nothing (src/node/async_hooks.ts).
    const hook = { enable() { return this; }, disable() { return this; } };
    return {
      AsyncLocalStorage, AsyncResource,
      executionAsyncId: () => 0, triggerAsyncId: () => 0,
      executionAsyncResource: () => Object.create(null),
      createHook: () => Object.create(hook),
    };
  };

  // ---- diagnostics_channel ----
  defs.diagnostics_channel = () => {
    const channels = new Map();
    class Channel {
      constructor(name) { this.name = name; this._subs = []; }
      get hasSubscribers() { return this._subs.length > 0; }
      subscribe(fn) { this._subs.push(fn); }
      unsubscribe(fn) { const i = this._subs.indexOf(fn); if (i < 0) return false; this._subs.splice(i, 1); return true; }
      publish(msg) { for (const fn of this._subs.slice()) fn(msg, this.name); }
      bindStore() {}
      unbindStore() {}
      runStores(data, fn, thisArg, ...args) { this.publish(data); return Reflect.apply(fn, thisArg, args); }
    }
    const channel = (name) => { let c = channels.get(name); if (!c) channels.set(name, (c = new Channel(name))); return c; };
    function tracingChannel(nameOrChannels) {
      const ch = typeof nameOrChannels === "string" ? Object.fromEntries(["start", "end", "asyncStart", "asyncEnd", "error"].map((k) => [k, channel(`tracing:${nameOrChannels}:${k}`)])) : nameOrChannels;
      return {
        ...ch,
        get hasSubscribers() { return Object.values(ch).some((c) => c.hasSubscribers); },
        subscribe(h) { for (const k in h) ch[k].subscribe(h[k]); },
        unsubscribe(h) { for (const k in h) ch[k].unsubscribe(h[k]); },
        traceSync(fn, ctx = {}, thisArg, ...args) { ch.start.publish(ctx); try { const r = Reflect.apply(fn, thisArg, args); ctx.result = r; return r; } catch (e) { ctx.error = e; ch.error.publish(ctx); throw e; } finally { ch.end.publish(ctx); } },
        tracePromise(fn, ctx = {}, thisArg, ...args) { ch.start.publish(ctx); try { return Promise.resolve(Reflect.apply(fn, thisArg, args)).then((r) => { ctx.result = r; ch.asyncEnd.publish(ctx); return r; }, (e) => { ctx.error = e; ch.error.publish(ctx); ch.asyncEnd.publish(ctx); throw e; }); } finally { ch.end.publish(ctx); } },
      };
    }
    return {
      channel, tracingChannel, Channel,
      hasSubscribers: (name) => channels.has(name) && channels.get(name).hasSubscribers,
      subscribe: (name, fn) => channel(name).subscribe(fn),
      unsubscribe: (name, fn) => channel(name).unsubscribe(fn),
    };
  };

  // ---- os (workerd: a fixed, empty machine) ----
  defs.os = () => ({
    EOL: "\n", arch: () => "x64", platform: () => "linux", type: () => "Linux", release: () => "", version: () => "",
    machine: () => "x86_64", hostname: () => "localhost", homedir: () => "/", tmpdir: () => "/tmp", endianness: () => "LE",
    cpus: () => [], totalmem: () => 0, freemem: () => 0, uptime: () => 0, loadavg: () => [0, 0, 0], networkInterfaces: () => ({}),
    availableParallelism: () => 1, userInfo: () => ({ uid: -1, gid: -1, username: "", homedir: "/", shell: null }),
    constants: { signals: {}, errno: {}, priority: {} }, devNull: "/dev/null",
  });

  // ---- timers ----
  defs.timers = () => ({ setTimeout, clearTimeout, setInterval, clearInterval, setImmediate: native.setImmediate, clearImmediate: native.clearImmediate });
  defs["timers/promises"] = () => ({
    setTimeout: (ms, value) => new Promise((r) => setTimeout(() => r(value), ms)),
    setImmediate: (value) => new Promise((r) => native.setImmediate(() => r(value))),
    scheduler: { wait: (ms) => new Promise((r) => setTimeout(r, ms)), yield: () => new Promise((r) => native.setImmediate(r)) },
  });


  // ---- stream: Node's own streams (readable-stream, vendored) ----
  defs.stream = () => {
    const rs = require("_stream");
    // node:stream's export is the legacy Stream class carrying the rest.
    const Stream = rs.Stream;
    // Node 22's default (workerd's node:stream follows it), not 16 KiB.
    if (rs.setDefaultHighWaterMark) rs.setDefaultHighWaterMark(false, 65536);
    for (const k of Object.getOwnPropertyNames(rs)) {
      if (Stream[k] === rs[k] || k === "prototype" || k === "length" || k === "name") continue;
      Object.defineProperty(Stream, k, { value: rs[k], writable: true, configurable: true, enumerable: true });
    }
    // duplexPair (Node 22.6) is newer than readable-stream 4.8: two
    // Duplexes, each writing into the other's readable side; a write's
    // callback waits until the other side is read from.
    if (!Stream.duplexPair) {
      const other = Symbol("otherSide"), pending = Symbol("pendingCallback");
      class DuplexSide extends rs.Duplex {
        _read() { const cb = this[pending]; if (cb) { this[pending] = null; cb(); } }
        _write(chunk, encoding, cb) {
          if (chunk.length === 0) return queueMicrotask(cb);
          this[other].push(chunk);
          this[other][pending] = cb;
        }
        _final(cb) { this[other].on("end", cb); this[other].push(null); }
      }
      const duplexPair = function duplexPair(options) {
        const a = new DuplexSide(options), b = new DuplexSide(options);
        a[other] = b;
        b[other] = a;
        return [a, b];
      };
      Object.defineProperty(Stream, "duplexPair", { value: duplexPair, writable: true, configurable: true, enumerable: true });
    }
    return Stream;
  };
  defs["stream/promises"] = () => require("stream").promises;
  // Node's legacy module names for the stream classes: each exports the
  // class itself, which also names itself (workerd's ESM modules export it
  // by name: `(await import("node:_stream_readable")).Readable`).
  for (const [mod, cls] of [["_stream_readable", "Readable"], ["_stream_writable", "Writable"], ["_stream_duplex", "Duplex"], ["_stream_transform", "Transform"], ["_stream_passthrough", "PassThrough"]]) {
    defs[mod] = () => {
      const C = require("stream")[cls];
      if (!Object.prototype.hasOwnProperty.call(C, cls)) Object.defineProperty(C, cls, { value: C, writable: true, configurable: true });
      return C;
    };
  }
  defs["stream/web"] = () => {
    const names = ["ReadableStream", "ReadableStreamDefaultReader", "ReadableStreamBYOBReader", "ReadableStreamBYOBRequest", "ReadableByteStreamController", "ReadableStreamDefaultController", "TransformStream", "TransformStreamDefaultController", "WritableStream", "WritableStreamDefaultWriter", "WritableStreamDefaultController", "ByteLengthQueuingStrategy", "CountQueuingStrategy", "TextEncoderStream", "TextDecoderStream", "CompressionStream", "DecompressionStream"];
    const out = {};
    for (const n of names) if (globalThis[n] !== undefined) out[n] = globalThis[n];
    return out;
  };
  defs["stream/consumers"] = () => {
    const { Buffer } = require("buffer");
    // No for-await here: goja lacks it (bundles get it lowered by esbuild).
    const chunks = async (stream) => {
      const out = [];
      const it = stream[Symbol.asyncIterator]();
      for (;;) {
        const { value: c, done } = await it.next();
        if (done) break;
        out.push(typeof c === "string" ? Buffer.from(c) : c instanceof Uint8Array ? c : Buffer.from(c));
      }
      return Buffer.concat(out);
    };
    return {
      buffer: chunks,
      arrayBuffer: async (s) => { const b = await chunks(s); return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); },
      text: async (s) => new TextDecoder().decode(await chunks(s)),
      json: async (s) => JSON.parse(new TextDecoder().decode(await chunks(s))),
      blob: async (s) => new Blob([await chunks(s)]),
    };
  };

  // ---- zlib: Go's compress packages (and brotli) behind Node's API ----
  defs.zlib = () => {
    const { Transform } = require("stream");
    const { Buffer } = require("buffer");
    const z = native.zlib;
    const constants = Object.freeze(JSON.parse(z.constants));
    const toInput = (v) => (typeof v === "string" ? Buffer.from(v) : v instanceof ArrayBuffer ? new Uint8Array(v) : v);
    const engineOptions = (mode, opts = {}) => {
      const o = { level: opts.level, maxOutputLength: opts.maxOutputLength };
      if (mode.startsWith("brotli") && opts.params) {
        const q = opts.params[constants.BROTLI_PARAM_QUALITY];
        if (q !== undefined) o.quality = q;
      }
      if (mode.startsWith("zstd") && opts.params) {
        const l = opts.params[constants.ZSTD_c_compressionLevel];
        if (l !== undefined) o.zstdLevel = l;
      }
      return o;
    };
    class ZlibBase extends Transform {
      constructor(mode, opts) {
        super(opts);
        this._mode = mode;
        this._engine = z.engine(mode, engineOptions(mode, opts));
        this.bytesWritten = 0;
      }
      _transform(chunk, enc, cb) {
        let out;
        try {
          const input = typeof chunk === "string" ? Buffer.from(chunk, enc) : chunk;
          this.bytesWritten += input.length;
          out = this._engine.write(input);
        } catch (e) { return cb(e); }
        if (out.length) this.push(out);
        cb();
      }
      _flush(cb) {
        let out;
        try { out = this._engine.end(); } catch (e) { return cb(e); }
        if (out.length) this.push(out);
        cb();
      }
      flush(kind, cb) {
        if (typeof kind === "function") { cb = kind; }
        try { const out = this._engine.flush(); if (out.length) this.push(out); } catch (e) { this.destroy(e); }
        if (cb) native.setImmediate(cb);
      }
      params(level, strategy, cb) { if (cb) native.setImmediate(cb); }
      reset() { this._engine = z.engine(this._mode, engineOptions(this._mode, {})); }
      close(cb) { if (cb) this.once("close", cb); this.destroy(); }
    }
    const exp = { constants, crc32: (data, value) => z.crc32(data, value) };
    const kinds = { Deflate: "deflate", Inflate: "inflate", Gzip: "gzip", Gunzip: "gunzip", DeflateRaw: "deflateRaw", InflateRaw: "inflateRaw", Unzip: "unzip", BrotliCompress: "brotliCompress", BrotliDecompress: "brotliDecompress", ZstdCompress: "zstdCompress", ZstdDecompress: "zstdDecompress" };
    for (const [cls, mode] of Object.entries(kinds)) {
      const C = { [cls]: class extends ZlibBase { constructor(opts) { super(mode, opts); } } }[cls];
      exp[cls] = C;
      exp["create" + cls] = (opts) => new C(opts);
      // { info: true }: Node answers the buffer and the engine that made it.
      exp[mode + "Sync"] = (buf, opts) => {
        const out = z.process(mode, toInput(buf), engineOptions(mode, opts));
        return opts && opts.info ? { buffer: out, engine: new C(opts) } : out;
      };
      exp[mode] = (buf, opts, cb) => {
        if (typeof opts === "function") { cb = opts; opts = {}; }
        if (typeof cb !== "function") throw Object.assign(new TypeError(`The "callback" argument must be of type function. Received ${cb === undefined ? "undefined" : typeof cb}`), { code: "ERR_INVALID_ARG_TYPE" });
        let out, err = null;
        try { out = z.process(mode, toInput(buf), engineOptions(mode, opts)); } catch (e) { err = e; }
        native.setImmediate(() => (err ? cb(err) : cb(null, out)));
      };
    }
    exp.codes = Object.freeze({ Z_OK: 0, Z_STREAM_END: 1, Z_NEED_DICT: 2, Z_ERRNO: -1, Z_STREAM_ERROR: -2, Z_DATA_ERROR: -3, Z_MEM_ERROR: -4, Z_BUF_ERROR: -5, Z_VERSION_ERROR: -6, "0": "Z_OK", "1": "Z_STREAM_END", "2": "Z_NEED_DICT", "-1": "Z_ERRNO", "-2": "Z_STREAM_ERROR", "-3": "Z_DATA_ERROR", "-4": "Z_MEM_ERROR", "-5": "Z_BUF_ERROR", "-6": "Z_VERSION_ERROR" });
    for (const k of Object.keys(constants)) if (k.startsWith("Z_") && !(k in exp)) exp[k] = constants[k];
    return exp;
  };


  // ---- fs: workerd's virtual file system ----
  // /bundle (the worker's modules, read-only), /tmp (writable: a worker
  // request's own while it runs, an object's for its instance), /dev/null,
  // /dev/zero, /dev/random, /dev/full. Errors carry workerd's code,
  // syscall, path and message.
  defs.fs = () => {
    const { Buffer } = require("buffer");
    const pathMod = require("path");
    const trees = new Map(); // scope -> /tmp directory node
    // Each node is a directory (children), a file (data), a symbolic link
    // (link: its target as written) or a device (dev); a hard link is the
    // same node under two names (nlink counts them).
    let nextIno = 1;
    const stamp = (n) => { const t = Date.now(); n.atime = n.mtime = n.ctime = n.birthtime = t; n.ino = nextIno++; n.nlink = 1; return n; };
    const dir = (perm = 0o777) => stamp({ dir: true, children: new Map(), perm });
    const file = (data) => stamp({ dir: false, data, perm: 0o666 });
    const bundleDir = { dir: true, children: new Map(), atime: 0, mtime: 0, ctime: 0, birthtime: 0, readonly: true, perm: 0o555, ino: nextIno++, nlink: 1 };
    for (const name of native.fsBundleFiles) bundleDir.children.set(name, { dir: false, data: new Uint8Array(0), atime: 0, mtime: 0, ctime: 0, birthtime: 0, readonly: true, perm: 0o444, ino: nextIno++, nlink: 1 });
    const devDir = { dir: true, children: new Map(), atime: 0, mtime: 0, ctime: 0, birthtime: 0, readonly: true, perm: 0o555, ino: nextIno++, nlink: 1 };
    for (const name of ["null", "zero", "full", "random"]) devDir.children.set(name, { dir: false, dev: name, data: new Uint8Array(0), atime: 0, mtime: 0, ctime: 0, birthtime: 0, perm: 0o666, ino: nextIno++, nlink: 1 });
    const rootDir = { dir: true, readonly: true, perm: 0o555, atime: 0, mtime: 0, ctime: 0, birthtime: 0, ino: nextIno++, nlink: 1 };
    function tmp() {
      const scope = native.fsScope();
      let t = trees.get(scope);
      if (!t) {
        if (scope.startsWith("worker:")) for (const k of trees.keys()) if (k.startsWith("worker:")) trees.delete(k);
        trees.set(scope, (t = dir()));
      }
      return t;
    }
    // libuv's errno numbers, as Node's errors carry them.
    const errnos = { EPERM: -1, ENOENT: -2, EBADF: -9, EACCES: -13, EEXIST: -17, ENOTDIR: -20, EISDIR: -21, EINVAL: -22, ENOTEMPTY: -39, ELOOP: -40 };
    const fsError = (code, syscall, message, p) => {
      const e = new Error(message);
      e.errno = errnos[code];
      e.code = code;
      e.syscall = syscall;
      if (p !== undefined) e.path = p;
      return e;
    };
    const enoent = (syscall, p) => fsError("ENOENT", syscall, `no such file or directory, ${syscall} '${p}'`, p);
    // workerd's texts (testjs/cases/node-fs, recorded on workerd): no path
    // in EPERM and EISDIR.
    const eperm = (syscall) => fsError("EPERM", syscall, "operation not permitted");
    const eisdir = (syscall) => fsError("EISDIR", syscall, "illegal operation on a directory");
    const enotdir = (syscall, p) => fsError("ENOTDIR", syscall, `not a directory, ${syscall} '${p}'`, p);
    const eexist = (syscall, p) => fsError("EEXIST", syscall, `file already exists, ${syscall} '${p}'`, p);
    const received = (v) => v === null ? "null" : v === undefined ? "undefined" : typeof v === "function" ? `function ${v.name}` : typeof v === "object" ? (v.constructor && v.constructor.name ? `an instance of ${v.constructor.name}` : "an object") : `type ${typeof v} (${typeof v === "string" ? `'${v}'` : String(v)}${typeof v === "bigint" ? "n" : ""})`;
    const argType = (name, want, v) => Object.assign(new TypeError(`The "${name}" ${name.includes(".") ? "property" : "argument"} must be ${want}. Received ${received(v)}`), { code: "ERR_INVALID_ARG_TYPE" });
    const outOfRange = (name, want, v) => Object.assign(new RangeError(`The value of "${name}" is out of range. It must be ${want}. Received ${v}`), { code: "ERR_OUT_OF_RANGE" });
    const pathOf = (p, name = "path") => {
      if (p instanceof URL) {
        if (p.protocol !== "file:") throw Object.assign(new TypeError("The URL must be of scheme file"), { code: "ERR_INVALID_URL_SCHEME" });
        p = decodeURIComponent(p.pathname);
      } else if (p instanceof Uint8Array) p = new TextDecoder().decode(p);
      if (typeof p !== "string") throw argType(name, "of type string or an instance of Buffer or URL", p);
      return pathMod.resolve("/bundle", p);
    };
    const parts = (abs) => abs.split("/").filter(Boolean);
    function top() {
      rootDir.children = new Map([["bundle", bundleDir], ["tmp", tmp()], ["dev", devDir]]);
      return rootDir;
    }
    // walk finds abs, following symbolic links on the way and, with
    // follow, the last one too: the node (undefined when missing), its
    // parent directory and name, and the path with the links resolved.
    function walk(abs, follow = true, syscall = "open") {
      let hops = 0;
      for (;;) {
        const ps = parts(abs);
        let node = top(), parent = null, real = "";
        let again = null;
        for (let i = 0; i < ps.length; i++) {
          if (!node) return { node: undefined, parent: undefined, name: ps[ps.length - 1], real: abs };
          if (!node.dir) return { node: undefined, parent: undefined, name: ps[ps.length - 1], real: abs, notDir: true };
          parent = node;
          node = node.children.get(ps[i]);
          if (node && node.link !== undefined && (i < ps.length - 1 || follow)) {
            if (++hops > 40) throw fsError("ELOOP", syscall, `too many symbolic links encountered, ${syscall} '${abs}'`, abs);
            const target = pathMod.resolve(real || "/", node.link);
            const rest = ps.slice(i + 1).join("/");
            again = rest ? target + "/" + rest : target;
            break;
          }
          real += "/" + ps[i];
        }
        if (again !== null) { abs = again; continue; }
        return { node, parent, name: ps[ps.length - 1], real: real || "/" };
      }
    }
    const exists = (abs, follow) => { try { return !!walk(abs, follow).node; } catch { return false; } };
    const writable = (real) => real.startsWith("/tmp/");
    function readAll(p, syscall = "readAll") {
      const abs = pathOf(p);
      const { node } = walk(abs, true, syscall);
      if (!node) throw enoent(syscall, abs);
      if (node.dir) throw eisdir(syscall);
      if (node.dev === "zero" || node.dev === "random") return new Uint8Array(0);
      node.atime = Date.now();
      return node.data;
    }
    function writeAll(p, data, append, syscall = "writeAll") {
      const abs = pathOf(p);
      const { node, parent, name, real, notDir } = walk(abs, true, syscall);
      if (node && node.dev) return;
      if (!writable(real)) throw eperm(syscall);
      if (node && node.dir) throw eisdir(syscall);
      if (!parent || notDir) throw (notDir ? enotdir(syscall, abs) : enoent(syscall, abs));
      const bytes = toBytes(data);
      if (node) {
        // The node itself changes, so that every hard link sees it.
        if (append) {
          const merged = new Uint8Array(node.data.length + bytes.length);
          merged.set(node.data); merged.set(bytes, node.data.length);
          node.data = merged;
        } else {
          // A copy: Buffer's slice() is a view, and the file must not
          // change with the caller's buffer (Node and workerd copy).
          node.data = new Uint8Array(bytes);
        }
        node.mtime = node.ctime = Date.now();
      } else {
        parent.children.set(name, file(new Uint8Array(bytes)));
        parent.mtime = Date.now();
      }
    }
    function toBytes(data, enc) {
      if (typeof data === "string") return Buffer.from(data, enc);
      if (data instanceof Uint8Array) return data;
      if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (data instanceof ArrayBuffer) return new Uint8Array(data);
      throw argType("data", "of type string or an instance of Buffer, TypedArray, or DataView", data);
    }
    const encodingOf = (o) => (typeof o === "string" ? o : o && o.encoding) || null;
    const out = (bytes, o) => { const enc = encodingOf(o); const b = Buffer.from(bytes); return enc && enc !== "buffer" ? b.toString(enc) : b; };
    const kindBits = (n) => n.dir ? 0o40000 : n.link !== undefined ? 0o120000 : n.dev ? 0o20000 : 0o100000;
    // workerd's modes: read for all, write where writable, never execute;
    // a link reads as 0o444. ino, blksize and blocks are 0, a device's dev 1.
    const permOf = (n) => n.link !== undefined || n.readonly ? 0o444 : 0o666;
    class Stats {
      constructor(node, bigint) {
        const ms = { atimeMs: node.atime || 0, mtimeMs: node.mtime || 0, ctimeMs: node.ctime || 0, birthtimeMs: node.birthtime || 0 };
        const size = node.dir ? 0 : node.link !== undefined ? node.link.length : node.data.length;
        const vals = { dev: node.dev ? 1 : 0, mode: kindBits(node) | permOf(node), nlink: node.nlink || 1, uid: 0, gid: 0, rdev: 0, blksize: 0, ino: 0,
          size, blocks: 0 };
        if (bigint) {
          for (const k of Object.keys(vals)) this[k] = BigInt(vals[k]);
          for (const [k, v] of Object.entries(ms)) { this[k] = BigInt(Math.floor(v)); this[k.replace("Ms", "Ns")] = BigInt(Math.floor(v)) * 1000000n; }
        } else {
          Object.assign(this, vals, ms);
        }
        for (const k of ["atime", "mtime", "ctime", "birthtime"]) this[k] = new Date(ms[k + "Ms"]);
        Object.defineProperty(this, "_kind", { value: kindBits(node) });
      }
      isFile() { return this._kind === 0o100000; }
      isDirectory() { return this._kind === 0o40000; }
      isSymbolicLink() { return this._kind === 0o120000; }
      isCharacterDevice() { return this._kind === 0o20000; }
      isBlockDevice() { return false; }
      isFIFO() { return false; }
      isSocket() { return false; }
    }
    class Dirent {
      constructor(name, node, parentPath) { this.name = name; this.parentPath = parentPath; this.path = parentPath; Object.defineProperty(this, "_kind", { value: kindBits(node) }); }
    }
    for (const m of ["isFile", "isDirectory", "isSymbolicLink", "isCharacterDevice", "isBlockDevice", "isFIFO", "isSocket"]) Dirent.prototype[m] = Stats.prototype[m];
    // statfs: a plain object of zeros, as workerd answers.
    const statfsOf = (bigint) => { const v = { type: 0, bsize: 0, blocks: 0, bfree: 0, bavail: 0, files: 0, ffree: 0 }; if (bigint) for (const k of Object.keys(v)) v[k] = BigInt(v[k]); return v; };
    const optBool = (o, k, name) => { if (o && o[k] !== undefined && typeof o[k] !== "boolean") throw argType(`${name}.${k}`, "of type boolean", o[k]); return !!(o && o[k]); };
    function modeArg(mode, name = "mode", dflt = 0) {
      if (mode === undefined || mode === null) return dflt;
      if (typeof mode === "string" && /^[0-7]+$/.test(mode)) return parseInt(mode, 8);
      if (typeof mode !== "number") throw argType(name, "of type number", mode);
      if (!Number.isInteger(mode)) throw outOfRange(name, "an integer", mode);
      return mode;
    }
    function statOpts(o) {
      if (o === undefined || o === null) return false;
      if (typeof o !== "object") throw argType("options", "of type object", o);
      return optBool(o, "bigint", "options");
    }
    function statOf(p, follow, o, syscall) {
      statOpts(o);
      const abs = pathOf(p);
      const { node } = walk(abs, follow, syscall);
      if (!node) { if (o && o.throwIfNoEntry === false) return undefined; throw enoent(syscall, abs); }
      return new Stats(node, o && o.bigint);
    }
    function mkdirp(abs) { // the directories up to abs, in /tmp
      const ps = parts(abs);
      let cur = "";
      for (const p of ps) {
        cur += "/" + p;
        const { node, parent, name, real } = walk(cur, true, "mkdir");
        if (node) { if (!node.dir) throw enotdir("mkdir", cur); continue; }
        if (!parent) throw enoent("mkdir", cur);
        if (!writable(real)) throw eperm("mkdir", cur);
        parent.children.set(name, dir());
      }
    }
    function touch(p, atime, mtime, follow, syscall) {
      const abs = pathOf(p);
      const { node } = walk(abs, follow, syscall);
      if (!node) throw enoent(syscall, abs);
      const t = (v, n) => { if (v instanceof Date) return +v; if (typeof v === "string" && v !== "" && !isNaN(+v)) return +v * 1000; if (typeof v === "number" || typeof v === "bigint") return Number(v) * 1000; throw argType(n, "of type number or an instance of Date", v); };
      node.atime = t(atime, "atime"); node.mtime = t(mtime, "mtime"); node.ctime = Date.now();
    }
    function chmod(p, mode, follow, syscall) {
      const m = modeArg(mode);
      const abs = pathOf(p);
      const { node, real } = walk(abs, follow, syscall);
      if (!node) throw enoent(syscall, abs);
      if (m < 0 || m > 0o7777) throw outOfRange("mode", ">= 0 && <= 4095", m);
      // workerd keeps no modes: a valid chmod changes nothing.
    }
    const idArg = (v, name) => { if (typeof v !== "number") throw argType(name, "of type number", v); if (!Number.isInteger(v) || v < -1 || v > 4294967295) throw outOfRange(name, ">= -1 && <= 4294967295", v); };
    function chown(p, uid, gid, follow, syscall) {
      idArg(uid, "uid"); idArg(gid, "gid");
      const abs = pathOf(p);
      if (!walk(abs, follow, syscall).node) throw enoent(syscall, abs);
    }
    // cp: Node's fs.cp, as workerd gives it (no filter function).
    function cpOptions(o) {
      if (o === undefined || o === null) o = {};
      if (typeof o !== "object") throw argType("options", "of type object", o);
      const r = {};
      for (const k of ["dereference", "errorOnExist", "force", "preserveTimestamps", "recursive", "verbatimSymlinks"]) r[k] = optBool(o, k, "options");
      if (o.force === undefined) r.force = true;
      if (o.filter !== undefined) {
        if (typeof o.filter !== "function") throw argType("options.filter", "of type function", o.filter);
        throw Object.assign(new Error("The filter option is not supported"), { code: "ERR_UNSUPPORTED_OPERATION" });
      }
      const mode = modeArg(o.mode, "options.mode");
      if (mode & 4) throw Object.assign(new TypeError(`The property 'options.mode' is invalid. Received ${mode}`), { code: "ERR_INVALID_ARG_VALUE" }); // COPYFILE_FICLONE_FORCE
      return r;
    }
    const cpError = (code, title, errno, detail, p) => {
      const e = new Error(`${title}: cp returned ${errno} (${detail}) ${p}`);
      return Object.assign(e, { code, errno: errnos[errno], syscall: "cp", path: p });
    };
    function cp(src, dest, o) {
      const s = pathOf(src, "src"), d = pathOf(dest, "dest");
      const sn = walk(s, o.dereference, "cp").node;
      if (!sn) throw enoent("cp", s);
      if (sn.dir) {
        if (!o.recursive) throw cpError("ERR_FS_EISDIR", "Recursive option is required to copy a directory", "EISDIR", `${s} is a directory (not copied)`, s);
        if (d === s || d.startsWith(s === "/" ? "/" : s + "/")) throw cpError("ERR_FS_CP_EINVAL", "Invalid src or dest", "EINVAL", `cannot copy ${s} to a subdirectory of self ${d}`, d);
      }
      copyEntry(s, sn, d, o);
    }
    function copyEntry(s, sn, d, o) {
      const dl = walk(d, false, "cp");
      let dn = dl.node;
      if (dn && dn.link !== undefined && o.dereference) dn = walk(d, true, "cp").node;
      if (sn.dir) {
        if (dn && !dn.dir) throw cpError("ERR_FS_CP_DIR_TO_NON_DIR", "Cannot overwrite non-directory with directory", "EISDIR", `cannot overwrite non-directory ${d} with directory ${s}`, d);
        if (!dn) mkdirp(d);
        const dnode = walk(d, true, "cp").node;
        for (const name of [...sn.children.keys()].sort()) {
          let child = sn.children.get(name);
          if (child.link !== undefined && o.dereference) {
            child = walk(s + "/" + name, true, "cp").node;
            if (!child) throw enoent("cp", s + "/" + name);
          }
          copyEntry(s + "/" + name, child, d + "/" + name, o);
        }
        if (o.preserveTimestamps) { dnode.atime = sn.atime; dnode.mtime = sn.mtime; }
        return;
      }
      if (dn) {
        if (sn.link !== undefined && dl.node.dir) throw fsError("ENOTDIR", "cp", `cannot overwrite directory ${d} with non-directory ${s}`, d);
        if (sn.link === undefined && dn.dir) throw cpError("ERR_FS_CP_NON_DIR_TO_DIR", "Cannot overwrite directory with non-directory", "EISDIR", `cannot overwrite directory ${d} with non-directory ${s}`, d);
        if (!o.force) {
          if (o.errorOnExist) throw cpError("ERR_FS_CP_EEXIST", "Target already exists", "EEXIST", `${d} already exists`, d);
          return;
        }
      }
      mkdirp(pathMod.dirname(d));
      const at = walk(d, false, "cp");
      if (!writable(at.real)) throw eperm("cp", d);
      if (sn.link !== undefined) {
        const target = o.verbatimSymlinks || pathMod.isAbsolute(sn.link) ? sn.link : pathMod.resolve(pathMod.dirname(s), sn.link);
        at.parent.children.set(at.name, stamp({ dir: false, link: target }));
        return;
      }
      if (at.node && at.node.link !== undefined && !o.dereference) at.parent.children.delete(at.name);
      writeAll(d, sn.dev ? new Uint8Array(0) : sn.data, false, "cp");
      if (o.preserveTimestamps) { const n = walk(d, true, "cp").node; n.atime = sn.atime; n.mtime = sn.mtime; }
    }
    function remove(p, o, syscall) {
      if (o !== undefined && o !== null && typeof o !== "object") throw argType("options", "of type object", o);
      if (o) { optBool(o, "recursive", "options"); optBool(o, "force", "options"); }
      const abs = pathOf(p);
      const { node, parent, name, real } = walk(abs, false, syscall);
      if (!node) { if (o && o.force) return; throw enoent(syscall, abs); }
      if (!writable(real)) throw eperm(syscall, abs);
      if (node.dir && node.children.size > 0 && !(o && o.recursive)) throw fsError("ENOTEMPTY", "rm", `directory not empty, rm '${name}'`, name);
      parent.children.delete(name);
      node.nlink = Math.max(0, (node.nlink || 1) - 1);
      parent.mtime = Date.now();
    }
    class Dir {
      constructor(abs, entries) { this.path = abs; Object.defineProperty(this, "_q", { value: entries, writable: true }); Object.defineProperty(this, "_closed", { value: false, writable: true }); }
      _check() { if (this._closed) throw Object.assign(new Error("Directory handle was closed"), { code: "ERR_DIR_CLOSED" }); }
      readSync() { this._check(); return this._q.shift() || null; }
      read(cb) { let r, e = null; try { r = this.readSync(); } catch (err) { e = err; } if (typeof cb === "function") { native.setImmediate(() => (e ? cb(e) : cb(null, r))); return; } return e ? Promise.reject(e) : Promise.resolve(r); }
      closeSync() { this._check(); this._closed = true; }
      close(cb) { let e = null; try { this.closeSync(); } catch (err) { e = err; } if (typeof cb === "function") { native.setImmediate(() => cb(e)); return; } return e ? Promise.reject(e) : Promise.resolve(); }
      // An async iterator by hand: goja compiles no async generator.
      entries() {
        const dir = this;
        return { next: async () => { const d = dir.readSync(); if (d === null) { dir._closed = true; return { value: undefined, done: true }; } return { value: d, done: false }; },
          return: async () => { dir._closed = true; return { value: undefined, done: true }; }, [Symbol.asyncIterator]() { return this; } };
      }
      [Symbol.asyncIterator]() { return this.entries(); }
    }
    function readdir(p, o) {
      const abs = pathOf(p);
      const { node } = walk(abs, true, "readdir");
      if (!node) throw enoent("readdir", abs);
      if (!node.dir) throw enotdir("readdir", abs);
      if (o !== undefined && o !== null && typeof o !== "object" && typeof o !== "string") throw argType("options", "of type object", o);
      if (o && typeof o === "object") { optBool(o, "withFileTypes", "options"); optBool(o, "recursive", "options"); }
      const names = [...node.children.keys()];
      if (o && o.recursive) {
        const all = [];
        const visit = (n, rel, at) => {
          for (const name of n.children.keys()) {
            const c = n.children.get(name);
            const r = rel ? rel + "/" + name : name;
            all.push(o.withFileTypes ? new Dirent(name, c, at) : r);
            if (c.dir) visit(c, r, at + "/" + name);
          }
        };
        visit(node, "", abs);
        return all;
      }
      if (o && o.withFileTypes) return names.map((n) => new Dirent(n, node.children.get(n), abs));
      return encodingOf(o) === "buffer" ? names.map((n) => Buffer.from(n)) : names;
    }
    const sync = {
      existsSync(p) { try { return exists(pathOf(p), true); } catch { return false; } },
      accessSync(p, mode) {
        const m = mode === undefined ? 0 : mode;
        if (typeof m !== "number") throw argType("mode", "of type number", m);
        if (!Number.isInteger(m) || m < 0 || m > 7) throw outOfRange("mode", "an integer >= 0 && <= 7", m);
        const abs = pathOf(p);
        const { node, real } = walk(abs, true, "access");
        // workerd answers ENOENT for a permission it does not give: nothing
        // is executable, only /tmp and the devices are writable.
        if (!node || (m & 1) || ((m & 2) && !(real === "/tmp" || writable(real) || node.dev))) throw enoent("access", abs);
      },
      readFileSync(p, o) { return out(readAll(p), o); },
      writeFileSync(p, data, o) { writeAll(p, typeof data === "string" ? Buffer.from(data, encodingOf(o) || "utf8") : data, !!(o && typeof o === "object" && typeof o.flag === "string" && o.flag.startsWith("a"))); },
      appendFileSync(p, data, o) { writeAll(p, typeof data === "string" ? Buffer.from(data, encodingOf(o) || "utf8") : data, true); },
      statSync(p, o) { return statOf(p, true, o, "stat"); },
      lstatSync(p, o) { return statOf(p, false, o, "lstat"); },
      statfsSync(p, o) { const bigint = statOpts(o); const abs = pathOf(p); if (!walk(abs, true, "statfs").node) throw enoent("statfs", abs); return statfsOf(bigint); },
      readdirSync(p, o) { return readdir(p, o); },
      opendirSync(p, o) {
        if (o !== undefined && o !== null && typeof o !== "object") throw argType("options", "of type object", o);
        if (o && o.encoding !== undefined && o.encoding !== null && !Buffer.isEncoding(o.encoding)) throw Object.assign(new TypeError(`The argument 'encoding' is invalid encoding. Received ${o.encoding}`), { code: "ERR_INVALID_ARG_VALUE" });
        const abs = pathOf(p);
        const { node } = walk(abs, true, "opendir");
        if (!node) throw enoent("opendir", abs);
        if (!node.dir) throw enotdir("opendir", abs);
        // A recursive Dir names each entry by its path under abs (workerd).
        const entries = [];
        const visit = (n, rel) => {
          for (const [name, c] of n.children) {
            entries.push(new Dirent(rel + name, c, abs));
            if (o && o.recursive && c.dir) visit(c, rel + name + "/");
          }
        };
        visit(node, "");
        return new Dir(abs, entries);
      },
      mkdirSync(p, o) {
        const abs = pathOf(p);
        const recursive = optBool(o && typeof o === "object" ? o : undefined, "recursive", "options");
        const { node, parent, name, real, notDir } = walk(abs, true, "mkdir");
        if (node) { if (node.dir) return undefined; throw eexist("mkdir", abs); } // workerd: an existing directory is no error
        if (!recursive) {
          if (!parent) throw (notDir ? enotdir("mkdir", abs) : enoent("mkdir", abs));
          if (!writable(real)) throw eperm("mkdir", abs);
          parent.children.set(name, dir(modeArg(o && typeof o === "object" ? o.mode : o, "mode", 0o777) & 0o777));
          parent.mtime = Date.now();
          return undefined;
        }
        let first, cur = "";
        for (const seg of parts(abs)) {
          cur += "/" + seg;
          if (first === undefined && !exists(cur, true)) first = cur;
        }
        mkdirp(abs);
        return first;
      },
      mkdtempSync(prefix, o) {
        if (typeof prefix !== "string" && !(prefix instanceof Uint8Array) && !(prefix instanceof URL)) throw argType("prefix", "of type string or an instance of Buffer or URL", prefix);
        const base = prefix instanceof URL ? decodeURIComponent(prefix.pathname) : String(prefix instanceof Uint8Array ? new TextDecoder().decode(prefix) : prefix);
        let p;
        do { p = base + String(Math.floor(Math.random() * 1e6)).padStart(6, "0"); } while (exists(pathOf(p), false)); // workerd's suffix is digits
        sync.mkdirSync(p);
        return encodingOf(o) === "buffer" ? Buffer.from(p) : p;
      },
      rmSync(p, o) { remove(p, o, "rm"); },
      rmdirSync(p, o) {
        const abs = pathOf(p);
        const { node } = walk(abs, false, "rmdir");
        if (!node) throw enoent("rmdir", abs);
        if (!node.dir) throw enotdir("rmdir", abs);
        remove(p, o, "rmdir");
      },
      unlinkSync(p) {
        const abs = pathOf(p);
        const { node, name } = walk(abs, false, "unlink");
        if (!node) throw fsError("ENOENT", "unlink", "File not found", name);
        if (node.dir) throw eisdir("unlink", abs);
        remove(p, undefined, "unlink");
      },
      renameSync(from, to) {
        const a = pathOf(from, "oldPath"), b = pathOf(to, "newPath");
        const src = walk(a, false, "rename");
        if (!src.node) throw enoent("rename", a);
        const dst = walk(b, false, "rename");
        if (!dst.parent) throw enoent("rename", b);
        if (!writable(src.real) || !writable(dst.real)) throw eperm("rename", a);
        if (src.node.dir && (b === a || b.startsWith(a + "/"))) throw fsError("EINVAL", "rename", `invalid argument, rename '${a}' -> '${b}'`, a);
        if (dst.node && dst.node.dir && !src.node.dir) throw eisdir("rename", b);
        if (dst.node && !dst.node.dir && src.node.dir) throw enotdir("rename", b);
        if (dst.node && dst.node.dir && dst.node.children.size > 0) throw fsError("ENOTEMPTY", "rename", `directory not empty, rename '${a}' -> '${b}'`, a);
        src.parent.children.delete(src.name);
        dst.parent.children.set(dst.name, src.node);
      },
      copyFileSync(from, to, mode) {
        const m = modeArg(mode);
        const b = pathOf(to, "dest");
        if ((m & 1) && exists(b, true)) throw eexist("copyfile", b);
        writeAll(b, readAll(from, "copyfile"), false, "copyfile");
      },
      cpSync(from, to, o) { cp(from, to, cpOptions(o)); },
      truncateSync(p, len = 0) { const b = readAll(p); const n = new Uint8Array(len); n.set(b.subarray(0, len)); writeAll(p, n, false); },
      ftruncateSync(fd, len = 0) { sync.truncateSync(fdOf(fd, "ftruncate").abs, len); },
      realpathSync(p, o) { const abs = pathOf(p); const { node, real } = walk(abs, true, "realpath"); if (!node) throw enoent("realpath", abs); return encodingOf(o) === "buffer" ? Buffer.from(real) : real; },
      symlinkSync(target, p) {
        const t = target instanceof URL ? decodeURIComponent(target.pathname) : target instanceof Uint8Array ? new TextDecoder().decode(target) : target;
        if (typeof t !== "string") throw argType("target", "of type string or an instance of Buffer or URL", target);
        const abs = pathOf(p);
        const { node, parent, name, real } = walk(abs, false, "symlink");
        if (node) throw eexist("symlink", abs);
        if (!parent) throw enoent("symlink", abs);
        if (!writable(real)) throw eperm("symlink", abs);
        parent.children.set(name, stamp({ dir: false, link: t }));
      },
      readlinkSync(p, o) {
        const abs = pathOf(p);
        const { node } = walk(abs, false, "readlink");
        if (!node) throw enoent("readlink", abs);
        if (node.link === undefined) throw fsError("EINVAL", "readlink", `invalid argument, readlink '${abs}'`, abs);
        return encodingOf(o) === "buffer" ? Buffer.from(node.link) : node.link;
      },
      linkSync(existing, p) {
        const a = pathOf(existing, "existingPath"), b = pathOf(p, "newPath");
        const src = walk(a, false, "link");
        if (!src.node) throw enoent("link", a);
        if (src.node.dir) throw eperm("link", a);
        const dst = walk(b, false, "link");
        if (dst.node) throw eexist("link", b);
        if (!dst.parent) throw enoent("link", b);
        if (!writable(dst.real)) throw eperm("link", b);
        dst.parent.children.set(dst.name, src.node);
        src.node.nlink = (src.node.nlink || 1) + 1;
        src.node.ctime = Date.now();
      },
      chmodSync(p, mode) { chmod(p, mode, true, "chmod"); },
      lchmodSync(p, mode) { chmod(p, mode, false, "lchmod"); },
      chownSync(p, uid, gid) { chown(p, uid, gid, true, "chown"); },
      lchownSync(p, uid, gid) { chown(p, uid, gid, false, "lchown"); },
      utimesSync(p, a, m) { touch(p, a, m, true, "utime"); },
      lutimesSync(p, a, m) { touch(p, a, m, false, "lutime"); },
    };
    sync.realpathSync.native = sync.realpathSync;
    // File descriptors: a table of open files, reads and writes at a position.
    const fds = new Map();
    let nextFd = 3;
    function fdOf(fd, syscall) {
      if (typeof fd !== "number") throw argType("fd", "of type number", fd);
      if (!Number.isInteger(fd) || fd < 0 || fd > 2147483647) throw outOfRange("fd", "an integer >= 0 && <= 2147483647", fd);
      const f = fds.get(fd);
      if (!f) throw fsError("EBADF", syscall, `bad file descriptor, ${syscall}`);
      return f;
    }
    Object.assign(sync, {
      openSync(p, flags = "r") {
        const abs = pathOf(p);
        const fl = typeof flags === "number" ? ((flags & 3) === 0 ? "r" : (flags & 1024) ? "a" : (flags & 512) ? "w" : "r+") + ((flags & 128) ? "x" : "") : String(flags);
        const w = /[wa+]/.test(fl);
        if (/x/.test(fl) && exists(abs, true)) throw eexist("open", abs);
        if (w) { if (!exists(abs, true) || /w/.test(fl)) writeAll(abs, new Uint8Array(0), /a/.test(fl)); }
        else {
          const { node } = walk(abs, true, "open");
          if (!node) throw enoent("open", abs); // a directory opens for reading (fstat, fchmod)
        }
        const fd = nextFd++;
        fds.set(fd, { abs, pos: /a/.test(fl) ? readAll(abs).length : 0, append: /a/.test(fl) });
        return fd;
      },
      closeSync(fd) { fdOf(fd, "close"); fds.delete(fd); },
      writeSync(fd, data, a, b, c) {
        const f = fdOf(fd, "write");
        const bytes = typeof data === "string" ? Buffer.from(data, typeof b === "string" ? b : "utf8") : toBytes(data).subarray(a || 0, b === undefined || b === null ? undefined : (a || 0) + b);
        const cur = readAll(f.abs);
        const pos = f.append ? cur.length : typeof (typeof data === "string" ? a : c) === "number" ? (typeof data === "string" ? a : c) : f.pos;
        const next = new Uint8Array(Math.max(cur.length, pos + bytes.length));
        next.set(cur); next.set(bytes, pos);
        writeAll(f.abs, next, false);
        if (!(typeof (typeof data === "string" ? a : c) === "number") || f.append) f.pos = pos + bytes.length;
        return bytes.length;
      },
      readSync(fd, buf, off = 0, len, pos = null) {
        const f = fdOf(fd, "read");
        if (off !== null && typeof off === "object" && !ArrayBuffer.isView(off)) ({ offset: off = 0, length: len, position: pos = null } = off);
        if (len === undefined) len = buf.byteLength - off;
        const view = buf instanceof Uint8Array ? buf : new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
        const cur = readAll(f.abs);
        const at = typeof pos === "number" || typeof pos === "bigint" ? Number(pos) : f.pos;
        const n = Math.max(0, Math.min(len, cur.length - at));
        view.set(cur.subarray(at, at + n), off);
        if (!(typeof pos === "number" || typeof pos === "bigint")) f.pos += n;
        return n;
      },
      fstatSync(fd, o) { const f = fdOf(fd, "fstat"); return statOf(f.abs, true, o, "fstat"); },
      fchmodSync(fd, mode) { chmod(fdOf(fd, "fchmod").abs, mode, true, "fchmod"); },
      fchownSync(fd, uid, gid) { chown(fdOf(fd, "fchown").abs, uid, gid, true, "fchown"); },
      futimesSync(fd, a, m) { touch(fdOf(fd, "futime").abs, a, m, true, "futime"); },
      fsyncSync(fd) { fdOf(fd, "fsync"); }, fdatasyncSync(fd) { fdOf(fd, "fdatasync"); },
    });
    const fs = { ...sync, Stats, Dirent, Dir, constants: { F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1, O_RDONLY: 0, O_WRONLY: 1, O_RDWR: 2, O_CREAT: 64, O_EXCL: 128, O_TRUNC: 512, O_APPEND: 1024, COPYFILE_EXCL: 1, COPYFILE_FICLONE: 2, COPYFILE_FICLONE_FORCE: 4, S_IFMT: 61440, S_IFREG: 32768, S_IFDIR: 16384, S_IFCHR: 8192, S_IFLNK: 40960 }, F_OK: 0, R_OK: 4, W_OK: 2, X_OK: 1 };
    // Callback and promise forms run the synchronous operation. As in
    // Node, a bad argument (ERR_INVALID_ARG_TYPE, ERR_OUT_OF_RANGE, ...)
    // throws at the call in the callback form and rejects in the promise
    // form; what the file system answers goes to the callback.
    const thrownAtCall = (e) => e && typeof e.code === "string" && e.code.startsWith("ERR_") && !e.code.startsWith("ERR_FS_");
    const promises = {};
    for (const name of Object.keys(sync)) {
      if (!name.endsWith("Sync")) continue;
      const base = name.slice(0, -4);
      const f = sync[name];
      if (base === "exists") {
        fs.exists = (p, cb) => { if (typeof cb !== "function") throw argType("cb", "of type function", cb); native.setImmediate(() => cb(f(p))); };
        continue;
      }
      fs[base] = (...args) => {
        const cb = args.pop();
        if (typeof cb !== "function") throw argType("cb", "of type function", cb);
        let r, e = null;
        try { r = f(...args); } catch (err) { if (thrownAtCall(err)) throw err; e = err; }
        native.setImmediate(() => (e ? cb(e) : cb(null, r)));
      };
      promises[base] = async (...args) => f(...args);
    }
    promises.opendir = async (p, o) => sync.opendirSync(p, o);
    // glob: minimatch (Node's own matcher) over a walk of cwd. As workerd's,
    // ** goes into dot directories; a pattern with ".." is not walked.
    function globSync(pattern, o) {
      const patterns = Array.isArray(pattern) ? pattern : [pattern];
      for (const p of patterns) if (typeof p !== "string") throw argType("pattern", "of type string or an instance of Array", p);
      if (o !== undefined && o !== null && typeof o !== "object") throw argType("options", "of type object", o);
      o = o || {};
      if (o.exclude !== undefined && typeof o.exclude !== "function" && !Array.isArray(o.exclude)) throw argType("options.exclude", "of type function or an instance of Array", o.exclude);
      const withTypes = optBool(o, "withFileTypes", "options");
      const { Minimatch } = require("_minimatch");
      const mmOpts = { dot: true, nocomment: true, nonegate: true, windowsPathsNoEscape: true };
      const norm = (p) => p.replace(/\/+/g, "/").replace(/^(\.\/)+/, "");
      const matchers = patterns.map((p) => new Minimatch(norm(p), mmOpts));
      const excludes = Array.isArray(o.exclude) ? o.exclude.map((p) => new Minimatch(norm(p), mmOpts)) : [];
      const cwd = o.cwd === undefined ? "/bundle" : pathOf(o.cwd, "options.cwd");
      const root = walk(cwd, true, "scandir").node;
      const out = [];
      if (!root || !root.dir) return out;
      const excluded = (rel, c, at) => {
        if (typeof o.exclude === "function") return !!o.exclude(withTypes ? new Dirent(rel.split("/").pop(), c, at) : rel);
        return excludes.some((m) => m.match(rel));
      };
      const visit = (n, rel, at) => {
        for (const [name, c] of n.children) {
          const r = rel ? rel + "/" + name : name;
          if (excluded(r, c, at)) continue;
          const d = c.link !== undefined ? undefined : c;
          // "a/**" takes a itself too (Node's glob): a directory is tried as "a/" as well.
          if (matchers.some((m) => m.match(r) || (d && d.dir && m.match(r + "/")))) out.push(withTypes ? new Dirent(name, c, at) : r);
          if (d && d.dir) visit(d, r, at + "/" + name);
        }
      };
      visit(root, "", cwd);
      return out;
    }
    fs.globSync = globSync;
    fs.glob = (pattern, o, cb) => {
      if (typeof o === "function") { cb = o; o = undefined; }
      if (typeof cb !== "function") throw argType("cb", "of type function", cb);
      let r, e = null;
      try { r = globSync(pattern, o); } catch (err) { if (thrownAtCall(err)) throw err; e = err; }
      native.setImmediate(() => (e ? cb(e) : cb(null, r)));
    };
    // fsPromises.glob is an async iterator of the matches, as in Node.
    promises.glob = (pattern, o) => {
      let list;
      const next = async () => {
        if (!list) list = globSync(pattern, o);
        return list.length ? { value: list.shift(), done: false } : { value: undefined, done: true };
      };
      return { next, return: async () => ({ value: undefined, done: true }), [Symbol.asyncIterator]() { return this; } };
    };
    promises.constants = fs.constants;
    fs.promises = promises;
    // writev/readv: the buffers in order, at position (or the fd's own).
    sync.writevSync = fs.writevSync = (fd, buffers, pos = null) => {
      if (!Array.isArray(buffers)) throw argType("buffers", "an instance of ArrayBufferView[]", buffers);
      let n = 0;
      for (const b of buffers) { n += typeof pos === "number" ? sync.writeSync(fd, b, 0, b.byteLength, pos + n) : sync.writeSync(fd, b, 0, b.byteLength); }
      return n;
    };
    sync.readvSync = fs.readvSync = (fd, buffers, pos = null) => {
      if (!Array.isArray(buffers)) throw argType("buffers", "an instance of ArrayBufferView[]", buffers);
      let n = 0;
      for (const b of buffers) {
        const got = sync.readSync(fd, b, 0, b.byteLength, typeof pos === "number" ? pos + n : null);
        n += got;
        if (got < b.byteLength) break;
      }
      return n;
    };
    // The callback forms of read, write, writev and readv answer the
    // buffer(s) too, as Node's do: (err, bytes, buffer).
    const withBuffer = (name, f, bufArg) => (...args) => {
      const cb = args.pop();
      if (typeof cb !== "function") throw argType("cb", "of type function", cb);
      let r, e = null;
      try { r = f(...args); } catch (err) { if (thrownAtCall(err)) throw err; e = err; }
      native.setImmediate(() => (e ? cb(e) : cb(null, r, args[bufArg])));
    };
    fs.read = withBuffer("read", sync.readSync, 1);
    fs.write = withBuffer("write", sync.writeSync, 1);
    fs.writev = withBuffer("writev", sync.writevSync, 1);
    fs.readv = withBuffer("readv", sync.readvSync, 1);

    // ---- FileHandle: fsPromises.open's answer, over a descriptor ----
    const kFd = Symbol("fd");
    const asyncDispose = Symbol.asyncDispose || Symbol.for("Symbol.asyncDispose");
    class FileHandle extends require("events").EventEmitter {
      constructor(fd) { super(); this[kFd] = fd; }
      // A closed handle's fd is undefined, as workerd's.
      get fd() { return this[kFd] === -1 ? undefined : this[kFd]; }
      _fd(syscall) {
        if (this[kFd] === -1) throw fsError("EBADF", syscall, `bad file descriptor, ${syscall}`);
        return this[kFd];
      }
      async stat(o) { return sync.fstatSync(this._fd("fstat"), o); }
      async chmod(mode) { return sync.fchmodSync(this._fd("fchmod"), mode); }
      async chown(uid, gid) { return sync.fchownSync(this._fd("fchown"), uid, gid); }
      async utimes(a, m) { return sync.futimesSync(this._fd("futime"), a, m); }
      async sync() { return sync.fsyncSync(this._fd("fsync")); }
      async datasync() { return sync.fdatasyncSync(this._fd("fdatasync")); }
      async truncate(len = 0) { return sync.ftruncateSync(this._fd("ftruncate"), len); }
      async read(buf, off, len, pos) {
        if (buf === undefined || (buf !== null && typeof buf === "object" && !ArrayBuffer.isView(buf))) {
          const o = buf || {};
          buf = o.buffer || Buffer.alloc(16384);
          ({ offset: off = 0, length: len = buf.byteLength - off, position: pos = null } = o);
        }
        const bytesRead = sync.readSync(this._fd("read"), buf, off, len, pos);
        return { bytesRead, buffer: buf };
      }
      async readv(buffers, pos) { return { bytesRead: sync.readvSync(this._fd("read"), buffers, pos), buffers }; }
      async write(data, a, b, c) {
        const bytesWritten = sync.writeSync(this._fd("write"), data, a, b, c);
        return { bytesWritten, buffer: data };
      }
      async writev(buffers, pos) { return { bytesWritten: sync.writevSync(this._fd("write"), buffers, pos), buffers }; }
      // workerd reads the whole file, whatever the descriptor's position.
      async readFile(o) { return sync.readFileSync(fds.get(this._fd("read")).abs, o); }
      async writeFile(data, o) {
        const enc = encodingOf(o) || "utf8";
        sync.writeSync(this._fd("write"), typeof data === "string" ? Buffer.from(data, enc) : data);
      }
      async appendFile(data, o) { return this.writeFile(data, o); }
      async close() {
        if (this[kFd] === -1) return;
        const fd = this[kFd];
        this[kFd] = -1;
        sync.closeSync(fd);
        this.emit("close");
      }
      // A byte stream of the file from the descriptor's position; the
      // handle closes at its end unless autoClose is false, and a handle
      // closed meanwhile ends it.
      readableWebStream(o = {}) {
        this._fd("read");
        const fh = this, autoClose = o.autoClose === undefined ? true : !!o.autoClose;
        return new ReadableStream({
          type: "bytes",
          async pull(c) {
            if (fh[kFd] === -1) { c.close(); return; }
            const buf = new Uint8Array(16384);
            const { bytesRead } = await fh.read(buf, 0, buf.length, null);
            if (bytesRead === 0) {
              c.close();
              if (autoClose) await fh.close();
              return;
            }
            c.enqueue(buf.subarray(0, bytesRead));
          },
          cancel() { if (autoClose) return fh.close(); },
        });
      }
      createReadStream(o) { return new ReadStream(undefined, { ...o, fd: this }); }
      createWriteStream(o) { return new WriteStream(undefined, { ...o, fd: this }); }
      [asyncDispose]() { return this.close(); }
    }
    promises.open = async (p, flags, mode) => new FileHandle(sync.openSync(p, flags, mode));
    promises.FileHandle = FileHandle;

    // ---- ReadStream and WriteStream: Node's fs streams (lib/internal/
    // fs/streams.js, written again here over this file system: readable-
    // stream has no fs). They open through options.fs (or this module),
    // read and write at start/pos, and close the descriptor on destroy
    // when autoClose. ----
    const { Readable, Writable, finished } = require("stream");
    const kIo = Symbol("performingIO"), kIoDone = Symbol("ioDone"), kFs = Symbol("fs"), kHandle = Symbol("handle");
    const fnCheck = (v, name) => { if (typeof v !== "function") throw argType(name, "of type function", v); };
    const intCheck = (v, name) => {
      if (typeof v !== "number") throw argType(name, "of type number", v);
      if (!Number.isInteger(v)) throw outOfRange(name, "an integer", v);
      if (v < 0 || v > Number.MAX_SAFE_INTEGER) throw outOfRange(name, ">= 0 && <= 9007199254740991", v);
    };
    const streamOptions = (o) => {
      if (o === undefined || o === null) return {};
      if (typeof o === "string") return { encoding: o };
      if (typeof o !== "object") throw argType("options", "of type string or an instance of Object", o);
      // Node's copyObject: inherited options count too.
      const c = {};
      for (const k in o) c[k] = o[k];
      if (c.signal !== undefined && !(c.signal instanceof AbortSignal)) throw argType("options.signal", "an instance of AbortSignal", c.signal);
      return c;
    };
    // Custom fs operations fill in what they leave out from this module.
    const fsOps = (o, names) => {
      if (!o.fs) return fs;
      const ops = {};
      for (const k of names) ops[k] = o.fs[k] === undefined ? fs[k] : o.fs[k];
      return ops;
    };
    // A FileHandle as options.fd: its descriptor, with its methods as fs.
    function handleFs(stream, fh) {
      stream[kHandle] = fh;
      stream[kFs] = {
        read: (fd, buf, off, len, pos, cb) => fh.read(buf, off, len, pos).then((r) => cb(null, r.bytesRead, r.buffer), cb),
        write: (fd, buf, off, len, pos, cb) => fh.write(buf, off, len, pos).then((r) => cb(null, r.bytesWritten, r.buffer), cb),
        writev: (fd, bufs, pos, cb) => fh.writev(bufs, pos).then((r) => cb(null, r.bytesWritten, r.buffers), cb),
        close: (fd, cb) => fh.close().then(() => cb(null), cb),
        fsync: (fd, cb) => fh.sync().then(() => cb(null), cb),
      };
      fh.on("close", () => { if (!stream.destroyed) stream.destroy(); });
      return fh.fd;
    }
    function importFd(stream, path, o, dflags) {
      if (o.fd instanceof FileHandle) {
        if (o.fs) throw Object.assign(new Error("The FileHandle with fs method is not implemented"), { code: "ERR_METHOD_NOT_IMPLEMENTED" });
        stream.fd = handleFs(stream, o.fd);
        stream.path = undefined;
      } else if (o.fd !== undefined && o.fd !== null) {
        intCheck(o.fd, "fd");
        stream.fd = o.fd;
        stream.path = undefined;
      } else {
        stream.fd = null;
        stream.path = path instanceof URL ? decodeURIComponent(path.pathname) : path;
        if (typeof stream.path !== "string" && !(stream.path instanceof Uint8Array)) throw argType("path", "of type string or an instance of Buffer or URL", path);
        stream.flags = o.flags === undefined ? dflags : o.flags;
        stream.mode = o.mode === undefined ? 0o666 : o.mode;
      }
    }
    function construct(cb) {
      if (typeof this.fd === "number") return cb();
      if (typeof this.open === "function" && this.open !== openFs) {
        // Node's backward compatibility for a monkey-patched open(): it
        // opens, and its 'open' (or 'error') event ends construction.
        const emit = this.emit;
        this.emit = function (ev, ...args) {
          if (ev === "open") { this.emit = emit; cb(); return emit.call(this, ev, ...args); }
          if (ev === "error") { this.emit = emit; return cb(args[0]); }
          return emit.call(this, ev, ...args);
        };
        this.open();
        return;
      }
      this[kFs].open(this.path, this.flags, this.mode, (er, fd) => {
        if (er) return cb(er);
        this.fd = fd;
        cb();
        this.emit("open", this.fd);
        this.emit("ready");
      });
    }
    // The deprecated open() method; construction opens the file.
    function openFs() {}
    // Node's errorOrDestroy: a stream that does not autoDestroy keeps its
    // descriptor and only reports the error.
    function errorOrDestroy(stream, err) {
      const st = stream._readableState || stream._writableState;
      if (st.autoDestroy) return stream.destroy(err);
      if (!st.errored) st.errored = err;
      stream.emit("error", err);
    }
    function closeStream(stream, err, cb) {
      if (stream.fd === null || stream.fd === undefined) return cb(err);
      const fd = stream.fd;
      const done = (er) => cb(er || err);
      stream.fd = null;
      if (stream.flush) stream[kFs].fsync(fd, (fe) => stream[kFs].close(fd, (ce) => done(fe || ce)));
      else stream[kFs].close(fd, done);
    }
    function destroyStream(err, cb) {
      if (this[kIo]) this.once(kIoDone, (er) => closeStream(this, err || er, cb));
      else closeStream(this, err, cb);
    }
    function ReadStream(path, options) {
      if (!(this instanceof ReadStream)) return new ReadStream(path, options);
      const o = streamOptions(options);
      if (o.highWaterMark === undefined) o.highWaterMark = 64 * 1024;
      this[kFs] = fsOps(o, ["open", "read", "close"]);
      fnCheck(this[kFs].open, "options.fs.open");
      fnCheck(this[kFs].read, "options.fs.read");
      fnCheck(this[kFs].close, "options.fs.close");
      o.autoDestroy = o.autoClose === undefined ? true : o.autoClose;
      importFd(this, path, o, "r");
      this.start = o.start;
      this.end = o.end;
      this.pos = undefined;
      this.bytesRead = 0;
      this[kIo] = false;
      if (this.start !== undefined) { intCheck(this.start, "start"); this.pos = this.start; }
      if (this.end === undefined) this.end = Infinity;
      else if (this.end !== Infinity) {
        intCheck(this.end, "end");
        if (this.start !== undefined && this.start > this.end) throw outOfRange("start", `<= "end" (here: ${this.end})`, this.start);
      }
      Readable.call(this, o);
    }
    Object.setPrototypeOf(ReadStream.prototype, Readable.prototype);
    Object.setPrototypeOf(ReadStream, Readable);
    const invalidThis = (type) => Object.assign(new TypeError(`Value of "this" must be of type ${type}`), { code: "ERR_INVALID_THIS" });
    Object.defineProperties(ReadStream.prototype, {
      autoClose: { get() { if (!(this instanceof ReadStream)) throw invalidThis("ReadStream"); return this._readableState.autoDestroy; }, set(v) { this._readableState.autoDestroy = v; }, configurable: true },
      pending: { get() { return this.fd === null; }, configurable: true },
    });
    ReadStream.prototype._construct = construct;
    ReadStream.prototype.open = openFs;
    ReadStream.prototype._read = function (n) {
      n = this.pos !== undefined ? Math.min(this.end - this.pos + 1, n) : Math.min(this.end - this.bytesRead + 1, n);
      if (n <= 0) { this.push(null); return; }
      const buf = Buffer.alloc(n);
      this[kIo] = true;
      this[kFs].read(this.fd, buf, 0, n, this.pos === undefined ? null : this.pos, (er, bytesRead) => {
        this[kIo] = false;
        if (this.destroyed) { this.emit(kIoDone, er); return; }
        if (er) { errorOrDestroy(this, er); return; }
        if (bytesRead > 0) {
          if (this.pos !== undefined) this.pos += bytesRead;
          this.bytesRead += bytesRead;
          this.push(bytesRead !== buf.length ? Buffer.from(buf.subarray(0, bytesRead)) : buf);
        } else this.push(null);
      });
    };
    ReadStream.prototype._destroy = destroyStream;
    ReadStream.prototype.close = function (cb) {
      if (typeof cb === "function") finished(this, cb);
      this.destroy();
    };
    function WriteStream(path, options) {
      if (!(this instanceof WriteStream)) return new WriteStream(path, options);
      const o = streamOptions(options);
      o.decodeStrings = true;
      this[kFs] = fsOps(o, ["open", "write", "writev", "close", "fsync"]);
      fnCheck(this[kFs].open, "options.fs.open");
      if (!this[kFs].write && !this[kFs].writev) throw argType("options.fs.write", "of type function", this[kFs].write);
      if (this[kFs].write) fnCheck(this[kFs].write, "options.fs.write");
      else this._write = null;
      if (this[kFs].writev) fnCheck(this[kFs].writev, "options.fs.writev");
      else this._writev = null;
      fnCheck(this[kFs].close, "options.fs.close");
      o.autoDestroy = o.autoClose === undefined ? true : o.autoClose;
      if (o.flush !== undefined && o.flush !== null && typeof o.flush !== "boolean") throw argType("options.flush", "of type boolean", o.flush);
      this.flush = !!o.flush;
      if (this.flush) fnCheck(this[kFs].fsync, "options.fs.fsync");
      importFd(this, path, o, "w");
      this.start = o.start;
      this.pos = undefined;
      this.bytesWritten = 0;
      this[kIo] = false;
      if (this.start !== undefined) { intCheck(this.start, "start"); this.pos = this.start; }
      Writable.call(this, o);
      if (o.encoding) this.setDefaultEncoding(o.encoding);
    }
    Object.setPrototypeOf(WriteStream.prototype, Writable.prototype);
    Object.setPrototypeOf(WriteStream, Writable);
    Object.defineProperties(WriteStream.prototype, {
      autoClose: { get() { if (!(this instanceof WriteStream)) throw invalidThis("WriteStream"); return this._writableState.autoDestroy; }, set(v) { this._writableState.autoDestroy = v; }, configurable: true },
      pending: { get() { return this.fd === null; }, configurable: true },
    });
    WriteStream.prototype._construct = construct;
    WriteStream.prototype.open = openFs;
    const ioDone = (stream, cb) => (er, bytes) => {
      stream[kIo] = false;
      if (stream.destroyed) { cb(er); stream.emit(kIoDone, er); return; }
      if (er) return cb(er);
      stream.bytesWritten += bytes;
      cb();
    };
    WriteStream.prototype._write = function (data, encoding, cb) {
      this[kIo] = true;
      this[kFs].write(this.fd, data, 0, data.length, this.pos === undefined ? null : this.pos, ioDone(this, cb));
      if (this.pos !== undefined) this.pos += data.length;
    };
    WriteStream.prototype._writev = function (data, cb) {
      const chunks = data.map((d) => d.chunk);
      const size = chunks.reduce((n, c) => n + c.length, 0);
      this[kIo] = true;
      this[kFs].writev(this.fd, chunks, this.pos === undefined ? null : this.pos, ioDone(this, cb));
      if (this.pos !== undefined) this.pos += size;
    };
    WriteStream.prototype._destroy = destroyStream;
    WriteStream.prototype.close = function (cb) {
      if (cb) {
        if (this.closed) { queueMicrotask(cb); return; }
        this.on("close", cb);
      }
      if (!this.autoClose) this.on("finish", this.destroy);
      this.end();
    };
    WriteStream.prototype.destroySoon = WriteStream.prototype.end;
    fs.ReadStream = ReadStream;
    fs.WriteStream = WriteStream;
    // Function declarations, as Node's: some code calls them with new.
    fs.createReadStream = function createReadStream(p, o) { return new ReadStream(p, o); };
    fs.createWriteStream = function createWriteStream(p, o) { return new WriteStream(p, o); };
    fs.watch = fs.watchFile = () => { throw new Error("fs.watch is not supported by cellhost"); };
    return fs;
  };
  defs["fs/promises"] = () => require("fs").promises;

  // ---- test: node:test's mock (MockTracker), what workerd's tests and
  // apps' own checks use; test()/describe() need Node's runner, which a
  // worker has no use for, and throw. ----
  defs.test = () => {
    const notImplemented = (name) => () => { throw Object.assign(new Error(`The ${name} method is not implemented`), { code: "ERR_METHOD_NOT_IMPLEMENTED" }); };
    const fnArg = (v, name) => { if (v !== undefined && typeof v !== "function") throw Object.assign(new TypeError(`The "${name}" argument must be of type function. Received ${v === null ? "null" : typeof v}`), { code: "ERR_INVALID_ARG_TYPE" }); };
    class MockFunctionContext {
      constructor(impl, original, restore, times) {
        this._calls = []; this._impl = impl; this._original = original; this._restore = restore;
        this._once = new Map(); this._times = times; this._used = 0;
      }
      get calls() { return this._calls.slice(); }
      callCount() { return this._calls.length; }
      mockImplementation(fn) { fnArg(fn, "implementation"); this._impl = fn; this._times = Infinity; this._used = 0; }
      mockImplementationOnce(fn, onCall) { fnArg(fn, "implementation"); this._once.set(onCall === undefined ? this._calls.length : onCall, fn); }
      resetCalls() { this._calls = []; }
      restore() { if (this._restore) this._restore(); }
      _next() {
        const n = this._calls.length;
        if (this._once.has(n)) { const f = this._once.get(n); this._once.delete(n); return f; }
        if (this._used < this._times) { this._used++; return this._impl; }
        return this._original;
      }
    }
    class MockTracker {
      constructor() { this._mocks = []; }
      fn(original = function () {}, implementation = original, options = {}) {
        if (original !== null && typeof original === "object") { options = original; original = function () {}; implementation = original; }
        else if (implementation !== null && typeof implementation === "object") { options = implementation; implementation = original; }
        fnArg(original, "original"); fnArg(implementation, "implementation");
        return this._make(implementation, original, undefined, options.times === undefined ? Infinity : options.times);
      }
      _make(impl, original, restore, times) {
        const ctx = new MockFunctionContext(impl, original, restore, times);
        const mocked = new Proxy(original, {
          apply(target, self, args) {
            const f = ctx._next();
            const call = { arguments: args, error: undefined, result: undefined, stack: new Error(), target: undefined, this: self };
            try { call.result = Reflect.apply(f, self, args); } catch (e) { call.error = e; ctx._calls.push(call); throw e; }
            ctx._calls.push(call);
            return call.result;
          },
          construct(target, args, newTarget) {
            const f = ctx._next();
            const call = { arguments: args, error: undefined, result: undefined, stack: new Error(), target: newTarget, this: undefined };
            try { call.result = Reflect.construct(f, args, newTarget === mocked ? f : newTarget); } catch (e) { call.error = e; ctx._calls.push(call); throw e; }
            call.this = call.result;
            ctx._calls.push(call);
            return call.result;
          },
          get(target, key, receiver) { return key === "mock" ? ctx : Reflect.get(target, key, receiver); },
        });
        this._mocks.push(ctx);
        return mocked;
      }
      method(object, name, implementation, options) {
        if (implementation !== null && typeof implementation === "object" && typeof implementation !== "function") { options = implementation; implementation = undefined; }
        options = options || {};
        if (object === null || (typeof object !== "object" && typeof object !== "function")) throw Object.assign(new TypeError(`The "object" argument must be of type object. Received ${object === null ? "null" : typeof object}`), { code: "ERR_INVALID_ARG_TYPE" });
        let desc, owner = object;
        while (owner && !(desc = Object.getOwnPropertyDescriptor(owner, name))) owner = Object.getPrototypeOf(owner);
        if (!desc) throw Object.assign(new TypeError(`The argument 'methodName' must be a method. Received ${String(name)}`), { code: "ERR_INVALID_ARG_VALUE" });
        const kind = options.getter ? "get" : options.setter ? "set" : "value";
        const original = desc[kind];
        if (typeof original !== "function") throw Object.assign(new TypeError(`The argument 'methodName' must be a method. Received ${String(name)}`), { code: "ERR_INVALID_ARG_VALUE" });
        const own = Object.getOwnPropertyDescriptor(object, name);
        const restore = () => { if (own) Object.defineProperty(object, name, own); else delete object[name]; };
        const mocked = this._make(implementation === undefined ? original : implementation, original, restore, options.times === undefined ? Infinity : options.times);
        const nd = { ...desc, configurable: true };
        nd[kind] = mocked;
        Object.defineProperty(object, name, nd);
        return mocked;
      }
      getter(object, name, implementation, options) { return this.method(object, name, implementation, { ...(typeof implementation === "object" ? implementation : options), getter: true }); }
      setter(object, name, implementation, options) { return this.method(object, name, implementation, { ...(typeof implementation === "object" ? implementation : options), setter: true }); }
      reset() { this.restoreAll(); this._mocks = []; }
      restoreAll() { for (const m of this._mocks.slice().reverse()) m.restore(); } // the last mock first: each put back what it found
    }
    const mock = new MockTracker();
    const test = notImplemented("test");
    Object.assign(test, { test, mock, describe: notImplemented("describe"), it: notImplemented("it"), suite: notImplemented("suite"),
      before: notImplemented("before"), after: notImplemented("after"), beforeEach: notImplemented("beforeEach"), afterEach: notImplemented("afterEach"), MockTracker });
    return test;
  };


  // ---- modules workerd gives as Node's names over what a worker has (or
  // as stubs: a call that cannot work throws Node's
  // ERR_METHOD_NOT_IMPLEMENTED, "The X method is not implemented") ----
  const notImplemented = (what) => Object.assign(new Error(`The ${what} method is not implemented`), { code: "ERR_METHOD_NOT_IMPLEMENTED" });
  const describeArg = (v) => v === null ? "null" : v === undefined ? "undefined" : typeof v === "function" ? `function ${v.name}` : typeof v === "object" ? (v.constructor && v.constructor.name ? `an instance of ${v.constructor.name}` : "an object") : `type ${typeof v} (${typeof v === "string" ? `'${v}'` : String(v)}${typeof v === "bigint" ? "n" : ""})`;
  const invalidArg = (name, want, v) => Object.assign(new TypeError(`The "${name}" ${name.includes(".") ? "property" : "argument"} must be ${want}. Received ${describeArg(v)}`), { code: "ERR_INVALID_ARG_TYPE" });
  // node:sys is node:util under its old name.
  defs.sys = () => require("util");
  // node:path/win32: path.win32 (workerd's node:path is POSIX; so is
  // cellhost's win32, see path above).
  defs["path/win32"] = () => require("path").win32;
  // node:console: the global console with Node's extra methods; a second
  // Console and the inspector's context/createTask are not available.
  defs.console = () => {
    const c = Object.create(null);
    const base = globalThis.console;
    for (const k of ["log", "info", "debug", "warn", "error", "dir", "time", "timeEnd", "timeLog", "trace", "assert", "clear", "count", "countReset", "group", "groupEnd", "table", "dirxml", "groupCollapsed", "profile", "profileEnd", "timeStamp"]) {
      c[k] = typeof base[k] === "function" ? base[k].bind(base) : () => {};
    }
    c.Console = function Console() { throw notImplemented("Console"); };
    c.context = () => { throw notImplemented("console.context"); };
    c.createTask = () => { throw notImplemented("console.createTask"); };
    return c;
  };
  // node:worker_threads: one thread, the main one; MessageChannel is the
  // global one; a Worker cannot be started.
  defs.worker_threads = () => {
    const { EventEmitter } = require("events");
    class BroadcastChannel { constructor() { throw notImplemented("BroadcastChannel"); } }
    class Worker extends EventEmitter {
      constructor() { super(); throw notImplemented("Worker"); }
      cpuUsage() { return Promise.reject(notImplemented("Worker.cpuUsage")); }
      postMessage() {}
      async postMessageToThread() {}
      ref() {}
      unref() {}
      async terminate() { throw notImplemented("Worker.terminate"); }
      async getHeapSnapshot() { throw notImplemented("Worker.getHeapSnapshot"); }
      async getHeapStatistics() { throw notImplemented("Worker.getHeapStatistics"); }
      async startCpuProfile() { throw notImplemented("Worker.startCpuProfile"); }
      async startHeapProfile() { throw notImplemented("Worker.startHeapProfile"); }
      async [Symbol.asyncDispose || Symbol.for("Symbol.asyncDispose")]() {}
    }
    const env = new Map();
    return {
      BroadcastChannel, MessageChannel: globalThis.MessageChannel, MessagePort: globalThis.MessagePort, Worker,
      SHARE_ENV: Symbol.for("nodejs.worker_threads.SHARE_ENV"),
      getEnvironmentData: (k) => env.get(k), setEnvironmentData: (k, v) => { if (v === undefined) env.delete(k); else env.set(k, v); },
      isMainThread: true, isMarkedAsUntransferable: () => false, markAsUntransferable() {}, markAsUncloneable() {},
      moveMessagePortToContext: () => new globalThis.MessageChannel().port1, parentPort: null, receiveMessageOnPort: () => undefined,
      resourceLimits: {}, postMessageToThread() { throw notImplemented("worker_threads.postMessageToThread"); },
      threadId: 0, workerData: null, isInternalThread: false,
    };
  };
  // node:sqlite: its constants; the database classes cannot be made.
  defs.sqlite = () => {
    const names = ["CREATE_INDEX", "CREATE_TABLE", "CREATE_TEMP_INDEX", "CREATE_TEMP_TABLE", "CREATE_TEMP_TRIGGER", "CREATE_TEMP_VIEW", "CREATE_TRIGGER", "CREATE_VIEW", "DELETE", "DROP_INDEX", "DROP_TABLE", "DROP_TEMP_INDEX", "DROP_TEMP_TABLE", "DROP_TEMP_TRIGGER", "DROP_TEMP_VIEW", "DROP_TRIGGER", "DROP_VIEW", "INSERT", "PRAGMA", "READ", "SELECT", "TRANSACTION", "UPDATE", "ATTACH", "DETACH", "ALTER_TABLE", "REINDEX", "ANALYZE", "CREATE_VTABLE", "DROP_VTABLE", "FUNCTION", "SAVEPOINT"];
    // sqlite3.h's values.
    const constants = { SQLITE_CHANGESET_OMIT: 0, SQLITE_CHANGESET_REPLACE: 1, SQLITE_CHANGESET_ABORT: 2, SQLITE_CHANGESET_DATA: 1, SQLITE_CHANGESET_NOTFOUND: 2, SQLITE_CHANGESET_CONFLICT: 3, SQLITE_CHANGESET_CONSTRAINT: 4, SQLITE_CHANGESET_FOREIGN_KEY: 5, SQLITE_OK: 0, SQLITE_DENY: 1, SQLITE_IGNORE: 2 };
    names.forEach((n, i) => { constants["SQLITE_" + n] = i + 1; });
    constants.SQLITE_COPY = 0;
    constants.SQLITE_RECURSIVE = 33;
    const illegal = () => new TypeError("Illegal constructor");
    class DatabaseSync { constructor() { throw illegal(); } }
    class StatementSync { constructor() { throw illegal(); } }
    return { DatabaseSync, StatementSync, constants, backup() { throw notImplemented("sqlite.backup"); } };
  };
  // node:child_process: arguments checked as Node checks them, then no
  // process can be started.
  defs.child_process = () => {
    const { EventEmitter } = require("events");
    class ChildProcess extends EventEmitter {
      constructor() { super(); throw notImplemented("child_process.ChildProcess"); }
      kill() { return false; }
      send() { return false; }
      disconnect() {}
      unref() {}
      ref() {}
    }
    const str = (v, name) => { if (typeof v !== "string") throw invalidArg(name, "of type string", v); };
    const opts = (v, name = "options") => { if (v !== undefined && v !== null && (typeof v !== "object" || Array.isArray(v))) throw invalidArg(name, "of type object", v); };
    const fn = (v, name = "callback") => { if (v !== undefined && v !== null && typeof v !== "function") throw invalidArg(name, "of type function", v); };
    const arr = (v, name = "args") => { if (v !== undefined && v !== null && !Array.isArray(v)) throw invalidArg(name, "an instance of Array", v); };
    // file, [args], [options], [callback]: an array, object and function
    // in that order, each optional.
    const fileArgs = (name, file, rest, withCb) => {
      str(file, "file");
      let i = 0;
      if (Array.isArray(rest[i]) || rest[i] === null || rest[i] === undefined) { arr(rest[i]); i++; }
      if (rest[i] !== undefined && typeof rest[i] !== "function") { opts(rest[i]); i++; }
      if (withCb) { fn(rest[i]); i++; }
      if (rest.length > i && rest[i] !== undefined) throw invalidArg("args", "an instance of Array", rest[i]);
      throw notImplemented("child_process." + name);
    };
    return {
      ChildProcess,
      _forkChild() { throw notImplemented("child_process._forkChild"); },
      exec(command, options, callback) {
        str(command, "command");
        if (typeof options === "function") { callback = options; options = undefined; }
        opts(options);
        fn(callback);
        throw notImplemented("child_process.exec");
      },
      execSync(command, options) { str(command, "command"); opts(options); throw notImplemented("child_process.execSync"); },
      execFile(file, ...rest) { fileArgs("execFile", file, rest, true); },
      execFileSync(file, ...rest) { fileArgs("execFileSync", file, rest, false); },
      fork(modulePath, ...rest) {
        if (typeof modulePath !== "string" && !(modulePath instanceof URL)) throw invalidArg("modulePath", "of type string or an instance of URL", modulePath);
        let i = 0;
        if (Array.isArray(rest[i]) || rest[i] === null || rest[i] === undefined) { arr(rest[i]); i++; }
        opts(rest[i]);
        throw notImplemented("child_process.fork");
      },
      // workerd's spawn checks nothing before it throws.
      spawn() { throw notImplemented("child_process.spawn"); },
      spawnSync(file, ...rest) { fileArgs("spawnSync", file, rest, false); },
    };
  };

  // ---- modules workerd has that cellhost does not run yet: they load with
  // workerd's export names (libraries import them at the top), constants
  // are real, and a call throws naming what is missing ----
  const stubKeys = {"http":["Agent","ClientRequest","CloseEvent","IncomingMessage","METHODS","MessageEvent","OutgoingMessage","STATUS_CODES","Server","ServerResponse","WebSocket","_connectionListener","createServer","get","globalAgent","maxHeaderSize","request","setMaxIdleHTTPParsers","validateHeaderName","validateHeaderValue"],"https":["Agent","Server","createServer","get","globalAgent","request"],"net":["BlockList","BoundSocket","Server","Socket","SocketAddress","Stream","_normalizeArgs","connect","createConnection","createServer","getDefaultAutoSelectFamily","getDefaultAutoSelectFamilyAttemptTimeout","isIP","isIPv4","isIPv6","setDefaultAutoSelectFamily","setDefaultAutoSelectFamilyAttemptTimeout"],"tls":["CLIENT_RENEG_LIMIT","CLIENT_RENEG_WINDOW","DEFAULT_CIPHERS","DEFAULT_ECDH_CURVE","DEFAULT_MAX_VERSION","DEFAULT_MIN_VERSION","SecureContext","Server","TLSSocket","checkServerIdentity","connect","convertALPNProtocols","createSecureContext","createSecurePair","createServer","getCiphers","rootCertificates"],"http2":["Http2ServerRequest","Http2ServerResponse","connect","constants","createSecureServer","createServer","getDefaultSettings","getPackedSettings","getUnpackedSettings","performServerHandshake","sensitiveHeaders"],"cluster":["SCHED_NONE","SCHED_RR","Worker","_events","_eventsCount","_maxListeners","domain","isMaster","isPrimary","isWorker","schedulingPolicy","settings","workers"],"vm":["Script","compileFunction","constants","createContext","createScript","isContext","measureMemory","runInContext","runInNewContext","runInThisContext"],"dns":["ADDRCONFIG","ADDRGETNETWORKPARAMS","ALL","BADFAMILY","BADFLAGS","BADHINTS","BADNAME","BADQUERY","BADRESP","BADSTR","CANCELLED","CONNREFUSED","DESTRUCTION","EOF","FILE","FORMERR","LOADIPHLPAPI","NODATA","NOMEM","NONAME","NOTFOUND","NOTIMP","NOTINITIALIZED","REFUSED","Resolver","SERVFAIL","TIMEOUT","V4MAPPED","getDefaultResultOrder","getServers","lookup","lookupService","promises","resolve","resolve4","resolve6","resolveAny","resolveCaa","resolveCname","resolveMx","resolveNaptr","resolveNs","resolvePtr","resolveSoa","resolveSrv","resolveTxt","reverse","setDefaultResultOrder","setServers"],"dns/promises":["ADDRGETNETWORKPARAMS","BADFAMILY","BADFLAGS","BADHINTS","BADNAME","BADQUERY","BADRESP","BADSTR","CANCELLED","CONNREFUSED","DESTRUCTION","EOF","FILE","FORMERR","LOADIPHLPAPI","NODATA","NOMEM","NONAME","NOTFOUND","NOTIMP","NOTINITIALIZED","REFUSED","Resolver","SERVFAIL","TIMEOUT","getDefaultResultOrder","getServers","lookup","lookupService","resolve","resolve4","resolve6","resolveAny","resolveCaa","resolveCname","resolveMx","resolveNaptr","resolveNs","resolvePtr","resolveSoa","resolveSrv","resolveTxt","reverse","setDefaultResultOrder","setServers"],"punycode":["decode","encode","toASCII","toUnicode","ucs2","version"],"module":["Module","SourceMap","_cache","_debug","_extensions","_findPath","_initPaths","_load","_nodeModulePaths","_pathCache","_preloadModules","_resolveFilename","_resolveLookupPaths","builtinModules","constants","createRequire","enableCompileCache","findPackageJSON","findSourceMap","flushCompileCache","getCompileCacheDir","getSourceMapsSupport","globalPaths","isBuiltin","register","registerHooks","runMain","setSourceMapsSupport","stripTypeScriptTypes","syncBuiltinESMExports","wrap"]};
  const STATUS_CODES = {"100":"Continue","101":"Switching Protocols","102":"Processing","103":"Early Hints","200":"OK","201":"Created","202":"Accepted","203":"Non-Authoritative Information","204":"No Content","205":"Reset Content","206":"Partial Content","207":"Multi-Status","208":"Already Reported","226":"IM Used","300":"Multiple Choices","301":"Moved Permanently","302":"Found","303":"See Other","304":"Not Modified","305":"Use Proxy","307":"Temporary Redirect","308":"Permanent Redirect","400":"Bad Request","401":"Unauthorized","402":"Payment Required","403":"Forbidden","404":"Not Found","405":"Method Not Allowed","406":"Not Acceptable","407":"Proxy Authentication Required","408":"Request Timeout","409":"Conflict","410":"Gone","411":"Length Required","412":"Precondition Failed","413":"Payload Too Large","414":"URI Too Long","415":"Unsupported Media Type","416":"Range Not Satisfiable","417":"Expectation Failed","418":"I'm a Teapot","421":"Misdirected Request","422":"Unprocessable Entity","423":"Locked","424":"Failed Dependency","425":"Too Early","426":"Upgrade Required","428":"Precondition Required","429":"Too Many Requests","431":"Request Header Fields Too Large","451":"Unavailable For Legal Reasons","500":"Internal Server Error","501":"Not Implemented","502":"Bad Gateway","503":"Service Unavailable","504":"Gateway Timeout","505":"HTTP Version Not Supported","506":"Variant Also Negotiates","507":"Insufficient Storage","508":"Loop Detected","509":"Bandwidth Limit Exceeded","510":"Not Extended","511":"Network Authentication Required"};
  const METHODS = ["ACL","BIND","CHECKOUT","CONNECT","COPY","DELETE","GET","HEAD","LINK","LOCK","M-SEARCH","MERGE","MKACTIVITY","MKCALENDAR","MKCOL","MOVE","NOTIFY","OPTIONS","PATCH","POST","PROPFIND","PROPPATCH","PURGE","PUT","QUERY","REBIND","REPORT","SEARCH","SOURCE","SUBSCRIBE","TRACE","UNBIND","UNLINK","UNLOCK","UNSUBSCRIBE"];
  const isIPv4 = (s) => typeof s === "string" && /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(s);
  const isIPv6 = (s) => {
    if (typeof s !== "string" || !s.includes(":")) return false;
    try { return new URL("http://[" + s.split("%")[0] + "]/").hostname.length > 2; } catch { return false; }
  };
  const real = {
    http: { STATUS_CODES, METHODS, maxHeaderSize: 16384 },
    https: {},
    net: { isIP: (s) => (isIPv4(s) ? 4 : isIPv6(s) ? 6 : 0), isIPv4, isIPv6 },
    module: {
      builtinModules: native.builtins.slice(),
      isBuiltin: (n) => native.builtins.includes(String(n).replace(/^node:/, "")),
      // A require for the built-in modules (what a bundle can still ask for
      // at run time).
      createRequire: () => (n) => globalThis.__cellhost_node_require(String(n).replace(/^node:/, "")),
    },
  };
  for (const [name, keys] of Object.entries(stubKeys)) {
    defs[name] = () => {
      const m = {};
      for (const k of keys) {
        if (real[name] && k in real[name]) { m[k] = real[name][k]; continue; }
        m[k] = function () { throw new Error(`${k}() from node:${name} is not supported by cellhost yet`); };
      }
      if (name === "http" || name === "https") m.STATUS_CODES = STATUS_CODES, m.METHODS = METHODS;
      return m;
    };
  }

  // node:cluster as workerd has it: the primary of no workers; a worker
  // cannot be forked.
  defs.cluster = () => {
    const { EventEmitter } = require("events");
    class Worker extends EventEmitter {
      constructor() {
        super();
        this._connected = false;
        this.id = 0;
        this.exitedAfterDisconnect = false;
        this.process = globalThis.process;
      }
      isConnected() { return this._connected; }
      isDead() { return true; }
      send() { return false; }
      kill() { this._connected = false; }
      destroy() { this._connected = false; }
      disconnect() { this._connected = false; return this; }
    }
    const cluster = new EventEmitter();
    Object.assign(cluster, {
      Worker, SCHED_NONE: 1, SCHED_RR: 2, schedulingPolicy: 2, isMaster: true, isPrimary: true, isWorker: false, settings: {}, workers: {},
      fork() { throw notImplemented("cluster.fork"); },
      disconnect() { throw notImplemented("cluster.disconnect"); },
      setupPrimary() { throw notImplemented("cluster.setupPrimary"); },
      setupMaster() { throw notImplemented("cluster.setupMaster"); },
    });
    return cluster;
  };

  const require = native.require;
  return defs;
});
