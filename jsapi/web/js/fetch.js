  // ---------------------------------------------------------------- fetch
  // fetch(input, init): outbound HTTP with Go's net/http (fetch.go). The
  // request is built as `new Request(input, init)` would be (input itself
  // when it is a Request and init is absent) and exported like a
  // stub.fetch's; its signal aborts the call; the response body streams.
  function fetch(input, init) {
    return new Promise((resolve, reject) => {
      const req = init === undefined && isRequest(input) ? input : new Request(input, init);
      const signal = req.signal;
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      exportRequestInternal(req);
      const [call, p] = native.fetch(req.redirect);
      const onAbort = () => {
        native.fetchAbort(call);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort);
      p.then(
        (r) => {
          signal.removeEventListener("abort", onAbort);
          const res = goMakeResponse(r[0], r[1], r[2], r[3], null);
          fetchedInfo.set(res, [r[4], r[5]]);
          resolve(res);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }
  defineGlobal("fetch", fetch);
