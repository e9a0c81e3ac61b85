  // ---------------------------------------------------------------- Response
  const statusTexts = native.statusTexts; // status.go's table
  function defaultStatusText(s) {
    if (s === 200) return "OK";
    if (Object.prototype.hasOwnProperty.call(statusTexts, s)) return statusTexts[s];
    return native.defaultStatusText(s);
  }
  function toInt32(v) {
    return Number(v) | 0;
  }
  // readResponseInit reads a ResponseInit dictionary's members once, in
  // WebIDL's (alphabetical) order.
  function readResponseInit(init) {
    return { cf: init.cf, encodeBody: init.encodeBody, headers: init.headers, status: init.status, statusText: init.statusText, webSocket: init.webSocket };
  }
  const nullBodyStatus = (s) => s === 101 || s === 204 || s === 205 || s === 304;
  let makeResponseInternal; // (status, statusText|null, list|null, ctype|null, state, webSocket) → Response
  let exportResponseInternal; // (res) → undefined, after native.outResponse(...)
  let goMakeResponse; // internals.makeResponse
  let rpcResponseMeta, rpcResponseInit, rpcMakeResponse; // http_clone.go
  let Response; // the public class (made in ResponseImpl's static block)
  const fetchedInfo = new WeakMap(); // a fetch's Response → [url, redirected]
  // ResponseImpl holds a Response's slots and methods, as RequestImpl does
  // for Request: its constructor is small, and the stack goja regrows on
  // every call from Go stays short.
  class ResponseImpl extends Body {
    #status;
    #statusText; // null = default for the status
    #headers; // the Headers object, or null until asked for
    #hl;
    #ctype;
    #webSocket;
    #type;
    #cf;
    // internal construction: the caller sets the fields
    constructor(state) {
      super(INTERNAL, state, null);
    }
    static {
      // the public class (see Request)
      Response = class Response extends Body {
        constructor(body, init) {
          const newTarget = new.target;
          let status = 200;
          let statusText = null;
          let headers = null; // a Headers object from init, else the list is hl (or only ctype)
          let hl = null;
          let ctype = null;
          let webSocket = null;
          let cf;
          if (isObject(init) && #status in init) {
            status = init.#status;
            if (init.#statusText !== null && init.#statusText !== defaultStatusText(status)) statusText = init.#statusText;
            if (init.#hl !== null) hl = native.hCopy(init.#hl);
            else ctype = init.#ctype;
            webSocket = init.#webSocket;
            cf = init.#cf;
          } else if (init !== undefined && init !== null) {
            if (!isObject(init)) throw new TypeError("Failed to construct 'Response': parameter 2 is not of type 'ResponseInit'.");
            const d = readResponseInit(init);
            if (d.status !== undefined) status = toInt32(d.status);
            if (d.statusText !== undefined) statusText = String(d.statusText);
            if (d.encodeBody !== undefined) {
              const e = String(d.encodeBody);
              if (e !== "manual" && e !== "automatic") throw new TypeError("encodeBody: unexpected value: " + e);
            }
            if (d.headers !== undefined) {
              headers = new Headers(d.headers);
              hl = headersList(headers);
            }
            if (d.cf !== undefined && d.cf !== null) cf = native.structuredClone(d.cf);
            if (d.webSocket !== undefined && d.webSocket !== null) webSocket = d.webSocket;
          }
          if (webSocket === null) {
            if (!(status >= 200 && status <= 599)) {
              throw new RangeError("Responses may only be constructed with status codes in the range 200 to 599, inclusive.");
            }
          } else if (status !== 101) {
            throw new RangeError("Responses with a WebSocket must have status code 101.");
          }
          if (statusText !== null) {
            for (let i = 0; i < statusText.length; i++) {
              if (statusText.charCodeAt(i) < 0x20) throw new TypeError("Invalid statusText");
            }
          }
          let state = null;
          if (body !== undefined && body !== null) {
            let bstate, btype;
            if (typeof body === "string") {
              bstate = srcBodyState(body);
              btype = TEXT_PLAIN;
            } else {
              const ex = extractBody(body);
              bstate = ex.state;
              btype = ex.contentType;
            }
            if (nullBodyStatus(status)) {
              if (!stEmpty(bstate)) {
                throw new TypeError("Response with null body status (101, 204, 205, or 304) cannot have a body.");
              }
            } else {
              state = bstate;
              if (btype !== null) ctype = withContentType(hl, ctype, btype);
            }
          }
          const r = new ResponseImpl(state);
          const proto = newTarget.prototype;
          setPrototypeOf(r, isObject(proto) ? proto : ObjectProto);
          r.#status = status;
          r.#statusText = statusText;
          r.#headers = headers;
          r.#hl = hl;
          r.#ctype = ctype;
          r.#webSocket = webSocket;
          r.#type = "default";
          r.#cf = cf;
          return r;
        }
      };
      makeResponseInternal = (status, statusText, hl, ctype, state, webSocket) => {
        const r = new ResponseImpl(state);
        setPrototypeOf(r, Response.prototype);
        r.#status = status;
        r.#statusText = statusText;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = ctype;
        r.#webSocket = webSocket;
        r.#type = "default";
        r.#cf = undefined;
        return r;
      };
      goMakeResponse = (status, statusText, hl, body, webSocket) => {
        const r = new ResponseImpl(body === null ? null : goSrcState(body));
        setPrototypeOf(r, Response.prototype);
        r.#status = status;
        r.#statusText = statusText;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = null;
        r.#webSocket = webSocket;
        r.#type = "default";
        r.#cf = undefined;
        return r;
      };
      // A Response as workerd serializes it (Response::serialize): its
      // body, then its initializer dict.
      rpcResponseMeta = (r) => {
        if (!(isObject(r) && #status in r)) throw new TypeError("Illegal invocation");
        const st = bodyStateOf(r);
        return [r.#webSocket !== null && r.#webSocket !== undefined, st !== null, st !== null && (st[2] || (st[3] !== null && st[3].locked))];
      };
      rpcResponseInit = (r) => {
        const d = {};
        if (r.#status !== 200) d.status = r.#status;
        if (r.#statusText !== null) d.statusText = r.#statusText;
        d.headers = r.headers;
        if (r.#cf !== undefined) d.cf = r.#cf;
        return d;
      };
      rpcMakeResponse = (d, body) => {
        const status = d.status === undefined ? 200 : d.status;
        if (status === 0) return Response.error();
        if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError("bad status");
        const hl = headersList(d.headers);
        const text = d.statusText === undefined || d.statusText === null ? "" : String(d.statusText);
        const r = goMakeResponse(status, text, hl === undefined ? null : hl, body, null);
        if (d.cf !== undefined) r.#cf = d.cf;
        return r;
      };
      exportResponseInternal = (r) => {
        if (!(isObject(r) && #status in r)) throw new TypeError("Expected a Response object.");
        native.outResponse(r.#status, r.#statusText, r.#hl, r.#ctype, takeForExport(r), r.#webSocket);
      };
    }
    static json(data, init) {
      const text = jsonStringify(data);
      if (text === undefined) throw new TypeError("The value provided to Response.json() is not JSON-serializable.");
      if (init === undefined || init === null) {
        return makeResponseInternal(200, null, null, "application/json", srcBodyState(text), null);
      }
      let newInit;
      if (isObject(init) && #status in init) {
        const headers = wrapHeaders(init.#hl !== null ? native.hCopy(init.#hl) : listFromContentType(init.#ctype), "none");
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
        newInit = { status: init.#status, headers, webSocket: init.#webSocket ?? undefined };
        if (init.#statusText !== null && init.#statusText !== defaultStatusText(init.#status)) newInit.statusText = init.#statusText;
      } else {
        if (!isObject(init)) throw new TypeError("Failed to execute 'json' on 'Response': parameter 2 is not of type 'ResponseInit'.");
        newInit = readResponseInit(init);
        const headers = newInit.headers !== undefined ? new Headers(newInit.headers) : new Headers();
        if (!headers.has("content-type")) headers.set("content-type", "application/json");
        newInit.headers = headers;
      }
      return new Response(text, newInit);
    }
    static redirect(url, status = 302) {
      const code = toInt32(status);
      if (![301, 302, 303, 307, 308].includes(code)) {
        throw new RangeError(`${code} is not a redirect status code. It must be one of: 301, 302, 303, 307, or 308.`);
      }
      const s = toUSV(url);
      const rec = native.urlParse(s, undefined);
      if (rec === null) throw new TypeError("Unable to parse URL: " + s);
      return makeResponseInternal(code, null, native.hOf("location", rec[0], true), null, null, null);
    }
    static error() {
      const r = makeResponseInternal(0, null, null, null, null, null);
      r.#type = "error";
      return r;
    }
    get status() { return this.#status; }
    get statusText() { return this.#statusText ?? defaultStatusText(this.#status); }
    get ok() { return this.#status >= 200 && this.#status < 300; }
    get redirected() {
      const i = fetchedInfo.get(this);
      return i !== undefined && i[1];
    }
    get url() {
      const i = fetchedInfo.get(this);
      return i === undefined ? "" : i[0];
    }
    get headers() {
      let h = this.#headers;
      if (h === null) h = this.#headers = wrapHeaders(this.#hl ?? (this.#hl = listFromContentType(this.#ctype)), null);
      return h;
    }
    get webSocket() { return this.#webSocket; }
    get cf() { return this.#cf; }
    get type() { return this.#type; }
    clone() {
      if (this.#webSocket !== null) throw new TypeError("Cannot clone a response to a WebSocket handshake.");
      const st = bodyStateOf(this);
      if (st !== null && st[2]) throw new TypeError(BODY_USED);
      const r = makeResponseInternal(this.#status, this.#statusText, this.#hl === null ? null : native.hCopy(this.#hl), this.#hl === null ? this.#ctype : null,
        st === null ? null : copyBodyState(st), null);
      r.#type = this.#type;
      r.#cf = this.#cf === undefined ? undefined : native.structuredClone(this.#cf);
      const i = fetchedInfo.get(this);
      if (i !== undefined) fetchedInfo.set(r, i);
      return r;
    }
  }
  copyMethods(ResponseImpl, Response);
  for (const k of ["json", "redirect", "error"]) Object.defineProperty(Response, k, Object.getOwnPropertyDescriptor(ResponseImpl, k));
  brandHost(Response, "Response");
  defineGlobal("Response", Response);

