// The D1Database object of one binding. native sends the SQL to the
// database's cell and returns a promise of its answer (d1/bind.go).
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
  function d1Error(e) {
    const msg = e && e.message !== undefined ? String(e.message) : String(e);
    return new Error(msg);
  }
  // ask runs native's call and awaits its answer; a failure becomes an
  // Error with D1's text.
  async function ask(fn) {
    let p;
    try { p = fn(); } catch (e) { throw d1Error(e); }
    try { return await p; } catch (e) { throw d1Error(e); }
  }
  // A bookmark names a point in the database's history, as workerd's local
  // D1 words it: "<12 hex digits of the time in ms>-<8 hex digits of a
  // counter of queries>".
  let queries = 0;
  function bookmark() {
    queries++;
    return Date.now().toString(16).padStart(12, "0") + "-" + queries.toString(16).padStart(8, "0");
  }
  class D1PreparedStatement {
    #sql; #params; #ran;
    // ran (optional) is told after each query: a session's bookmark moves.
    constructor(sql, params, ran) { this.#sql = sql; this.#params = params; this.#ran = ran; }
    bind(...values) { return new D1PreparedStatement(this.#sql, values.map(param), this.#ran); }
    async #query() {
      const r = await ask(() => native.query([this.statement]));
      if (this.#ran) this.#ran();
      return r;
    }
    get statement() { return { sql: this.#sql, params: this.#params }; }
    async first(column) {
      const [r] = await this.#query();
      const rows = objects(r);
      if (rows.length === 0) return null;
      if (column === undefined) return rows[0];
      if (!(column in rows[0])) throw new Error("D1_COLUMN_NOTFOUND: Column not found (" + column + ")");
      return rows[0][column];
    }
    async all() {
      const [r] = await this.#query();
      return { success: true, meta: r.meta, results: objects(r) };
    }
    async run() { return this.all(); }
    async raw(options) {
      const [r] = await this.#query();
      const rows = r.rows.map((row) => Array.from(row));
      if (options && options.columnNames) return [Array.from(r.columns), ...rows];
      return rows;
    }
  }
  // A session: D1's read replication has one copy here, so a session only
  // keeps its bookmark (null until its first query, unless it began at one).
  class D1DatabaseSession {
    #db; #bookmark = null; #ran;
    constructor(db, constraint) {
      this.#db = db;
      if (typeof constraint === "string" && constraint !== "first-primary" && constraint !== "first-unconstrained") {
        this.#bookmark = constraint;
      }
      this.#ran = () => { this.#bookmark = bookmark(); };
    }
    prepare(sql) { return new D1PreparedStatement(String(sql), [], this.#ran); }
    async batch(statements) {
      const r = await this.#db.batch(statements);
      this.#ran();
      return r;
    }
    getBookmark() { return this.#bookmark; }
  }
  class D1Database {
    prepare(sql) { return new D1PreparedStatement(String(sql), []); }
    async batch(statements) {
      const sts = statements.map((s) => {
        if (!(s instanceof D1PreparedStatement)) throw new TypeError("D1_TYPE_ERROR: batch() takes an array of prepared statements");
        return s.statement;
      });
      const rs = await ask(() => native.query(sts));
      return rs.map((r) => ({ success: true, meta: r.meta, results: objects(r) }));
    }
    async exec(script) { return ask(() => native.exec(String(script))); }
    withSession(constraint) { return new D1DatabaseSession(this, constraint); }
    async dump() { throw new Error("D1_DUMP_ERROR: dump() is not supported by cellhost"); }
  }
  return new D1Database();
})
