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
  hostType(TextEncoder, "TextEncoder"); // not serializable, as on workerd
  defineGlobal("TextEncoder", TextEncoder);
  hostType(TextDecoder, "TextDecoder"); // not serializable, as on workerd
  defineGlobal("TextDecoder", TextDecoder);

  // ---------------------------------------------------------------- atob / btoa
  defineGlobal("atob", function atob(data) {
    return arguments.length === 0 ? native.atob() : native.atob(String(data));
  });
  defineGlobal("btoa", function btoa(data) {
    return arguments.length === 0 ? native.btoa() : native.btoa(String(data));
  });

