// kysely on a Durable Object's SQLite: kysely's own SqliteDialect over a
// small adapter from its better-sqlite3-style interface to
// ctx.storage.sql.exec (what people write when they bring kysely to a DO),
// kysely's Migrator with two migrations, typed-style queries (joins,
// aggregates, subqueries, upserts, returning), a transaction through
// ctx.storage.transactionSync semantics, and compiled SQL shown for a query.
import { DurableObject } from "cloudflare:workers";
import { Kysely, SqliteDialect, sql } from "kysely";
import { Migrator } from "kysely/migration";

function doDatabase(storage) {
  return {
    close() {},
    prepare(text) {
      return {
        reader: /^\s*(select|with|pragma)\b/i.test(text) || /\breturning\b/i.test(text),
        all(params) { return storage.sql.exec(text, ...params).toArray(); },
        run(params) {
          const cur = storage.sql.exec(text, ...params);
          cur.toArray();
          const id = storage.sql.exec("SELECT last_insert_rowid() AS id").one().id;
          return { changes: cur.rowsWritten, lastInsertRowid: id };
        },
        *iterate(params) { yield* storage.sql.exec(text, ...params); },
      };
    },
  };
}

const migrations = {
  "001_init": {
    async up(db) {
      await db.schema.createTable("customer").addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
        .addColumn("name", "text", (c) => c.notNull().unique()).execute();
      await db.schema.createTable("purchase").addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
        .addColumn("customer_id", "integer", (c) => c.notNull().references("customer.id").onDelete("cascade"))
        .addColumn("item", "text", (c) => c.notNull()).addColumn("cents", "integer", (c) => c.notNull()).execute();
    },
  },
  "002_index": {
    async up(db) {
      await db.schema.createIndex("purchase_customer").on("purchase").column("customer_id").execute();
      await db.schema.alterTable("customer").addColumn("tier", "text", (c) => c.notNull().defaultTo("basic")).execute();
    },
  },
};

export class Shop extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.db = new Kysely({ dialect: new SqliteDialect({ database: doDatabase(ctx.storage) }) });
    ctx.blockConcurrencyWhile(async () => {
      const migrator = new Migrator({ db: this.db, provider: { getMigrations: async () => migrations } });
      const { error, results } = await migrator.migrateToLatest();
      if (error) throw error;
      this.migrated = results.map((r) => `${r.migrationName}:${r.status}`);
    });
  }
  migrations() { return this.migrated; }
  async addCustomer(name, tier) {
    return await this.db.insertInto("customer").values({ name, ...(tier ? { tier } : {}) }).returning(["id", "name", "tier"]).executeTakeFirstOrThrow();
  }
  async buy(name, item, cents) {
    const c = await this.db.selectFrom("customer").select("id").where("name", "=", name).executeTakeFirst();
    if (!c) return { error: `no customer ${name}` };
    const r = await this.db.insertInto("purchase").values({ customer_id: c.id, item, cents }).executeTakeFirst();
    return { id: Number(r.insertId), rows: Number(r.numInsertedOrUpdatedRows) };
  }
  async report() {
    return await this.db.selectFrom("customer as c").leftJoin("purchase as p", "p.customer_id", "c.id")
      .select(["c.name", "c.tier", (eb) => eb.fn.count("p.id").as("n"), (eb) => eb.fn.coalesce(eb.fn.sum("p.cents"), sql.lit(0)).as("total")])
      .groupBy("c.id").orderBy("total", "desc").orderBy("c.name").execute();
  }
  async bigSpenders(min) {
    return await this.db.selectFrom("customer").select("name")
      .where("id", "in", (eb) => eb.selectFrom("purchase").select("customer_id").groupBy("customer_id").having((eb2) => eb2.fn.sum("cents"), ">", min))
      .orderBy("name").execute();
  }
  async upgrade(name) {
    const r = await this.db.updateTable("customer").set({ tier: "gold" }).where("name", "=", name).executeTakeFirst();
    return Number(r.numUpdatedRows);
  }
  async remove(name) {
    await sql`PRAGMA foreign_keys = ON`.execute(this.db);
    const r = await this.db.deleteFrom("customer").where("name", "=", name).executeTakeFirst();
    const left = await this.db.selectFrom("purchase").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    return { deleted: Number(r.numDeletedRows), purchasesLeft: left.n };
  }
  compiled() {
    const q = this.db.selectFrom("purchase").select(["item", "cents"]).where("cents", ">", 100).where("item", "like", "%a%").orderBy("cents", "desc").limit(5).compile();
    return { sql: q.sql, parameters: q.parameters };
  }
  async tables() {
    const t = await this.db.introspection.getTables();
    return t.map((x) => `${x.name}(${x.columns.map((c) => c.name + ":" + c.dataType + (c.isNullable ? "?" : "")).join(",")})`);
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const shop = env.SHOP.getByName(url.searchParams.get("shop") ?? "main");
    const q = (k) => url.searchParams.get(k);
    try {
      let out;
      switch (url.pathname) {
        case "/migrations": out = await shop.migrations(); break;
        case "/customer": out = await shop.addCustomer(q("name"), q("tier")); break;
        case "/buy": out = await shop.buy(q("name"), q("item"), Number(q("cents"))); break;
        case "/report": out = await shop.report(); break;
        case "/big": out = await shop.bigSpenders(Number(q("min"))); break;
        case "/upgrade": out = await shop.upgrade(q("name")); break;
        case "/remove": out = await shop.remove(q("name")); break;
        case "/compiled": out = await shop.compiled(); break;
        case "/tables": out = await shop.tables(); break;
        default: return new Response("not found", { status: 404 });
      }
      return Response.json(out);
    } catch (e) {
      return Response.json({ name: e.name, message: e.message }, { status: 500 });
    }
  },
};
