// The D1Database object of one binding. native runs the SQL (d1/bind.go).
(function (native) {
  "use strict";
  function param(v) {
    if (v === null) return null;
    switch (typeof v) {
      case "number": case "string": return v;
      case "boolean": return v ? 1 : 0;
      case "bigint": return Number(v);
    }
    if (v instanceof ArrayBuffer) return Array.from(new Uint8Array(v));
    if (ArrayBuffer.isView(v)) return Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
    if (Array.isArray(v)) return v;
    throw new Error("D1_TYPE_ERROR: Type '" + typeof v + "' not supported for value '" + String(v) + "'");
  }
  function objects(r) {
    return r.rows.map((row) => {
      const o = {};
      r.columns.forEach((c, i) => { o[c] = row[i]; });
      return o;
    });
  }
  function wrap(fn) {
    try { return fn(); } catch (e) {
      const msg = e && e.message !== undefined ? String(e.message) : String(e);
      const err = new Error(msg);
      throw err;
    }
  }
  class D1PreparedStatement {
    #sql; #params;
    constructor(sql, params) { this.#sql = sql; this.#params = params; }
    bind(...values) { return new D1PreparedStatement(this.#sql, values.map(param)); }
    get statement() { return { sql: this.#sql, params: this.#params }; }
    async first(column) {
      const [r] = wrap(() => native.query([this.statement]));
      const rows = objects(r);
      if (rows.length === 0) return null;
      if (column === undefined) return rows[0];
      if (!(column in rows[0])) throw new Error("D1_COLUMN_NOTFOUND: Column not found (" + column + ")");
      return rows[0][column];
    }
    async all() {
      const [r] = wrap(() => native.query([this.statement]));
      return { success: true, meta: r.meta, results: objects(r) };
    }
    async run() { return this.all(); }
    async raw(options) {
      const [r] = wrap(() => native.query([this.statement]));
      const rows = r.rows.map((row) => Array.from(row));
      if (options && options.columnNames) return [Array.from(r.columns), ...rows];
      return rows;
    }
  }
  class D1DatabaseSession {
    #db;
    constructor(db) { this.#db = db; }
    prepare(sql) { return this.#db.prepare(sql); }
    batch(statements) { return this.#db.batch(statements); }
    getBookmark() { return null; }
  }
  class D1Database {
    prepare(sql) { return new D1PreparedStatement(String(sql), []); }
    async batch(statements) {
      const sts = statements.map((s) => {
        if (!(s instanceof D1PreparedStatement)) throw new TypeError("D1_TYPE_ERROR: batch() takes an array of prepared statements");
        return s.statement;
      });
      const rs = wrap(() => native.query(sts));
      return rs.map((r) => ({ success: true, meta: r.meta, results: objects(r) }));
    }
    async exec(script) { return wrap(() => native.exec(String(script))); }
    withSession() { return new D1DatabaseSession(this); }
    async dump() { throw new Error("D1_DUMP_ERROR: dump() is not supported by cellhost"); }
  }
  return new D1Database();
})
