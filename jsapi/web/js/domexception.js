  // ---------------------------------------------------------------- DOMException
  const domCodes = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4, InvalidCharacterError: 5,
    NoModificationAllowedError: 7, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11,
    SyntaxError: 12, InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20, URLMismatchError: 21,
    QuotaExceededError: 22, TimeoutError: 23, InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  // workerd's DOMException has own enumerable code, name and message
  // accessors and an own enumerable stack, in that order (domGet below).
  let domGet;
  class DOMException extends Error {
    #name;
    #code;
    #message;
    constructor(message = "", options = "Error") {
      super(String(message));
      this.#message = String(message);
      const stack = this.stack;
      delete this.stack;
      delete this.message;
      Object.defineProperty(this, "code", { get: domGet.code, enumerable: true, configurable: true });
      Object.defineProperty(this, "name", { get: domGet.name, enumerable: true, configurable: true });
      Object.defineProperty(this, "message", { get: domGet.message, enumerable: true, configurable: true });
      Object.defineProperty(this, "stack", { value: stack, writable: true, enumerable: true, configurable: true });
      let name = "Error";
      if (isObject(options)) {
        if ("name" in options) name = String(options.name);
        if ("cause" in options) Object.defineProperty(this, "cause", { value: options.cause, writable: true, configurable: true });
      } else if (options !== undefined) {
        name = String(options);
      }
      this.#name = name;
      this.#code = domCodes[name] ?? 0;
    }
    get name() {
      return this.#name;
    }
    get code() {
      return this.#code;
    }
    get message() {
      return this.#message;
    }
  }
  domGet = Object.fromEntries(["code", "name", "message"].map((k) => [k, Object.getOwnPropertyDescriptor(DOMException.prototype, k).get]));
  Object.defineProperty(DOMException.prototype, Symbol.toStringTag, { value: "DOMException", configurable: true });
  for (const [k, v] of Object.entries({
    INDEX_SIZE_ERR: 1, HIERARCHY_REQUEST_ERR: 3, WRONG_DOCUMENT_ERR: 4, INVALID_CHARACTER_ERR: 5,
    NO_MODIFICATION_ALLOWED_ERR: 7, NOT_FOUND_ERR: 8, NOT_SUPPORTED_ERR: 9, INVALID_STATE_ERR: 11,
    SYNTAX_ERR: 12, INVALID_MODIFICATION_ERR: 13, NAMESPACE_ERR: 14, INVALID_ACCESS_ERR: 15,
    TYPE_MISMATCH_ERR: 17, SECURITY_ERR: 18, NETWORK_ERR: 19, ABORT_ERR: 20, URL_MISMATCH_ERR: 21,
    QUOTA_EXCEEDED_ERR: 22, TIMEOUT_ERR: 23, INVALID_NODE_TYPE_ERR: 24, DATA_CLONE_ERR: 25,
  })) {
    Object.defineProperty(DOMException, k, { value: v, enumerable: true });
    Object.defineProperty(DOMException.prototype, k, { value: v, enumerable: true });
  }
  defineGlobal("DOMException", DOMException);

