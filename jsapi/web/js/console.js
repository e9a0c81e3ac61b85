  // ---------------------------------------------------------------- console
  const identRe = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  function quote(s) {
    return "'" + s.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n") + "'";
  }
  function ctorName(o) {
    try {
      const p = Object.getPrototypeOf(o);
      if (p === null) return null;
      const c = p.constructor;
      return typeof c === "function" && typeof c.name === "string" ? c.name : "";
    } catch {
      return "";
    }
  }
  function inspect(v, depth = 2, seen = []) {
    switch (typeof v) {
      case "string":
        return seen.length === 0 ? v : quote(v);
      case "number":
        return Object.is(v, -0) ? "-0" : String(v);
      case "bigint":
        return v + "n";
      case "symbol":
        return v.toString();
      case "undefined":
        return "undefined";
      case "boolean":
        return String(v);
      case "function": {
        let src = "", name = "";
        try {
          // A Proxy of a function may have neither source nor a string name.
          src = Function.prototype.toString.call(v);
          if (typeof v.name === "string") name = v.name;
        } catch {}
        if (src.startsWith("class")) return `[class ${name || "(anonymous)"}]`;
        return name ? `[Function: ${name}]` : "[Function (anonymous)]";
      }
    }
    if (v === null) return "null";
    if (seen.includes(v)) return "[Circular *1]";
    if (v instanceof Error) {
      const stack = typeof v.stack === "string" ? v.stack : "";
      const head = `${v.name}: ${v.message}`;
      return stack && stack.startsWith(head) ? stack : stack ? head + "\n" + stack : head;
    }
    if (v instanceof Date) return isNaN(v.getTime()) ? "Invalid Date" : v.toISOString();
    if (v instanceof RegExp) return String(v);
    if (v instanceof URL) return `URL '${v.href}'`;
    const inner = seen.concat([v]);
    const fmt = (x) => (typeof x === "string" ? quote(x) : inspect(x, depth - 1, inner));
    const wrap = (prefix, items) => (items.length === 0 ? prefix + "{}" : `${prefix}{ ${items.join(", ")} }`);
    if (Array.isArray(v)) {
      if (depth < 0) return "[Array]";
      const items = [];
      let holes = 0;
      const flushHoles = () => {
        if (holes) items.push(`<${holes} empty item${holes > 1 ? "s" : ""}>`);
        holes = 0;
      };
      const n = Math.min(v.length, 100);
      for (let i = 0; i < n; i++) {
        if (!(i in v)) {
          holes++;
          continue;
        }
        flushHoles();
        items.push(fmt(v[i]));
      }
      flushHoles();
      if (v.length > 100) items.push(`... ${v.length - 100} more item${v.length - 100 > 1 ? "s" : ""}`);
      for (const k of Object.keys(v)) if (!/^\d+$/.test(k)) items.push(`${identRe.test(k) ? k : quote(k)}: ${fmt(v[k])}`);
      return items.length === 0 ? "[]" : `[ ${items.join(", ")} ]`;
    }
    if (v instanceof Map) {
      if (depth < 0) return "[Map]";
      const items = [];
      for (const [k, x] of v) items.push(`${fmt(k)} => ${fmt(x)}`);
      return wrap(`Map(${v.size}) `, items);
    }
    if (v instanceof Set) {
      if (depth < 0) return "[Set]";
      const items = [];
      for (const x of v) items.push(fmt(x));
      return wrap(`Set(${v.size}) `, items);
    }
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
      const items = Array.from(v.subarray(0, 100), (x) => fmt(x));
      if (v.length > 100) items.push(`... ${v.length - 100} more items`);
      return `${ctorName(v)}(${v.length}) [${items.length ? " " + items.join(", ") + " " : ""}]`;
    }
    if (isArrayBuffer(v)) {
      const b = Array.from(new Uint8Array(v).subarray(0, 50), (x) => x.toString(16).padStart(2, "0"));
      return `ArrayBuffer { [Uint8Contents]: <${b.join(" ")}${v.byteLength > 50 ? " ... " + (v.byteLength - 50) + " more bytes" : ""}>, byteLength: ${v.byteLength} }`;
    }
    if (v instanceof Promise) return "Promise { <unknown> }";
    if (v instanceof Headers) return `Headers(${[...v].length}) { ${[...v].map(([k, x]) => `${quote(k)} => ${quote(x)}`).join(", ")} }`;
    const name = ctorName(v);
    if (depth < 0) return name === "Object" || name === "" ? "[Object]" : `[${name || "Object"}]`;
    const items = [];
    for (const k of Object.keys(v)) {
      let x;
      try {
        x = v[k];
      } catch (e) {
        x = e;
      }
      items.push(`${identRe.test(k) ? k : quote(k)}: ${fmt(x)}`);
    }
    let prefix = "";
    if (name === null) prefix = "[Object: null prototype] ";
    else if (name !== "Object") prefix = (name || "Object") + " ";
    const tag = v[Symbol.toStringTag];
    if (typeof tag === "string" && tag !== name && name !== null) prefix = `${name || "Object"} [${tag}] `;
    return wrap(prefix, items);
  }
  function format(args) {
    if (args.length === 0) return "";
    let out = "";
    let i = 0;
    if (typeof args[0] === "string") {
      const f = args[0];
      i = 1;
      let last = 0;
      for (let j = 0; j < f.length - 1; j++) {
        if (f[j] !== "%") continue;
        const c = f[j + 1];
        let rep;
        if (c === "%") rep = "%";
        else if (i < args.length) {
          const a = args[i];
          switch (c) {
            case "s":
              rep = typeof a === "string" ? a : typeof a === "bigint" ? a + "n" : typeof a === "symbol" ? a.toString() : isObject(a) ? inspect(a, 1, [null]) : inspect(a);
              break;
            case "d":
            case "i":
              rep = typeof a === "bigint" ? a + "n" : isObject(a) ? "NaN" : String(c === "i" ? parseInt(a) : Number(a));
              break;
            case "f":
              rep = String(parseFloat(a));
              break;
            case "j":
              try {
                rep = jsonStringify(a);
              } catch {
                rep = "[Circular]";
              }
              break;
            case "o":
            case "O":
              rep = inspect(a, c === "o" ? 4 : 2, [null]);
              break;
            case "c":
              rep = "";
              break;
            default:
              continue;
          }
          i++;
        } else continue;
        out += f.slice(last, j) + rep;
        last = j + 2;
        j++;
      }
      out += f.slice(last);
    }
    for (; i < args.length; i++) {
      if (out !== "" || i > 0) out += " ";
      out += typeof args[i] === "string" ? args[i] : inspect(args[i]);
    }
    return out;
  }
  let groupIndent = "";
  const counts = new Map();
  const timers = new Map();
  function emit(args, level = "log") {
    let line = format(args);
    if (groupIndent) line = line.split("\n").map((l) => groupIndent + l).join("\n");
    native.consoleWrite(line, level);
  }
  const consoleObj = {
    log: (...a) => emit(a),
    info: (...a) => emit(a, "info"),
    debug: (...a) => emit(a, "debug"),
    warn: (...a) => emit(a, "warn"),
    error: (...a) => emit(a, "error"),
    trace: (...a) => emit(["Trace:", ...a]),
    dir: (v) => emit([inspect(v, 2, [null])]),
    dirxml: (...a) => emit(a),
    table: (...a) => emit(a),
    assert: (cond, ...a) => {
      if (!cond) emit(a.length ? ["Assertion failed:", ...a] : ["Assertion failed"], "error");
    },
    group: (...a) => {
      if (a.length) emit(a);
      groupIndent += "  ";
    },
    groupCollapsed: (...a) => consoleObj.group(...a),
    groupEnd: () => {
      groupIndent = groupIndent.slice(2);
    },
    count: (label = "default") => {
      const n = (counts.get(label) ?? 0) + 1;
      counts.set(label, n);
      emit([`${label}: ${n}`]);
    },
    countReset: (label = "default") => counts.delete(label),
    time: (label = "default") => timers.set(label, Date.now()),
    timeLog: (label = "default", ...a) => emit([`${label}: ${Date.now() - (timers.get(label) ?? Date.now())}ms`, ...a]),
    timeEnd: (label = "default") => {
      emit([`${label}: ${Date.now() - (timers.get(label) ?? Date.now())}ms`]);
      timers.delete(label);
    },
  };
  defineGlobal("console", consoleObj);

