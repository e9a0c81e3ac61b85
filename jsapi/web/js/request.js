  // ---------------------------------------------------------------- Request
  const httpMethods = new Set([
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "PURGE", "OPTIONS", "TRACE", "COPY", "LOCK", "MKCOL", "MOVE",
    "PROPFIND", "PROPPATCH", "SEARCH", "UNLOCK", "ACL", "REPORT", "MKACTIVITY", "CHECKOUT", "MERGE", "M-SEARCH",
    "NOTIFY", "SUBSCRIBE", "UNSUBSCRIBE",
  ]);
  function normalizeMethod(m) {
    if (httpMethods.has(m)) return m;
    const u = m.toUpperCase();
    if (httpMethods.has(u)) return u;
    throw new TypeError("Invalid HTTP method string: " + m);
  }
  let isRequest; // (x) → boolean
  let cfOf; // (req) → its cf value, parsed from its JSON on first use
  let makeRequestInternal; // (method, url, list|null, ctype|null, state) → Request
  let exportRequestInternal; // (req) → undefined, after native.outRequest(...)
  let goMakeRequest; // internals.makeRequest
  let rpcRequestMeta, rpcRequestInit, rpcMakeRequest; // http_clone.go
  let Request; // the public class (made in RequestImpl's static block)
  const setPrototypeOf = Object.setPrototypeOf;
  // RequestImpl holds a Request's slots and methods; the Request class
  // (below) has its methods and makes RequestImpl instances with its
  // prototype. So making a Request from Go runs no constructor that needs
  // the argument count (goja builds an arguments object eagerly).
  class RequestImpl extends Body {
    #method;
    #url;
    #headers; // the Headers object, or null until asked for
    #hl;
    #ctype;
    #redirect;
    #signal;
    #signalGiven; // a signal came with the init or the input (not the default one)
    #cf;
    // #cfJSON: the cf object as JSON from Go (HTTPRequest.CF), parsed into
    // #cf only when the program reads it (cfOf): a request the worker only
    // passes on with stub.fetch carries the same JSON to the object
    // without a parse and a stringify. undefined: #cf is the value.
    #cfJSON;
    #cache;
    // internal construction: the caller sets the fields
    constructor(state) {
      super(INTERNAL, state, null);
    }
    static {
      // the public class: its constructor is RequestImpl's code, so that it
      // reads RequestImpl's slots without another call (a deeper stack)
      Request = class Request extends Body {
        constructor(...args) {
          if (args.length === 0) throw new TypeError("Failed to construct 'Request': 1 argument required, but only 0 present.");
          const input = args[0];
          const init = args[1];
          const newTarget = new.target;
          let url;
          let method = "GET";
          let headers = null; // a Headers object from init, else the list is hl (or only ctype)
          let hl = null;
          let ctype = null;
          let state = null;
          let contentType = null;
          let redirect = "follow";
          let signal = null;
          let cf;
          let cache;
          const initIsRequest = isObject(init) && #method in init;
          let dict = false;
          let dBody, dCache, dCf, dEncodeResponseBody, dHeaders, dIntegrity, dMethod, dRedirect, dSignal;
          if (init !== undefined && init !== null && !initIsRequest) {
            if (!isObject(init)) throw new TypeError("Failed to construct 'Request': parameter 2 is not of type 'RequestInit'.");
            dict = true;
            dBody = init.body;
            dCache = init.cache;
            dCf = init.cf;
            dEncodeResponseBody = init.encodeResponseBody;
            init.fetcher;
            dHeaders = init.headers;
            dIntegrity = init.integrity;
            dMethod = init.method;
            dRedirect = init.redirect;
            dSignal = init.signal;
          }
          const ignoreInputBody = initIsRequest || (dict && dBody !== undefined);
          if (isObject(input) && #method in input) {
            url = input.#url;
            method = input.#method;
            if (input.#hl !== null) hl = native.hCopy(input.#hl);
            else ctype = input.#ctype;
            cf = cfOf(input);
            cache = input.#cache;
            redirect = input.#redirect;
            signal = input.#signal;
            if (!ignoreInputBody) {
              const st = bodyStateOf(input);
              if (st !== null) {
                if (st[2]) throw new TypeError("Cannot reconstruct a Request with a used body.");
                state = sharedBodyState(st);
              }
            }
          } else {
            const s = toUSV(input);
            const rec = native.urlParse(s, undefined);
            if (rec === null) throw new TypeError("Invalid URL: " + s);
            url = rec[0];
          }
          if (dict) {
            if (dIntegrity !== undefined && String(dIntegrity) !== "") {
              throw new TypeError("Subrequest integrity checking is not implemented. The integrity option must be either undefined or an empty string.");
            }
            if (dMethod !== undefined) method = normalizeMethod(String(dMethod));
            if (dHeaders !== undefined) {
              headers = new Headers(dHeaders);
              hl = headersList(headers);
              ctype = null;
            }
            if (dSignal !== undefined) signal = dSignal;
            if (dCf !== undefined) cf = dCf === null ? undefined : native.structuredClone(dCf);
            if (dBody !== undefined && dBody !== null) {
              if (typeof dBody === "string") {
                state = srcBodyState(dBody);
                contentType = TEXT_PLAIN;
              } else {
                const ex = extractBody(dBody);
                state = ex.state;
                contentType = ex.contentType;
              }
              if (method === "GET" || method === "HEAD") throw new TypeError("Request with a GET or HEAD method cannot have a body.");
            } else if (dBody === null) {
              state = null;
            }
            if (dRedirect !== undefined) {
              const r = String(dRedirect).toLowerCase();
              if (r !== "follow" && r !== "manual") {
                throw new TypeError('Invalid redirect value, must be one of "follow" or "manual" ("error" won\'t be implemented since it does not make sense at the edge; use "manual" and check the response status code).');
              }
              redirect = r;
            }
            if (dCache !== undefined) {
              const c = String(dCache);
              if (c !== "no-store" && c !== "no-cache" && c !== "reload") throw new TypeError("Unsupported cache mode: " + c);
              cache = c;
            }
            if (dEncodeResponseBody !== undefined) {
              const e = String(dEncodeResponseBody);
              if (e !== "manual" && e !== "automatic") throw new TypeError("encodeResponseBody: unexpected value: " + e);
            }
            if ((dMethod !== undefined || dBody !== undefined) && (method === "GET" || method === "HEAD") && state !== null) {
              throw new TypeError("Request with a GET or HEAD method cannot have a body.");
            }
          } else if (initIsRequest) {
            method = init.#method;
            redirect = init.#redirect;
            cache = init.#cache;
            signal = init.#signal;
            hl = init.#hl === null ? null : native.hCopy(init.#hl);
            ctype = hl === null ? init.#ctype : null;
            cf = cfOf(init);
            state = bodyStateOf(init); // shared, as workerd does
          }
          if (contentType !== null) ctype = withContentType(hl, ctype, contentType);
          const r = new RequestImpl(state);
          const proto = newTarget.prototype;
          setPrototypeOf(r, isObject(proto) ? proto : ObjectProto);
          r.#method = method;
          r.#url = url;
          r.#headers = headers;
          r.#hl = hl;
          r.#ctype = ctype;
          r.#redirect = redirect;
          r.#signal = signal;
          r.#signalGiven = signal !== null;
          r.#cf = cf;
          r.#cache = cache;
          return r;
        }
      };
      isRequest = (r) => isObject(r) && #method in r;
      cfOf = (r) => {
        const j = r.#cfJSON;
        if (j !== undefined) {
          r.#cfJSON = undefined;
          r.#cf = JSON.parse(j);
        }
        return r.#cf;
      };
      makeRequestInternal = (method, url, hl, ctype, state) => {
        const r = new RequestImpl(state);
        setPrototypeOf(r, Request.prototype);
        r.#method = method;
        r.#url = url;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = ctype;
        r.#redirect = "follow";
        r.#signal = null;
        r.#cf = undefined;
        r.#cache = undefined;
        return r;
      };
      // cf: the request's cf object as JSON (HTTPRequest.CF), or null
      goMakeRequest = (method, url, hl, body, cf) => {
        const r = new RequestImpl(body === null ? null : goSrcState(body));
        setPrototypeOf(r, Request.prototype);
        r.#method = method;
        r.#url = url;
        r.#headers = null;
        r.#hl = hl;
        r.#ctype = null;
        r.#redirect = "manual"; // as workerd's incoming requests have it
        r.#signal = null;
        r.#cf = undefined;
        if (cf !== null && cf !== undefined) r.#cfJSON = cf;
        r.#cache = undefined;
        return r;
      };
      // A Request as workerd serializes it (Request::serialize): the URL,
      // then its initializer dict (bodyUsed: the body was read or locked).
      rpcRequestMeta = (r) => {
        if (!(isObject(r) && #method in r)) throw new TypeError("Illegal invocation");
        const st = bodyStateOf(r);
        return [r.#url, r.#signalGiven === true, st !== null, st !== null && (st[2] || (st[3] !== null && st[3].locked))];
      };
      rpcRequestInit = (r, body) => {
        const d = {};
        if (r.#method !== "GET") d.method = r.#method;
        d.headers = r.headers;
        if (body !== undefined) d.body = body;
        if (r.#redirect !== "manual") d.redirect = r.#redirect;
        const cf = cfOf(r);
        if (cf !== undefined) d.cf = cf;
        if (r.#cache !== undefined) d.cache = r.#cache;
        return d;
      };
      rpcMakeRequest = (url, d, body) => {
        const method = d.method === undefined ? "GET" : normalizeMethod(String(d.method));
        const redirect = d.redirect === undefined ? "manual" : String(d.redirect);
        if (redirect !== "follow" && redirect !== "manual" && redirect !== "error") throw new TypeError("bad redirect");
        const hl = headersList(d.headers);
        const r = goMakeRequest(method, String(url), hl === undefined ? null : hl, body, null);
        r.#redirect = redirect;
        if (d.cf !== undefined) r.#cf = d.cf;
        if (d.cache !== undefined) r.#cache = d.cache;
        return r;
      };
      exportRequestInternal = (r) => {
        if (!(isObject(r) && #method in r)) throw new TypeError("Expected a Request object.");
        // cf goes along as JSON, as workerd's cf blob does (to an object
        // through stub.fetch(request))
        // (the JSON it came with when the program never read it)
        const j = r.#cfJSON;
        native.outRequest(r.#method, r.#url, r.#hl, r.#ctype, takeForExport(r),
          j !== undefined ? j : r.#cf === undefined ? null : JSON.stringify(r.#cf));
      };
    }
    get method() { return this.#method; }
    get url() { return this.#url; }
    get headers() {
      let h = this.#headers;
      if (h === null) h = this.#headers = wrapHeaders(this.#hl ?? (this.#hl = listFromContentType(this.#ctype)), null);
      return h;
    }
    get redirect() { return this.#redirect; }
    get signal() {
      if (this.#signal === null) this.#signal = new AbortSignal(INTERNAL);
      return this.#signal;
    }
    get fetcher() { return null; }
    get cf() { return cfOf(this); }
    get cache() { return this.#cache; }
    get integrity() { return ""; }
    get keepalive() { return false; }
    clone() {
      const st = bodyStateOf(this);
      if (st !== null && st[2]) throw new TypeError(BODY_USED);
      const r = makeRequestInternal(this.#method, this.#url, this.#hl === null ? null : native.hCopy(this.#hl), this.#hl === null ? this.#ctype : null,
        st === null ? null : copyBodyState(st));
      r.#redirect = this.#redirect;
      r.#signal = this.#signal;
      // a copy: its own parse of the same JSON, or a clone of the value
      if (this.#cfJSON !== undefined) r.#cfJSON = this.#cfJSON;
      else r.#cf = this.#cf === undefined ? undefined : native.structuredClone(this.#cf);
      r.#cache = this.#cache;
      return r;
    }
  }
  copyMethods(RequestImpl, Request);
  Object.defineProperty(Request, "length", { value: 2, configurable: true });
  brandHost(Request, "Request");
  defineGlobal("Request", Request);

