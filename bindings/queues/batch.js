(function (queueName, raw, record) {
  "use strict";
  // raw: [{id, timestampMs, body, attempts}]; record(id, action, delaySeconds)
  // keeps the first decision made for a message.
  function delayOf(o) {
    if (o === undefined || o === null || o.delaySeconds === undefined) return -1;
    const d = o.delaySeconds;
    if (typeof d !== "number" || !Number.isFinite(d) || d < 0 || d > 43200) {
      throw new TypeError("retry: delaySeconds must be a number between 0 and 43200");
    }
    return d;
  }
  class Message {
    #id;
    constructor(m) {
      this.#id = m.id;
      Object.defineProperty(this, "id", { value: m.id, enumerable: true });
      Object.defineProperty(this, "timestamp", { value: new Date(m.timestampMs), enumerable: true });
      Object.defineProperty(this, "body", { value: m.body, enumerable: true });
      Object.defineProperty(this, "attempts", { value: m.attempts, enumerable: true });
    }
    ack() { record(this.#id, "ack", -1); }
    retry(options) { record(this.#id, "retry", delayOf(options)); }
  }
  class MessageBatch {
    constructor() {
      Object.defineProperty(this, "queue", { value: queueName, enumerable: true });
      Object.defineProperty(this, "messages", { value: raw.map((m) => new Message(m)), enumerable: true });
    }
    ackAll() { record("", "ack", -1); }
    retryAll(options) { record("", "retry", delayOf(options)); }
  }
  return new MessageBatch();
})
