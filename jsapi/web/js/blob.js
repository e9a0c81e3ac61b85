  // ---------------------------------------------------------------- Blob, File
  // A Blob holds immutable bytes and a type (blobData: [Uint8Array, type]).
  // Blob and File are plain constructor functions, not classes, so that a
  // call without `new` fails with workerd's message instead of goja's.
  const blobData = new WeakMap();
  // lazyGlobal defines a global that make() builds on first use (an
  // accessor until then), for the large interfaces most workers never
  // touch: the runtime's set-up stays small.
  function lazyGlobal(name, make) {
    Object.defineProperty(G, name, {
      get() {
        const v = make();
        defineGlobal(name, v);
        return v;
      },
      set(v) {
        defineGlobal(name, v);
      },
      configurable: true,
    });
  }
  // constructorLast moves a prototype's constructor after its methods, as
  // workerd's (jsg's) prototypes list them.
  function constructorLast(F) {
    delete F.prototype.constructor;
    Object.defineProperty(F.prototype, "constructor", { value: F, writable: true, configurable: true });
  }
  function illegalInvocation() {
    return new TypeError("Illegal invocation");
  }
  function blobOf(x) {
    const d = blobData.get(x);
    if (d === undefined) throw illegalInvocation();
    return d;
  }
  function isBlob(x) {
    return isObject(x) && blobData.has(x);
  }
  // blobType normalises a type: lower case if every char is printable
  // ASCII, else "" (File API, as workerd).
  function blobType(t) {
    for (let i = 0; i < t.length; i++) {
      const c = t.charCodeAt(i);
      if (c < 0x20 || c > 0x7e) return "";
    }
    return t.toLowerCase();
  }
  function utf8(s) {
    return new Uint8Array(native.utf8Encode(s));
  }
  // blobParts reads a BlobPart sequence into one Uint8Array.
  function blobParts(parts, ctor) {
    if (!isObject(parts) || typeof parts[Symbol.iterator] !== "function") {
      throw new TypeError(`Failed to construct '${ctor}': constructor parameter 1 is not of type 'Array'.`);
    }
    const chunks = [];
    let n = 0;
    for (const p of parts) {
      let b;
      if (isBlob(p)) b = blobData.get(p)[0];
      else {
        b = isObject(p) ? toU8(p) : undefined;
        if (b === undefined) b = utf8(String(p));
      }
      chunks.push(b);
      n += b.length;
    }
    if (chunks.length === 1) return chunks[0].slice();
    const out = new Uint8Array(n);
    let o = 0;
    for (const c of chunks) {
      out.set(c, o);
      o += c.length;
    }
    return out;
  }
  function blobOptions(options, ctor) {
    if (options === undefined || options === null) return "";
    if (!isObject(options)) throw new TypeError(`Failed to construct '${ctor}': constructor parameter ${ctor === "File" ? 3 : 2} is not of type 'Options'.`);
    if (options.endings !== undefined) throw new Error("The 'endings' field on 'Options' is not implemented.");
    return options.type === undefined ? "" : blobType(String(options.type));
  }
  function Blob(parts, options) {
    if (new.target === undefined) {
      throw new TypeError("Failed to construct 'Blob': Please use the 'new' operator, this object constructor cannot be called as a function.");
    }
    const bytes = parts === undefined ? new Uint8Array(0) : blobParts(parts, "Blob");
    blobData.set(this, [bytes, blobOptions(options, "Blob")]);
  }
  // newBlob makes a Blob (or a File with a name and lastModified) over bytes
  // it takes ownership of.
  function newBlob(bytes, type, name, lastModified) {
    setupBlobs();
    const b = Object.create(name === undefined ? Blob.prototype : File.prototype);
    blobData.set(b, name === undefined ? [bytes, type] : [bytes, type, name, lastModified]);
    return b;
  }
  function relIndex(v, size) {
    let i = Math.trunc(Number(v));
    if (Number.isNaN(i)) i = 0;
    return i < 0 ? Math.max(size + i, 0) : Math.min(i, size);
  }
  function File(bits, name, options) {
    if (new.target === undefined) {
      throw new TypeError("Failed to construct 'File': Please use the 'new' operator, this object constructor cannot be called as a function.");
    }
    if (name === undefined) throw new TypeError("Failed to construct 'File': constructor parameter 2 is not of type 'string'.");
    const bytes = bits === undefined ? new Uint8Array(0) : blobParts(bits, "File");
    const type = blobOptions(options, "File");
    let lastModified = Date.now();
    if (isObject(options) && options.lastModified !== undefined) lastModified = Number(options.lastModified);
    blobData.set(this, [bytes, type, String(name), lastModified]);
  }
  // setupBlobs fills Blob.prototype and File.prototype on first use (the
  // Blob, File and FormData globals, or a body made into a Blob).
  let blobsReady = false;
  function setupBlobs() {
    if (blobsReady) return;
    blobsReady = true;
    Object.defineProperties(Blob.prototype, {
      size: { get: function size() { return blobOf(this)[0].length; }, configurable: true, enumerable: true },
      type: { get: function type() { return blobOf(this)[1]; }, configurable: true, enumerable: true },
    });
    const blobMethods = {
      slice(start, end, contentType) {
        const b = blobOf(this)[0];
        const s = start === undefined ? 0 : relIndex(start, b.length);
        const e = end === undefined ? b.length : relIndex(end, b.length);
        return newBlob(b.slice(s, Math.max(s, e)), contentType === undefined ? "" : blobType(String(contentType)));
      },
      arrayBuffer() {
        try {
          return Promise.resolve(blobOf(this)[0].slice().buffer);
        } catch (e) {
          return Promise.reject(e);
        }
      },
      bytes() {
        try {
          return Promise.resolve(blobOf(this)[0].slice());
        } catch (e) {
          return Promise.reject(e);
        }
      },
      text() {
        try {
          return Promise.resolve(native.decode(blobOf(this)[0], "utf-8", false, false));
        } catch (e) {
          return Promise.reject(e);
        }
      },
      // stream() is a body stream over a copy of the bytes (whatever stream
      // Response bodies are).
      stream() {
        return new Response(blobOf(this)[0].slice()).body;
      },
    };
    for (const k of Object.keys(blobMethods)) {
      Object.defineProperty(Blob.prototype, k, { value: blobMethods[k], writable: true, configurable: true, enumerable: true });
    }
    Object.defineProperty(Blob.prototype, Symbol.toStringTag, { value: "Blob", configurable: true });
    constructorLast(Blob);
    Object.defineProperty(Blob, "length", { value: 0 });

    Object.setPrototypeOf(File, Blob);
    Object.setPrototypeOf(File.prototype, Blob.prototype);
    function fileOf(x) {
      const d = blobData.get(x);
      if (d === undefined || d.length < 4) throw illegalInvocation();
      return d;
    }
    Object.defineProperties(File.prototype, {
      name: { get: function name() { return fileOf(this)[2]; }, configurable: true, enumerable: true },
      lastModified: { get: function lastModified() { return fileOf(this)[3]; }, configurable: true, enumerable: true },
      [Symbol.toStringTag]: { value: "File", configurable: true },
    });
    Object.defineProperty(File, "length", { value: 0 });
    constructorLast(File);
  }
  hostType(File, "File"); // not serializable, as on workerd
  hostType(Blob, "Blob"); // serializable as workerd does (blob_clone.go)
  lazyGlobal("Blob", () => (setupBlobs(), Blob));
  lazyGlobal("File", () => (setupBlobs(), File));

  // blobBytes returns a Blob's bytes (shared: never written) or undefined.
  function blobBytes(x) {
    const d = isObject(x) ? blobData.get(x) : undefined;
    return d === undefined ? undefined : d[0];
  }
