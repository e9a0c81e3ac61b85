  // ---------------------------------------------------------------- bridge internals
  // Go passes header lists and bodies as handles (headers.go) and reads
  // exports through native.outRequest / native.outResponse.
  // (the entry points are the functions themselves: each JS frame less
  // shortens the stack goja regrows on every call from Go)
  const U8 = Uint8Array;
  const internals = {
    DOMException,
    // begin.js's helpers that websocket.js (jsapi) uses too
    helpers: { defineGlobal, isObject, isArrayBuffer },
    // a Blob's [bytes, type] (not a File's), and a Blob over an
    // ArrayBuffer (blob_clone.go)
    blobContent: (b) => (isBlob(b) && Object.getPrototypeOf(b) !== File.prototype ? blobData.get(b) : undefined),
    blobFromContent: (ab, type) => newBlob(new U8(ab), type),
    hostTypes,
    // the list handle of a Headers, and a Headers over a list (headers_clone.go)
    headersList: (h) => headersList(h),
    wrapHeaders: (list, guard) => wrapHeaders(list, guard),
    makeRequest: goMakeRequest, // (method, url, list, goBody|null, cfJSON|null) → Request
    exportRequest: exportRequestInternal, // (req)
    // requestFrom(input, init) exports the Request stub.fetch(input, init) sends.
    requestFrom(input, init) {
      exportRequestInternal(init === undefined && isRequest(input) ? input : new Request(input, init));
    },
    makeResponse: goMakeResponse, // (status, statusText|null, list, goBody|null, webSocket) → Response
    // Request and Response as RPC and structured clone carry them (http_clone.go)
    rpcRequestMeta,
    rpcRequestInit,
    rpcMakeRequest,
    rpcResponseMeta,
    rpcResponseInit,
    rpcMakeResponse,
    takeBody: (r) => takeForExport(r),
    // a ReadableStream sent over RPC pumped into a Go sink, and one
    // received (a Go stream) as a ReadableStream (http_clone.go)
    rpcStreamTake: (rs) => {
      if (rs.locked) throw new TypeError("The ReadableStream has been locked to a reader.");
      return pumpToSink(rs, true);
    },
    rpcStreamMake: (g) => goMakeResponse(200, null, null, g, null).body,
    exportResponse: exportResponseInternal, // (res)
    // fn.call(self, request, ...rest) with the request built from Go's
    // parts, in one call from Go instead of two (each call from Go makes
    // goja regrow its stack and run its job queue); rest has n elements.
    callWithRequest: (fn, self, method, url, list, body, cf, n, a, b) =>
      n === 0
        ? fn.call(self, goMakeRequest(method, url, list, body, cf))
        : fn.call(self, goMakeRequest(method, url, list, body, cf), a, b),
  };

