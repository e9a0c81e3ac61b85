// Web platform globals for cellhost, run once per goja runtime by Install
// (install.go), which joins the files of js/ in the order of preludeFiles.
// The completion value is a function that receives the Go natives and returns the internals the Go bridge uses.
(function (native) {
  "use strict";

  const G = globalThis;
  const hostBrand = native.hostBrand;
  const INTERNAL = Symbol("internal");
  const jsonParse = JSON.parse; // already wrapped to give V8's messages
  const jsonStringify = JSON.stringify;
  const ObjectProto = Object.prototype;

  function defineGlobal(name, value) {
    Object.defineProperty(G, name, { value, writable: true, configurable: true, enumerable: false });
  }
  function brandHost(cls, name) {
    Object.defineProperty(cls.prototype, hostBrand, { value: name });
    Object.defineProperty(cls.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }
  // hostTypes names the prototypes of the platform's classes that workerd
  // implements in C++ (host objects there, which it will not serialize)
  // without a visible mark; jsapi/clone reads it (install.go).
  const hostTypes = new Map();
  function hostType(cls, name) {
    hostTypes.set(cls.prototype, name);
  }
  function isObject(x) {
    return (typeof x === "object" && x !== null) || typeof x === "function";
  }

  const abByteLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
  function isArrayBuffer(x) {
    if (!isObject(x)) return false;
    try {
      abByteLength.call(x);
      return true;
    } catch {
      return false;
    }
  }
  // toU8 returns a Uint8Array view of a BufferSource, or undefined.
  function toU8(x) {
    if (ArrayBuffer.isView(x)) return new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    if (isArrayBuffer(x)) return new Uint8Array(x);
    return undefined;
  }

