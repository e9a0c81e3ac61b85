  // ---------------------------------------------------------------- crypto, misc
  const integerArrays = new Set(["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"]);
  const taTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
  function notSupported(name) {
    return function () {
      return Promise.reject(new DOMException(`crypto.subtle.${name}() is not supported by cellhost yet.`, "NotSupportedError"));
    };
  }
  const subtle = {};
  for (const m of ["encrypt", "decrypt", "sign", "verify", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"]) {
    subtle[m] = notSupported(m);
  }
  subtle.digest = function digest(algorithm, data) {
    try {
      const name = String(isObject(algorithm) ? algorithm.name : algorithm).toUpperCase();
      const bytes = toU8(data);
      if (bytes === undefined) throw new TypeError("Failed to execute 'digest' on 'SubtleCrypto': parameter 2 is not of type 'ArrayBuffer or ArrayBufferView'.");
      return Promise.resolve(native.digest(name, bytes));
    } catch (e) {
      return Promise.reject(e);
    }
  };
  subtle.timingSafeEqual = function timingSafeEqual(a, b) {
    const x = toU8(a);
    const y = toU8(b);
    if (x === undefined || y === undefined) throw new TypeError("timingSafeEqual() requires ArrayBuffer or ArrayBufferView arguments.");
    if (x.byteLength !== y.byteLength) throw new RangeError("Input buffers must have the same byte length.");
    let d = 0;
    for (let i = 0; i < x.length; i++) d |= x[i] ^ y[i];
    return d === 0;
  };
  const cryptoObj = {
    subtle,
    randomUUID: () => native.randomUUID(),
    getRandomValues(array) {
      const tag = ArrayBuffer.isView(array) ? taTag.call(array) : undefined;
      if (!integerArrays.has(tag)) {
        throw new DOMException("ArrayBufferView argument to getRandomValues() must be an integer-typed view.", "TypeMismatchError");
      }
      if (array.byteLength > 65536) {
        throw new DOMException(`getRandomValues() only accepts buffers of size <= 64K but provided ${array.byteLength} bytes.`, "QuotaExceededError");
      }
      native.fillRandom(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      return array;
    },
  };
  defineGlobal("crypto", cryptoObj);
  defineGlobal("structuredClone", function structuredClone(value, options) {
    if (arguments.length === 0) throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    if (options && options.transfer && options.transfer.length) {
      throw new DOMException("structuredClone() with a transfer list is not supported by cellhost yet.", "DataCloneError");
    }
    return native.structuredClone(value);
  });
  defineGlobal("queueMicrotask", function queueMicrotask(callback) {
    if (typeof callback !== "function") {
      throw new TypeError("Failed to execute 'queueMicrotask': parameter 1 is not of type 'Function'.");
    }
    Promise.resolve().then(() => callback());
  });
  defineGlobal("navigator", Object.freeze({ userAgent: "Cloudflare-Workers", hardwareConcurrency: 1, language: "en-US", languages: ["en-US"] }));
  defineGlobal("self", G);
  // workerd: performance.now() is Date.now() (the clock only moves across I/O) and timeOrigin is 0.
  defineGlobal("performance", Object.freeze({ timeOrigin: 0, now: () => Date.now(), toJSON: () => ({ timeOrigin: 0 }) }));

