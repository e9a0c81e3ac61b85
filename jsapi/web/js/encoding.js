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

  // Labels and names are the Encoding Standard's (native.encodingName:
  // golang.org/x/text's htmlindex). UTF-8, UTF-16 and windows-1252 have
  // their own decoders; the other legacy encodings go through decodeLegacy.
  const ownDecoders = new Set(["utf-8", "utf-16le", "utf-16be", "windows-1252"]);
  class TextDecoder {
    #encoding;
    #fatal;
    #ignoreBOM;
    #pending = null;
    #bomSeen = false;
    constructor(label = "utf-8", options = {}) {
      const enc = native.encodingName(String(label));
      if (enc === undefined || enc === "replacement") throw new RangeError(`"${label}" is not a valid encoding.`);
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
      if (!ownDecoders.has(this.#encoding)) {
        const [text, used] = native.decodeLegacy(bytes, this.#encoding, this.#fatal, !stream);
        if (used < bytes.length) this.#pending = bytes.slice(used);
        return text;
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
      // Only a valid prefix of a sequence waits for more bytes (the
      // Encoding Standard's UTF-8 decoder): a lead byte that cannot start
      // one, or a second byte outside its lead's range, is an error now.
      const need = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 1;
      if (need <= k) return 0;
      if (k >= 2) {
        const d = b[b.length - k + 1];
        const lo = c === 0xe0 ? 0xa0 : c === 0xf0 ? 0x90 : 0x80;
        const hi = c === 0xed ? 0x9f : c === 0xf4 ? 0x8f : 0xbf;
        if (d < lo || d > hi) return 0;
      }
      return k;
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

