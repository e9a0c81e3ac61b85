// The peer cases' prelude, shared by testjs/cases/peer-rpc-serialize and
// testjs/cases/peer-storage-extras (bundled into each by esbuild, on
// workerd by ../shared/anchor/record.sh and on cellhost alike). The anchor
// scripts copy one directory: stage a case for them with inline.sh here.
// ---------------------------------------------------------------------------
// Peer-suite prelude (not from workerd): a small assert shim that follows the
// semantics of workerd's own `node:assert` (src/node/internal/internal_assert.ts,
// where equal === strictEqual and deepEqual === deepStrictEqual), and the HTTP
// harness: GET /t/<name> runs one test and answers {"ok":true} or
// {"ok":false,"error":"<name>: <message>"}.
// ---------------------------------------------------------------------------
class AssertionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AssertionError';
    this.code = 'ERR_ASSERTION';
  }
}

function __show(v, depth = 0, seen = new Set()) {
  try {
    switch (typeof v) {
      case 'string':
        return JSON.stringify(v.length > 300 ? v.slice(0, 300) + '...' : v);
      case 'number':
        return Object.is(v, -0) ? '-0' : String(v);
      case 'bigint':
        return v + 'n';
      case 'undefined':
        return 'undefined';
      case 'boolean':
        return String(v);
      case 'symbol':
        return v.toString();
      case 'function':
        return '[Function]';
    }
    if (v === null) return 'null';
    if (seen.has(v)) return '[Circular]';
    if (depth > 4) return '[Object]';
    seen.add(v);
    try {
      if (v instanceof Error) return `[${v.name}: ${v.message}]`;
      if (Array.isArray(v))
        return '[' + v.map((x) => __show(x, depth + 1, seen)).join(', ') + ']';
      if (v instanceof Map)
        return (
          `Map(${v.size}) {` +
          [...v]
            .map(
              ([k, x]) =>
                __show(k, depth + 1, seen) + ' => ' + __show(x, depth + 1, seen)
            )
            .join(', ') +
          '}'
        );
      if (v instanceof Set)
        return (
          `Set(${v.size}) {` +
          [...v].map((x) => __show(x, depth + 1, seen)).join(', ') +
          '}'
        );
      if (v instanceof ArrayBuffer)
        return `ArrayBuffer { byteLength: ${v.byteLength} }`;
      if (ArrayBuffer.isView(v))
        return `${Object.prototype.toString.call(v)} [${Array.from(
          new Uint8Array(v.buffer, v.byteOffset, Math.min(v.byteLength, 32))
        ).join(',')}]`;
      if (v instanceof Date) return `Date(${v.getTime()})`;
      if (v instanceof RegExp) return String(v);
      const proto = Object.getPrototypeOf(v);
      let prefix = '';
      if (proto === null) prefix = '[Object: null prototype] ';
      else if (proto !== Object.prototype)
        prefix = Object.prototype.toString.call(v) + ' ';
      return (
        prefix +
        '{' +
        Object.keys(v)
          .map((k) => `${k}: ${__show(v[k], depth + 1, seen)}`)
          .join(', ') +
        '}'
      );
    } finally {
      seen.delete(v);
    }
  } catch (e) {
    return '[uninspectable]';
  }
}

const __tag = (v) => Object.prototype.toString.call(v);
const __isBoxed = (v) =>
  v instanceof Number ||
  v instanceof String ||
  v instanceof Boolean ||
  (typeof BigInt !== 'undefined' && v instanceof BigInt) ||
  v instanceof Symbol;

function __bytesEqual(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function __ownEnumKeys(v, strict, skipIndex) {
  let keys = Object.keys(v);
  if (skipIndex) keys = keys.filter((k) => !/^(0|[1-9][0-9]*)$/.test(k));
  if (strict)
    for (const s of Object.getOwnPropertySymbols(v))
      if (Object.prototype.propertyIsEnumerable.call(v, s)) keys.push(s);
  return keys;
}

// Node's isDeepStrictEqual (strict=true), as workerd's node:assert uses it.
function __deepEqual(a, b, strict = true, memo = new Map()) {
  if (a === b) return a !== 0 || !strict || Object.is(a, b);
  if (strict) {
    if (typeof a !== 'object')
      return typeof a === 'number' && Number.isNaN(a) && Number.isNaN(b);
    if (typeof b !== 'object' || a === null || b === null) return false;
    if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  } else {
    if (a === null || typeof a !== 'object') {
      if (b === null || typeof b !== 'object')
        return a == b || (Number.isNaN(a) && Number.isNaN(b));
      return false;
    }
    if (b === null || typeof b !== 'object') return false;
  }
  if (__tag(a) !== __tag(b)) return false;
  // cycle memo
  const seen = memo.get(a);
  if (seen && seen.has(b)) return true;
  if (!seen) memo.set(a, new Set([b]));
  else seen.add(b);

  let keysA;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const ha = Object.prototype.hasOwnProperty.call(a, i);
      const hb = Object.prototype.hasOwnProperty.call(b, i);
      if (ha !== hb) return false;
      if (ha && !__deepEqual(a[i], b[i], strict, memo)) return false;
    }
    keysA = __ownEnumKeys(a, strict, true);
    if (keysA.length !== __ownEnumKeys(b, strict, true).length) return false;
  } else if (a instanceof Date) {
    if (!(b instanceof Date) || a.getTime() !== b.getTime()) return false;
  } else if (a instanceof RegExp) {
    if (
      !(b instanceof RegExp) ||
      a.source !== b.source ||
      a.flags !== b.flags ||
      a.lastIndex !== b.lastIndex
    )
      return false;
  } else if (a instanceof Error) {
    if (!(b instanceof Error) || a.message !== b.message || a.name !== b.name)
      return false;
  } else if (ArrayBuffer.isView(a)) {
    if (!ArrayBuffer.isView(b)) return false;
    if (a[Symbol.toStringTag] !== b[Symbol.toStringTag]) return false;
    if (
      !__bytesEqual(
        new Uint8Array(a.buffer, a.byteOffset, a.byteLength),
        new Uint8Array(b.buffer, b.byteOffset, b.byteLength)
      )
    )
      return false;
    keysA = __ownEnumKeys(a, strict, true);
    if (keysA.length !== __ownEnumKeys(b, strict, true).length) return false;
  } else if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    outer: for (const x of a) {
      if (b.has(x)) continue;
      if (typeof x === 'object' && x !== null) {
        for (const y of b)
          if (typeof y === 'object' && __deepEqual(x, y, strict, memo))
            continue outer;
      }
      return false;
    }
  } else if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    outer2: for (const [k, v] of a) {
      if (b.has(k)) {
        if (!__deepEqual(v, b.get(k), strict, memo)) return false;
        continue;
      }
      if (typeof k === 'object' && k !== null) {
        for (const [k2, v2] of b)
          if (
            __deepEqual(k, k2, strict, memo) &&
            __deepEqual(v, v2, strict, memo)
          )
            continue outer2;
      }
      return false;
    }
  } else if (a instanceof ArrayBuffer) {
    if (!(b instanceof ArrayBuffer)) return false;
    if (!__bytesEqual(new Uint8Array(a), new Uint8Array(b))) return false;
  } else if (__isBoxed(a)) {
    if (!Object.is(a.valueOf(), b.valueOf())) return false;
  } else if (
    Array.isArray(b) ||
    ArrayBuffer.isView(b) ||
    b instanceof Set ||
    b instanceof Map ||
    b instanceof Date ||
    b instanceof RegExp ||
    b instanceof ArrayBuffer ||
    b instanceof Error
  ) {
    return false;
  }
  if (!keysA) {
    keysA = __ownEnumKeys(a, strict, false);
    const keysB = __ownEnumKeys(b, strict, false);
    if (keysA.length !== keysB.length) return false;
  }
  for (const k of keysA) {
    if (!Object.prototype.propertyIsEnumerable.call(b, k)) return false;
    if (!__deepEqual(a[k], b[k], strict, memo)) return false;
  }
  return true;
}

function __fail(message) {
  if (message instanceof Error) throw message;
  throw new AssertionError(message);
}

function __validate(e, expected, message) {
  if (typeof expected === 'string') {
    if (message != null)
      throw new TypeError(
        'The "error" argument must be of type function or an instance of Error, RegExp, or Object.'
      );
    if (typeof e === 'object' && e !== null) {
      if (e.message === expected)
        throw new TypeError(
          `ERR_AMBIGUOUS_ARGUMENT: The "error/message" argument is ambiguous. The error message "${e.message}" is identical to the message.`
        );
    } else if (e === expected) {
      throw new TypeError(
        `ERR_AMBIGUOUS_ARGUMENT: The "error/message" argument is ambiguous. The error "${e}" is identical to the message.`
      );
    }
    return true;
  }
  if (
    typeof expected === 'function' &&
    expected.prototype !== undefined &&
    (expected === Error || expected.prototype instanceof Error)
  ) {
    if (e instanceof expected) return true;
    __fail(
      `The error is expected to be an instance of "${expected.name}". Received "${e?.constructor?.name}" (${__errText(e)})`
    );
  }
  if (typeof expected === 'function') {
    const r = expected(e);
    if (r === true) return true;
    __fail(
      `The validation function is expected to return "true". Received ${__show(r)}. Caught error: ${__errText(e)}`
    );
  }
  if (expected instanceof RegExp) {
    if (expected.test(String(e))) return true;
    __fail(
      `The input did not match the regular expression ${expected}. Input: '${String(e)}'`
    );
  }
  if (typeof expected === 'object' && expected !== null) {
    const keys = Object.keys(expected);
    if (expected instanceof Error) keys.push('name', 'message');
    for (const k of keys) {
      if (e == null)
        __fail(message || 'object is expected to thrown, but got null');
      if (typeof e === 'string')
        __fail(message || `object is expected to thrown, but got string: ${e}`);
      if (typeof e === 'number')
        __fail(message || `object is expected to thrown, but got number: ${e}`);
      if (!(k in e))
        __fail(
          message ||
            `A key in the expected object is missing: ${k} (error: ${__errText(e)})`
        );
      const act = e[k];
      const exp = expected[k];
      if (typeof act === 'string' && exp instanceof RegExp) {
        if (!exp.test(act))
          __fail(`error.${k}: actual: "${act}" expected to match: "${exp}"`);
      } else if (!__deepEqual(act, exp, true)) {
        __fail(
          `Expected values to be strictly deep-equal: error.${k} is ${__show(act)}, expected ${__show(exp)}`
        );
      }
    }
    return true;
  }
  if (expected === undefined) return true;
  __fail(`Invalid expectation: ${expected}`);
}

// An error already formatted by a Durable Object's test harness, re-thrown as is.
class __Forwarded extends Error {
  constructor(text) {
    super(text);
    this.forwarded = text;
  }
}
function __errText(e) {
  try {
    if (e instanceof __Forwarded) return e.forwarded;
    if (e !== null && typeof e === 'object' && 'message' in e)
      return `${e.name}: ${e.message}`;
    return `${typeof e} ${String(e)}`;
  } catch (x) {
    return '[uninspectable error]';
  }
}

function __isThenable(p) {
  if (!p) return false;
  if (p instanceof Promise) return true;
  return typeof p.then === 'function';
}

function assert(value, message) {
  if (!value)
    __fail(
      message ||
        `The expression evaluated to a falsy value: assert.ok(${__show(value)})`
    );
}
Object.assign(assert, {
  AssertionError,
  ok: assert,
  strictEqual(a, b, message) {
    if (Object.is(a, b)) return;
    __fail(
      message != null
        ? `${message}`
        : `Values are not strictly equal: actual ${__show(a)}, expected ${__show(b)}`
    );
  },
  notStrictEqual(a, b, message) {
    if (!Object.is(a, b)) return;
    __fail(
      message != null
        ? `${message}`
        : `Expected actual to be strictly unequal to expected: ${__show(a)}`
    );
  },
  deepStrictEqual(a, b, message) {
    if (__deepEqual(a, b, true)) return;
    __fail(
      message != null
        ? `${message}`
        : `Expected values to be strictly deep-equal: actual ${__show(a)}, expected ${__show(b)}`
    );
  },
  notDeepStrictEqual(a, b, message) {
    if (!__deepEqual(a, b, true)) return;
    __fail(
      message != null
        ? `${message}`
        : `Expected "actual" not to be strictly deep-equal to: ${__show(b)}`
    );
  },
  match(s, re, message) {
    if (!(re instanceof RegExp))
      throw new TypeError('The "regexp" argument must be an instance of RegExp.');
    if (re.test(s)) return;
    __fail(message != null ? `${message}` : `actual: "${s}" expected to match: "${re}"`);
  },
  doesNotMatch(s, re, message) {
    if (!re.test(s)) return;
    __fail(message != null ? `${message}` : `actual: "${s}" expected to not match: "${re}"`);
  },
  fail(message) {
    __fail(message ?? 'Failed');
  },
  throws(fn, expected, message) {
    if (typeof fn !== 'function')
      throw new TypeError('The "fn" argument must be of type function.');
    try {
      fn();
    } catch (e) {
      if (__validate(e, expected, message)) return;
    }
    if (message) __fail(`Missing expected exception: ${message}`);
    if (typeof expected === 'string')
      __fail(`Missing expected exception: ${expected}`);
    if (typeof expected === 'function' && expected.prototype !== undefined)
      __fail(`Missing expected exception (${expected.name}).`);
    __fail('Missing expected exception.');
  },
  doesNotThrow(fn, message) {
    try {
      fn();
    } catch (e) {
      __fail(`Got unwanted exception${typeof message === 'string' ? ': ' + message : '.'} Actual: ${__errText(e)}`);
    }
  },
  rejects(p, expected, message) {
    let promise;
    if (typeof p === 'function') {
      try {
        promise = p();
      } catch (err) {
        return Promise.reject(err);
      }
      if (!__isThenable(promise))
        return Promise.reject(
          new TypeError(
            'ERR_INVALID_RETURN_VALUE: Expected instance of Promise to be returned from the "promiseFn" function but got ' +
              __show(promise)
          )
        );
    } else if (!__isThenable(p)) {
      return Promise.reject(
        new TypeError(
          'The "promiseFn" argument must be of type function or an instance of Promise.'
        )
      );
    } else {
      promise = p;
    }
    return promise.then(
      () => {
        let m = 'Missing expected rejection';
        if (typeof expected === 'string') m += `: ${expected}`;
        else if (typeof expected === 'function' && expected.prototype !== undefined)
          m += ` (${expected.name}).`;
        else m += '.';
        throw new AssertionError(m);
      },
      (e) => {
        __validate(e, expected, message);
      }
    );
  },
});
assert.equal = assert.strictEqual;
assert.notEqual = assert.notStrictEqual;
assert.deepEqual = assert.deepStrictEqual;
assert.notDeepEqual = assert.notDeepStrictEqual;
const {
  ok,
  strictEqual,
  notStrictEqual,
  deepStrictEqual,
  throws,
  rejects,
} = assert;

// `scheduler.wait(ms)` where the host has it (workerd), setTimeout otherwise;
// the `scheduler-wait` test reports whether the host has it.
function __wait(ms) {
  if (
    typeof globalThis.scheduler === 'object' &&
    globalThis.scheduler !== null &&
    typeof globalThis.scheduler.wait === 'function'
  )
    return globalThis.scheduler.wait(ms);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// Test registry and HTTP routing.
async function __run(registry, name, args) {
  const fn = registry[name];
  if (!fn) return { ok: false, error: `harness: unknown test ${name}` };
  try {
    await fn(...args);
    return { ok: true };
  } catch (e) {
    return { ok: false, error: __errText(e) };
  }
}
async function __route(registry, request, ...args) {
  const path = new URL(request.url).pathname;
  const m = /^\/t\/([^/]+)$/.exec(path);
  if (!m) return Response.json({ error: 'no such route: ' + path }, { status: 404 });
  return Response.json(await __run(registry, decodeURIComponent(m[1]), args));
}
// Runs test <name> of a Durable Object's registry through its fetch handler
// (GET http://do/t/<name>) and re-throws its failure.
async function __inDO(stub, name) {
  const resp = await stub.fetch('http://do/t/' + encodeURIComponent(name));
  const text = await resp.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new __Forwarded(`harness: DO answered ${resp.status}: ${text.slice(0, 300)}`);
  }
  if (!body.ok) throw new __Forwarded(body.error);
}
// Promise.withResolvers() where the engine has it, an equivalent otherwise; the
// `Promise.withResolvers` probe reports whether the engine has it.
function __withResolvers() {
  if (typeof Promise.withResolvers === 'function') return Promise.withResolvers();
  let resolve, reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
export { AssertionError, assert, ok, strictEqual, notStrictEqual, deepStrictEqual, throws, rejects, __show, __tag, __isBoxed, __bytesEqual, __ownEnumKeys, __deepEqual, __fail, __validate, __Forwarded, __errText, __isThenable, __wait, __run, __route, __inDO, __withResolvers };
