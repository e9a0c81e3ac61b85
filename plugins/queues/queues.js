(function (native, queueName) {
  "use strict";
  const types = ["text", "json", "bytes", "v8"];
  function delayOf(o, what) {
    if (o === undefined || o === null) return undefined;
    const d = o.delaySeconds;
    if (d === undefined) return undefined;
    if (typeof d !== "number" || !Number.isFinite(d) || d < 0 || d > 43200) {
      throw new TypeError(what + ": delaySeconds must be a number between 0 and 43200");
    }
    return d;
  }
  function contentTypeOf(o) {
    const t = o === undefined || o === null || o.contentType === undefined ? "v8" : o.contentType;
    if (!types.includes(t)) {
      throw new TypeError(`Unknown Queue content type "${t}". Valid content types are: "text", "bytes", "json", "v8".`);
    }
    return t;
  }
  function one(body, o, what) {
    const contentType = contentTypeOf(o);
    if (contentType === "text" && typeof body !== "string") {
      throw new TypeError(`Content Type "text" requires a value of type string, but received ${typeof body}`);
    }
    if (contentType === "bytes" && !(body instanceof ArrayBuffer || ArrayBuffer.isView(body))) {
      throw new TypeError(`Content Type "bytes" requires a value of type ArrayBufferView, but received ${typeof body}`);
    }
    if (contentType === "json" && JSON.stringify(body) === undefined) {
      throw new TypeError(`Content Type "json" requires a value that JSON.stringify accepts`);
    }
    if (body === undefined) throw new TypeError("Queue send requires a message body");
    return { body, contentType, delaySeconds: delayOf(o, what) };
  }
  class WorkerQueue {
    async send(body, options) {
      await native.send([one(body, options, "send")], delayOf(options, "send"));
    }
    async sendBatch(messages, options) {
      if (messages === null || typeof messages !== "object" || typeof messages[Symbol.iterator] !== "function") {
        throw new TypeError("sendBatch() requires an iterable of messages");
      }
      const list = [];
      for (const m of messages) {
        if (m === null || typeof m !== "object") throw new TypeError("sendBatch(): each message must be an object with a body");
        list.push(one(m.body, m, "sendBatch"));
      }
      if (list.length === 0) throw new TypeError("sendBatch() requires at least one message");
      await native.send(list, delayOf(options, "sendBatch"));
    }
  }
  Object.defineProperty(WorkerQueue.prototype, Symbol.toStringTag, { value: "WorkerQueue" });
  return new WorkerQueue();
})
