  // ---------------------------------------------------------------- FormData
  // Entries are [name, value] pairs, value a string or a File, as workerd's
  // (api/form-data.c++): a Blob becomes a File named after the entry
  // unless a filename is given, and a File given a filename is copied.
  const formEntries = new WeakMap();
  function formOf(x) {
    const l = formEntries.get(x);
    if (l === undefined) throw illegalInvocation();
    return l;
  }
  function formName(method, name) {
    if (name === undefined) throw new TypeError(`Failed to execute '${method}' on 'FormData': parameter 1 is not of type 'string'.`);
    return String(name);
  }
  function formValue(method, name, value, filename, n) {
    if (n < 2 || value === undefined) {
      throw new TypeError(`Failed to execute '${method}' on 'FormData': parameter 2 is not of type 'File or Blob or string'.`);
    }
    const d = isObject(value) ? blobData.get(value) : undefined;
    if (d === undefined) return String(value);
    if (d.length === 4 && filename === undefined) return value;
    return newBlob(d[0], d[1], filename === undefined ? name : String(filename), Date.now());
  }
  function FormData() {
    if (new.target === undefined) {
      throw new TypeError("Failed to construct 'FormData': Please use the 'new' operator, this object constructor cannot be called as a function.");
    }
    formEntries.set(this, []);
  }
  // formIterator makes workerd's EntryIterator/KeyIterator/ValueIterator:
  // live over the list, by index.
  const formIterProtos = {};
  function formIterator(kind, list) {
    const it = Object.create(formIterProtos[kind]);
    Object.defineProperty(it, INTERNAL, { value: [list, 0] });
    return it;
  }
  // setupFormData fills FormData.prototype (and the iterators' prototypes)
  // on first use.
  let formDataReady = false;
  function setupFormData() {
    if (formDataReady) return;
    formDataReady = true;
    for (const kind of ["Entry", "Key", "Value"]) {
      const proto = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
      Object.defineProperty(proto, "next", {
        value: function next() {
          const st = this[INTERNAL];
          if (st === undefined) throw illegalInvocation();
          const l = st[0];
          if (st[1] >= l.length) return { value: undefined, done: true };
          const e = l[st[1]++];
          return { value: kind === "Entry" ? [e[0], e[1]] : kind === "Key" ? e[0] : e[1], done: false };
        },
        writable: true, configurable: true,
      });
      Object.defineProperty(proto, Symbol.toStringTag, { value: kind + "Iterator", configurable: true });
      formIterProtos[kind] = proto;
    }
    const formMethods = {
      append(name, value, filename) {
        const l = formOf(this);
        const n = formName("append", name);
        l.push([n, formValue("append", n, value, filename, arguments.length)]);
      },
      delete(name) {
        const l = formOf(this);
        const n = formName("delete", name);
        let j = 0;
        for (let i = 0; i < l.length; i++) if (l[i][0] !== n) l[j++] = l[i];
        l.length = j;
      },
      get(name) {
        const l = formOf(this);
        const n = formName("get", name);
        for (const e of l) if (e[0] === n) return e[1];
        return null;
      },
      getAll(name) {
        const l = formOf(this);
        const n = formName("getAll", name);
        const out = [];
        for (const e of l) if (e[0] === n) out.push(e[1]);
        return out;
      },
      has(name) {
        const l = formOf(this);
        const n = formName("has", name);
        for (const e of l) if (e[0] === n) return true;
        return false;
      },
      set(name, value, filename) {
        const l = formOf(this);
        const n = formName("set", name);
        const v = formValue("set", n, value, filename, arguments.length);
        const i = l.findIndex((e) => e[0] === n);
        if (i < 0) {
          l.push([n, v]);
          return;
        }
        l[i] = [n, v];
        let j = i + 1;
        for (let k = i + 1; k < l.length; k++) if (l[k][0] !== n) l[j++] = l[k];
        l.length = j;
      },
      entries() {
        return formIterator("Entry", formOf(this));
      },
      keys() {
        return formIterator("Key", formOf(this));
      },
      values() {
        return formIterator("Value", formOf(this));
      },
      forEach(callback, thisArg) {
        const l = formOf(this);
        if (typeof callback !== "function") {
          throw new TypeError("Failed to execute 'forEach' on 'FormData': parameter 1 is not of type 'Function'.");
        }
        for (let i = 0; i < l.length; i++) callback.call(thisArg, l[i][1], l[i][0], this);
      },
    };
    for (const k of Object.keys(formMethods)) {
      Object.defineProperty(FormData.prototype, k, { value: formMethods[k], writable: true, configurable: true, enumerable: true });
    }
    Object.defineProperty(FormData.prototype, Symbol.iterator, { value: FormData.prototype.entries, writable: true, configurable: true });
    Object.defineProperty(FormData.prototype, Symbol.toStringTag, { value: "FormData", configurable: true });
    Object.defineProperty(FormData, "length", { value: 0 });
    constructorLast(FormData);
  }
  hostType(FormData, "FormData"); // not serializable, as on workerd
  lazyGlobal("FormData", () => (setupFormData(), FormData));

  // formDispositionValue escapes a name or filename as workerd (and
  // Chrome) do in Content-Disposition.
  function formDispositionValue(s) {
    if (s.endsWith("\\")) throw new TypeError("Name or filename can't end with backslash");
    return s.replace(/["\n\\]/g, (c) => (c === '"' ? "%22" : c === "\n" ? "%0A" : "\\\\"));
  }
  const boundaryChars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  // serializeForm returns a FormData's multipart/form-data bytes and their
  // content type, with a random 32-character boundary.
  function serializeForm(fd) {
    const l = formOf(fd);
    const rnd = new Uint8Array(32);
    native.fillRandom(rnd);
    let boundary = "";
    for (const r of rnd) boundary += boundaryChars[r % boundaryChars.length];
    const chunks = [];
    let text = "";
    for (const [name, value] of l) {
      text += "--" + boundary + '\r\nContent-Disposition: form-data; name="' + formDispositionValue(name);
      const d = typeof value === "string" ? undefined : blobData.get(value);
      if (d === undefined) {
        text += '"\r\n\r\n' + value + "\r\n";
        continue;
      }
      text += '"; filename="' + formDispositionValue(d[2]) + '"\r\nContent-Type: ' + (d[1] === "" ? "application/octet-stream" : d[1]) + "\r\n\r\n";
      chunks.push(utf8(text), d[0]);
      text = "\r\n";
    }
    text += "--" + boundary + "--";
    chunks.push(utf8(text));
    let n = 0;
    for (const c of chunks) n += c.length;
    const out = new Uint8Array(n);
    let o = 0;
    for (const c of chunks) {
      out.set(c, o);
      o += c.length;
    }
    return { bytes: out, contentType: "multipart/form-data; boundary=" + boundary };
  }

  // ---------------------------------------------------------------- body hooks
  // The Body code (body.js) calls these three for Blob, File and FormData
  // bodies, so that the body representation can change without them.
  //
  // bodyInitOf returns { bytes, contentType } for a Blob, File or FormData
  // body init (contentType null when it sets none), or undefined.
  function bodyInitOf(init) {
    const d = blobData.get(init);
    if (d !== undefined) return { bytes: d[0], contentType: d[1] === "" ? null : d[1] };
    if (formEntries.has(init)) return serializeForm(init);
    return undefined;
  }
  // blobFromBody makes body.blob()'s Blob from the body's bytes (owned).
  // The type is the content type as workerd's MimeType serializes it:
  // essence and parameter names in lower case, values as they were.
  function blobFromBody(bytes, contentType) {
    if (contentType === null) return newBlob(bytes, "");
    const parts = contentType.split(";");
    let t = parts[0].trim().toLowerCase();
    for (let i = 1; i < parts.length; i++) {
      const p = parts[i].trim();
      const eq = p.indexOf("=");
      if (eq > 0) t += ";" + p.slice(0, eq).trim().toLowerCase() + "=" + p.slice(eq + 1).trim();
    }
    return newBlob(bytes, blobType(t) === "" ? "" : t);
  }
  // formDataFromBody makes body.formData()'s FormData from the body's bytes.
  function formDataFromBody(bytes, contentType) {
    const flat = native.formDataParse(bytes, contentType === null ? "" : contentType);
    setupFormData();
    const fd = new FormData();
    const l = formEntries.get(fd);
    const now = Date.now();
    for (let i = 0; i < flat.length; i += 4) {
      l.push([flat[i], flat[i + 2] === null ? flat[i + 1] : newBlob(new Uint8Array(flat[i + 1]), flat[i + 3], flat[i + 2], now)]);
    }
    return fd;
  }
