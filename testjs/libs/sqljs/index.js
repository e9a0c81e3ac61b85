// sql.js (SQLite compiled to WebAssembly with emscripten) in a Durable
// Object, the emscripten way on Workers: the .wasm imported as a module and
// handed to emscripten through instantiateWasm. The object runs SQL on an
// in-memory database (window functions, JSON, CTEs, prepared statements),
// keeps the database image (db.export()) in its own SQLite storage and
// opens it again from there.
import { DurableObject } from "cloudflare:workers";
import initSqlJs from "sql.js/dist/sql-wasm.js";
import wasm from "sql.js/dist/sql-wasm.wasm";

let SQL;
const sql = async () =>
  (SQL ??= await initSqlJs({
    instantiateWasm(imports, done) {
      const instance = new WebAssembly.Instance(wasm, imports);
      done(instance, wasm);
      return instance.exports;
    },
  }));

export class Books extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS images (id INTEGER PRIMARY KEY CHECK (id = 1), image BLOB)");
  }
  async db() {
    if (!this._db) {
      const S = await sql();
      const row = this.ctx.storage.sql.exec("SELECT image FROM images").toArray()[0];
      this._db = row ? new S.Database(new Uint8Array(row.image)) : new S.Database();
      this._db.run("CREATE TABLE IF NOT EXISTS books (id INTEGER PRIMARY KEY, title TEXT NOT NULL, author TEXT, year INTEGER, tags TEXT)");
    }
    return this._db;
  }
  save() {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO images VALUES (1, ?)", this._db.export().buffer);
  }
  async add(books) {
    const db = await this.db();
    const st = db.prepare("INSERT INTO books (title, author, year, tags) VALUES (:title, :author, :year, :tags)");
    for (const b of books) st.run({ ":title": b.title, ":author": b.author, ":year": b.year, ":tags": JSON.stringify(b.tags) });
    st.free();
    const changes = db.getRowsModified();
    this.save();
    return { changes, count: db.exec("SELECT count(*) FROM books")[0].values[0][0] };
  }
  async query(q) {
    const db = await this.db();
    try {
      return db.exec(q).map((r) => ({ columns: r.columns, values: r.values }));
    } catch (e) {
      return { error: e.message };
    }
  }
  async forget() {
    this._db?.close();
    this._db = undefined;
    return { reopened: (await this.db()).exec("SELECT count(*), sum(year) FROM books")[0].values[0] };
  }
  async info() {
    const db = await this.db();
    const img = db.export();
    return { header: new TextDecoder().decode(img.slice(0, 15)), pageSize: (img[16] << 8) | img[17], version: db.exec("SELECT sqlite_version() >= '3.40'")[0].values[0][0] };
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    const stub = env.BOOKS.get(env.BOOKS.idFromName("lib"));
    try {
      switch (url.pathname) {
        case "/add": return Response.json(await stub.add(await req.json()));
        case "/query": return Response.json(await stub.query(await req.text()));
        case "/forget": return Response.json(await stub.forget());
        case "/info": return Response.json(await stub.info());
        case "/local": {
          const S = await sql();
          const db = new S.Database();
          db.run("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3);");
          const st = db.prepare("SELECT x, x * x AS sq FROM t WHERE x >= ?");
          st.bind([2]);
          const rows = [];
          while (st.step()) rows.push(st.getAsObject());
          st.free();
          const out = { rows, blob: Array.from(db.exec("SELECT x'00ff10'")[0].values[0][0]) };
          db.close();
          return Response.json(out);
        }
      }
      return new Response("not found", { status: 404 });
    } catch (e) {
      return Response.json({ error: e.name, message: e.message }, { status: 500 });
    }
  },
};
