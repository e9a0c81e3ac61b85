  // ---------------------------------------------------------------- streams
  // ReadableStream (default and BYOB readers, pipeTo, pipeThrough, tee,
  // async iteration, ReadableStream.from), WritableStream, TransformStream
  // and the queuing strategies are web-streams-polyfill's (vendor/build.sh),
  // handed over as native.streams. The transform streams workerd adds are
  // built on them here; compression runs on Go's compress packages
  // (compress.go).
  const WS = native.streams;
  const ReadableStream = WS.ReadableStream;
  const TransformStream = WS.TransformStream;
  for (const k of Object.keys(WS)) defineGlobal(k, WS[k]);
  let fixedLengthOf; // (stream) → its expected length, or undefined

  const NOT_BYTES = "This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.";
  function chunkBytes(chunk) {
    const u8 = toU8(chunk);
    if (u8 === undefined) throw new TypeError(NOT_BYTES);
    return u8;
  }

  // IdentityTransformStream passes bytes through unchanged.
  class IdentityTransformStream extends TransformStream {
    constructor(options) {
      super({
        transform(chunk, c) {
          const u8 = chunkBytes(chunk);
          if (u8.byteLength > 0) c.enqueue(u8.slice());
        },
      });
    }
  }
  defineGlobal("IdentityTransformStream", IdentityTransformStream);

  // FixedLengthStream is an IdentityTransformStream that must see exactly
  // expectedLength bytes.
  class FixedLengthStream extends TransformStream {
    #length;
    constructor(expectedLength, options) {
      if (typeof expectedLength !== "number" && typeof expectedLength !== "bigint") {
        throw new TypeError("Failed to construct 'FixedLengthStream': parameter 1 is not of type 'integer'.");
      }
      const n = Number(expectedLength);
      if (!(n >= 0) || n > Number.MAX_SAFE_INTEGER) throw new TypeError("FixedLengthStream requires a non-negative integer expected length.");
      let seen = 0;
      super({
        transform(chunk, c) {
          const u8 = chunkBytes(chunk);
          seen += u8.byteLength;
          if (seen > n) throw new TypeError("Attempt to write too many bytes through a FixedLengthStream.");
          if (u8.byteLength > 0) c.enqueue(u8.slice());
        },
        flush() {
          if (seen < n) throw new TypeError("FixedLengthStream did not see all expected bytes before close().");
        },
      });
      this.#length = n;
    }
    static {
      fixedLengthOf = (s) => (isObject(s) && #length in s ? s.#length : undefined);
    }
  }
  defineGlobal("FixedLengthStream", FixedLengthStream);

  class TextEncoderStream extends TransformStream {
    constructor() {
      const enc = new TextEncoder();
      let high = ""; // a lone high surrogate at the end of the last chunk
      super({
        transform(chunk, c) {
          let s = high + String(chunk);
          high = "";
          const last = s.charCodeAt(s.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            high = s[s.length - 1];
            s = s.slice(0, -1);
          }
          if (s.length > 0) c.enqueue(enc.encode(s));
        },
        flush(c) {
          if (high !== "") c.enqueue(new Uint8Array([0xef, 0xbf, 0xbd]));
        },
      });
    }
    get encoding() { return "utf-8"; }
  }
  defineGlobal("TextEncoderStream", TextEncoderStream);

  class TextDecoderStream extends TransformStream {
    #dec;
    constructor(label = "utf-8", options = {}) {
      const dec = new TextDecoder(label, options);
      super({
        transform(chunk, c) {
          const u8 = toU8(chunk);
          if (u8 === undefined) throw new TypeError("Failed to execute 'decode' on 'TextDecoder': parameter 1 is not of type 'ArrayBuffer or ArrayBufferView'.");
          const s = dec.decode(u8, { stream: true });
          if (s.length > 0) c.enqueue(s);
        },
        flush(c) {
          const s = dec.decode();
          if (s.length > 0) c.enqueue(s);
        },
      });
      this.#dec = dec;
    }
    get encoding() { return this.#dec.encoding; }
    get fatal() { return this.#dec.fatal; }
    get ignoreBOM() { return this.#dec.ignoreBOM; }
  }
  defineGlobal("TextDecoderStream", TextDecoderStream);

  function zFormat(format) {
    const f = String(format);
    if (f !== "gzip" && f !== "deflate" && f !== "deflate-raw") {
      throw new TypeError("The compression format must be either 'deflate', 'deflate-raw' or 'gzip'.");
    }
    return f;
  }
  function zTransformer(format, decompress) {
    const h = native.zNew(zFormat(format), decompress);
    return {
      transform(chunk, c) {
        const out = new Uint8Array(native.zWrite(h, chunkBytes(chunk)));
        if (out.byteLength > 0) c.enqueue(out);
      },
      flush(c) {
        const out = new Uint8Array(native.zWrite(h, null));
        if (out.byteLength > 0) c.enqueue(out);
      },
      cancel() {
        try {
          native.zWrite(h, null);
        } catch {}
      },
    };
  }
  class CompressionStream extends TransformStream {
    constructor(format) {
      super(zTransformer(format, false));
    }
  }
  class DecompressionStream extends TransformStream {
    constructor(format) {
      super(zTransformer(format, true));
    }
  }
  defineGlobal("CompressionStream", CompressionStream);
  defineGlobal("DecompressionStream", DecompressionStream);
