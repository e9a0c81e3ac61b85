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
  hostType(ReadableStream, "ReadableStream"); // only RPC carries it (http_clone.go)
  // fixedLengths maps a FixedLengthStream's readable side to its length: a
  // body made of it is sent with that Content-Length.
  const fixedLengths = new WeakMap();

  const NOT_BYTES = "This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.";
  const utf8Encoder = new TextEncoder();
  function chunkBytes(chunk) {
    const u8 = toU8(chunk);
    if (u8 === undefined) throw new TypeError(NOT_BYTES);
    return u8;
  }
  // identityBytes: what an IdentityTransformStream takes, as workerd does:
  // bytes, or a string as its UTF-8 encoding.
  function identityBytes(chunk) {
    return typeof chunk === "string" ? utf8Encoder.encode(chunk) : chunkBytes(chunk);
  }

  // IdentityTransformStream passes bytes through unchanged.
  class IdentityTransformStream extends TransformStream {
    constructor(options) {
      super({
        transform(chunk, c) {
          const u8 = identityBytes(chunk);
          if (u8.byteLength > 0) c.enqueue(u8.slice());
        },
      });
    }
  }
  defineGlobal("IdentityTransformStream", IdentityTransformStream);

  // FixedLengthStream is an IdentityTransformStream that must see exactly
  // expectedLength bytes. As on workerd, a wrong length errors the readable
  // side while the write or close itself succeeds, and a write settles once
  // its bytes were read: so its two sides are a byte stream and a sink of
  // their own (the getters below shadow TransformStream's).
  class FixedLengthStream extends TransformStream {
    #readable;
    #writable;
    constructor(expectedLength, options) {
      if (typeof expectedLength !== "number" && typeof expectedLength !== "bigint") {
        throw new TypeError("Failed to construct 'FixedLengthStream': parameter 1 is not of type 'integer'.");
      }
      const n = Number(expectedLength);
      if (!(n >= 0) || n > Number.MAX_SAFE_INTEGER) throw new TypeError("FixedLengthStream requires a non-negative integer expected length.");
      super();
      let seen = 0;
      let rc;
      let waiting = null; // resolves the write waiting for a read
      const release = () => {
        const w = waiting;
        waiting = null;
        if (w !== null) w();
      };
      this.#readable = new ReadableStream({
        type: "bytes",
        start(c) {
          rc = c;
        },
        pull: release,
        cancel: release,
      });
      fixedLengths.set(this.#readable, n);
      this.#writable = new WritableStream({
        write(chunk) {
          const u8 = identityBytes(chunk);
          seen += u8.byteLength;
          if (seen > n) {
            rc.error(new TypeError("Attempt to write too many bytes through a FixedLengthStream."));
            return;
          }
          if (u8.byteLength === 0) return;
          rc.enqueue(u8.slice());
          if (rc.desiredSize <= 0) return new Promise((resolve) => (waiting = resolve));
        },
        close() {
          if (seen < n) rc.error(new TypeError("FixedLengthStream did not see all expected bytes before close()."));
          else rc.close();
        },
        abort(reason) {
          rc.error(reason);
        },
      });
    }
    get readable() { return this.#readable; }
    get writable() { return this.#writable; }
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
