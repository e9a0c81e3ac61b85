// The values of the V8 serialization fixture: each one is stored by workerd
// under its name (record.sh), and cellhost's tests build the same value in
// goja and compare the bytes each writes. Factories, so each call builds a
// fresh value. Plain JS only: the Go test evaluates this file as a script
// (after dropping the "export" keyword).
export const VALUES = {
  str_ascii: () => "hello",
  str_latin1: () => "héllo ÿ",
  str_empty: () => "",
  str_bmp: () => "snow ☃ check ✓",
  str_emoji: () => "😀 grin",
  str_cjk: () => "日本語",
  str_lone_surrogate: () => "a\ud800b",
  str_long: () => "x".repeat(300),
  int_zero: () => 0,
  int_one: () => 1,
  int_neg: () => -1,
  int_smi_max: () => 2 ** 30 - 1,
  int_smi_min: () => -(2 ** 30),
  int_over_smi: () => 2 ** 30,
  int32_max: () => 2147483647,
  int32_min: () => -2147483648,
  neg_zero: () => -0,
  double: () => 3.25,
  nan: () => NaN,
  infinity: () => Infinity,
  neg_infinity: () => -Infinity,
  max_safe: () => Number.MAX_SAFE_INTEGER,
  min_value: () => Number.MIN_VALUE,
  bool_true: () => true,
  bool_false: () => false,
  null: () => null,
  bigint_zero: () => 0n,
  bigint_small: () => 5n,
  bigint_neg: () => -5n,
  bigint_2p64m1: () => 2n ** 64n - 1n,
  bigint_big: () => 2n ** 70n,
  bigint_neg_big: () => -(2n ** 130n) + 7n,
  date: () => new Date(1700000000123),
  date_nan: () => new Date(NaN),
  regexp: () => /ab+c/gi,
  // constructed, not literal: goja lacks the d and v flags, and a literal
  // would fail the whole file there
  regexp_flags: () => new RegExp("x", "dgimsy"),
  regexp_unicode: () => /é✓\u{1F600}/u,
  regexp_v: () => new RegExp("[\\p{L}--[a-z]]", "v"),
  map: () => new Map([[1, "one"], ["k", { x: [1, 2] }], [true, null]]),
  map_empty: () => new Map(),
  set: () => new Set([3, "two", 3, 1]),
  set_empty: () => new Set(),
  array_dense: () => [1, 2, 3],
  array_mixed: () => [1, "a", null, undefined, true],
  array_doubles: () => [1.5, 2, -0],
  array_holes: () => [1, , 3],
  array_empty: () => [],
  array_new: () => new Array(3),
  array_extra: () => {
    const a = ["a", "b"];
    a.extra = "prop";
    return a;
  },
  array_holes_extra: () => {
    const a = [1, , 3];
    a.x = true;
    return a;
  },
  array_nested: () => [[1], [2, [3, "deep"]]],
  obj_empty: () => ({}),
  obj_nested: () => ({ a: [1, [2, [3, { b: "deep" }]]], o: { p: { q: null } } }),
  obj_int_keys: () => ({ x: 1, 2: "b", 1: "a" }),
  obj_big_index: () => ({ 1073741824: "over smi", 4294967294: "max index", 4294967295: "not an index" }),
  obj_undefined: () => ({ present: undefined, other: 1 }),
  obj_unicode_keys: () => ({ "ключ": "значение", "é": 1 }),
  obj_cyclic: () => {
    const o = { name: "loop" };
    o.self = o;
    return o;
  },
  obj_shared: () => {
    const s = { s: 1 };
    return { first: s, second: s, list: [s] };
  },
  obj_nonenumerable: () => {
    const o = { visible: 1 };
    Object.defineProperty(o, "hidden", { value: 2, enumerable: false });
    o[Symbol("sym")] = 3;
    return o;
  },
  class_instance: () => {
    class Point {
      constructor(x, y) {
        this.x = x;
        this.y = y;
      }
      norm() {
        return Math.hypot(this.x, this.y);
      }
    }
    return new Point(3, 4);
  },
  array_buffer: () => new Uint8Array([9, 8, 7, 6]).buffer,
  array_buffer_empty: () => new ArrayBuffer(0),
  uint8: () => new Uint8Array([1, 2, 250]),
  uint8_empty: () => new Uint8Array(0),
  uint8_sub: () => new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]).subarray(2, 6),
  int8: () => new Int8Array([-1, 127, -128]),
  uint8_clamped: () => new Uint8ClampedArray([0, 255]),
  int16: () => new Int16Array([-2, 300]),
  uint16: () => new Uint16Array([65535, 1]),
  int32: () => new Int32Array([-1, 2147483647]),
  uint32: () => new Uint32Array([4294967295, 0]),
  float32: () => new Float32Array([0.5, -1.25]),
  float64: () => new Float64Array([0.5, -0]),
  bigint64: () => new BigInt64Array([-1n, 2n ** 62n]),
  biguint64: () => new BigUint64Array([2n ** 64n - 1n, 0n]),
  float16: () => new Float16Array([1.5, -2]),
  data_view: () => new DataView(new Uint8Array([1, 2, 3, 4]).buffer, 1, 2),
  views_shared: () => {
    const buf = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]).buffer;
    return { a: new Uint8Array(buf, 0, 4), b: new DataView(buf, 4), c: new Uint16Array(buf, 2, 2), buf };
  },
  resizable_buffer: () => {
    const b = new ArrayBuffer(3, { maxByteLength: 9 });
    new Uint8Array(b).set([5, 6, 7]);
    return b;
  },
  resizable_views: () => {
    const buf = new ArrayBuffer(8, { maxByteLength: 16 });
    new Uint8Array(buf).set([1, 2, 3, 4, 5, 6, 7, 8]);
    return { tracking: new Uint8Array(buf, 2), fixed: new Uint16Array(buf, 2, 2), dv: new DataView(buf, 4), dvFixed: new DataView(buf, 1, 2), buf };
  },
  error: () => {
    const e = new Error("boom");
    e.stack = "Error: boom\n    at fixture";
    return e;
  },
  range_error: () => {
    const e = new RangeError("out of range");
    e.stack = "RangeError: out of range";
    return e;
  },
  type_error_cause: () => {
    const e = new TypeError("outer", { cause: { code: 42 } });
    e.stack = "TypeError: outer";
    return e;
  },
  error_no_message: () => {
    const e = new Error();
    e.stack = "Error";
    return e;
  },
  error_custom_name: () => {
    const e = new Error("custom");
    e.name = "QuotaError";
    e.stack = "QuotaError: custom";
    return e;
  },
  error_props: () => {
    const e = new SyntaxError("bad");
    e.code = "E_BAD";
    e.stack = "SyntaxError: bad";
    return e;
  },
  error_no_stack: () => {
    const e = new EvalError("no stack");
    e.stack = undefined;
    return e;
  },
  dom_exception: () => {
    const e = new DOMException("bad data", "DataCloneError");
    e.stack = "DataCloneError: bad data\n    at fixture";
    return e;
  },
  dom_exception_plain: () => {
    const e = new DOMException("plain");
    e.stack = "";
    return e;
  },
  headers: () =>
    new Headers([
      ["x-b", "2"],
      ["content-type", "text/plain"],
      ["x-a", "1"],
      ["Accept", "*/*"],
      ["x-a", "3"],
      ["Set-Cookie", "a=1"],
      ["set-cookie", "b=2"],
      ["WWW-Authenticate", "Basic"],
    ]),
  headers_empty: () => new Headers(),
  blob: () => new Blob(["xy", new Uint8Array([0, 255])], { type: "Text/Plain" }),
  blob_empty: () => new Blob([]),
  blobs: () => [new Blob(["a"]), new Blob(["é"], { type: "x/é" })],
  headers_in_object: () => ({ h: new Headers({ host: "example.com" }), again: null }),
  boxed_string: () => new String("boxed"),
  boxed_string_bmp: () => new String("☃"),
  boxed_number: () => new Number(4.5),
  boxed_true: () => new Boolean(true),
  boxed_false: () => new Boolean(false),
  boxed_bigint: () => Object(5n),
  everything: () => ({
    s: "str",
    n: [0, -1, 1.5, 2 ** 31],
    d: new Date(0),
    m: new Map([["a", new Set([1])]]),
    u: new Uint8Array([1]),
    e: [{}, []],
  }),
};

// Values workerd reads back but that cellhost cannot write byte for byte:
// their bytes depend on V8's heap (a stack trace V8 captured). The test
// checks only that cellhost reads them.
export const READ_ONLY = {
  error_natural_stack: () => new Error("natural"),
  dom_exception_natural_stack: () => new DOMException("natural", "AbortError"),
  headers_of_request: () => new Request("http://x/", { headers: { "x-req": "1" } }).headers,
  headers_of_response: () => new Response("", { headers: { "x-res": "1" } }).headers,
};
