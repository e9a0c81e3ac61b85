  // URLPattern is urlpattern-polyfill's class (urlpattern_polyfill.js)
  // behind workerd's surface: a constructor function (workerd's message
  // without `new`), workerd's error texts, and exec/test results whose
  // components match as workerd's (ada's) do.
  // (built on a runtime's first use)
  function makeURLPattern() {
    const urlPatterns = new WeakMap();
    let URLPatternPolyfill;
    function patternOf(x) {
      const p = urlPatterns.get(x);
      if (p === undefined) throw illegalInvocation();
      return p;
    }
    function URLPattern(input, baseURL, options) {
      if (new.target === undefined) {
        throw new TypeError("Failed to construct 'URLPattern': Please use the 'new' operator, this object constructor cannot be called as a function.");
      }
      let p;
      try {
        // an invalid base URL fails even when the input does not need it
        // (URLPattern spec, as workerd; the polyfill parses it only on use)
        if (typeof baseURL !== "undefined" && !isObject(baseURL) && native.urlParse(String(baseURL), undefined) === null) throw 0;
        if (URLPatternPolyfill === undefined) URLPatternPolyfill = makeURLPatternPolyfill();
        p = new URLPatternPolyfill(...arguments);
      } catch {
        throw new TypeError("Failed to construct URLPattern");
      }
      urlPatterns.set(this, p);
    }
    const patternMethods = {
      test(input, baseURL) {
        const p = patternOf(this);
        try {
          return p.test(...arguments);
        } catch {
          throw new TypeError("Failed to test URLPattern");
        }
      },
      exec(input, baseURL) {
        const p = patternOf(this);
        try {
          return p.exec(...arguments);
        } catch {
          throw new TypeError("Failed to exec URLPattern");
        }
      },
    };
    for (const k of Object.keys(patternMethods)) {
      Object.defineProperty(URLPattern.prototype, k, { value: patternMethods[k], writable: true, configurable: true, enumerable: true });
    }
    for (const k of ["protocol", "username", "password", "hostname", "port", "pathname", "search", "hash", "hasRegExpGroups"]) {
      Object.defineProperty(URLPattern.prototype, k, {
        get: { [k]() { return patternOf(this)[k]; } }[k],
        configurable: true,
        enumerable: true,
      });
    }
    Object.defineProperty(URLPattern.prototype, Symbol.toStringTag, { value: "URLPattern", configurable: true });
    Object.defineProperty(URLPattern, "length", { value: 0 });
    constructorLast(URLPattern);
    hostType(URLPattern, "URLPattern"); // not serializable, as on workerd
    return URLPattern;
  }
  lazyGlobal("URLPattern", makeURLPattern);
