// The R2Bucket object of one binding. native does the storage (r2/bind.go).
(function (native, binding) {
  "use strict";
  const HTTP_FIELDS = [
    ["contentType", "content-type"],
    ["contentLanguage", "content-language"],
    ["contentDisposition", "content-disposition"],
    ["contentEncoding", "content-encoding"],
    ["cacheControl", "cache-control"],
  ];
  function hex(buf) {
    return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, "0")).join("");
  }
  function unhex(s) {
    const out = new Uint8Array(s.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
    return out.buffer;
  }
  function ms(d) {
    if (d === undefined || d === null) return 0;
    return d instanceof Date ? d.getTime() : new Date(d).getTime();
  }
  function isHeaders(v) {
    return typeof Headers !== "undefined" && v instanceof Headers;
  }
  function conditional(c) {
    if (c === undefined || c === null) return undefined;
    if (isHeaders(c)) {
      return {
        etagMatches: c.get("if-match") || "",
        etagDoesNotMatch: c.get("if-none-match") || "",
        uploadedBefore: c.has("if-unmodified-since") ? ms(c.get("if-unmodified-since")) : 0,
        uploadedAfter: c.has("if-modified-since") ? ms(c.get("if-modified-since")) : 0,
      };
    }
    return {
      etagMatches: c.etagMatches === undefined ? "" : String(c.etagMatches),
      etagDoesNotMatch: c.etagDoesNotMatch === undefined ? "" : String(c.etagDoesNotMatch),
      uploadedBefore: ms(c.uploadedBefore),
      uploadedAfter: ms(c.uploadedAfter),
    };
  }
  function range(r) {
    if (r === undefined || r === null) return undefined;
    if (isHeaders(r)) {
      const h = r.get("range");
      if (h === null) return undefined;
      const m = /^bytes=(\d*)-(\d*)$/.exec(h.trim());
      if (m === null) throw new TypeError("Unsupported range header: " + h);
      if (m[1] === "") return { suffix: Number(m[2]) };
      return m[2] === "" ? { offset: Number(m[1]) } : { offset: Number(m[1]), length: Number(m[2]) - Number(m[1]) + 1 };
    }
    if (r.suffix !== undefined) {
      if (r.offset !== undefined || r.length !== undefined) throw new TypeError("Suffix is incompatible with offset and length.");
      return { suffix: r.suffix };
    }
    const out = { offset: r.offset === undefined ? 0 : r.offset };
    if (r.length !== undefined) out.length = r.length;
    return out;
  }
  function validKey(key) {
    key = String(key);
    if (new TextEncoder().encode(key).length > 1024) throw new TypeError("Key too long.");
    return key;
  }
  const SHA = [["sha1", "SHA-1", 40], ["sha256", "SHA-256", 64], ["sha384", "SHA-384", 96], ["sha512", "SHA-512", 128]];
  // R2Checksums: md5 (absent for a multipart object) and the SHA checksum
  // the object was put with, as ArrayBuffers; toJSON gives them in hex.
  class R2Checksums {
    constructor(m) {
      if (!m.multipart) this.md5 = unhex(m.etag);
      const sums = m.checksums || {};
      for (const [k] of SHA) if (sums[k] !== undefined) this[k] = unhex(sums[k]);
    }
    toJSON() {
      const out = {};
      for (const k of ["md5", "sha1", "sha256", "sha384", "sha512"]) if (this[k] !== undefined) out[k] = hex(this[k]);
      return out;
    }
  }
  class R2Object {
    constructor(m, include) {
      this.key = m.key;
      this.version = m.version;
      this.size = m.size;
      this.etag = m.etag;
      this.httpEtag = '"' + m.etag + '"';
      this.checksums = new R2Checksums(m);
      this.uploaded = new Date(m.uploaded);
      // A listed object carries its metadata only when include names it
      // (else empty objects), as workerd's local R2 answers.
      const h = {};
      if (include === undefined || include.includes("httpMetadata")) {
        for (const [f] of HTTP_FIELDS) if (m.http[f] !== undefined) h[f] = m.http[f];
        if (m.http.cacheExpiry !== undefined) h.cacheExpiry = new Date(m.http.cacheExpiry);
      }
      this.httpMetadata = h;
      this.customMetadata = include === undefined || include.includes("customMetadata") ? Object.assign({}, m.custom) : {};
      if (m.range !== undefined) this.range = m.range;
      // workerd's local R2 (miniflare) reports no storage class.
      this.storageClass = "";
    }
    writeHttpMetadata(headers) {
      const h = this.httpMetadata || {};
      for (const [f, name] of HTTP_FIELDS) if (h[f] !== undefined) headers.set(name, h[f]);
      if (h.cacheExpiry !== undefined) headers.set("expires", h.cacheExpiry.toUTCString());
    }
  }
  class R2ObjectBody extends R2Object {
    #bytes;
    #used = false;
    constructor(m) {
      super(m);
      this.#bytes = m.body;
    }
    #take() {
      if (this.#used) throw new TypeError("Body has already been used. It can only be used once. Use tee() first if you need to read it twice.");
      this.#used = true;
      return this.#bytes;
    }
    get bodyUsed() { return this.#used; }
    get body() {
      return new Response(this.#take()).body;
    }
    async arrayBuffer() { return this.#take(); }
    async bytes() { return new Uint8Array(this.#take()); }
    async text() { return new TextDecoder().decode(this.#take()); }
    async json() { return JSON.parse(await this.text()); }
    async blob() {
      const b = this.#take();
      return typeof Blob === "function" ? new Blob([b], { type: (this.httpMetadata && this.httpMetadata.contentType) || "" }) : b;
    }
  }
  function concat(chunks) {
    let n = 0;
    for (const c of chunks) n += c.byteLength;
    const out = new Uint8Array(n);
    let at = 0;
    for (const c of chunks) { out.set(c, at); at += c.byteLength; }
    return out.buffer;
  }
  // bytesOf reads a put or uploadPart value: a string, ArrayBuffer, view,
  // ReadableStream (a request or response body) or Blob.
  async function bytesOf(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "string") return new TextEncoder().encode(value).buffer;
    if (value instanceof ArrayBuffer) return value;
    if (ArrayBuffer.isView(value)) return value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength);
    if (typeof Blob === "function" && value instanceof Blob) return value.arrayBuffer();
    if (typeof value === "object" && typeof value.getReader === "function") {
      const reader = value.getReader();
      const chunks = [];
      for (;;) {
        const { done, value: c } = await reader.read();
        if (done) break;
        if (c instanceof ArrayBuffer) chunks.push(new Uint8Array(c));
        else if (ArrayBuffer.isView(c)) chunks.push(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
        else throw new TypeError("This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.");
      }
      return concat(chunks);
    }
    throw new TypeError("Incorrect type for the 'value' field on 'PutOptions': the provided value is not of type 'ReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'.");
  }
  function httpMetadataOf(h) {
    if (h === undefined || h === null) return undefined;
    const out = {};
    if (isHeaders(h)) {
      for (const [f, name] of HTTP_FIELDS) if (h.has(name)) out[f] = h.get(name);
      if (h.has("expires")) out.cacheExpiry = ms(h.get("expires"));
      return out;
    }
    for (const [f] of HTTP_FIELDS) if (h[f] !== undefined) out[f] = String(h[f]);
    if (h.cacheExpiry !== undefined) out.cacheExpiry = ms(h.cacheExpiry);
    return out;
  }
  function digestOf(v, name, hexLen) {
    if (v === undefined || v === null) return undefined;
    if (typeof v === "string") {
      if (v.length !== hexLen || !/^[0-9a-fA-F]*$/.test(v)) throw new TypeError(name + " is " + hexLen + " hex characters, not " + v.length);
      return unhex(v.toLowerCase());
    }
    if (v instanceof ArrayBuffer) return v;
    if (ArrayBuffer.isView(v)) return v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength);
    throw new TypeError(name + " must be an ArrayBuffer or a hex string");
  }
  function md5Of(v) { return digestOf(v, "MD5", 32); }
  // shaOf returns [algorithm, digest] of the one SHA option given, or
  // undefined; R2 takes one checksum per put, md5 included.
  function shaOf(options) {
    let out;
    let count = options.md5 !== undefined && options.md5 !== null ? 1 : 0;
    for (const [k, name, len] of SHA) {
      if (options[k] === undefined || options[k] === null) continue;
      count++;
      out = [k, digestOf(options[k], name, len)];
    }
    if (count > 1) throw new TypeError("You cannot specify multiple hashing algorithms.");
    return out;
  }
  function validUploadKey(key, method) {
    key = String(key);
    if (new TextEncoder().encode(key).length > 1024) throw new Error(method + ": The specified object name is not valid. (10020)");
    return key;
  }
  // R2MultipartUpload: one upload of key. Its methods call the native
  // multipart functions, which prefix R2's errors with the method's name.
  class R2MultipartUpload {
    #key; #id;
    constructor(key, uploadId) {
      this.#key = key;
      this.#id = uploadId;
    }
    get key() { return this.#key; }
    get uploadId() { return this.#id; }
    async uploadPart(partNumber, value) {
      const key = validUploadKey(this.#key, "uploadPart");
      const n = Number(partNumber);
      if (!Number.isInteger(n) || n < 1 || n > 10000) {
        throw new TypeError("Part number must be between 1 and 10000 (inclusive). Actual value was: " + partNumber);
      }
      const etag = native.uploadPart(key, this.#id, n, await bytesOf(value));
      return { partNumber: n, etag };
    }
    async abort() {
      native.abortUpload(validUploadKey(this.#key, "abortMultipartUpload"), this.#id);
    }
    async complete(uploadedParts) {
      const key = validUploadKey(this.#key, "completeMultipartUpload");
      const parts = Array.from(uploadedParts || [], (p) => ({ partNumber: Number(p.partNumber), etag: String(p.etag) }));
      return new R2Object(native.completeUpload(key, this.#id, parts));
    }
  }
  class R2Bucket {
    // head, and a get whose conditions fail, give the whole object's range
    // (as workerd's local R2 does); put and list give none.
    async head(key) {
      const m = native.head(validKey(key));
      if (m === null) return null;
      m.range = { offset: 0, length: m.size };
      return new R2Object(m);
    }
    async get(key, options) {
      options = options || {};
      const m = native.get(validKey(key), conditional(options.onlyIf), range(options.range));
      if (m === null) return null;
      if (m.body !== undefined) return new R2ObjectBody(m);
      m.range = { offset: 0, length: m.size };
      return new R2Object(m);
    }
    async put(key, value, options) {
      options = options || {};
      key = validKey(key);
      const sha = shaOf(options);
      const md5 = md5Of(options.md5);
      const body = await bytesOf(value);
      const m = native.put(key, body, httpMetadataOf(options.httpMetadata),
        options.customMetadata, conditional(options.onlyIf), md5, sha === undefined ? undefined : sha[0], sha === undefined ? undefined : sha[1]);
      return m === null ? null : new R2Object(m);
    }
    async delete(keys) {
      native.delete((Array.isArray(keys) ? keys : [keys]).map(validKey));
    }
    async list(options) {
      options = options || {};
      const limit = options.limit === undefined ? 1000 : Number(options.limit);
      if (!(limit >= 1 && limit <= 1000)) throw new Error("list: MaxKeys params must be positive integer <= 1000. (10022)");
      const r = native.list({
        prefix: options.prefix === undefined ? "" : String(options.prefix),
        delimiter: options.delimiter === undefined ? "" : String(options.delimiter),
        cursor: options.cursor === undefined ? "" : String(options.cursor),
        startAfter: options.startAfter === undefined ? "" : String(options.startAfter),
        limit,
      });
      const include = Array.isArray(options.include) ? options.include : [];
      const out = { objects: r.objects.map((m) => new R2Object(m, include)), delimitedPrefixes: r.delimitedPrefixes, truncated: r.truncated };
      if (r.truncated) out.cursor = r.cursor;
      return out;
    }
    async createMultipartUpload(key, options) {
      key = validUploadKey(key, "createMultipartUpload");
      options = options || {};
      const id = native.createUpload(key, httpMetadataOf(options.httpMetadata), options.customMetadata);
      return new R2MultipartUpload(key, id);
    }
    resumeMultipartUpload(key, uploadId) {
      return new R2MultipartUpload(String(key), String(uploadId));
    }
  }
  return new R2Bucket();
})
