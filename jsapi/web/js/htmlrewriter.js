  // ---------------------------------------------------------------- HTMLRewriter
  // Workers' HTMLRewriter over htmlrewriter.go's token plan: handlers run in
  // document order (per element, in the order of the on() calls), with
  // lol-html's Element, EndTag, Text, Comment, Doctype and DocumentEnd
  // objects. When a global ReadableStream exists (WHATWG streams), the
  // output body is a stream, handlers may return promises (awaited) and an
  // error fails the body's read, as on workerd. While bodies are buffered,
  // transform() rewrites the whole body at once: a handler's error is
  // thrown by transform() and a handler that returns a promise is refused.
  // (built on a runtime's first use of HTMLRewriter)
  function makeHTMLRewriter() {
    const rewriterState = new WeakMap();
    function HTMLRewriter() {
      if (new.target === undefined) {
        throw new TypeError("Failed to construct 'HTMLRewriter': Please use the 'new' operator, this object constructor cannot be called as a function.");
      }
      rewriterState.set(this, { elements: [], document: [] });
    }
    function escapeText(s) {
      return s.replace(/[&<>]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : "&gt;"));
    }
    function contentOf(content, options) {
      const s = String(content);
      return isObject(options) && options.html ? s : escapeText(s);
    }
    function thenable(r) {
      return isObject(r) && typeof r.then === "function" ? r : undefined;
    }
    // callHandler calls h[name](obj) and returns the promise it returned,
    // if any (the rewrite steps yield it; see runSteps).
    function callHandler(h, name, obj) {
      const f = h[name];
      return typeof f === "function" ? thenable(f.call(h, obj)) : undefined;
    }
    // The token objects: each collects what handlers asked for.
    function defineMethods(proto, methods, getters, tag) {
      for (const k of Object.keys(methods)) Object.defineProperty(proto, k, { value: methods[k], writable: true, configurable: true, enumerable: true });
      for (const k of Object.keys(getters)) Object.defineProperty(proto, k, Object.assign({ configurable: true, enumerable: true }, getters[k]));
      Object.defineProperty(proto, Symbol.toStringTag, { value: tag, configurable: true });
    }
    function newToken(proto, st) {
      const o = Object.create(proto);
      Object.defineProperty(o, INTERNAL, { value: st });
      return o;
    }
    function tokenState(x) {
      const st = isObject(x) ? x[INTERNAL] : undefined;
      if (st === undefined) throw illegalInvocation();
      return st;
    }
    // around: before/after/replace/remove, shared by every token kind
    const aroundMethods = {
      before(content, options) { tokenState(this).before.push(contentOf(content, options)); return this; },
      after(content, options) { tokenState(this).after.unshift(contentOf(content, options)); return this; },
      replace(content, options) {
        const st = tokenState(this);
        st.replacement = contentOf(content, options);
        st.removed = true;
        return this;
      },
      remove() { tokenState(this).removed = true; return this; },
    };
    const ElementProto = {};
    defineMethods(ElementProto, Object.assign({}, aroundMethods, {
      getAttribute(name) {
        const a = tokenState(this).attrs.find((x) => x[0] === String(name).toLowerCase());
        return a === undefined ? null : a[1];
      },
      hasAttribute(name) {
        return tokenState(this).attrs.some((x) => x[0] === String(name).toLowerCase());
      },
      setAttribute(name, value) {
        const st = tokenState(this);
        const n = String(name).toLowerCase();
        const v = String(value);
        const a = st.attrs.find((x) => x[0] === n);
        const raw = `${a === undefined ? n : a[3]}="${v.replace(/"/g, "&quot;")}"`;
        if (a !== undefined) {
          a[1] = v;
          a[2] = raw;
        } else st.attrs.push([n, v, raw, n]);
        st.modified = true;
        return this;
      },
      removeAttribute(name) {
        const st = tokenState(this);
        const n = String(name).toLowerCase();
        const i = st.attrs.findIndex((x) => x[0] === n);
        if (i >= 0) {
          st.attrs.splice(i, 1);
          st.modified = true;
        }
        return this;
      },
      prepend(content, options) { tokenState(this).prepend.unshift(contentOf(content, options)); return this; },
      append(content, options) { tokenState(this).append.push(contentOf(content, options)); return this; },
      setInnerContent(content, options) { tokenState(this).inner = contentOf(content, options); return this; },
      removeAndKeepContent() { tokenState(this).keepContent = true; return this; },
      onEndTag(handler) {
        const st = tokenState(this);
        if (typeof handler !== "function") throw new TypeError("Failed to execute 'onEndTag' on 'Element': parameter 1 is not of type 'Function'.");
        if (st.selfClosing) throw new TypeError("No end tag.");
        st.endHandlers.push(handler);
      },
    }), {
      tagName: {
        get() { return tokenState(this).tag; },
        set(v) {
          const st = tokenState(this);
          st.tag = String(v);
          st.modified = true;
        },
      },
      attributes: { get() { return tokenState(this).attrs.map((a) => [a[0], a[1]])[Symbol.iterator](); } },
      removed: { get() { return tokenState(this).removed; } },
      namespaceURI: { get() { return "http://www.w3.org/1999/xhtml"; } },
    }, "Element");
    const EndTagProto = {};
    defineMethods(EndTagProto, { before: aroundMethods.before, after: aroundMethods.after, remove: aroundMethods.remove }, {
      name: {
        get() { return tokenState(this).name; },
        set(v) { tokenState(this).name = String(v); },
      },
    }, "EndTag");
    const TextProto = {};
    defineMethods(TextProto, aroundMethods, {
      text: { get() { return tokenState(this).text; } },
      lastInTextNode: { get() { return tokenState(this).last; } },
      removed: { get() { return tokenState(this).removed; } },
    }, "Text");
    const CommentProto = {};
    defineMethods(CommentProto, aroundMethods, {
      text: {
        get() { return tokenState(this).text; },
        set(v) {
          const st = tokenState(this);
          st.text = String(v);
          st.modified = true;
        },
      },
      removed: { get() { return tokenState(this).removed; } },
    }, "Comment");
    const DoctypeProto = {};
    defineMethods(DoctypeProto, {}, {
      name: { get() { return tokenState(this).name; } },
      publicId: { get() { return tokenState(this).publicId; } },
      systemId: { get() { return tokenState(this).systemId; } },
    }, "Doctype");
    const DocumentEndProto = {};
    defineMethods(DocumentEndProto, { append(content, options) { tokenState(this).append.push(contentOf(content, options)); return this; } }, {}, "DocumentEnd");

    function aroundState() {
      return { before: [], after: [], replacement: null, removed: false };
    }
    // rewriteSteps runs the handlers over the document and returns the
    // output; it yields each promise a handler returns and goes on when
    // resumed (runSteps, runStepsAsync).
    function* rewriteSteps(state, bytes) {
      const sels = state.elements.map((e) => e[0]);
      const plan = native.htmlPlan(bytes, sels);
      const out = [];
      const open = new Map(); // element id → element state (elements a handler saw)
      let suppress = 0; // > 0: inside removed or replaced content
      const suppressors = new Set();
      const emit = (s) => {
        if (suppress === 0 && s !== "") out.push(s);
      };
      const emitAround = (st, body) => {
        for (const b of st.before) emit(b);
        if (st.removed) {
          if (st.replacement !== null) emit(st.replacement);
        } else emit(body);
        for (const a of st.after) emit(a);
      };
      const textHandlers = (matches, kind) => {
        const hs = [];
        for (const m of matches) {
          const h = state.elements[m][1];
          if (typeof h[kind] === "function") hs.push(h);
        }
        for (const h of state.document) if (typeof h[kind] === "function") hs.push(h);
        return hs;
      };
      const unsuppress = (id) => {
        if (suppressors.has(id)) {
          suppressors.delete(id);
          suppress--;
        }
      };
      // closeElements handles an end tag that closes the elements ids
      // (innermost first; the last is the tag's own element): each one's
      // inner and appended content, then its end-tag handlers, which all
      // get this one end tag (lol-html gives implicitly closed elements the
      // end tag that closed them).
      const closeElements = function* (ids, endRaw, endName) {
        const owner = open.get(ids[ids.length - 1]);
        const end = Object.assign(aroundState(), { name: owner === undefined ? endName : owner.tag });
        const et = newToken(EndTagProto, end);
        const afters = [];
        for (const id of ids) {
          const st = open.get(id);
          if (st === undefined) continue;
          open.delete(id);
          if (st.inner !== null && !st.removed) {
            unsuppress(id);
            emit(st.inner);
          }
          if (!st.removed) {
            unsuppress(id);
            for (const a of st.append) emit(a);
          }
          for (const h of st.endHandlers) {
            const r = thenable(h.call(undefined, et));
            if (r !== undefined) yield r;
          }
          unsuppress(id);
          if (st !== owner) afters.push(...st.after);
        }
        if (owner === undefined) emitAround(end, endRaw);
        else if (!owner.removed && !owner.keepContent) emitAround(end, end.name === owner.origTag ? endRaw : `</${end.name}>`);
        else {
          for (const b of end.before) emit(b);
          for (const a of end.after) emit(a);
        }
        for (const a of afters) emit(a);
        if (owner !== undefined) for (const a of owner.after) emit(a);
      };
      for (const t of plan) {
        switch (t[0]) {
          case "s": {
            const [, raw, tag, attrs, selfClosing, matches, id] = t;
            if (matches.length === 0) {
              emit(raw);
              break;
            }
            const st = Object.assign(aroundState(), {
              tag, origTag: tag, attrs, selfClosing, modified: false, prepend: [], append: [], inner: null, keepContent: false, endHandlers: [],
            });
            const el = newToken(ElementProto, st);
            for (const m of matches) {
              const r = callHandler(state.elements[m][1], "element", el);
              if (r !== undefined) yield r;
            }
            for (const b of st.before) emit(b);
            if (st.removed) {
              if (st.replacement !== null) emit(st.replacement);
            } else if (!st.keepContent) {
              if (!st.modified) emit(raw);
              else {
                let s = "<" + st.tag;
                for (const a of st.attrs) s += " " + a[2];
                emit(s + (raw.endsWith("/>") ? " />" : ">"));
              }
            }
            if (selfClosing) {
              for (const a of st.after) emit(a);
              break;
            }
            for (const p of st.prepend) if (!st.removed) emit(p);
            open.set(id, st);
            if (st.removed || st.inner !== null) {
              suppressors.add(id);
              suppress++;
              if (st.removed) {
                // the after content comes once the element ends
              }
            }
            break;
          }
          case "e": {
            const [, raw, tag, closed] = t;
            if (!closed.some((id) => open.has(id))) {
              emit(raw);
              break;
            }
            yield* closeElements(closed, raw, tag);
            break;
          }
          case "t": {
            const [, raw, matches, chunks] = t;
            const hs = textHandlers(matches, "text");
            if (hs.length === 0) {
              emit(raw);
              break;
            }
            for (let i = 0; i <= chunks.length; i++) {
              const last = i === chunks.length;
              const text = last ? "" : chunks[i];
              const st = Object.assign(aroundState(), { text, last });
              const tok = newToken(TextProto, st);
              for (const h of hs) {
              const r = callHandler(h, "text", tok);
              if (r !== undefined) yield r;
            }
              emitAround(st, text);
            }
            break;
          }
          case "c": {
            const [, raw, text, matches] = t;
            const hs = textHandlers(matches, "comments");
            if (hs.length === 0) {
              emit(raw);
              break;
            }
            const st = Object.assign(aroundState(), { text, modified: false });
            const tok = newToken(CommentProto, st);
            for (const h of hs) {
              const r = callHandler(h, "comments", tok);
              if (r !== undefined) yield r;
            }
            emitAround(st, st.modified ? `<!--${st.text}-->` : raw);
            break;
          }
          case "d": {
            const [, raw, name, publicId, systemId] = t;
            const tok = newToken(DoctypeProto, { name, publicId, systemId });
            for (const h of state.document) {
              const r = callHandler(h, "doctype", tok);
              if (r !== undefined) yield r;
            }
            emit(raw);
            break;
          }
          case "x": {
            // elements never closed: no end-tag handlers, no appended content
            for (const id of t[1]) unsuppress(id);
            const st = { append: [] };
            const tok = newToken(DocumentEndProto, st);
            for (const h of state.document) {
              const r = callHandler(h, "end", tok);
              if (r !== undefined) yield r;
            }
            for (const a of st.append) out.push(a);
            break;
          }
        }
      }
      return out.join("");
    }
    // runSteps drives rewriteSteps with no waiting: a handler's promise is
    // an error (bodies are buffered, so transform() returns the whole
    // rewritten body at once).
    function runSteps(it) {
      const r = it.next();
      if (!r.done) {
        r.value.then(undefined, () => {});
        throw new TypeError("cellhost's HTMLRewriter runs handlers synchronously until bodies are streams: a handler may not return a promise.");
      }
      return r.value;
    }
    // runStepsAsync drives rewriteSteps awaiting each handler's promise (a
    // rejection is thrown back at the handler's step).
    async function runStepsAsync(it) {
      let r = it.next();
      while (!r.done) {
        let v;
        try {
          v = await r.value;
        } catch (e) {
          r = it.throw(e);
          continue;
        }
        r = it.next(v);
      }
      return r.value;
    }
    const rewriterMethods = {
      on(selector, handlers) {
        const st = rewriterState.get(this);
        if (st === undefined) throw illegalInvocation();
        const sel = String(selector);
        native.htmlSelector(sel);
        st.elements.push([sel, isObject(handlers) ? handlers : {}]);
        return this;
      },
      onDocument(handlers) {
        const st = rewriterState.get(this);
        if (st === undefined) throw illegalInvocation();
        st.document.push(isObject(handlers) ? handlers : {});
        return this;
      },
      transform(response) {
        const st = rewriterState.get(this);
        if (st === undefined) throw illegalInvocation();
        if (!(response instanceof Response)) throw new TypeError("Failed to execute 'transform' on 'HTMLRewriter': parameter 1 is not of type 'Response'.");
        if (response.body === null) return new Response(null, response);
        const init = { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) };
        // With WHATWG streams (a global ReadableStream), the body streams as
        // workerd's does: handlers may be async and an error fails the read.
        if (typeof G.ReadableStream === "function") {
          const source = response.arrayBuffer();
          const body = new G.ReadableStream({
            start(controller) {
              return source
                .then((ab) => runStepsAsync(rewriteSteps(st, new Uint8Array(ab))))
                .then((text) => {
                  controller.enqueue(utf8(text));
                  controller.close();
                }, (e) => controller.error(e));
            },
          });
          return new Response(body, init);
        }
        // webapi hook: the body's bytes, taken at once (body.js)
        let src = takeForExport(response);
        if (typeof src === "string") src = utf8(src);
        else if (!(src instanceof Uint8Array)) src = new Uint8Array(native.bodyBuffer(src));
        return new Response(runSteps(rewriteSteps(st, src)), init);
      },
    };
    for (const k of Object.keys(rewriterMethods)) {
      Object.defineProperty(HTMLRewriter.prototype, k, { value: rewriterMethods[k], writable: true, configurable: true, enumerable: true });
    }
    Object.defineProperty(HTMLRewriter.prototype, Symbol.toStringTag, { value: "HTMLRewriter", configurable: true });
    constructorLast(HTMLRewriter);
    return HTMLRewriter;
  }
  lazyGlobal("HTMLRewriter", makeHTMLRewriter);
