(function (native, queueName, defaultType) {
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
    if (o === undefined || o === null || o.contentType === undefined) return defaultType;
    const t = String(o.contentType).toLowerCase();
    if (!types.includes(t)) throw new TypeError(`Unsupported queue message content type: ${o.contentType}`);
    return t;
  }
  function one(body, o, what) {
    if (body === undefined) throw new TypeError("Message body cannot be undefined");
    const contentType = contentTypeOf(o);
    if (contentType === "text" && typeof body !== "string") {
      throw new TypeError(`Content Type "text" requires a value of type string, but received: ${typeof body}`);
    }
    if (contentType === "bytes" && !(body instanceof ArrayBuffer || ArrayBuffer.isView(body))) {
      throw new TypeError(`Content Type "bytes" requires a value of type ArrayBufferView, but received: ${typeof body}`);
    }
    if (contentType === "json" && JSON.stringify(body) === undefined) {
      throw new TypeError(`Content Type "json" requires a value that JSON.stringify accepts`);
    }
    return { body, contentType, delaySeconds: delayOf(o, what) };
  }
  // The queue's backlog before the send, as workerd reports it.
  function result(m) {
    const oldestMessageTimestamp = m.count > 0 ? new Date(m.oldest) : undefined;
    return { metadata: { metrics: { backlogCount: m.count, backlogBytes: m.bytes, oldestMessageTimestamp } } };
  }
  class WorkerQueue {
    async send(body, options) {
      return result(await native.send([one(body, options, "send")], delayOf(options, "send")));
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
      return result(await native.send(list, delayOf(options, "sendBatch")));
    }
  }
  Object.defineProperty(WorkerQueue.prototype, Symbol.toStringTag, { value: "WorkerQueue" });
  return new WorkerQueue();
})
