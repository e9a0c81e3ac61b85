  // ---------------------------------------------------------------- crypto, misc
  const integerArrays = new Set(["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array", "Int32Array", "Uint32Array", "BigInt64Array", "BigUint64Array"]);
  const taTag = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;
  // crypto.subtle: arguments are checked and normalised here, keys and
  // algorithms live in Go (subtle.go, subtle_keys.go, subtle_cipher.go).
  const keySlot = new WeakMap();
  class CryptoKey {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
  }
  brandHost(CryptoKey, "CryptoKey"); // not serializable, as in workerd
  function makeKey(handle) {
    const k = Object.create(CryptoKey.prototype);
    keySlot.set(k, handle);
    const [type, extractable, algorithm, usages] = native.keyInfo(handle);
    // workerd's CryptoKey members are own, enumerable, read-only properties in this order.
    for (const [name, value] of [["usages", usages], ["algorithm", algorithm], ["extractable", extractable], ["type", type]]) {
      Object.defineProperty(k, name, { value, writable: false, enumerable: true, configurable: true });
    }
    return k;
  }
  function keyOf(method, n, key) {
    const h = isObject(key) ? keySlot.get(key) : undefined;
    if (h === undefined) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': parameter ${n} is not of type 'CryptoKey'.`);
    return h;
  }
  function bufferArg(method, n, x) {
    const u = toU8(x);
    if (u === undefined) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': parameter ${n} is not of type 'BufferSource'.`);
    return u;
  }
  function usagesArg(method, n, x) {
    if (!isObject(x) || typeof x[Symbol.iterator] !== "function" || typeof x === "string") {
      throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': parameter ${n} is not of type 'Array'.`);
    }
    return Array.from(x, String);
  }
  const bufferMembers = ["iv", "additionalData", "salt", "info", "label", "counter", "publicExponent"];
  const numberMembers = ["length", "tagLength", "saltLength", "iterations", "modulusLength"];
  // normAlg turns an AlgorithmIdentifier into a plain object: buffers copied
  // to Uint8Arrays, hash reduced to its name, public to the key's handle.
  function normAlg(method, alg, dict) {
    if (alg === undefined || alg === null) {
      // workerd's dictionary conversion (the C++ type name is part of its text)
      throw new TypeError(`Cannot initialize N7workerd3api12SubtleCrypto${dict.length}${dict}E with required members from an undefined or null value.`);
    }
    if (!isObject(alg)) return { name: String(alg) };
    const out = { name: String(alg.name) };
    if (alg.hash !== undefined) out.hash = String(isObject(alg.hash) ? alg.hash.name : alg.hash);
    if (alg.namedCurve !== undefined) out.namedCurve = String(alg.namedCurve);
    for (const m of numberMembers) {
      if (alg[m] !== undefined && alg[m] !== null) out[m] = Number(alg[m]);
    }
    for (const m of bufferMembers) {
      if (alg[m] === undefined) continue;
      const u = toU8(alg[m]);
      if (u === undefined) throw new TypeError(`Incorrect type for the '${m}' field on '${dict}': the provided value is not of type 'BufferSource'.`);
      out[m] = u.slice();
    }
    if (alg.public !== undefined) {
      const h = isObject(alg.public) ? keySlot.get(alg.public) : undefined;
      if (h === undefined) throw new TypeError(`Incorrect type for the 'public' field on '${dict}': the provided value is not of type 'CryptoKey'.`);
      out.public = h;
    }
    return out;
  }
  // algArg is normAlg for a method's parameter n, which must be present.
  function algArg(method, args, n, dict) {
    if (args.length < n) throw new TypeError(`Failed to execute '${method}' on 'SubtleCrypto': parameter ${n} is not of type 'string or ${dict}'.`);
    return normAlg(method, args[n - 1], dict);
  }
  function promised(f) {
    return function (...args) {
      try {
        return Promise.resolve(f.apply(this, args));
      } catch (e) {
        return Promise.reject(e);
      }
    };
  }
  function importSync(method, format, keyData, algorithm, extractable, usages) {
    format = String(format);
    if (format === "jwk") {
      if (keyData === undefined || keyData === null) {
        throw new TypeError("Cannot initialize N7workerd3api12SubtleCrypto10JsonWebKeyE with required members from an undefined or null value.");
      }
      if (!isObject(keyData) || ArrayBuffer.isView(keyData) || isArrayBuffer(keyData)) {
        throw new TypeError('Import data provided for "jwk" import format must be a JsonWebKey.');
      }
      const jwk = { kty: String(keyData.kty) };
      for (const k of ["use", "alg", "crv", "x", "y", "d", "n", "e", "p", "q", "dp", "dq", "qi", "k"]) {
        if (keyData[k] !== undefined) jwk[k] = String(keyData[k]);
      }
      if (keyData.key_ops !== undefined) jwk.key_ops = Array.from(keyData.key_ops, String);
      if (keyData.ext !== undefined) jwk.ext = Boolean(keyData.ext);
      if (keyData.oth !== undefined) jwk.oth = "present";
      keyData = jwk;
    } else if (format === "raw" || format === "pkcs8" || format === "spki") {
      const u = toU8(keyData);
      if (u === undefined) throw new TypeError("Import data provided for buffer-based import formats must be a buffer source.");
      keyData = u;
    }
    return makeKey(native.importKey(format, keyData, normAlg(method, algorithm, "ImportKeyAlgorithm"), Boolean(extractable), usages));
  }

  // For node:crypto's KeyObject.from and toCryptoKey (subtle_bridge.go).
  internals.cryptoKeyHandle = (k) => (isObject(k) ? keySlot.get(k) : undefined);
  internals.importCryptoKey = (format, data, algorithm, extractable, usages) =>
    importSync("importKey", format, data, algorithm, extractable, usagesArg("importKey", 5, usages));

  class SubtleCrypto {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
  }
  const subtle = Object.create(SubtleCrypto.prototype);
  const methods = {
    encrypt(algorithm, key, data) {
      const alg = algArg("encrypt", arguments, 1, "EncryptAlgorithm");
      const h = keyOf("encrypt", 2, key);
      const d = bufferArg("encrypt", 3, data);
      return native.encrypt(alg, h, d);
    },
    decrypt(algorithm, key, data) {
      const alg = algArg("decrypt", arguments, 1, "EncryptAlgorithm");
      const h = keyOf("decrypt", 2, key);
      const d = bufferArg("decrypt", 3, data);
      return native.decrypt(alg, h, d);
    },
    sign(algorithm, key, data) {
      const alg = algArg("sign", arguments, 1, "SignAlgorithm");
      const h = keyOf("sign", 2, key);
      const d = bufferArg("sign", 3, data);
      return native.sign(alg, h, d);
    },
    verify(algorithm, key, signature, data) {
      const alg = algArg("verify", arguments, 1, "SignAlgorithm");
      const h = keyOf("verify", 2, key);
      const s = bufferArg("verify", 3, signature);
      const d = bufferArg("verify", 4, data);
      return native.verify(alg, h, s, d);
    },
    digest(algorithm, data) {
      const name = algArg("digest", arguments, 1, "HashAlgorithm").name.toUpperCase();
      const bytes = toU8(data);
      if (bytes === undefined) throw new TypeError("Failed to execute 'digest' on 'SubtleCrypto': parameter 2 is not of type 'BufferSource'.");
      return native.digest(name, bytes);
    },
    generateKey(algorithm, extractable, keyUsages) {
      const alg = algArg("generateKey", arguments, 1, "GenerateKeyAlgorithm");
      const usages = usagesArg("generateKey", 3, keyUsages);
      const r = native.generateKey(alg, Boolean(extractable), usages);
      if (Array.isArray(r)) return { publicKey: makeKey(r[0]), privateKey: makeKey(r[1]) };
      return makeKey(r);
    },
    deriveKey(algorithm, baseKey, derivedKeyAlgorithm, extractable, keyUsages) {
      const alg = algArg("deriveKey", arguments, 1, "DeriveKeyAlgorithm");
      const h = keyOf("deriveKey", 2, baseKey);
      const dalg = algArg("deriveKey", arguments, 3, "ImportKeyAlgorithm");
      const usages = usagesArg("deriveKey", 5, keyUsages);
      native.validate(alg, h, "deriveKey");
      const length = native.keyLength(dalg);
      const bits = native.deriveBits(alg, h, length, true);
      return importSync("deriveKey", "raw", bits, derivedKeyAlgorithm, extractable, usages);
    },
    deriveBits(algorithm, baseKey, length) {
      const alg = algArg("deriveBits", arguments, 1, "DeriveKeyAlgorithm");
      const h = keyOf("deriveBits", 2, baseKey);
      let len = null;
      if (length !== undefined && length !== null) {
        len = Number(length);
        if (len < 0) throw new TypeError("deriveBits length must be an unsigned long integer.");
      }
      return native.deriveBits(alg, h, len, false);
    },
    importKey(format, keyData, algorithm, extractable, keyUsages) {
      const usages = usagesArg("importKey", 5, keyUsages);
      return importSync("importKey", format, keyData, algorithm, extractable, usages);
    },
    exportKey(format, key) {
      return native.exportKey(String(format), keyOf("exportKey", 2, key));
    },
    wrapKey(format, key, wrappingKey, wrapAlgorithm) {
      const kh = keyOf("wrapKey", 2, key);
      const wh = keyOf("wrapKey", 3, wrappingKey);
      const alg = algArg("wrapKey", arguments, 4, "EncryptAlgorithm");
      native.validate(alg, wh, "wrapKey");
      let bytes = native.exportKey(String(format), kh);
      if (!isArrayBuffer(bytes)) bytes = new TextEncoder().encode(jsonStringify(bytes));
      return native.wrap(alg, wh, new Uint8Array(bytes));
    },
    unwrapKey(format, wrappedKey, unwrappingKey, unwrapAlgorithm, unwrappedKeyAlgorithm, extractable, keyUsages) {
      const w = bufferArg("unwrapKey", 2, wrappedKey);
      const uh = keyOf("unwrapKey", 3, unwrappingKey);
      const alg = algArg("unwrapKey", arguments, 4, "EncryptAlgorithm");
      algArg("unwrapKey", arguments, 5, "ImportKeyAlgorithm");
      const usages = usagesArg("unwrapKey", 7, keyUsages);
      native.validate(alg, uh, "unwrapKey");
      const bytes = native.unwrap(alg, uh, w);
      let data = new Uint8Array(bytes);
      if (String(format) === "jwk") {
        data = jsonParse(new TextDecoder().decode(data));
        if (!isObject(data) || data.kty === undefined) throw new DOMException('Missing "kty" field or corrupt JSON unwrapping key?', "DataError");
      }
      return importSync("unwrapKey", format, data, unwrappedKeyAlgorithm, extractable, usages);
    },
  };
  for (const [name, f] of Object.entries(methods)) {
    const inner = promised(f);
    const wrapped = function (...args) {
      if (this !== subtle) throw new TypeError(illegalInvocationText);
      return inner.apply(this, args);
    };
    Object.defineProperty(wrapped, "name", { value: name });
    Object.defineProperty(SubtleCrypto.prototype, name, { value: wrapped, writable: true, enumerable: true, configurable: true });
  }
  // workerd lists constructor after the methods.
  delete SubtleCrypto.prototype.constructor;
  SubtleCrypto.prototype.timingSafeEqual = function timingSafeEqual(a, b) {
    const x = toU8(a);
    const y = toU8(b);
    if (x === undefined || y === undefined) throw new TypeError("timingSafeEqual() requires ArrayBuffer or ArrayBufferView arguments.");
    if (x.byteLength !== y.byteLength) throw new RangeError("Input buffers must have the same byte length.");
    let d = 0;
    for (let i = 0; i < x.length; i++) d |= x[i] ^ y[i];
    return d === 0;
  };
  class Crypto {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
  }
  // workerd's text for a method called on something else than its object
  const illegalInvocationText = "Illegal invocation: function called with incorrect `this` reference. See https://developers.cloudflare.com/workers/observability/errors/#illegal-invocation-errors for details.";
  const cryptoObj = Object.create(Crypto.prototype);
  function checkCrypto(self) {
    if (self !== cryptoObj) throw new TypeError(illegalInvocationText);
  }
  // Members live on the prototypes, as in workerd (crypto has no own keys).
  Object.defineProperties(Crypto.prototype, {
    subtle: {
      get() {
        checkCrypto(this);
        return subtle;
      },
      enumerable: true,
      configurable: true,
    },
    randomUUID: {
      value: function randomUUID() {
        checkCrypto(this);
        return native.randomUUID();
      },
      writable: true,
      enumerable: true,
      configurable: true,
    },
    getRandomValues: {
      value: function getRandomValues(array) {
        checkCrypto(this);
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
      writable: true,
      enumerable: true,
      configurable: true,
    },
  });
  brandHost(Crypto, "Crypto");
  brandHost(SubtleCrypto, "SubtleCrypto");
  Object.defineProperty(SubtleCrypto.prototype, "constructor", { value: SubtleCrypto, writable: true, configurable: true });
  defineGlobal("crypto", cryptoObj);
  // crypto.DigestStream (workerd's): a WritableStream whose digest promise
  // resolves with the hash of everything written once it closes. It is
  // built on first use, over whichever WritableStream the runtime has.
  let DigestStream;
  Object.defineProperty(Crypto.prototype, "DigestStream", {
    enumerable: true,
    configurable: true,
    get() {
      if (DigestStream === undefined && typeof G.WritableStream === "function") {
        DigestStream = class DigestStream extends G.WritableStream {
          constructor(algorithm) {
            const name = String(isObject(algorithm) ? algorithm.name : algorithm).toUpperCase();
            const h = native.digestNew(name);
            let resolve, reject;
            const digest = new Promise((res, rej) => {
              resolve = res;
              reject = rej;
            });
            digest.catch(() => {});
            super({
              write(chunk) {
                const u = typeof chunk === "string" ? new TextEncoder().encode(chunk) : toU8(chunk);
                if (u === undefined) throw new TypeError("DigestStream accepts only ArrayBuffer, ArrayBufferView or string chunks.");
                native.digestUpdate(h, u);
              },
              close() {
                resolve(native.digestFinal(h));
              },
              abort(reason) {
                reject(reason);
              },
            });
            Object.defineProperty(this, "digest", { value: digest, enumerable: true });
          }
        };
      }
      return DigestStream;
    },
  });
  defineGlobal("Crypto", Crypto);
  defineGlobal("CryptoKey", CryptoKey);
  defineGlobal("SubtleCrypto", SubtleCrypto);
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

