// JS RPC's object model as workerd has it (js-rpc-test.js): RpcTarget,
// RpcStub, RpcPromise, RpcProperty, passing targets and functions by
// reference, property paths, pipelining and disposal. Evaluated once per
// runtime as a function that receives `native` (rpc.go) and returns what
// do.js and Go need. Values cross runtimes only as bytes (rpc.go's
// envelope); a capability crosses as the id of an export entry.
(function (native) {
  "use strict";

  const STATE = Symbol("rpc state");
  const CAP = "\u0000cellhost.cap";
  const hasOwn = Object.prototype.hasOwnProperty;
  const getProto = Object.getPrototypeOf;

  class RpcTarget {}

  // stubKind says how workerd (checkStubType) lets RPC reach v, an object
  // or function: "plain" (own properties: a plain object, or a function
  // that is no RpcTarget), "target" (class members: an RpcTarget, by its
  // prototype chain, which a Proxy may fake) or undefined (not a receiver).
  function stubKind(v) {
    let proto = getProto(v);
    if (proto === Object.prototype) return "plain";
    for (; proto !== null; proto = getProto(proto)) {
      if (proto === RpcTarget.prototype) return "target";
    }
    return typeof v === "function" ? "plain" : undefined;
  }
  const proxyCloneError = () =>
    new DOMException(
      "Proxy could not be serialized because it is not a valid RPC receiver type. The Proxy must emulate either a plain object or an RpcTarget, as indicated by the Proxy's prototype chain.",
      "DataCloneError"
    );

  const notImplemented = (name) => new TypeError(`The RPC receiver does not implement the method "${String(name)}".`);
  const disposedError = () => new Error("RPC stub used after being disposed.");
  const cloneError = (type) =>
    new DOMException(`Could not serialize object of type "${type}". This type does not support serialization.`, "DataCloneError");

  // ------------------------------------------------------------ hooks
  // A hook is where a stub sends calls: call(path, args) and get(path)
  // return promises; dup() returns a new hook to the same target;
  // dispose() lets it go. transfer() hands its reference to a message
  // (the hook is then disposed) and returns the cap descriptor.

  // A local target: new RpcStub(value). Holds one reference of an export
  // entry, so that the target's Symbol.dispose runs when the last
  // reference (local or remote) goes.
  class LocalHook {
    constructor(target, id) {
      this.target = target;
      this.id = id;
      this.disposed = false;
    }
    call(path, args) {
      if (this.disposed) return Promise.reject(disposedError());
      return serve(this.target, path, args, false, undefined);
    }
    get(path) {
      if (this.disposed) return Promise.reject(disposedError());
      return serve(this.target, path, undefined, true, undefined);
    }
    dup() {
      if (this.disposed) throw disposedError();
      native.capAddRef(this.id);
      return new LocalHook(this.target, this.id);
    }
    dispose() {
      if (this.disposed) return;
      this.disposed = true;
      native.capRelease(this.id);
    }
    transfer() {
      if (this.disposed) throw disposedError();
      this.disposed = true;
      return { t: 1, id: this.id };
    }
  }

  // A target in another runtime (or another object), reached by id.
  // Stubs a Durable Object instance received (its calls' parameters, and
  // their dups) are released when the instance is reset (releaseOwner).
  const owned = new Map();
  let currentOwner;

  class RemoteHook {
    constructor(id, owner = currentOwner) {
      this.id = id;
      this.disposed = false;
      this.owner = owner;
      if (owner !== undefined) {
        let set = owned.get(owner);
        if (!set) owned.set(owner, (set = new Set()));
        set.add(this);
      }
    }
    call(path, args) {
      if (this.disposed) return Promise.reject(disposedError());
      return enqueue(this, -1, path, args, false);
    }
    get(path) {
      if (this.disposed) return Promise.reject(disposedError());
      return enqueue(this, -1, path, undefined, true);
    }
    // wire sends one message (a call, a read or a pipeline) to the target.
    wire(path, v, caps, isGet, resolve, reject) {
      return native.capCall(this.id, path, v, caps, isGet, resolve, reject);
    }
    dup() {
      if (this.disposed) throw disposedError();
      native.capAddRef(this.id);
      return new RemoteHook(this.id, this.owner);
    }
    dispose() {
      if (this.disposed) return;
      this.disposed = true;
      if (this.owner !== undefined) owned.get(this.owner)?.delete(this);
      native.capRelease(this.id);
    }
    transfer() {
      if (this.disposed) throw disposedError();
      this.disposed = true;
      if (this.owner !== undefined) owned.get(this.owner)?.delete(this);
      return { t: 1, id: this.id };
    }
  }

  function releaseOwner(owner) {
    const set = owned.get(owner);
    owned.delete(owner);
    if (set) for (const h of set) h.dispose();
  }

  // A Durable Object stub's methods: calls go through its namespace.
  class ObjectHook {
    constructor(stub) {
      this.stub = stub;
    }
    call(path, args) {
      return enqueue(this, -1, path, args, false);
    }
    get(path) {
      return enqueue(this, -1, path, undefined, true);
    }
    wire(path, v, caps, isGet, resolve, reject) {
      return native.stubCall(this.stub, path, v, caps, isGet, resolve, reject);
    }
  }

  // The result of a call not yet settled: what is sent to it waits for the
  // result and goes on from there (promise pipelining).
  // When the call is still in this turn's outbox, what is sent to its
  // result joins the same message (one round trip): the callee runs the
  // chain itself.
  class PromiseHook {
    constructor(promise, pipe) {
      this.promise = promise;
      this.pipe = pipe; // {batch, index} while the call is in the outbox
    }
    call(path, args) {
      const pi = this.pipe;
      if (pi && !pi.batch.sent) return enqueueOn(pi.batch, pi.index, path, args, false);
      return this.promise.then((v) => deliver(v, path, args, false));
    }
    get(path) {
      const pi = this.pipe;
      if (pi && !pi.batch.sent) return enqueueOn(pi.batch, pi.index, path, undefined, true);
      return this.promise.then((v) => deliver(v, path, undefined, true));
    }
  }

  // ------------------------------------------------------------ outbox
  // Calls and reads through remote hooks are sent at the end of the
  // current synchronous run (a microtask), in order, so that what is
  // pipelined onto their results meanwhile travels in the same message:
  // stub.getCounter().increment() is one round trip. A batch of one
  // operation is sent exactly as a plain call; a longer one as a pipeline
  // message (PIPE), whose callee runs operation i on the result of
  // operation base (or on the target, base -1) and answers every outcome.
  // Anything else a runtime sends to an object (stub.fetch) flushes the
  // outbox first (native.rpcPending), so order is kept.
  const PIPE = "\u0000cellhost.pipe";
  // lastPipe is the outbox place of the promise enqueueOn returned last:
  // makePromise, called with that promise right after, keeps it.
  let lastPipe;
  let outbox = [];
  const promiseThen = Promise.prototype.then;
  const resolvedPromise = Promise.resolve();

  function enqueue(hook, base, path, args, isGet) {
    const batch = { hook, ops: [], sent: false };
    if (outbox.length === 0) {
      native.rpcPending();
      promiseThen.call(resolvedPromise, flush);
    }
    outbox.push(batch);
    return enqueueOn(batch, base, path, args, isGet);
  }

  function enqueueOn(batch, base, path, args, isGet) {
    let enc;
    if (!isGet) {
      try {
        enc = encode(args);
      } catch (e) {
        return Promise.reject(e);
      }
    }
    let resolve, reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // An error it fails with shows where the call was made, as V8's
    // async stack trace does (at async caller ...).
    const site = native.callSite();
    const fail = (e) => {
      native.asyncStack(e, site);
      reject(e);
    };
    const index = batch.ops.length;
    batch.ops.push({ base, path, enc, isGet, resolve, reject: fail });
    lastPipe = { promise, batch, index };
    return promise;
  }

  function flush() {
    if (outbox.length === 0) return;
    const batches = outbox;
    outbox = [];
    lastPipe = undefined;
    for (const b of batches) sendBatch(b);
  }

  function sendBatch(b) {
    b.sent = true;
    const ops = b.ops;
    if (ops.length === 1) {
      const op = ops[0];
      try {
        if (op.isGet) b.hook.wire(op.path, undefined, noCaps, true, op.resolve, op.reject);
        else b.hook.wire(op.path, op.enc.v, op.enc.caps, false, op.resolve, op.reject);
      } catch (e) {
        op.reject(e);
      }
      return;
    }
    const caps = [];
    const wireOps = ops.map((op) => {
      const o = { b: op.base, p: op.path, g: op.isGet, o: caps.length, n: 0 };
      if (!op.isGet) {
        o.a = op.enc.v;
        o.n = op.enc.caps.length;
        for (const c of op.enc.caps) caps.push(c);
      }
      return o;
    });
    let p;
    try {
      p = b.hook.wire([PIPE], { ops: wireOps }, caps, false);
    } catch (e) {
      for (const op of ops) op.reject(e);
      return;
    }
    promiseThen.call(
      p,
      (outcomes) => {
        for (let i = 0; i < ops.length; i++) {
          const o = outcomes[i];
          if (hasOwn.call(o, "e")) {
            const e = o.e;
            if (e instanceof Error) e.remote = true;
            ops[i].reject(e);
          } else ops[i].resolve(o.r);
        }
      },
      (e) => {
        for (const op of ops) op.reject(e);
      }
    );
  }

  // servePipeline runs a pipeline message's operations (see the outbox):
  // each on the target or on an earlier operation's result, here. When
  // the first fails, the message fails with its error; otherwise it
  // answers [{r: result} | {e: error}, ...].
  function servePipeline(target, v, caps, base, created) {
    const results = [];
    for (const op of v.ops) {
      const args = op.g ? undefined : decode(op.a, caps.slice(op.o, op.o + op.n), created);
      const p =
        op.b < 0
          ? serve(target, op.p, args || [], op.g, base)
          : promiseThen.call(results[op.b], (r) => serve(r, op.p, args || [], op.g, undefined));
      promiseThen.call(p, undefined, () => {}); // answered below, never unhandled
      results.push(p);
    }
    return promiseThen.call(results[0], () =>
      Promise.all(results.map((p) => promiseThen.call(p, (r) => ({ r }), (e) => ({ e }))))
    );
  }

  // deliver sends path/args to a value the caller already holds (a
  // settled result): a stub forwards it; a plain object or array is
  // walked locally; anything else does not implement the name.
  function deliver(v, path, args, isGet) {
    let i = 0;
    for (;;) {
      const st = stateOf(v);
      if (st && st.hook) {
        const rest = path.slice(i);
        return isGet ? st.hook.get(rest) : st.hook.call(rest, args);
      }
      if (i < path.length && isObjectStub(v)) {
        const hook = new ObjectHook(v);
        const rest = path.slice(i);
        return isGet ? hook.get(rest) : hook.call(rest, args);
      }
      if (i === path.length) break;
      // An RpcTarget held here (a local stub's result): served as a stub of
      // it would serve it, so pipelining onto it works as across runtimes.
      if (v !== null && typeof v === "object" && v instanceof RpcTarget) {
        return serve(v, path.slice(i), args, isGet);
      }
      const name = path[i];
      if (v === null || typeof v !== "object" || (getProto(v) !== Object.prototype && !Array.isArray(v)) || !hasOwn.call(v, name)) {
        throw notImplemented(name);
      }
      v = v[name];
      i++;
    }
    if (isGet) return v;
    if (typeof v !== "function") throw new TypeError(`"${String(path[path.length - 1])}" is not a function.`);
    return v(...args);
  }

  // ------------------------------------------------------------ stubs
  // Stubs, properties and promises are Proxies of a function (so that
  // they can be called) whose prototype is RpcStub/RpcProperty/RpcPromise.
  // Properties set on them are kept on the proxy's own target.
  // copyArgs copies a Proxy apply trap's argument list: goja (2026-09-17)
  // hands the trap an array over its VM stack, which later calls
  // overwrite, and these arguments are read after an await.
  const slice = Array.prototype.slice;
  function copyArgs(args) {
    return slice.call(args);
  }

  function stubTarget() {
    return function () {};
  }

  function stateOf(v) {
    if ((typeof v === "function" || (typeof v === "object" && v !== null)) && !isObjectStub(v)) {
      try {
        return v[STATE];
      } catch (e) {
        return undefined;
      }
    }
    return undefined;
  }

  const stubHandler = {
    get(t, prop) {
      const st = t[STATE];
      if (prop === STATE) return st;
      if (hasOwn.call(t, prop) && prop !== "prototype" && prop !== "length" && prop !== "name") return t[prop];
      if (prop === "dup") return () => makeStub(st.hook.dup());
      if (prop === Symbol.dispose) return () => st.hook.dispose();
      if (prop === "then" || typeof prop === "symbol") return undefined;
      if (prop === "constructor") return RpcStub;
      if (prop === "toString") return () => "[object RpcStub]";
      return makeProperty(st.hook, [prop]);
    },
    apply(t, self, args) {
      return makePromise(t[STATE].hook.call([], copyArgs(args)));
    },
    getPrototypeOf() {
      return RpcStub.prototype;
    },
    has(t, prop) {
      return prop === STATE || hasOwn.call(t, prop);
    },
  };

  function makeStub(hook) {
    const t = stubTarget();
    Object.defineProperty(t, STATE, { value: { hook, kind: "stub" } });
    return new Proxy(t, stubHandler);
  }

  const propHandler = {
    get(t, prop) {
      const st = t[STATE];
      if (prop === STATE) return st;
      if (hasOwn.call(t, prop) && prop !== "prototype" && prop !== "length" && prop !== "name") return t[prop];
      if (prop === "then" || prop === "catch" || prop === "finally") {
        if (!st.promise) st.promise = st.hook.get(st.path);
        return st.promise[prop].bind(st.promise);
      }
      if (typeof prop === "symbol") return undefined;
      // workerd bounds a pipelined property chain (JsRpcProperty's depth).
      if (st.path.length > MAX_PROPERTY_DEPTH) throw new TypeError(`RPC pipelined property path is too deep (max ${MAX_PROPERTY_DEPTH}).`);
      return makeProperty(st.hook, [...st.path, prop]);
    },
    apply(t, self, args) {
      const st = t[STATE];
      return makePromise(st.hook.call(st.path, copyArgs(args)));
    },
    getPrototypeOf() {
      return RpcProperty.prototype;
    },
    has(t, prop) {
      return prop === STATE || hasOwn.call(t, prop);
    },
  };

  const MAX_PROPERTY_DEPTH = 64;

  function makeProperty(hook, path) {
    const t = stubTarget();
    Object.defineProperty(t, STATE, { value: { hook, path, kind: "property" } });
    return new Proxy(t, propHandler);
  }

  const promiseHandler = {
    get(t, prop) {
      const st = t[STATE];
      if (prop === STATE) return st;
      if (hasOwn.call(t, prop) && prop !== "prototype" && prop !== "length" && prop !== "name") return t[prop];
      if (prop === "then" || prop === "catch" || prop === "finally") return st.promise[prop].bind(st.promise);
      if (typeof prop === "symbol") return undefined;
      return makeProperty(new PromiseHook(st.promise, st.pipe), [prop]);
    },
    apply(t, self, args) {
      const st = t[STATE];
      return makePromise(new PromiseHook(st.promise, st.pipe).call([], copyArgs(args)));
    },
    getPrototypeOf() {
      return RpcPromise.prototype;
    },
    has(t, prop) {
      return prop === STATE || hasOwn.call(t, prop);
    },
  };

  function makePromise(promise) {
    const t = stubTarget();
    let pipe;
    if (lastPipe !== undefined && lastPipe.promise === promise) {
      pipe = lastPipe;
      lastPipe = undefined;
    }
    Object.defineProperty(t, STATE, { value: { promise, pipe, kind: "promise" } });
    return new Proxy(t, promiseHandler);
  }

  // RpcStub(value): a stub to a local RpcTarget, function or object.
  function RpcStub(value) {
    if (!new.target) throw new TypeError("Failed to construct 'RpcStub': Please use the 'new' operator, this object constructor cannot be called as a function.");
    const st = stateOf(value);
    if (st && st.kind === "stub") return makeStub(st.hook.dup());
    return makeStub(new LocalHook(value, native.capExport(value)));
  }
  function RpcProperty() {
    throw new TypeError("Illegal constructor");
  }
  function RpcPromise() {
    throw new TypeError("Illegal constructor");
  }

  // ------------------------------------------------------------ streams
  // A WritableStream crosses RPC as a capability to an internal target in
  // the sender's runtime (its writer), marked {CAP: i, s: 2}; the receiver
  // gets a stream of its own that writes to it one chunk per call. The
  // stream holds the reference until it ends (never the call's parameter
  // disposal). (A ReadableStream goes through structured clone.)
  const STREAM_WRITABLE = 2;
  const writableGone = () =>
    new Error("WritableStream received over RPC was disconnected because the remote execution context has ended.");

  function streamKind(v) {
    const W = globalThis.WritableStream;
    // A ReadableStream goes through structured clone (jsapi/web: a Go
    // stream the receiver pulls, as Request/Response bodies do).
    if (typeof W === "function" && v instanceof W) return STREAM_WRITABLE;
    return 0;
  }

  // streamSink is the target a sent WritableStream becomes.
  function streamSink(stream) {
    if (stream.locked) throw new TypeError("This WritableStream is currently locked to a writer.");
    const writer = stream.getWriter();
    let done = false;
    const end = () => {
      if (!done) {
        done = true;
        writer.abort(writableGone()).catch(() => {});
      }
    };
    return {
      write(chunk) {
        return writer.write(chunk);
      },
      close() {
        done = true;
        return writer.close();
      },
      abort() {
        // workerd does not carry the reason: the stream is disconnected.
        end();
      },
      [Symbol.dispose]: end,
    };
  }

  // A received stream the program drops without ending lets its sender's
  // reader or writer go when it is collected.
  const droppedStreams =
    typeof FinalizationRegistry === "function"
      ? new FinalizationRegistry((close) => close())
      : { register() {} };

  // remoteWritable is the WritableStream a received one becomes.
  function remoteWritable(stub) {
    let open = true;
    const close = () => {
      if (open) {
        open = false;
        stub[Symbol.dispose]();
      }
    };
    const stream = new WritableStream({
      write(chunk) {
        return Promise.resolve(stub.write(chunk)).then(undefined, (e) => {
          close();
          throw e;
        });
      },
      close() {
        const p = stub.close();
        return Promise.resolve(p).then(close, (e) => {
          close();
          throw e;
        });
      },
      abort() {
        if (!open) return;
        return Promise.resolve(stub.abort()).then(close, close);
      },
    });
    droppedStreams.register(stream, close);
    return stream;
  }

  // ------------------------------------------------------------ encoding
  // encode walks a value to send: RpcTargets and functions are exported
  // (a new reference), stubs hand over their reference, Durable Object
  // stubs travel as their id; each becomes {CAP: index}. The value is
  // copied only where it holds one. Class instances that are not
  // RpcTargets are refused as workerd refuses them.
  function isObjectStub(v) {
    return native.objectStubOf(v) !== undefined;
  }

  // cloneable reports whether structured clone copies v as what it is
  // (not as a plain object): the types V8's serializer knows.
  const cloneableTypes = [Date, RegExp, Error, ArrayBuffer, Number, String, Boolean];
  if (typeof BigInt === "function") cloneableTypes.push(BigInt);
  function cloneable(v) {
    if (ArrayBuffer.isView(v)) return true;
    for (const C of cloneableTypes) if (v instanceof C) return true;
    for (const name of ["Blob", "File", "Request", "Response", "Headers", "ReadableStream", "WritableStream"]) {
      const C = globalThis[name];
      if (typeof C === "function" && v instanceof C) return true;
    }
    return false;
  }

  // simple reports whether v needs no walk: a primitive, or an array of
  // primitives (most argument lists).
  function simple(v) {
    if (typeof v !== "object" || v === null) return typeof v !== "function";
    if (!Array.isArray(v)) return false;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if ((typeof x === "object" && x !== null) || typeof x === "function") return false;
    }
    return true;
  }
  const noCaps = [];

  function encode(value) {
    if (simple(value)) return { v: value, caps: noCaps };
    const caps = [];
    const seen = new Map();
    const walk = (v, depth) => {
      if (typeof v === "function" || (typeof v === "object" && v !== null)) {
        if (seen.has(v)) return seen.get(v);
        const dos = native.objectStubOf(v);
        if (dos !== undefined) {
          caps.push({ t: 2, b: dos[0], h: dos[1], n: dos[2] });
          return { [CAP]: caps.length - 1 };
        }
        const st = stateOf(v);
        if (!st && native.isProxy(v)) {
          // A Proxy travels by reference (workerd's serializeProxy), as what
          // its prototype chain says it is, so its traps keep running.
          if (stubKind(v) === undefined) throw proxyCloneError();
          caps.push({ t: 1, id: native.capExport(v) });
          return { [CAP]: caps.length - 1 };
        }
        if (st) {
          if (st.kind === "promise") throw cloneError("RpcPromise");
          if (st.kind === "property") throw cloneError("RpcProperty");
          if (st.hook instanceof ObjectHook) throw cloneError("RpcStub");
          caps.push(st.hook.transfer());
          return { [CAP]: caps.length - 1 };
        }
        if (typeof v === "function" || v instanceof RpcTarget) {
          caps.push({ t: 1, id: native.capExport(v) });
          return { [CAP]: caps.length - 1 };
        }
        const sk = streamKind(v);
        if (sk !== 0) {
          caps.push({ t: 1, id: native.capExport(streamSink(v)) });
          return { [CAP]: caps.length - 1, s: sk };
        }
        if (depth > 1000) return v;
        const proto = getProto(v);
        if (Array.isArray(v)) {
          let out = v;
          for (let i = 0; i < v.length; i++) {
            const x = walk(v[i], depth + 1);
            if (x !== v[i]) {
              if (out === v) out = v.slice();
              out[i] = x;
            }
          }
          seen.set(v, out);
          return out;
        }
        if (proto === Object.prototype) {
          let out = v;
          for (const k of Object.keys(v)) {
            const x = walk(v[k], depth + 1);
            if (x !== v[k]) {
              if (out === v) out = Object.assign({}, v);
              out[k] = x;
            }
          }
          seen.set(v, out);
          return out;
        }
        if (v instanceof Map) {
          let changed = false;
          const entries = [];
          for (const [k, x] of v) {
            const k2 = walk(k, depth + 1), x2 = walk(x, depth + 1);
            if (k2 !== k || x2 !== x) changed = true;
            entries.push([k2, x2]);
          }
          return changed ? new Map(entries) : v;
        }
        if (v instanceof Set) {
          let changed = false;
          const items = [];
          for (const x of v) {
            const x2 = walk(x, depth + 1);
            if (x2 !== x) changed = true;
            items.push(x2);
          }
          return changed ? new Set(items) : v;
        }
        if (proto === null) throw cloneError("Object");
        if (cloneable(v)) return v;
        let type = "Object";
        try {
          const c = v.constructor;
          if (typeof c === "function" && c.name) type = c.name;
        } catch (e) {}
        throw cloneError(type);
      }
      return v;
    };
    const v = walk(value, 0);
    return { v, caps };
  }

  // decode replaces the markers of a received value by stubs. created
  // collects the stubs it made (so that a callee's parameters can be
  // disposed when the call ends).
  function decode(v, caps, created) {
    if (caps.length === 0) return v;
    const stubs = caps.map((c) => {
      if (c.t === 2) return native.makeObjectStub(c.b, c.h, c.n);
      return makeStub(new RemoteHook(c.id));
    });
    const streams = new Set();
    const seen = new Set();
    const walk = (x) => {
      if (typeof x !== "object" || x === null || seen.has(x)) return x;
      if (hasOwn.call(x, CAP) && getProto(x) === Object.prototype) {
        const stub = stubs[x[CAP]];
        if (x.s === STREAM_WRITABLE) {
          streams.add(stub);
          return remoteWritable(stub);
        }
        return stub;
      }
      seen.add(x);
      if (Array.isArray(x) || getProto(x) === Object.prototype) {
        for (const k of Object.keys(x)) x[k] = walk(x[k]);
      } else if (x instanceof Map) {
        const entries = [...x];
        x.clear();
        for (const [k, y] of entries) x.set(walk(k), walk(y));
      } else if (x instanceof Set) {
        const items = [...x];
        x.clear();
        for (const y of items) x.add(walk(y));
      }
      return x;
    };
    const out = walk(v);
    for (let i = 0; i < caps.length; i++) {
      if (caps[i].t !== 2 && !streams.has(stubs[i])) created.push(stubs[i]);
    }
    return out;
  }

  // received is what a caller's promise resolves to: the decoded result.
  // As workerd, every object result (a plain object, an array, a Date...,
  // with stubs or none, so that `using` takes any) gets a non-enumerable,
  // anonymous Symbol.dispose that disposes the stubs it holds.
  const anonymous = (f) => f;
  function received(v, caps) {
    const created = [];
    const out = decode(v, caps, created);
    // (A host object, such as a stub, takes no symbol property: it keeps
    // its own disposal.)
    if (typeof out === "object" && out !== null && !stateOf(out) && !native.isProxy(out) && !hasOwn.call(out, Symbol.dispose)) {
      try {
        Object.defineProperty(out, Symbol.dispose, {
          value: anonymous(() => {
            for (const s of created) s[Symbol.dispose]();
          }),
          configurable: true,
          writable: true,
        });
      } catch {
        // a host object that refuses symbol properties
      }
    }
    return out;
  }

  // ------------------------------------------------------------ serving
  // lookup reads name from a receiver as workerd lets RPC reach it: on a
  // class-based receiver (a DurableObject, WorkerEntrypoint or RpcTarget)
  // a method or accessor of its class, never an instance field; on a plain
  // object or a function an own property. It returns [found, value].
  function lookup(recv, name, base) {
    if (native.isProxy(recv) && !stateOf(recv)) return lookupProxy(recv, name);
    if (typeof recv === "function" || (typeof recv === "object" && recv !== null && getProto(recv) === Object.prototype)) {
      if (typeof name !== "string" || !hasOwn.call(recv, name)) return [false];
      return [true, recv[name]];
    }
    if (typeof recv === "object" && recv !== null && (recv instanceof RpcTarget || (base && recv instanceof base))) {
      for (let p = getProto(recv); p && p !== Object.prototype && p !== RpcTarget.prototype && (!base || p !== base.prototype); p = getProto(p)) {
        const d = Object.getOwnPropertyDescriptor(p, name);
        if (d) {
          if (name === "constructor") return [false];
          return [true, d.get ? d.get.call(recv) : d.value];
        }
      }
    }
    return [false];
  }

  // lookupProxy is lookup for a Proxy, through its traps as workerd's
  // tryGetProperty reads it: as a plain object or function, an own
  // property; as an RpcTarget, any property that is neither own nor
  // Object.prototype's.
  function lookupProxy(recv, name) {
    const kind = stubKind(recv);
    if (kind === undefined || typeof name !== "string") return [false];
    const own = hasOwn.call(recv, name);
    if (kind === "plain") return own ? [true, recv[name]] : [false];
    if (own) return [false];
    const v = recv[name];
    if (v === Object.prototype[name]) return [false];
    return [true, v];
  }

  // traversable reports whether an RPC path may go on through v.
  function traversable(v) {
    if (typeof v === "function") {
      const st = stateOf(v);
      return !st || st.kind === "stub";
    }
    if (typeof v !== "object" || v === null) return false;
    if (isObjectStub(v) || stateOf(v)) return true;
    if (native.isProxy(v)) return stubKind(v) !== undefined;
    return getProto(v) === Object.prototype || v instanceof RpcTarget;
  }

  // serve runs a call (or a property read) that arrived for target: it
  // follows path, then calls the function found with args, or returns the
  // value (a thenable is awaited, as the result is serialized later).
  // base is the class whose instances are the target's kind
  // (DurableObject) or undefined. Errors come back as rejections.
  function serve(target, path, args, isGet, base) {
    try {
      let recv = target, v = target;
      let parent;
      for (let i = 0; i < path.length; i++) {
        const name = path[i];
        const st = stateOf(v);
        if ((st && st.hook) || isObjectStub(v)) {
          // A stub reached along the path: the rest goes to its target.
          const rest = path.slice(i);
          const p = isGet ? deliver(v, rest, undefined, true) : deliver(v, rest, args, false);
          return Promise.resolve(p);
        }
        const [found, x] = lookup(v, name, i === 0 ? base : undefined);
        if (!found) throw notImplemented(name);
        if (i < path.length - 1 && !traversable(x)) throw notImplemented(name);
        parent = v;
        v = x;
      }
      if (isGet) return Promise.resolve(v);
      if (typeof v !== "function") {
        throw new TypeError(`"${String(path[path.length - 1])}" is not a function.`);
      }
      return Promise.resolve(Reflect.apply(v, path.length ? parent : undefined, args));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  // serveRemote is serve for a call that arrived from another runtime:
  // its arguments are decoded here, and the stubs among them are disposed
  // once the call settles (the callee keeps what it dup()s).
  function serveRemote(target, path, v, caps, isGet, base) {
    const created = [];
    let args;
    const prev = currentOwner;
    currentOwner = base ? target : undefined;
    let p;
    try {
      if (path.length === 1 && path[0] === PIPE && !isGet) {
        p = servePipeline(target, v, caps, base, created);
      } else {
        args = isGet ? undefined : decode(v, caps, created);
        p = serve(target, path, args || [], isGet, base);
      }
    } catch (e) {
      return Promise.reject(e);
    } finally {
      currentOwner = prev;
    }
    if (created.length === 0) return p;
    // The parameters go once the result is serialized (a later turn): a
    // call may return one of them (identity(stub)), as on workerd.
    return p.finally(() => {
      native.later(() => {
        for (const s of created) s[Symbol.dispose]();
      });
    });
  }

  // disposeTarget runs an exported target's Symbol.dispose once its last
  // reference is gone.
  function disposeTarget(t) {
    try {
      const d = t[Symbol.dispose];
      if (typeof d === "function") d.call(t);
    } catch (e) {}
  }

  function doStubMethod(stub, prop) {
    return makeProperty(new ObjectHook(stub), [prop]);
  }

  for (const [C, name] of [
    [RpcStub, "RpcStub"],
    [RpcProperty, "RpcProperty"],
    [RpcPromise, "RpcPromise"],
  ]) {
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
  }

  return {
    RpcTarget,
    RpcStub,
    RpcPromise,
    RpcProperty,
    encode,
    received,
    serveRemote,
    disposeTarget,
    doStubMethod,
    releaseOwner,
    flush,
  };
});
