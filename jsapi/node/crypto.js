// node:crypto's KeyObject, Sign/Verify, sign/verify, pbkdf2, hkdf, scrypt,
// Cipheriv/Decipheriv (AES) and generateKeyPair, on the Go natives of
// crypto_keys.go. The completion value receives (native, exports) and adds
// to exports.
(function (native, m) {
  "use strict";
  const Buffer = globalThis.Buffer;
  const handles = new WeakMap();

  function codeError(Ctor, code, message) {
    const e = new Ctor(message);
    e.code = code;
    return e;
  }
  function toBuf(data, encoding, name) {
    if (typeof data === "string") return Buffer.from(data, encoding);
    if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (data instanceof ArrayBuffer) return Buffer.from(data);
    throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name || "data"}" argument must be of type string or an instance of Buffer, TypedArray, or DataView.`);
  }
  // received is the " Received ..." tail of Node's ERR_INVALID_ARG_TYPE.
  function received(v) {
    if (v === null) return " Received null";
    if (typeof v === "function") return ` Received function ${v.name}`;
    if (typeof v === "object") return v.constructor && v.constructor.name ? ` Received an instance of ${v.constructor.name}` : " Received [Object: null prototype]";
    if (v === undefined) return " Received undefined";
    let shown = String(v).slice(0, 28);
    if (typeof v === "string") shown = `'${shown}'`;
    return ` Received type ${typeof v} (${shown})`;
  }
  function out(buf, encoding) {
    return encoding && encoding !== "buffer" ? buf.toString(encoding) : buf;
  }
  function later(cb, f) {
    if (typeof cb !== "function") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "callback" argument must be of type function.');
    let result, error = null;
    try {
      result = f();
    } catch (e) {
      error = e;
    }
    queueMicrotask(() => (error ? cb(error) : cb(null, result)));
  }

  class KeyObject {
    constructor(type, handle) {
      if (type !== "secret" && type !== "public" && type !== "private") {
        throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'type' is invalid. Received '${type}'`);
      }
      if (!handles.has(handle)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "handle" argument must be of type object.');
      handles.set(this, handles.get(handle));
    }
    static from(key) {
      const h = native.fromCryptoKey(key);
      if (h === undefined) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "key" argument must be an instance of CryptoKey.' + received(key));
      return wrapKey(h);
    }
    toCryptoKey(algorithm, extractable, keyUsages) {
      return native.toCryptoKey(handleOf(this), algorithm, extractable, keyUsages);
    }
    get type() {
      return native.keyInfo(handleOf(this))[0];
    }
    equals(other) {
      if (!(other instanceof KeyObject)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "otherKeyObject" argument must be an instance of KeyObject.');
      return native.equals(handleOf(this), handleOf(other));
    }
  }
  class SecretKeyObject extends KeyObject {
    get symmetricKeySize() {
      return native.keyInfo(handleOf(this))[3];
    }
    export(options) {
      return native.exportSecret(handleOf(this), options && options.format);
    }
  }
  class AsymmetricKeyObject extends KeyObject {
    get asymmetricKeyType() {
      return native.keyInfo(handleOf(this))[1];
    }
    get asymmetricKeyDetails() {
      return native.keyInfo(handleOf(this))[2];
    }
    export(options) {
      const o = options || {};
      const format = o.format === undefined ? "pem" : String(o.format);
      if (format !== "pem" && format !== "der" && format !== "jwk") {
        throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.format' must be one of: 'pem', 'der', 'jwk'. Received '${format}'`);
      }
      if (format !== "jwk" && o.type === undefined) {
        throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The property 'options.type' is invalid. Received undefined");
      }
      if (o.cipher !== undefined) throw codeError(Error, "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM", "Encrypted private keys are not supported by cellhost.");
      return native.exportKey(handleOf(this), format, String(o.type || ""));
    }
  }
  class PublicKeyObject extends AsymmetricKeyObject {}
  class PrivateKeyObject extends AsymmetricKeyObject {}

  function handleOf(k) {
    const h = handles.get(k);
    if (h === undefined) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "key" argument must be an instance of KeyObject.');
    return h;
  }
  function wrapKey(h) {
    const type = native.keyInfo(h)[0];
    const k = Object.create((type === "secret" ? SecretKeyObject : type === "public" ? PublicKeyObject : PrivateKeyObject).prototype);
    handles.set(k, h);
    return k;
  }

  function createSecretKey(key, encoding) {
    return wrapKey(native.secretKey(toBuf(key, encoding, "key")));
  }
  function parseAsymmetric(kind, key) {
    if (key instanceof KeyObject) {
      const type = key.type;
      if (kind === "public" && type === "private") return wrapKey(native.publicOf(handleOf(key)));
      if (type !== kind) throw codeError(Error, "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", `Invalid key object type ${type}, expected ${kind}.`);
      return key;
    }
    let data = key, format = "pem", type = "", encoding;
    if (typeof key === "object" && key !== null && !ArrayBuffer.isView(key) && !(key instanceof ArrayBuffer)) {
      if (key.key instanceof KeyObject) return parseAsymmetric(kind, key.key);
      data = key.key;
      if (key.format !== undefined) format = String(key.format);
      if (key.type !== undefined) type = String(key.type);
      encoding = key.encoding;
      if (key.passphrase !== undefined) throw codeError(Error, "ERR_FEATURE_UNAVAILABLE_ON_PLATFORM", "Encrypted private keys are not supported by cellhost.");
    }
    if (format === "jwk") {
      if (typeof data !== "object" || data === null) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "key.key" property must be of type object.');
      return wrapKey(native.parseKey(kind, null, "jwk", type, data));
    }
    return wrapKey(native.parseKey(kind, toBuf(data, encoding, "key"), format, type, null));
  }
  const createPublicKey = (key) => parseAsymmetric("public", key);
  const createPrivateKey = (key) => parseAsymmetric("private", key);

  // signing options: a key, or { key, padding, saltLength, dsaEncoding }
  function signOptions(key, kind) {
    const o = typeof key === "object" && key !== null && !(key instanceof KeyObject) && !ArrayBuffer.isView(key) ? key : {};
    if (o.key instanceof KeyObject) {
      // workerd does not take a KeyObject inside the options.
      throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "options.key" property must be of type string or an instance of ArrayBuffer, Buffer, TypedArray, DataView, or Object. Received an instance of ${o.key.constructor.name}`);
    }
    const k = parseAsymmetric(kind, key);
    return {
      handle: handleOf(k),
      padding: o.padding === undefined ? 1 : Number(o.padding),
      saltLength: o.saltLength === undefined ? -2 : Number(o.saltLength),
      p1363: o.dsaEncoding === "ieee-p1363",
    };
  }
  class Sign {
    constructor(algorithm) {
      this._alg = String(algorithm);
      this._parts = [];
    }
    update(data, encoding) {
      this._parts.push(toBuf(data, encoding));
      return this;
    }
    sign(privateKey, outputEncoding) {
      const o = signOptions(privateKey, "private");
      return out(native.sign(this._alg, o.handle, Buffer.concat(this._parts), o.padding, o.saltLength, o.p1363), outputEncoding);
    }
  }
  class Verify {
    constructor(algorithm) {
      this._alg = String(algorithm);
      this._parts = [];
    }
    update(data, encoding) {
      this._parts.push(toBuf(data, encoding));
      return this;
    }
    verify(key, signature, signatureEncoding) {
      const o = signOptions(key, "public");
      return native.verify(this._alg, o.handle, Buffer.concat(this._parts), toBuf(signature, signatureEncoding, "signature"), o.padding, o.saltLength, o.p1363);
    }
  }
  function sign(algorithm, data, key, callback) {
    const run = () => {
      const o = signOptions(key, "private");
      return native.sign(algorithm == null ? null : String(algorithm), o.handle, toBuf(data), o.padding, o.saltLength, o.p1363);
    };
    if (callback === undefined) return run();
    later(callback, run);
  }
  function verify(algorithm, data, key, signature, callback) {
    const run = () => {
      const o = signOptions(key, "public");
      return native.verify(algorithm == null ? null : String(algorithm), o.handle, toBuf(data), toBuf(signature, undefined, "signature"), o.padding, o.saltLength, o.p1363);
    };
    if (callback === undefined) return run();
    later(callback, run);
  }

  function checkInt(v, name, min, max) {
    if (typeof v !== "number") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "${name}" argument must be of type number. Received ${v === null ? "null" : typeof v}`);
    if (!Number.isInteger(v) || v < min || v > max) throw codeError(RangeError, "ERR_OUT_OF_RANGE", `The value of "${name}" is out of range. It must be >= ${min} && <= ${max}. Received ${v}`);
  }
  function pbkdf2Sync(password, salt, iterations, keylen, digest) {
    checkInt(iterations, "iterations", 1, 2147483647);
    checkInt(keylen, "keylen", 0, 2147483647);
    if (typeof digest !== "string") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", `The "digest" argument must be of type string. Received ${digest === undefined ? "undefined" : typeof digest}`);
    return native.pbkdf2(toBuf(password, undefined, "password"), toBuf(salt, undefined, "salt"), iterations, keylen, digest);
  }
  function pbkdf2(password, salt, iterations, keylen, digest, callback) {
    if (typeof digest === "function") {
      callback = digest;
      digest = undefined;
    }
    later(callback, () => pbkdf2Sync(password, salt, iterations, keylen, digest));
  }
  function keyBytes(k, name) {
    if (k instanceof KeyObject) return native.exportSecret(handleOf(k));
    return toBuf(k, undefined, name);
  }
  function hkdfSync(digest, ikm, salt, info, keylen) {
    checkInt(keylen, "keylen", 0, 2147483647);
    return native.hkdf(String(digest), keyBytes(ikm, "ikm"), toBuf(salt, undefined, "salt"), toBuf(info, undefined, "info"), keylen);
  }
  function hkdf(digest, ikm, salt, info, keylen, callback) {
    later(callback, () => hkdfSync(digest, ikm, salt, info, keylen));
  }
  function scryptSync(password, salt, keylen, options) {
    checkInt(keylen, "keylen", 0, 2147483647);
    const o = options || {};
    const N = o.N ?? o.cost ?? 16384, r = o.r ?? o.blockSize ?? 8, p = o.p ?? o.parallelization ?? 1;
    return native.scrypt(toBuf(password, undefined, "password"), toBuf(salt, undefined, "salt"), keylen, N, r, p);
  }
  function scrypt(password, salt, keylen, options, callback) {
    if (typeof options === "function") {
      callback = options;
      options = undefined;
    }
    later(callback, () => scryptSync(password, salt, keylen, options));
  }

  class CipherBase {
    constructor(decrypt, algorithm, key, iv, options) {
      const k = key instanceof KeyObject ? native.exportSecret(handleOf(key)) : toBuf(key, undefined, "key");
      const v = iv === null || iv === undefined ? null : toBuf(iv, undefined, "iv");
      const tagLength = options && options.authTagLength;
      this._h = native.cipher(String(algorithm), k, v, decrypt, tagLength);
      this._decrypt = decrypt;
    }
    update(data, inputEncoding, outputEncoding) {
      if (typeof data === "string" && inputEncoding === undefined) {
        // workerd's text (Node treats the string as UTF-8)
        throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'inputEncoding' If inputEncoding is not provided then the data must be a Buffer. Received undefined");
      }
      return out(native.cipherUpdate(this._h, toBuf(data, inputEncoding)), outputEncoding);
    }
    final(outputEncoding) {
      return out(native.cipherFinal(this._h), outputEncoding);
    }
    setAutoPadding(autoPadding = true) {
      native.cipherSetAutoPadding(this._h, autoPadding);
      return this;
    }
    setAAD(buffer) {
      native.cipherSetAAD(this._h, toBuf(buffer, undefined, "buffer"));
      return this;
    }
  }
  class Cipheriv extends CipherBase {
    constructor(algorithm, key, iv, options) {
      super(false, algorithm, key, iv, options);
    }
    getAuthTag() {
      return native.cipherAuthTag(this._h);
    }
  }
  class Decipheriv extends CipherBase {
    constructor(algorithm, key, iv, options) {
      super(true, algorithm, key, iv, options);
    }
    setAuthTag(tag, encoding) {
      native.cipherSetAuthTag(this._h, toBuf(tag, encoding, "buffer"));
      return this;
    }
  }

  function generateKeyPairSync(type, options) {
    const o = options || {};
    const [pub, priv] = native.generateKeyPair(String(type), o.modulusLength, o.publicExponent, o.namedCurve);
    let publicKey = wrapKey(pub), privateKey = wrapKey(priv);
    if (o.publicKeyEncoding) publicKey = publicKey.export(o.publicKeyEncoding);
    if (o.privateKeyEncoding) privateKey = privateKey.export(o.privateKeyEncoding);
    return { publicKey, privateKey };
  }
  function generateKeyPair(type, options, callback) {
    if (typeof options === "function") {
      callback = options;
      options = undefined;
    }
    if (typeof callback !== "function") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "callback" argument must be of type function.');
    let r, error = null;
    try {
      r = generateKeyPairSync(type, options);
    } catch (e) {
      error = e;
    }
    queueMicrotask(() => (error ? callback(error) : callback(null, r.publicKey, r.privateKey)));
  }
  function generateKeySync(type, options) {
    const length = options && options.length;
    if (type === "hmac") checkInt(length, "options.length", 8, 2147483647);
    else if (type === "aes") {
      if (length !== 128 && length !== 192 && length !== 256) throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.length' must be one of: 128, 192, 256. Received ${length}`);
    } else throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The argument 'type' must be one of: 'hmac', 'aes'. Received '${type}'`);
    const bytes = Buffer.alloc(Math.floor(length / 8));
    globalThis.crypto.getRandomValues(bytes);
    return createSecretKey(bytes);
  }
  function generateKey(type, options, callback) {
    later(callback, () => generateKeySync(type, options));
  }

  function randomFillSync(buf, offset = 0, size) {
    const u = ArrayBuffer.isView(buf) ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength) : buf instanceof ArrayBuffer ? new Uint8Array(buf) : undefined;
    if (u === undefined) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "buf" argument must be an instance of ArrayBuffer or ArrayBufferView.' + received(buf));
    checkInt(offset, "offset", 0, u.length);
    if (size === undefined) size = u.length - offset;
    checkInt(size, "size", 0, u.length - offset);
    for (let i = offset; i < offset + size; i += 65536) globalThis.crypto.getRandomValues(u.subarray(i, Math.min(i + 65536, offset + size)));
    return buf;
  }
  function randomFill(buf, offset, size, callback) {
    if (typeof offset === "function") [callback, offset, size] = [offset, 0, undefined];
    else if (typeof size === "function") [callback, size] = [size, undefined];
    later(callback, () => randomFillSync(buf, offset, size));
  }
  // RSA encryption: OAEP (sha1 unless oaepHash) by default, or PKCS#1 v1.5.
  function rsaOptions(key, kind) {
    const o = typeof key === "object" && key !== null && !(key instanceof KeyObject) && !ArrayBuffer.isView(key) ? key : {};
    const k = parseAsymmetric(kind, key);
    const oaepLabel = o.oaepLabel === undefined ? Buffer.alloc(0) : toBuf(o.oaepLabel, undefined, "oaepLabel");
    return [handleOf(k), o.padding === undefined ? 4 : Number(o.padding), String(o.oaepHash || "sha1"), oaepLabel];
  }
  function publicEncrypt(key, buffer) {
    const [h, padding, hash, label] = rsaOptions(key, "public");
    return native.rsaEncrypt(h, toBuf(buffer, undefined, "buffer"), padding, hash, label);
  }
  function privateDecrypt(key, buffer) {
    const [h, padding, hash, label] = rsaOptions(key, "private");
    return native.rsaDecrypt(h, toBuf(buffer, undefined, "buffer"), padding, hash, label);
  }
  // OpenSSL's names and NIDs, as workerd reports them.
  const cipherNids = { "aes-128-ecb": 418, "aes-128-cbc": 419, "aes-128-ofb": 420, "aes-192-ecb": 422, "aes-192-cbc": 423, "aes-192-ofb": 424,
    "aes-256-ecb": 426, "aes-256-cbc": 427, "aes-256-ofb": 428,
    "aes-128-gcm": 895, "aes-192-gcm": 898, "aes-256-gcm": 901, "aes-128-ctr": 904, "aes-192-ctr": 905, "aes-256-ctr": 906 };
  function getCipherInfo(nameOrNid) {
    const name = typeof nameOrNid === "number" ? Object.keys(cipherNids).find((k) => cipherNids[k] === nameOrNid) : String(nameOrNid).toLowerCase();
    if (name === undefined || !(name in cipherNids)) return undefined;
    const [, bits, mode] = name.split("-");
    const info = { name: mode === "gcm" ? `id-aes${bits}-GCM` : name.toUpperCase(), nid: cipherNids[name], blockSize: mode === "ctr" || mode === "gcm" ? 1 : 16 };
    if (mode !== "ecb") info.ivLength = mode === "gcm" ? 12 : 16;
    info.keyLength = Number(bits) / 8;
    info.mode = mode;
    return info;
  }
  function encOut(buf, encoding) {
    return encoding === undefined || encoding === null || encoding === "buffer" ? buf : buf.toString(encoding);
  }
  class ECDH {
    constructor(curve) {
      if (typeof curve !== "string") throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "curve" argument must be of type string.' + received(curve));
      this._h = native.ecdhNew(curve);
    }
    static convertKey(key, curve, inputEncoding, outputEncoding, format) {
      return encOut(native.ecdhConvert(toBuf(key, inputEncoding, "key"), String(curve), String(format || "uncompressed")), outputEncoding);
    }
    generateKeys(encoding, format) {
      native.ecdhGenerate(this._h);
      return this.getPublicKey(encoding, format);
    }
    computeSecret(otherPublicKey, inputEncoding, outputEncoding) {
      return encOut(native.ecdhSecret(this._h, toBuf(otherPublicKey, inputEncoding, "otherPublicKey")), outputEncoding);
    }
    getPublicKey(encoding, format) {
      return encOut(native.ecdhPublic(this._h, String(format || "uncompressed")), encoding);
    }
    getPrivateKey(encoding) {
      return encOut(native.ecdhPrivate(this._h), encoding);
    }
    setPrivateKey(privateKey, encoding) {
      native.ecdhSetPrivate(this._h, toBuf(privateKey, encoding, "privateKey"));
      return this;
    }
  }
  function diffieHellman(options) {
    if (typeof options !== "object" || options === null) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "options" argument must be of type object.' + received(options));
    const { privateKey, publicKey } = options;
    if (!(privateKey instanceof KeyObject) || privateKey.type !== "private") throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.privateKey' is invalid.${received(privateKey)}`);
    if (!(publicKey instanceof KeyObject) || publicKey.type === "secret") throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.publicKey' is invalid.${received(publicKey)}`);
    if (publicKey.asymmetricKeyType !== privateKey.asymmetricKeyType) {
      throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", `The property 'options.publicKey.asymmetricKeyType' must equal privateKey.asymmetricKeyType. Received '${publicKey.asymmetricKeyType}'`);
    }
    return native.diffieHellman(handleOf(privateKey), handleOf(publicKey));
  }
  function bigintBytes(n) {
    let hex = n.toString(16);
    if (hex.length % 2) hex = "0" + hex;
    return Buffer.from(hex, "hex");
  }
  function checkPrimeSync(candidate, options) {
    const bytes = typeof candidate === "bigint" ? bigintBytes(candidate) : toBuf(candidate, undefined, "candidate");
    return native.checkPrime(bytes, (options && options.checks) || 0);
  }
  function checkPrime(candidate, options, callback) {
    if (typeof options === "function") [callback, options] = [options, undefined];
    later(callback, () => checkPrimeSync(candidate, options));
  }
  function generatePrimeSync(size, options) {
    checkInt(size, "size", 1, 2147483647);
    const o = options || {};
    if (o.add !== undefined || o.rem !== undefined) throw codeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", "The add and rem options of crypto.generatePrime() are not implemented by cellhost");
    const ab = native.generatePrime(size, Boolean(o.safe));
    if (!o.bigint) return ab;
    return BigInt("0x" + (Buffer.from(ab).toString("hex") || "0"));
  }
  function generatePrime(size, options, callback) {
    if (typeof options === "function") [callback, options] = [options, undefined];
    later(callback, () => generatePrimeSync(size, options));
  }
  class DiffieHellman {
    constructor(sizeOrKey, keyEncoding, generator, genEncoding) {
      if (typeof keyEncoding !== "string" && keyEncoding !== undefined) [generator, genEncoding, keyEncoding] = [keyEncoding, generator, undefined];
      if (generator === undefined) generator = 2;
      const g = typeof generator === "number" ? Buffer.from([generator]) : toBuf(generator, genEncoding, "generator");
      this._h = native.dhNew(typeof sizeOrKey === "number" ? sizeOrKey : toBuf(sizeOrKey, keyEncoding, "sizeOrKey"), g);
    }
    generateKeys(encoding) {
      native.dhGenerate(this._h);
      return this.getPublicKey(encoding);
    }
    computeSecret(otherPublicKey, inputEncoding, outputEncoding) {
      return encOut(native.dhSecret(this._h, toBuf(otherPublicKey, inputEncoding, "otherPublicKey")), outputEncoding);
    }
    getPrime(encoding) { return encOut(native.dhGet(this._h, "prime"), encoding); }
    getGenerator(encoding) { return encOut(native.dhGet(this._h, "generator"), encoding); }
    getPublicKey(encoding) { return encOut(native.dhGet(this._h, "public"), encoding); }
    getPrivateKey(encoding) { return encOut(native.dhGet(this._h, "private"), encoding); }
    setPrivateKey(privateKey, encoding) {
      native.dhSetPrivate(this._h, toBuf(privateKey, encoding, "privateKey"));
      return this;
    }
    get verifyError() { return native.dhGet(this._h, "verifyError"); }
  }
  class DiffieHellmanGroup extends DiffieHellman {
    constructor(name) {
      const h = native.dhGroup(String(name));
      super(Buffer.alloc(1, 3), 2);
      this._h = h;
    }
  }
  const certs = new WeakMap();
  class X509Certificate {
    constructor(buffer) {
      if (typeof buffer !== "string" && !ArrayBuffer.isView(buffer)) {
        throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "buffer" argument must be of type string or an instance of Buffer, TypedArray, or DataView.' + received(buffer));
      }
      const [c, info] = native.x509Parse(toBuf(buffer, undefined, "buffer"));
      certs.set(this, { c, info, publicKey: wrapKey(info.publicKey) });
    }
    get subject() { return certOf(this).info.subject; }
    get issuer() { return certOf(this).info.issuer; }
    get subjectAltName() { return certOf(this).info.subjectAltName; }
    get infoAccess() { return certOf(this).info.infoAccess; }
    get serialNumber() { return certOf(this).info.serialNumber; }
    get validFrom() { return certOf(this).info.validFrom; }
    get validTo() { return certOf(this).info.validTo; }
    get fingerprint() { return certOf(this).info.fingerprint; }
    get fingerprint256() { return certOf(this).info.fingerprint256; }
    get fingerprint512() { return certOf(this).info.fingerprint512; }
    get ca() { return certOf(this).info.ca; }
    get keyUsage() { const k = certOf(this).info.keyUsage; return k === undefined ? undefined : [...k]; }
    get issuerCertificate() { return undefined; }
    get raw() { return Buffer.from(certOf(this).info.raw); }
    get publicKey() { return certOf(this).publicKey; }
    toString() { return certOf(this).info.pem; }
    toJSON() { return certOf(this).info.pem; }
    checkHost(name) { return native.x509Check(certOf(this).c, "host", String(name)); }
    checkEmail(email) { return native.x509Check(certOf(this).c, "email", String(email)); }
    checkIP(ip) { return native.x509Check(certOf(this).c, "ip", String(ip)); }
    checkIssued(otherCert) {
      if (!(otherCert instanceof X509Certificate)) throw codeError(TypeError, "ERR_INVALID_ARG_TYPE", 'The "otherCert" argument must be an instance of X509Certificate.' + received(otherCert));
      return native.x509Issued(certOf(this).c, certOf(otherCert).c);
    }
    checkPrivateKey(pkey) {
      if (!(pkey instanceof KeyObject) || pkey.type !== "private") throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'pkey' is invalid." + received(pkey));
      return native.x509MatchesKey(certOf(this).c, handleOf(pkey));
    }
    verify(publicKey) {
      if (!(publicKey instanceof KeyObject) || publicKey.type !== "public") throw codeError(TypeError, "ERR_INVALID_ARG_VALUE", "The argument 'pkey' is invalid." + received(publicKey));
      return native.x509Verify(certOf(this).c, handleOf(publicKey));
    }
    toLegacyObject() {
      const i = certOf(this).info;
      const d = this.publicKey.asymmetricKeyDetails;
      return { subject: i.subject, subjectAltName: i.subjectAltName, infoAccess: i.infoAccess, issuer: i.issuer, ca: i.ca,
        modulus: undefined, bits: d.modulusLength, exponent: d.publicExponent === undefined ? undefined : "0x" + d.publicExponent.toString(16),
        pubkey: undefined, asn1Curve: d.namedCurve, nistCurve: undefined, valid_from: i.validFrom, valid_to: i.validTo,
        fingerprint: i.fingerprint, fingerprint256: i.fingerprint256, fingerprint512: i.fingerprint512, serialNumber: i.serialNumber,
        ext_key_usage: this.keyUsage, raw: this.raw };
    }
  }
  function certOf(x) {
    const c = certs.get(x);
    if (c === undefined) throw new TypeError("Illegal invocation");
    return c;
  }
  function privateEncrypt(key, buffer) {
    const o = typeof key === "object" && key !== null && !(key instanceof KeyObject) && !ArrayBuffer.isView(key) ? key : {};
    return native.privateEncrypt(handleOf(parseAsymmetric("private", key)), toBuf(buffer, undefined, "buffer"), o.padding === undefined ? 1 : Number(o.padding));
  }
  function publicDecrypt(key, buffer) {
    const o = typeof key === "object" && key !== null && !(key instanceof KeyObject) && !ArrayBuffer.isView(key) ? key : {};
    return native.publicDecrypt(handleOf(parseAsymmetric("public", key)), toBuf(buffer, undefined, "buffer"), o.padding === undefined ? 1 : Number(o.padding));
  }
  // What workerd does not implement either: its error, naming the method.
  function missing(name) {
    return function () {
      throw codeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", `The ${name} method is not implemented`);
    };
  }
  for (const name of ["Cipher", "Decipher", "createCipher", "createDecipher", "setEngine"]) {
    if (m[name] === undefined) m[name] = missing(name);
  }
  // What workerd has and cellhost does not: a clear error naming it.
  m.Certificate = function Certificate() {
    throw codeError(Error, "ERR_METHOD_NOT_IMPLEMENTED", "The crypto.Certificate (SPKAC) methods are not implemented by cellhost");
  };
  for (const f of ["verifySpkac", "exportPublicKey", "exportChallenge"]) m.Certificate[f] = m.Certificate;

  // createHmac takes a secret KeyObject too (jsonwebtoken passes one).
  const goCreateHmac = m.createHmac;
  m.createHmac = function createHmac(algorithm, key, options) {
    if (key instanceof KeyObject) {
      if (key.type !== "secret") throw codeError(TypeError, "ERR_CRYPTO_INVALID_KEY_OBJECT_TYPE", `Invalid key object type ${key.type}, expected secret.`);
      key = native.exportSecret(handleOf(key));
    }
    return goCreateHmac(algorithm, key, options);
  };

  Object.assign(m, {
    CryptoKey: globalThis.CryptoKey,
    Hash: function Hash(algorithm, options) {
      return m.createHash(algorithm, options);
    },
    Hmac: function Hmac(algorithm, key, options) {
      return m.createHmac(algorithm, key, options);
    },
    pseudoRandomBytes: m.randomBytes,
    randomFill, randomFillSync, publicEncrypt, privateDecrypt, privateEncrypt, publicDecrypt, getCipherInfo,
    secureHeapUsed: () => ({ total: 0, used: 0, utilization: 0, min: 0 }),
    ECDH, createECDH: (curve) => new ECDH(curve), diffieHellman, X509Certificate,
    DiffieHellman, DiffieHellmanGroup,
    createDiffieHellman: (sizeOrKey, keyEncoding, generator, genEncoding) => new DiffieHellman(sizeOrKey, keyEncoding, generator, genEncoding),
    createDiffieHellmanGroup: (name) => new DiffieHellmanGroup(name),
    getDiffieHellman: (name) => new DiffieHellmanGroup(name),
    checkPrime, checkPrimeSync, generatePrime, generatePrimeSync,
    fips: true, // as workerd reports (BoringSSL)
    getFips: () => true,
    setFips: (on) => {
      if (on) throw codeError(Error, "ERR_CRYPTO_FIPS_FORCED", "Cannot set FIPS mode in a non-FIPS build.");
    },
    KeyObject, SecretKeyObject, PublicKeyObject, PrivateKeyObject,
    createSecretKey, createPublicKey, createPrivateKey,
    Sign, Verify,
    createSign: (algorithm) => new Sign(algorithm),
    createVerify: (algorithm) => new Verify(algorithm),
    sign, verify,
    pbkdf2, pbkdf2Sync, hkdf, hkdfSync, scrypt, scryptSync,
    Cipheriv, Decipheriv,
    createCipheriv: (algorithm, key, iv, options) => new Cipheriv(algorithm, key, iv, options),
    createDecipheriv: (algorithm, key, iv, options) => new Decipheriv(algorithm, key, iv, options),
    getCiphers: () => native.ciphers(),
    getCurves: () => ["prime256v1", "secp384r1", "secp521r1"],
    generateKeyPair, generateKeyPairSync, generateKey, generateKeySync,
  });
});
