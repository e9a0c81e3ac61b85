  // ---------------------------------------------------------------- URLSearchParams / URL
  function stableSortPairs(list) {
    const idx = list.map((p, i) => [p, i]);
    idx.sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1]));
    return idx.map((x) => x[0]);
  }
  function parsePairs(s) {
    const flat = native.formParse(s);
    const out = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i], flat[i + 1]]);
    return out;
  }
  function toUSV(v) {
    return String(v);
  }
  let paramsAttach; // (params, url) links a URLSearchParams to its URL
  let paramsReset; // (params, queryString) replaces the list without updating the URL
  class URLSearchParams {
    #list = null; // [[name, value], ...], or null while it is #query, not parsed yet
    #query = "";
    #url = null;
    constructor(init = "") {
      if (isObject(init)) {
        const list = [];
        this.#list = list;
        if (#list in init) {
          const src = init.#list ?? init.#parse();
          for (let i = 0; i < src.length; i++) list.push([src[i][0], src[i][1]]);
        } else if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) {
            if (!isObject(pair) || typeof pair[Symbol.iterator] !== "function") {
              throw new TypeError("Failed to construct 'URLSearchParams': The provided value cannot be converted to a sequence.");
            }
            const p = [...pair];
            if (p.length !== 2) throw new TypeError("Failed to construct 'URLSearchParams': Sequence initializer must only contain pair elements");
            list.push([toUSV(p[0]), toUSV(p[1])]);
          }
        } else {
          const keys = Object.keys(init);
          for (let i = 0; i < keys.length; i++) list.push([keys[i], toUSV(init[keys[i]])]);
        }
      } else {
        let s = toUSV(init);
        if (s.startsWith("?")) s = s.slice(1);
        this.#query = s;
      }
    }
    static {
      paramsAttach = (p, url) => {
        p.#url = url;
      };
      paramsReset = (p, q) => {
        p.#list = null;
        p.#query = q === null ? "" : q;
      };
    }
    #parse() {
      const l = this.#query === "" ? [] : parsePairs(this.#query);
      this.#list = l;
      return l;
    }
    #update() {
      if (this.#url) urlSetQueryFromParams(this.#url, this.toString());
    }
    get size() { return (this.#list ?? this.#parse()).length; }
    append(name, value) {
      (this.#list ?? this.#parse()).push([toUSV(name), toUSV(value)]);
      this.#update();
    }
    delete(name, value) {
      name = toUSV(name);
      if (value !== undefined) value = toUSV(value);
      const l = this.#list ?? this.#parse();
      const out = [];
      if (value === undefined) {
        for (let i = 0; i < l.length; i++) if (l[i][0] !== name) out.push(l[i]);
      } else {
        for (let i = 0; i < l.length; i++) if (!(l[i][0] === name && l[i][1] === value)) out.push(l[i]);
      }
      this.#list = out;
      this.#update();
    }
    get(name) {
      name = toUSV(name);
      let l = this.#list;
      if (l === null) {
        // straight from the query string, without building the list
        const v = native.formGet(this.#query, name);
        if (v !== undefined) return v;
        l = this.#parse();
      }
      for (let i = 0; i < l.length; i++) if (l[i][0] === name) return l[i][1];
      return null;
    }
    getAll(name) {
      name = toUSV(name);
      const l = this.#list ?? this.#parse();
      const out = [];
      for (let i = 0; i < l.length; i++) if (l[i][0] === name) out.push(l[i][1]);
      return out;
    }
    has(name, value) {
      name = toUSV(name);
      if (value === undefined) {
        if (this.#list === null) {
          const v = native.formGet(this.#query, name);
          if (v !== undefined) return v !== null;
        }
        const l = this.#list ?? this.#parse();
        for (let i = 0; i < l.length; i++) if (l[i][0] === name) return true;
        return false;
      }
      value = toUSV(value);
      const l = this.#list ?? this.#parse();
      for (let i = 0; i < l.length; i++) if (l[i][0] === name && l[i][1] === value) return true;
      return false;
    }
    set(name, value) {
      name = toUSV(name);
      value = toUSV(value);
      const l = this.#list ?? this.#parse();
      let i = 0;
      while (i < l.length && l[i][0] !== name) i++;
      if (i === l.length) l.push([name, value]);
      else {
        l[i][1] = value;
        const out = [];
        for (let j = 0; j < l.length; j++) if (j <= i || l[j][0] !== name) out.push(l[j]);
        this.#list = out;
      }
      this.#update();
    }
    sort() {
      this.#list = stableSortPairs(this.#list ?? this.#parse());
      this.#update();
    }
    forEach(callback, thisArg) {
      if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'URLSearchParams': parameter 1 is not of type 'Function'.");
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) {
        const p = this.#list[i];
        callback.call(thisArg, p[1], p[0], this);
      }
    }
    *entries() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield [this.#list[i][0], this.#list[i][1]];
    }
    *keys() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield this.#list[i][0];
    }
    *values() {
      for (let i = 0; i < (this.#list ?? this.#parse()).length; i++) yield this.#list[i][1];
    }
    [Symbol.iterator]() {
      return this.entries();
    }
    toString() {
      const l = this.#list;
      if (l === null) return native.formSerialize(native.formParse(this.#query));
      const flat = [];
      for (let i = 0; i < l.length; i++) flat.push(l[i][0], l[i][1]);
      return native.formSerialize(flat);
    }
  }
  Object.defineProperty(URLSearchParams.prototype, Symbol.toStringTag, { value: "URLSearchParams", configurable: true });
  function isURLSearchParams(x) {
    return isObject(x) && URLSearchParams.prototype.isPrototypeOf(x) && paramsBrand(x);
  }
  function paramsBrand(x) {
    try {
      URLSearchParams.prototype.has.call(x, "");
      return true;
    } catch {
      return false;
    }
  }

  // record: [href, protocol, username, password, host, hostname, port, pathname, search, hash, origin, query]
  let urlSetQueryFromParams;
  class URL {
    #rec;
    #params = null;
    // (...args, not arguments: goja builds an arguments object eagerly, and it costs twice a rest array)
    constructor(...args) {
      if (args.length === 0) throw new TypeError("Failed to construct 'URL': 1 argument required, but only 0 present.");
      const url = args[0];
      const base = args[1];
      const rec = native.urlParse(toUSV(url), base === undefined ? undefined : toUSV(base));
      if (rec === null) throw new TypeError("Invalid URL string.");
      this.#rec = rec;
    }
    static canParse(url, base) {
      return native.urlParse(toUSV(url), base === undefined ? undefined : toUSV(base)) !== null;
    }
    static parse(url, base) {
      try {
        return new URL(url, base);
      } catch {
        return null;
      }
    }
    static createObjectURL() {
      throw new TypeError("URL.createObjectURL() is not supported by cellhost.");
    }
    static revokeObjectURL() {
      throw new TypeError("URL.revokeObjectURL() is not supported by cellhost.");
    }
    static {
      urlSetQueryFromParams = (u, s) => {
        const r = native.urlSet(u.#rec[0], "search", s);
        if (r !== null) u.#rec = r;
      };
    }
    #set(component, value) {
      const r = native.urlSet(this.#rec[0], component, toUSV(value));
      if (r === null) {
        if (component === "href") throw new TypeError("Invalid URL string.");
        return;
      }
      this.#rec = r;
      if (this.#params && (component === "href" || component === "search")) paramsReset(this.#params, r[11]);
    }
    get href() { return this.#rec[0]; }
    set href(v) { this.#set("href", v); }
    get origin() { return this.#rec[10]; }
    get protocol() { return this.#rec[1]; }
    set protocol(v) { this.#set("protocol", v); }
    get username() { return this.#rec[2]; }
    set username(v) { this.#set("username", v); }
    get password() { return this.#rec[3]; }
    set password(v) { this.#set("password", v); }
    get host() { return this.#rec[4]; }
    set host(v) { this.#set("host", v); }
    get hostname() { return this.#rec[5]; }
    set hostname(v) { this.#set("hostname", v); }
    get port() { return this.#rec[6]; }
    set port(v) { this.#set("port", v); }
    get pathname() { return this.#rec[7]; }
    set pathname(v) { this.#set("pathname", v); }
    get search() { return this.#rec[8]; }
    set search(v) { this.#set("search", v); }
    get searchParams() {
      if (!this.#params) {
        // The URL's query as it is: the constructor's string path would
        // strip a leading "?" of the query itself ("??a=b").
        this.#params = new URLSearchParams();
        paramsReset(this.#params, this.#rec[11] ?? null);
        paramsAttach(this.#params, this);
      }
      return this.#params;
    }
    get hash() { return this.#rec[9]; }
    set hash(v) { this.#set("hash", v); }
    toString() { return this.#rec[0]; }
    toJSON() { return this.#rec[0]; }
  }
  Object.defineProperty(URL, "length", { value: 2, configurable: true });
  Object.defineProperty(URL.prototype, Symbol.toStringTag, { value: "URL", configurable: true });
  hostType(URL, "URL"); // not serializable, as on workerd
  defineGlobal("URL", URL);
  hostType(URLSearchParams, "URLSearchParams"); // not serializable, as on workerd
  defineGlobal("URLSearchParams", URLSearchParams);

