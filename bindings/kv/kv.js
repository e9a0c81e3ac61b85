// The KvNamespace object of one binding. native does the storage (kv/bind.go).
(function (native, binding) {
  "use strict";
  const TYPES = ["text", "arrayBuffer", "json", "stream"];
  // responseType is the type a get asks for. workerd checks it only once a
  // value was found: a missing key answers null whatever the type.
  function responseType(options) {
    let type = "text";
    if (typeof options === "string") type = options;
    else if (options !== undefined && options !== null && options.type !== undefined) type = options.type;
    return type;
  }
  function checkType(type) {
    if (!TYPES.includes(type)) {
      throw new TypeError('Unknown response type. Possible types are "text", "arrayBuffer", "json", and "stream".');
    }
  }
  // integer converts a number option as workerd does: truncated, NaN is 0.
  function integer(v) {
    const n = Math.trunc(Number(v));
    return Number.isNaN(n) ? 0 : n;
  }
  function validKey(key, op) {
    key = String(key);
    if (key === "") throw new TypeError("Key name cannot be empty.");
    if (key === ".") throw new TypeError('"." is not allowed as a key name.');
    if (key === "..") throw new TypeError('".." is not allowed as a key name.');
    const len = new TextEncoder().encode(key).length;
    if (len > 512) {
      throw new Error("KV " + op + " failed: 414 UTF-8 encoded length of " + len + " exceeds key length limit of 512.");
    }
    return key;
  }
  function read(key, type) {
    const r = native.get(key, type !== "arrayBuffer" && type !== "stream");
    if (r === null) return null;
    checkType(type);
    // "stream": the value's bytes as a ReadableStream (read from storage
    // at once, as values are at most 25 MiB).
    const value = type === "json" ? JSON.parse(r.value) : type === "stream" ? new Response(r.value).body : r.value;
    return { value, metadata: r.metadata === null ? null : JSON.parse(r.metadata) };
  }
  function bytesOf(value) {
    if (typeof value === "string") return value;
    if (value instanceof ArrayBuffer) return new Uint8Array(value);
    if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    throw new TypeError("KV put() accepts only strings, ArrayBuffers, ArrayBufferViews, and ReadableStreams as values.");
  }
  class KvNamespace {
    async get(key, options) {
      const type = responseType(options);
      if (Array.isArray(key)) {
        const out = new Map();
        for (const k of key) {
          const r = read(validKey(k, "GET"), type);
          out.set(k, r === null ? null : r.value);
        }
        return out;
      }
      const r = read(validKey(key, "GET"), type);
      return r === null ? null : r.value;
    }
    async getWithMetadata(key, options) {
      const type = responseType(options);
      if (Array.isArray(key)) {
        const out = new Map();
        for (const k of key) {
          const r = read(validKey(k, "GET"), type);
          out.set(k, r === null ? null : { value: r.value, metadata: r.metadata });
        }
        return out;
      }
      const r = read(validKey(key, "GET"), type);
      if (r === null) return { value: null, metadata: null, cacheStatus: null };
      return { value: r.value, metadata: r.metadata, cacheStatus: null };
    }
    async put(key, value, options) {
      key = validKey(key, "PUT");
      // A ReadableStream (a request's body) is read to its end first, as
      // workerd reads it before the write.
      if (typeof ReadableStream === "function" && value instanceof ReadableStream) {
        value = new Uint8Array(await new Response(value).arrayBuffer());
      }
      const bytes = bytesOf(value);
      let expiration = 0;
      let metadata = "";
      if (options !== undefined && options !== null) {
        if (options.expiration !== undefined) {
          expiration = integer(options.expiration);
          if (!(expiration > native.now())) {
            throw new Error("KV PUT failed: 400 Invalid expiration of " + expiration + ". Please specify integer greater than the current number of seconds since the UNIX epoch.");
          }
        }
        if (options.expirationTtl !== undefined) {
          const ttl = integer(options.expirationTtl);
          if (ttl <= 0) {
            throw new Error("KV PUT failed: 400 Invalid expiration_ttl of " + ttl + ". Please specify integer greater than 0.");
          }
          if (ttl < 60) {
            throw new Error("KV PUT failed: 400 Invalid expiration_ttl of " + ttl + ". Expiration TTL must be at least 60.");
          }
          expiration = native.now() + ttl;
        }
        if (options.metadata !== undefined && options.metadata !== null) {
          metadata = JSON.stringify(options.metadata);
          const len = new TextEncoder().encode(metadata).length;
          if (len > 1024) {
            throw new Error("KV PUT failed: 413 Metadata length of " + len + " exceeds limit of 1024.");
          }
        }
      }
      native.put(key, bytes, expiration, metadata);
    }
    async delete(key) {
      native.delete(validKey(key, "DELETE"));
    }
    async list(options) {
      let prefix = "", cursor = "", limit = 1000;
      if (options !== undefined && options !== null) {
        if (options.prefix !== undefined && options.prefix !== null) prefix = String(options.prefix);
        if (options.cursor !== undefined && options.cursor !== null) cursor = String(options.cursor);
        if (options.limit !== undefined) {
          // workerd: a limit of 0 or less is no limit (1000); more than 1000 fails.
          limit = integer(options.limit);
          if (limit > 1000) {
            throw new Error("KV GET failed: 400 Invalid key_count_limit of " + limit + ". Please specify an integer less than 1000.");
          }
          if (limit <= 0) limit = 1000;
        }
      }
      const r = native.list(prefix, cursor, limit);
      const keys = r.keys.map((k) => {
        const o = { name: k.name };
        if (k.expiration !== undefined) o.expiration = k.expiration;
        if (k.metadata !== undefined) o.metadata = JSON.parse(k.metadata);
        return o;
      });
      const out = { keys, list_complete: r.cursor === "" };
      if (r.cursor !== "") out.cursor = r.cursor;
      out.cacheStatus = null;
      return out;
    }
  }
  return new KvNamespace();
})
